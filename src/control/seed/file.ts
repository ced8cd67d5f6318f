// `edgeplane serve --seed file.json`: the same document POST /_edgeplane/seed takes, read at start.
import fs from 'node:fs';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { Edgeplane } from '../../app.js';
import type { Config } from '../../config.js';
import { type Seed, type SeedResult, SeedSchema } from './schemas.js';

const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv) => void;

export function readSeedFile(file: string): Seed {
  let parsed: unknown;
  try {
    parsed = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (error) {
    throw new Error(`seed file ${file}: ${(error as Error).message}`);
  }
  const ajv = new Ajv({ allErrors: true, useDefaults: true });
  addFormats(ajv);
  const validate = ajv.compile(SeedSchema);
  if (!validate(parsed)) {
    throw new Error(`seed file ${file} is not valid:\n  ${(validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message}`).join('\n  ')}`);
  }
  return parsed as Seed;
}

/** Applies the configured seed file; the operator token is needed only for requests not sent `as` a client. */
export async function applySeedFile(edgeplane: Edgeplane, config: Config): Promise<SeedResult | undefined> {
  if (!config.seed) return undefined;
  const operator = config.adminToken ?? edgeplane.generatedOperatorToken;
  const result = await edgeplane.control.seeds.apply(edgeplane.app, readSeedFile(config.seed), operator ? `APIKey ${operator}` : undefined);
  edgeplane.app.log.info(`seed ${config.seed} applied: ${result.clients.length} clients, ${result.requests.length} requests`);
  return result;
}
