// Let's Encrypt issuing, simulated on the server clock. Attaching an automated certificate to a CDN
// resource (or renewing it, or retrying a failed attempt) starts an attempt; the attempt finishes
// DURATIONS_MS.letsEncryptIssue later. Its outcome is decided when it starts: it fails when the resource
// is not active (the validation request could not reach it), otherwise the certificate is issued for the
// resource's host names, valid for 90 days from the end of the attempt. Detaching the certificate while
// an attempt runs cancels it. Pure functions over the stored attempts; nothing runs in the background.
import { DURATIONS_MS } from '../limits.js';

export interface Attempt {
  id: number;
  resource_id: number;
  hostnames: string[];
  started_at: number;
  /** Decided at the start; shown once the attempt has finished. */
  outcome: 'done' | 'failed';
  /** Set when the certificate was detached during the attempt. */
  cancelled_at?: number;
}

export const ISSUER = "Let's Encrypt (simulated by Edgeplane)";

export function parseAttempts(text: string): Attempt[] {
  return JSON.parse(text) as Attempt[];
}

export function finishedAt(attempt: Attempt): number {
  return attempt.cancelled_at ?? attempt.started_at + DURATIONS_MS.letsEncryptIssue;
}

export function isRunning(attempt: Attempt | undefined, now: number): boolean {
  return attempt !== undefined && now < finishedAt(attempt);
}

export function statusOf(attempt: Attempt): 'Done' | 'Failed' | 'Cancelled' {
  if (attempt.cancelled_at !== undefined) return 'Cancelled';
  return attempt.outcome === 'done' ? 'Done' : 'Failed';
}

/** Attempts kept per certificate (the oldest go first); ids keep counting. */
const KEPT_ATTEMPTS = 20;

/** A new attempt for a resource, appended to the list. */
export function startAttempt(attempts: Attempt[], resource: { id: number; hostnames: string[]; active: boolean }, now: number): Attempt[] {
  const id = (attempts.at(-1)?.id ?? 0) + 1;
  const attempt: Attempt = { id, resource_id: resource.id, hostnames: resource.hostnames, started_at: now, outcome: resource.active ? 'done' : 'failed' };
  return [...attempts, attempt].slice(-KEPT_ATTEMPTS);
}

/** The attempts with a running one cancelled now. */
export function cancelRunning(attempts: Attempt[], now: number): Attempt[] {
  return attempts.map((a) => (isRunning(a, now) ? { ...a, cancelled_at: now } : a));
}

/** What the certificate holds now: the names and validity of the latest issued attempt, if any. */
export function issued(attempts: Attempt[], now: number): { hostnames: string[]; notBefore: number; notAfter: number } | undefined {
  const done = attempts.filter((a) => a.cancelled_at === undefined && a.outcome === 'done' && finishedAt(a) <= now).at(-1);
  if (!done) return undefined;
  const notBefore = finishedAt(done);
  return { hostnames: done.hostnames, notBefore, notAfter: notBefore + DURATIONS_MS.letsEncryptValidity };
}

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * The issuing status answer of the reference's shape. The reference types `finished` and
 * `latest_status` as non-null, so they are left out (rather than null) while nothing has finished.
 */
export function issuingStatus(attempts: Attempt[], now: number) {
  const latest = attempts.at(-1)!;
  const finished = attempts.filter((a) => finishedAt(a) <= now);
  const shown = finished.map((a) => ({
    id: a.id,
    status: statusOf(a),
    error: statusOf(a) === 'Failed' ? 'ResourceNotActive' : '',
    details: statusOf(a) === 'Failed' ? 'The CDN resource was not active, so the validation request could not reach it: activate the resource and retry' : '',
    created: iso(finishedAt(a)),
    retry_after: '',
  }));
  const running = isRunning(latest, now);
  return {
    id: latest.id,
    statuses: shown,
    ...(shown.length > 0 ? { latest_status: shown.at(-1) } : {}),
    started: iso(latest.started_at),
    ...(running ? {} : { finished: iso(finishedAt(latest)) }),
    active: running,
    attempts_count: latest.id,
    next_attempt_time: null,
    resource: latest.resource_id,
  };
}
