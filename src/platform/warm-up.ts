// What the first request of a kind would otherwise make for everyone after it (the catalogue engine's
// catalogue and tables, the index of the build's compiled code), made while the server is quiet once it
// listens. Start-up does not wait for it, and a step never runs while requests are coming: each step
// waits until no request is being answered and none has arrived for QUIET_MS, so the first calls of a
// client that starts at once are not slowed by work they may not need; a client that pauses after the
// server is ready (a test runner loading its files) finds it done. A step is only work that would be
// done on first use anyway.
import type { EventEmitter } from 'node:events';
import { RequestActivity } from './request-activity.js';

/** One piece of warm-up: synchronous, a few milliseconds, and making only what is otherwise made lazily. */
export interface WarmUpStep {
  /** What the step makes, for the log line of a step that failed. */
  name: string;
  run(): void;
}

export interface WarmUp {
  /** Settles when every step has run or failed, or once stopped. */
  done: Promise<void>;
  /** Runs no further step (the server is closing). */
  stop(): void;
}

/** How long the server must have had no new request before a step runs. */
export const QUIET_MS = 10;

/**
 * Runs `steps` in order, each once `server` (an http.Server: its 'request' event, and each response's
 * 'close') answers no request and has had no new one for `quietMs`. The listener is removed when the
 * steps are done. A step that throws is reported to `failed` and the others still run; the request that
 * needs what it makes meets the same error, answered the usual way.
 */
export function warmUpWhenQuiet(
  server: EventEmitter,
  steps: readonly WarmUpStep[],
  failed: (step: WarmUpStep, error: unknown) => void,
  quietMs = QUIET_MS,
): WarmUp {
  const activity = new RequestActivity(server);
  let stopped = false;
  let wake: (() => void) | undefined;
  let timer: NodeJS.Timeout | undefined;
  const quiet = () =>
    new Promise<void>((resolve) => {
      const check = () => {
        const waited = activity.quietFor();
        if (stopped || waited >= quietMs) return resolve();
        timer = setTimeout(check, Math.max(1, quietMs - waited)).unref();
      };
      wake = resolve;
      timer = setTimeout(check, quietMs).unref();
    });
  const done = (async () => {
    try {
      for (const step of steps) {
        await quiet();
        if (stopped) return;
        try {
          step.run();
        } catch (error) {
          failed(step, error);
        }
      }
    } finally {
      activity.stop();
    }
  })();
  return {
    done,
    stop: () => {
      stopped = true;
      clearTimeout(timer);
      wake?.();
    },
  };
}
