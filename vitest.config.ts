import os from 'node:os';
import { defineConfig } from 'vitest/config';

// Vitest's default is one worker per core less one: a single worker on a 2-core machine (CI's), where
// the suite's long files (fuzzing, crash and restart tests) mostly wait on child processes and the
// database. Two workers there took the SQLite run from 456 s to 358 s.
const workers = Math.max(2, os.availableParallelism() - 1);

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'tests/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // The test files of a worker share its process and module cache: each file loading the server's
    // modules again in a fresh process was 319 s of the SQLite run's 541 (vitest's "collect"); shared,
    // 37 s of 371. No test file may leave process-wide state changed (environment, V8 flags, timers).
    isolate: false,
    maxWorkers: workers,
    minWorkers: 1,
    globalSetup: ['tests/support/global-setup.ts'],
  },
});
