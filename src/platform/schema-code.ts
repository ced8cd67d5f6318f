// Route validators and serialisers compiled ahead of time, by `npm run build`, into
// dist/schema-code.pack: one CommonJS module per schema, found by a hash of what it compiles (the kind of
// compiler, its options' version and the schema as the compiler receives it). At run time a route's first call looks its
// schema's file up and loads it (about a millisecond) instead of compiling (1-300 ms: the CDN options
// take the longest). A schema with no file (run from the sources, or a schema the build did not see)
// is compiled as before: the files only save time, they never decide what is valid. Beside the pack,
// dist/schema-code.pack.v8-cache holds V8's code cache of each module (see writeCodeCache): a module
// loaded with it is not compiled again, nor is its function at its first call.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import vm from 'node:vm';
import type { ValidateFunction } from 'ajv';
import HELPERS from './schema-code-helpers.cjs';

/**
 * Changes whenever what the compilers produce for the same schema could change (their options, the
 * schema rewriting before them, the libraries' versions are in the build's inputs): files of another
 * version are never found, since it is part of their names.
 */
export const SCHEMA_CODE_VERSION = 1;

/**
 * Which compiler a validator comes from: the modelled routes' (see createSchemaCompiler), the catalogue
 * engine's (bodies, and parameters coerced from text; see catalogue-engine/validate.ts) or WAAP
 * ingestion's (one record of a bulk body; see waap/request-events/ingest.ts).
 */
export type ValidatorKind = PlatformValidatorKind | ProductValidatorKind;
export type ProductValidatorKind = 'catalogue-body' | 'catalogue-text' | 'waap-record';
export type PlatformValidatorKind = 'api-body' | 'control-body' | 'text';

export type Serialize = (data: unknown) => string;

/** Where the compilers look for code compiled ahead of time. */
export interface SchemaCode {
  /** The build's collector: asked for every schema as its route is added, not on first use. */
  readonly collects?: boolean;
  validator(kind: ValidatorKind, schema: object): ValidateFunction | undefined;
  serializer(schema: object): Serialize | undefined;
  /** Reads what every lookup needs (the pack's index) before the first route asks. */
  prepare?(): void;
}

/** The file name (without extension) of a schema's compiled code. */
export function schemaCodeKey(kind: ValidatorKind | 'serializer', schema: object): string {
  return createHash('sha256')
    .update(`${SCHEMA_CODE_VERSION}\n${kind}\n${JSON.stringify(schema)}`)
    .digest('hex')
    .slice(0, 32);
}

/**
 * The build writes all the code into one file, dist/schema-code.pack: a first line holding the index
 * (JSON: key -> [offset, length] in bytes after that line), then each schema's CommonJS module. One file
 * rather than hundreds in the package; a lookup reads only its own module's bytes.
 */
export const SCHEMA_CODE_FILE = 'schema-code.pack';
/**
 * The packages' runtime helpers the compiled code requires (the build refuses code requiring another
 * package: SchemaCodeWriter.write), given by schema-code-helpers.cjs, which the build bundles with the
 * server: resolved through the packages' files at run time, they cost the first request that needed one
 * 5-7 ms of package.json reads. Names starting `edgeplane:` are given by the server.
 */
export const RUNTIME_HELPERS: readonly string[] = Object.keys(HELPERS);

/** The code cache's file: the pack's name with this added. */
export const SCHEMA_CODE_CACHE_SUFFIX = '.v8-cache';

/** Compiled code read from the file the build wrote. */
export class SchemaCodePack implements SchemaCode {
  private readonly code: PackFile;
  private readonly codeCache: PackFile;
  private readonly require: (id: string) => unknown;
  /** Modules loaded with their code cache, and with one V8 refused (made by another Node or under other flags). */
  readonly codeCacheUse = { accepted: 0, refused: 0 };

  /**
   * `modules`: what the code gets when it requires one of these names instead of a package (the
   * catalogue engine's own formats, which live in the server's bundle, not in a package).
   */
  constructor(
    private readonly file: string,
    modules: Record<string, unknown> = {},
  ) {
    this.code = new PackFile(file);
    this.codeCache = new PackFile(`${file}${SCHEMA_CODE_CACHE_SUFFIX}`);
    this.require = (id: string) => {
      if (Object.hasOwn(modules, id)) return modules[id];
      if (Object.hasOwn(HELPERS, id)) return HELPERS[id];
      throw new Error(`compiled schema code requires ${id}, which the server does not give`);
    };
  }

  validator(kind: ValidatorKind, schema: object): ValidateFunction | undefined {
    return this.load(schemaCodeKey(kind, schema)) as ValidateFunction | undefined;
  }

  serializer(schema: object): Serialize | undefined {
    return this.load(schemaCodeKey('serializer', schema)) as Serialize | undefined;
  }

  prepare(): void {
    this.code.prepare();
    this.codeCache.prepare();
  }

  private load(key: string): unknown {
    const code = this.code.read(key)?.toString('utf8');
    if (code === undefined) return undefined;
    const script = this.script(key, code, this.codeCache.read(cacheKey(key, code)));
    if (script.cachedDataRejected === true) this.codeCacheUse.refused += 1;
    else if (script.cachedDataRejected === false) this.codeCacheUse.accepted += 1;
    return this.run(key, script);
  }

  private script(key: string, code: string, cachedData?: Buffer): vm.Script {
    return new vm.Script(`(function (exports, require, module, __filename, __dirname) {${code}\n})`, { filename: `${this.file}/${key}.cjs`, cachedData });
  }

  private run(key: string, script: vm.Script): unknown {
    const module = { exports: {} as { default?: unknown } };
    (script.runInThisContext() as (...args: unknown[]) => void)(module.exports, this.require, module, `${this.file}/${key}.cjs`, path.dirname(this.file));
    return module.exports.default ?? module.exports;
  }

  /**
   * Writes the code cache of every module beside the pack; returns its size in bytes. Each module is
   * compiled, run and its function called once (validators and serialisers are pure; what the call
   * says is ignored), so the cache holds that function compiled too, which a route's first call would
   * otherwise compile. V8 takes a cache only in a process under the same V8 version and flags: the build
   * has the built command write it as it exits (see src/launcher.ts).
   */
  writeCodeCache(): number {
    const caches = new Map<string, Buffer>();
    for (const key of this.code.keys()) {
      const code = this.code.read(key)!.toString('utf8');
      const script = this.script(key, code);
      try {
        const made = this.run(key, script);
        if (typeof made === 'function') made({});
      } catch {
        // A call with an empty object may throw (a serialiser missing a required field): compiled all the same.
      }
      caches.set(cacheKey(key, code), script.createCachedData());
    }
    return writeSchemaCodePack(`${this.file}${SCHEMA_CODE_CACHE_SUFFIX}`, caches);
  }
}

/**
 * A module's entry in the code cache: its key and a hash of its code. V8 checks a cache against its
 * source's length, not its text: a cache left from another build's code of the same length would run
 * that code.
 */
function cacheKey(key: string, code: string): string {
  return `${key}-${createHash('sha256').update(code).digest('hex').slice(0, 32)}`;
}

/** A file in the pack's layout (an index line, then the entries); none when it does not exist. */
class PackFile {
  private index: { entries: Record<string, [number, number]>; start: number } | null | undefined;

  constructor(private readonly file: string) {}

  prepare(): void {
    this.index ??= fs.existsSync(this.file) ? readIndex(this.file) : null;
  }

  has(key: string): boolean {
    this.prepare();
    return this.index ? Object.hasOwn(this.index.entries, key) : false;
  }

  keys(): string[] {
    this.prepare();
    return Object.keys(this.index?.entries ?? {});
  }

  read(key: string): Buffer | undefined {
    if (!this.has(key)) return undefined;
    const [offset, length] = this.index!.entries[key];
    return readBytes(this.file, this.index!.start + offset, length);
  }
}

function readBytes(file: string, position: number, length: number): Buffer {
  const fd = fs.openSync(file, 'r');
  try {
    const buffer = Buffer.alloc(length);
    let read = 0;
    while (read < length) {
      const n = fs.readSync(fd, buffer, read, length - read, position + read);
      if (n === 0) throw new Error(`${file} is shorter than its index says`);
      read += n;
    }
    return buffer;
  } finally {
    fs.closeSync(fd);
  }
}

/** The first line of a pack file: its index. */
function readIndex(file: string): { entries: Record<string, [number, number]>; start: number } {
  const fd = fs.openSync(file, 'r');
  try {
    let head = Buffer.alloc(0);
    for (;;) {
      const chunk = Buffer.alloc(65_536);
      const n = fs.readSync(fd, chunk, 0, chunk.length, head.length);
      if (n === 0) throw new Error(`${file} has no index line`);
      head = Buffer.concat([head, chunk.subarray(0, n)]);
      const newline = head.indexOf(10);
      if (newline >= 0) return { entries: JSON.parse(head.subarray(0, newline).toString('utf8')) as Record<string, [number, number]>, start: newline + 1 };
    }
  } finally {
    fs.closeSync(fd);
  }
}

/** Writes a pack of modules (key -> CommonJS source, or a module's code cache) to `file`; returns its size in bytes. */
export function writeSchemaCodePack(file: string, modules: Map<string, string | Buffer>): number {
  const index: Record<string, [number, number]> = {};
  const bodies: Buffer[] = [];
  let offset = 0;
  for (const [key, code] of modules) {
    const body = typeof code === 'string' ? Buffer.from(`${code}\n`, 'utf8') : code;
    index[key] = [offset, body.length];
    bodies.push(body);
    offset += body.length;
  }
  const all = Buffer.concat([Buffer.from(`${JSON.stringify(index)}\n`, 'utf8'), ...bodies]);
  fs.writeFileSync(file, all);
  return all.length;
}

/**
 * The build's schema-code pack beside this module, when there is one: dist/schema-code.pack in the
 * built package (this module is then part of dist/server.cjs or dist/index.mjs); none when running
 * from the sources.
 */
export function builtSchemaCode(modules: Record<string, unknown> = {}, from = path.dirname(fileURLToPath(import.meta.url))): SchemaCodePack | undefined {
  const file = path.join(from, SCHEMA_CODE_FILE);
  return fs.existsSync(file) ? new SchemaCodePack(file, modules) : undefined;
}
