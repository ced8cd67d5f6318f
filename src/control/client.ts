// A typed client of the /_edgeplane control API over fetch: what startEdgeplane() hands to test suites
// and what the `edgeplane clock|faults|journal|state|seed` commands use against a running server.
import type { Fault, FaultCreate } from './faults/schemas.js';
import type { JournalEntry } from './journal/schemas.js';
import type { Seed, SeedResult } from './seed/schemas.js';
import type { StateDocument } from './state/service.js';

export interface ClockState {
  now: string;
  epochMs: number;
  frozen: boolean;
  offsetMs: number;
}

export interface JournalFilter {
  clientId?: number;
  operationId?: string;
  method?: string;
  path?: string;
  status?: number | number[];
  scenario?: string;
  requestId?: string;
  since?: string;
  until?: string;
  order?: 'asc' | 'desc';
  limit?: number;
  offset?: number;
}

export class ControlError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
    method: string,
    path: string,
  ) {
    super(`${method} ${path} answered ${status}: ${typeof body === 'string' ? body : JSON.stringify(body)}`);
    this.name = 'ControlError';
  }
}

/** No answer at all from the server: nothing listens at the URL, or the name does not resolve. */
export class ControlUnreachableError extends Error {
  constructor(
    readonly url: string,
    cause: unknown,
  ) {
    const reason = (cause as { cause?: { code?: string; message?: string } })?.cause;
    super(`cannot reach Edgeplane at ${url} (${reason?.code ?? reason?.message ?? (cause as Error).message}): is a server running there?`, { cause });
    this.name = 'ControlUnreachableError';
  }
}

type Query = Record<string, string | number | (string | number)[] | undefined>;

export class ControlClient {
  readonly clock = {
    get: () => this.call<ClockState>('GET', '/clock'),
    freeze: () => this.call<ClockState>('POST', '/clock/freeze'),
    resume: () => this.call<ClockState>('POST', '/clock/resume'),
    /** A Date, ISO text or epoch milliseconds. */
    set: (time: Date | string | number) =>
      this.call<ClockState>('POST', '/clock/set', typeof time === 'number' ? { epochMs: time } : { time: time instanceof Date ? time.toISOString() : time }),
    advance: (seconds: number) => this.call<ClockState>('POST', '/clock/advance', { seconds }),
  };

  readonly faults = {
    create: (fault: FaultCreate) => this.call<Fault>('POST', '/faults', fault),
    list: (scenario?: string) => this.call<Fault[]>('GET', '/faults', undefined, { scenario }),
    get: (id: number) => this.call<Fault>('GET', `/faults/${id}`),
    delete: (id: number) => this.call<void>('DELETE', `/faults/${id}`),
    clear: (scenario?: string) => this.call<{ deleted: number }>('DELETE', '/faults', undefined, { scenario }),
  };

  readonly journal = {
    list: (filter: JournalFilter = {}) => this.call<{ count: number; results: JournalEntry[] }>('GET', '/journal', undefined, filter as Query),
    clear: () => this.call<{ deleted: number }>('DELETE', '/journal'),
  };

  readonly state = {
    export: (clientId?: number) => this.call<StateDocument>('GET', '/state', undefined, { clientId }),
    import: (document: StateDocument) => this.call<{ version: string; tables: number; rows: number }>('PUT', '/state', document),
    reset: (clientId?: number) =>
      this.call<{ clientId: number | null; demo: { clientId: number; apiKey: string } | null }>(
        'POST',
        '/state/reset',
        clientId === undefined ? {} : { clientId },
      ),
  };

  constructor(
    readonly baseUrl: string,
    private readonly adminToken: string,
    /** Sent on every control call, e.g. to target one scenario. */
    private readonly headers: Record<string, string> = {},
  ) {}

  seed(document: Seed): Promise<SeedResult> {
    return this.call('POST', '/seed', document);
  }

  info(): Promise<Record<string, unknown>> {
    return this.call('GET', '/info');
  }

  private async call<T>(method: string, path: string, body?: unknown, query: Query = {}): Promise<T> {
    const url = new URL(`/_edgeplane${path}`, this.baseUrl);
    for (const [key, value] of Object.entries(query)) {
      if (value === undefined) continue;
      for (const item of Array.isArray(value) ? value : [value]) url.searchParams.append(key, String(item));
    }
    const headers: Record<string, string> = { ...this.headers, authorization: `APIKey ${this.adminToken}` };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) }).catch((error: unknown) => {
      throw new ControlUnreachableError(this.baseUrl, error);
    });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text === '' ? undefined : JSON.parse(text);
    } catch {
      // Not JSON: reported as text.
    }
    if (!response.ok) throw new ControlError(response.status, parsed, method, url.pathname);
    return parsed as T;
  }
}
