// The build side of platform/schema-code.ts: collects every schema the route compilers are asked for
// and writes each one's validator or serialiser as a CommonJS module of the pack (Ajv's standalone code,
// fast-json-stringify's standalone mode), made with the same options as at run time. Used by
// scripts/build.ts only; the server never loads this module.
import type { Ajv, ValidateFunction } from 'ajv';
import standaloneCode from 'ajv/dist/standalone/index.js';
import { transformSync } from 'esbuild';
import fastJson from 'fast-json-stringify';
import {
  type ProductValidatorKind,
  RUNTIME_HELPERS,
  type SchemaCode,
  schemaCodeKey,
  type Serialize,
  type ValidatorKind,
  writeSchemaCodePack,
} from './schema-code.js';
import { appendErrorsInPlace, isPlatformKind, makeAjv } from './validation.js';

// ajv's standalone module is CommonJS with a default export.
const writeStandalone = ((standaloneCode as unknown as { default?: typeof standaloneCode }).default ?? standaloneCode) as unknown as (
  ajv: Ajv,
  validate: ValidateFunction,
) => string;

/** An Ajv instance made as a kind's compiler makes it at run time, with `code.source` on. */
export type SourceAjvFactory = () => Ajv;

export class SchemaCodeWriter implements SchemaCode {
  readonly collects = true;
  private readonly files = new Map<string, () => string>();
  private readonly ajvs = new Map<ValidatorKind, Ajv>();

  /**
   * `compilers`: the kinds whose compiler lives in a product (the catalogue engine's, WAAP ingestion's);
   * the platform's own kinds are made by makeAjv.
   */
  constructor(private readonly compilers: Partial<Record<ProductValidatorKind, SourceAjvFactory>> = {}) {}

  /** Records the schema's code; returns nothing, so the caller compiles as it would without a build. */
  validator(kind: ValidatorKind, schema: object): ValidateFunction | undefined {
    const key = schemaCodeKey(kind, schema);
    if (!this.files.has(key)) {
      this.files.set(key, () => {
        let ajv = this.ajvs.get(kind);
        if (!ajv) this.ajvs.set(kind, (ajv = this.sourceAjv(kind)));
        // A copy: Ajv keeps the schema object it compiled, and the caller compiles the same one again.
        // Standalone code is written from the code before Ajv's `code.process`: the same rewrite again.
        return appendErrorsInPlace(writeStandalone(ajv, ajv.compile(structuredClone(schema))));
      });
    }
    return undefined;
  }

  private sourceAjv(kind: ValidatorKind): Ajv {
    if (isPlatformKind(kind)) return makeAjv(kind, true);
    const make = this.compilers[kind];
    if (!make) throw new Error(`the build was given no compiler for ${kind} schemas`);
    return make();
  }

  serializer(schema: object): Serialize | undefined {
    const key = schemaCodeKey('serializer', schema);
    if (!this.files.has(key))
      this.files.set(key, () => fastJson(structuredClone(schema), { mode: 'standalone', inlineValidators: true } as never) as unknown as string);
    return undefined;
  }

  get size(): number {
    return this.files.size;
  }

  /**
   * Writes every schema's code, minified (a third of the size to read and parse on a first call, and of
   * the package), into one pack file (see platform/schema-code.ts); returns its size in bytes.
   */
  write(file: string): number {
    const minified = (code: string) => transformSync(code, { minify: true, format: 'cjs', platform: 'node', target: 'node20' }).code;
    const modules = new Map([...this.files].map(([key, code]) => [key, minified(code())]));
    for (const code of modules.values()) assertKnownRequires(code);
    return writeSchemaCodePack(file, modules);
  }
}

/** The names a module's code requires. */
export function requiredBy(code: string): string[] {
  return [...code.matchAll(/\brequire\("([^"]+)"\)/g)].map((match) => match[1]);
}

/** Code may require only the runtime helpers the server bundles (RUNTIME_HELPERS) and what it gives (`edgeplane:`). */
export function assertKnownRequires(code: string): void {
  const unknown = requiredBy(code).filter((id) => !RUNTIME_HELPERS.includes(id) && !id.startsWith('edgeplane:'));
  if (unknown.length > 0) throw new Error(`compiled schema code requires ${unknown.join(', ')}: add it to RUNTIME_HELPERS (src/platform/schema-code.ts)`);
}
