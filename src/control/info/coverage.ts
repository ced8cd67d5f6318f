// Implementation coverage: which of the reference's operations this server answers. The reference list
// (method and path only) is generated from the published OpenAPI document by scripts/coverage.ts.
import { REFERENCE_OPERATIONS } from './reference-operations.js';

export interface Operation {
  method: string;
  path: string;
}

export interface AreaCoverage {
  area: string;
  reference: number;
  implemented: number;
}

export interface Coverage {
  reference: number;
  implemented: number;
  percent: number;
  areas: AreaCoverage[];
}

/** `/cdn/resources/:id` and `/cdn/resources/{resource_id}` are the same operation: parameter names differ. */
export function operationKey(method: string, path: string): string {
  const normal = path.replace(/\{[^}]+\}/g, '{}').replace(/:[A-Za-z0-9_]+/g, '{}').replace(/\/+$/, '');
  return `${method.toUpperCase()} ${normal}`;
}

export function referenceOperations(): Operation[] {
  return REFERENCE_OPERATIONS.map((line) => {
    const [method, path] = line.split(' ');
    return { method, path };
  });
}

export function referenceKeys(reference: Operation[] = referenceOperations()): Set<string> {
  return new Set(reference.map((op) => operationKey(op.method, op.path)));
}

const areaOf = (path: string) => path.split('/')[1] ?? '';

export function coverageOf(implemented: Operation[], reference: Operation[] = referenceOperations()): Coverage {
  const done = new Set(implemented.map((op) => operationKey(op.method, op.path)));
  const areas = new Map<string, AreaCoverage>();
  let count = 0;
  for (const op of reference) {
    const area = areas.get(areaOf(op.path)) ?? { area: areaOf(op.path), reference: 0, implemented: 0 };
    areas.set(area.area, area);
    area.reference += 1;
    if (done.has(operationKey(op.method, op.path))) {
      area.implemented += 1;
      count += 1;
    }
  }
  return {
    reference: reference.length,
    implemented: count,
    percent: reference.length === 0 ? 0 : Math.round((count / reference.length) * 1000) / 10,
    areas: [...areas.values()].sort((a, b) => a.area.localeCompare(b.area)),
  };
}
