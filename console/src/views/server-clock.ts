// The server's clock can be frozen and moved (control API), and WAAP windows ("the last 24 hours") are
// measured on it. With an operator token the console reads it; without one it can only use the browser's.
import { useEffect, useState } from 'preact/hooks';
import { call } from '../api';
import { loadSession } from '../session';

export interface ClockState {
  now: string;
  epochMs: number;
  frozen: boolean;
  offsetMs: number;
}

interface Reading {
  epochMs: number;
  frozen: boolean;
  /** performance.now() when read, to run a flowing clock forward. */
  at: number;
}

let reading: Reading | undefined;
/** The read under way, so views starting together share it. */
let pending: Promise<ClockState | undefined> | undefined;
/** A read failed: windows fall back to the browser's clock rather than wait forever. */
let failed = false;
const listeners = new Set<() => void>();

export function refreshServerClock(): Promise<ClockState | undefined> {
  if (!loadSession()?.operatorToken) return Promise.resolve(undefined);
  pending ??= call<ClockState>('/_edgeplane/clock', { as: 'operator' })
    .then(
      (clock) => {
        reading = { epochMs: clock.epochMs, frozen: clock.frozen, at: performance.now() };
        return clock;
      },
      (error: unknown) => {
        failed = true;
        throw error;
      },
    )
    .finally(() => {
      pending = undefined;
      for (const listener of listeners) listener();
    });
  return pending;
}

export function serverNow(): number {
  if (!reading) return Date.now();
  return reading.frozen ? reading.epochMs : reading.epochMs + (performance.now() - reading.at);
}

/** Re-renders when the server clock is read again; `known` says whether it was read at all. */
export function useServerClock(): { now: () => number; known: boolean; version: number } {
  const [version, setVersion] = useState(0);
  useEffect(() => {
    const listener = () => setVersion((n) => n + 1);
    listeners.add(listener);
    // A read that ended between this render and now notified no one here: render again with it.
    if (reading || failed) listener();
    else refreshServerClock().catch(() => undefined);
    return () => void listeners.delete(listener);
  }, []);
  return { now: serverNow, known: reading !== undefined || failed, version };
}
