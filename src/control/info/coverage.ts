// Implementation coverage: which of the reference's operations this server answers, against the
// committed route index of the reference catalogue (reference/catalogue-routes.json: read at start-up,
// where the 1.4 MB catalogue itself takes 20-30 ms to parse on a first call and 4.7 MB of heap to keep).
import { readRouteIndex } from '../../platform/catalogue/routes.js';
import { operationKey } from '../../platform/http.js';

export interface Operation {
  method: string;
  path: string;
  operationId?: string;
}

export interface AreaCoverage {
  area: string;
  reference: number;
  implemented: number;
  /** Of the implemented: served by a modelled product, and served by the catalogue engine. */
  modelled: number;
  catalogue: number;
}

export interface Coverage {
  reference: number;
  implemented: number;
  modelled: number;
  catalogue: number;
  percent: number;
  areas: AreaCoverage[];
}

export type Implementation = 'modelled' | 'catalogue';

/** Routes of the catalogue engine carry `catalogue.<reference operation id>`; every other route is modelled. */
export function implementationOf(operationId: string | undefined): Implementation {
  return operationId?.startsWith('catalogue.') ? 'catalogue' : 'modelled';
}

export { operationKey };

export function referenceOperations(): Operation[] {
  return readRouteIndex().map(({ method, path }) => ({ method, path }));
}

export function referenceKeys(reference: Operation[] = referenceOperations()): Set<string> {
  return new Set(reference.map((op) => operationKey(op.method, op.path)));
}

const areaOf = (path: string) => path.split('/')[1] ?? '';

export function coverageOf(implemented: Operation[], reference: Operation[] = referenceOperations()): Coverage {
  const done = new Map(implemented.map((op) => [operationKey(op.method, op.path), implementationOf(op.operationId)]));
  const areas = new Map<string, AreaCoverage>();
  let count = 0;
  const by = { modelled: 0, catalogue: 0 };
  for (const op of reference) {
    const area = areas.get(areaOf(op.path)) ?? { area: areaOf(op.path), reference: 0, implemented: 0, modelled: 0, catalogue: 0 };
    areas.set(area.area, area);
    area.reference += 1;
    const how = done.get(operationKey(op.method, op.path));
    if (how) {
      area.implemented += 1;
      area[how] += 1;
      by[how] += 1;
      count += 1;
    }
  }
  return {
    reference: reference.length,
    implemented: count,
    ...by,
    percent: reference.length === 0 ? 0 : Math.round((count / reference.length) * 1000) / 10,
    areas: [...areas.values()].sort((a, b) => a.area.localeCompare(b.area)),
  };
}
