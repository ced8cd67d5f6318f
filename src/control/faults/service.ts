// Fault injection. Faults live in this node's memory, not in the database: they belong to the test that
// declared them (usually talking to one node), they must not survive a restart, and matching them must not
// cost a query on every request. A multi-node deployment needs the fault declared on each node it targets.
import { AppError, type ErrorCode, invalid, bodyField, notFound } from '../../platform/errors.js';
import type { Clock } from '../../platform/clock.js';
import type { Fault, FaultCreate } from './schemas.js';
import { seededRandom } from '../../platform/random.js';
import { RE2JS } from 're2js';

export interface FaultRequest {
  method: string;
  path: string;
  operationId: string | undefined;
  scenario: string | undefined;
}

/** What the hook must do for one request: wait, fail the task it creates, or answer an error. */
export interface FaultEffect {
  latencyMs: number;
  taskError: string | null;
  error: AppError | null;
}

const STATUS_CODES: Record<number, ErrorCode> = {
  400: 'bad_request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  409: 'conflict',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  422: 'validation_failed',
  429: 'rate_limited',
  500: 'internal',
  503: 'service_unavailable',
};

interface ActiveFault {
  fault: Fault;
  pathPattern: PathMatcher | null;
  random: () => number;
}

export class FaultService {
  private readonly faults = new Map<number, ActiveFault>();
  private nextId = 1;

  constructor(private readonly clock: Clock) {}

  create(input: FaultCreate): Fault {
    const problems = [];
    if (!input.operationId && !input.path) problems.push(bodyField([], 'give operationId or path to say which requests the fault matches', 'missing'));
    if (input.status === undefined && input.latencyMs === undefined && input.taskError === undefined) {
      problems.push(bodyField([], 'give status, latencyMs or taskError to say what the fault does', 'missing'));
    }
    if (problems.length > 0) throw invalid(problems);
    const seed = input.seed ?? 1;
    const fault: Fault = {
      id: this.nextId++,
      operationId: input.operationId ?? null,
      method: input.method?.toUpperCase() ?? null,
      path: input.path ?? null,
      scenario: input.scenario ?? null,
      status: input.status ?? null,
      message: input.message ?? null,
      retryAfter: input.status === 429 || input.status === 503 ? (input.retryAfter ?? 1) : (input.retryAfter ?? null),
      latencyMs: input.latencyMs ?? null,
      taskError: input.taskError ?? null,
      times: input.times ?? null,
      probability: input.probability ?? 1,
      seed,
      matched: 0,
      fired: 0,
      remaining: input.times ?? null,
      createdAt: this.clock.date().toISOString(),
    };
    this.faults.set(fault.id, { fault, pathPattern: fault.path ? globToRegExp(fault.path) : null, random: seededRandom(seed) });
    return { ...fault };
  }

  list(scenario?: string): Fault[] {
    return [...this.faults.values()].map((a) => ({ ...a.fault })).filter((f) => scenario === undefined || f.scenario === scenario);
  }

  get(id: number): Fault {
    const active = this.faults.get(id);
    if (!active) throw notFound('Fault');
    return { ...active.fault };
  }

  delete(id: number): void {
    if (!this.faults.delete(id)) throw notFound('Fault');
  }

  /** Deletes every fault, or those of one scenario; returns how many went. */
  clear(scenario?: string): number {
    let removed = 0;
    for (const [id, active] of this.faults) {
      if (scenario === undefined || active.fault.scenario === scenario) {
        this.faults.delete(id);
        removed += 1;
      }
    }
    return removed;
  }

  get size(): number {
    return this.faults.size;
  }

  /** Applies the faults matching a request, in declaration order; every firing is counted. */
  apply(request: FaultRequest): FaultEffect | null {
    let effect: FaultEffect | null = null;
    for (const active of this.faults.values()) {
      const { fault } = active;
      if (!matches(active, request)) continue;
      fault.matched += 1;
      if (fault.remaining === 0) continue;
      // Draw for every match so a seeded sequence does not depend on other faults.
      if (fault.probability < 1 && active.random() >= fault.probability) continue;
      fault.fired += 1;
      if (fault.remaining !== null) fault.remaining -= 1;
      effect ??= { latencyMs: 0, taskError: null, error: null };
      effect.latencyMs += fault.latencyMs ?? 0;
      effect.taskError ??= fault.taskError;
      if (fault.status !== null && !effect.error) effect.error = errorOf(fault);
    }
    return effect;
  }
}

function matches({ fault, pathPattern }: ActiveFault, request: FaultRequest): boolean {
  if (fault.scenario !== null && fault.scenario !== request.scenario) return false;
  if (fault.method !== null && fault.method !== request.method) return false;
  if (fault.operationId !== null && fault.operationId !== request.operationId) return false;
  if (pathPattern && !pathPattern.test(request.path)) return false;
  return true;
}

function errorOf(fault: Fault): AppError {
  const status = fault.status!;
  const headers: Record<string, string> = fault.retryAfter !== null ? { 'retry-after': String(fault.retryAfter) } : {};
  return new AppError(STATUS_CODES[status], fault.message ?? `Injected fault ${fault.id}: answering ${status}.`, { headers, injected: true });
}

/** A compiled path glob. */
export interface PathMatcher {
  test(path: string): boolean;
}

/**
 * `*` matches within one path segment, `**` across segments; everything else is literal. Run on RE2
 * (re2js), in time linear in the path: the paths are the clients', and on a backtracking engine a glob
 * such as `/**a**a**a**b` took 9 s against a path of 400 characters (a URL may have 16 KiB).
 */
export function globToRegExp(glob: string): PathMatcher {
  let source = '';
  for (let i = 0; i < glob.length; i += 1) {
    if (glob[i] === '*' && glob[i + 1] === '*') {
      source += '.*';
      i += 1;
    } else if (glob[i] === '*') source += '[^/]*';
    else source += glob[i].replace(/[.+?^${}()|[\]\\]/g, '\\$&');
  }
  const regex = RE2JS.compile(`^${source}/?$`);
  return { test: (path) => regex.test(path) };
}
