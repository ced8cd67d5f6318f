// The package entry for in-process use: `import { startEdgeplane } from 'edgeplane'` starts a server on a
// free port inside the test process, with known tokens and a typed control client.
import { randomSecret } from './platform/auth/credentials.js';
import { loadConfig, type SettingName } from './config.js';
import { ControlClient } from './control/client.js';
import type { Seed, SeedResult } from './control/seed/schemas.js';
import { startServer } from './server.js';

export { ControlClient, ControlError, type ClockState, type JournalFilter } from './control/client.js';
export type { Fault, FaultCreate } from './control/faults/schemas.js';
export type { JournalEntry } from './control/journal/schemas.js';
export type { Seed, SeedResult } from './control/seed/schemas.js';
export type { StateDocument } from './control/state/service.js';

export interface StartOptions {
  /** API token of the demo client (generated when absent). */
  apiKey?: string;
  /** Operator token of the control API (generated when absent). */
  adminToken?: string;
  /** A seed document applied after start, or the path of a seed file. */
  seed?: Seed | string;
  /** Any other setting of `edgeplane serve` (taskMode, databaseUrl, journalBodies, ...). */
  settings?: Partial<Record<SettingName, unknown>>;
}

export interface RunningEdgeplane {
  /** Base URL, e.g. http://127.0.0.1:41234 */
  url: string;
  /** Token of the demo client: send `Authorization: APIKey <apiKey>`. */
  apiKey: string;
  /** Operator token of /_edgeplane. */
  adminToken: string;
  /** Client id of the demo account. */
  clientId: number;
  /** Typed client of the control API: clock, faults, journal, state, seed, info. */
  control: ControlClient;
  /** What the seed option created (clients, tokens, request answers). */
  seeded?: SeedResult;
  close(): Promise<void>;
}

export async function startEdgeplane(options: StartOptions = {}): Promise<RunningEdgeplane> {
  const apiKey = options.apiKey ?? `ep_${randomSecret(24)}`;
  const adminToken = options.adminToken ?? `op_${randomSecret(24)}`;
  const config = loadConfig(
    {},
    {
      memory: true,
      host: '127.0.0.1',
      port: 0,
      logLevel: 'error',
      ...options.settings,
      seed: typeof options.seed === 'string' ? options.seed : undefined,
      apiKey,
      adminToken,
    },
  );
  const server = await startServer(config);
  try {
    const control = new ControlClient(server.url, adminToken);
    const seeded = options.seed && typeof options.seed === 'object' ? await control.seed(options.seed) : undefined;
    const demo = await server.edgeplane.iam.tokens.verify(apiKey);
    if ('problem' in demo) throw new Error(`the demo API key does not work: ${demo.problem}`);
    return { url: server.url, apiKey, adminToken, clientId: demo.principal.clientId, control, seeded, close: () => server.close() };
  } catch (error) {
    await server.close();
    throw error;
  }
}
