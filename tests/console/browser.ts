// What the console's browser tests share: Debian's Chromium driven by playwright-core (one browser for
// the whole file), and a listening Edgeplane (the suite's engine: SQLite, or PostgreSQL with
// EDGEPLANE_TEST_DATABASE_URL) serving the console built in dist/console.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser } from 'playwright-core';

export const CHROMIUM = process.env.EDGEPLANE_CHROMIUM ?? '/usr/bin/chromium';
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
/**
 * Where each view is photographed: the documentation's pictures (docs/console/) with
 * EDGEPLANE_UPDATE_SCREENSHOTS=1; otherwise a temporary folder, so a test run leaves the clone as it found
 * it (every run on a machine with Chromium rewrote the nine pictures).
 */
const UPDATE_SCREENSHOTS = process.env.EDGEPLANE_UPDATE_SCREENSHOTS === '1';
export const SCREENSHOTS = UPDATE_SCREENSHOTS ? path.join(root, 'docs', 'console') : path.join(os.tmpdir(), `edgeplane-console-${process.pid}`);

/** Removes the pictures of a run that does not update the documentation's. */
export function dropScreenshots(): void {
  if (!UPDATE_SCREENSHOTS) fs.rmSync(SCREENSHOTS, { recursive: true, force: true });
}

// Without these, Chromium on a machine with no network waits on update, sync and QUIC probes.
// Playwright gives every launch a fresh profile folder (its own --user-data-dir).
const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * Whether the browser tests run: always in CI (where a missing Chromium is a failure, and .ci/run installs
 * it), elsewhere only when Chromium is installed, so `npm test` on a laptop without it still passes.
 */
export const BROWSER_TESTS = fs.existsSync(CHROMIUM) || Boolean(process.env.CI);
export const BROWSER_SUITE_NOTE = BROWSER_TESTS ? '' : ` (skipped: no Chromium at ${CHROMIUM}; apt-get install -y chromium, or set EDGEPLANE_CHROMIUM)`;

export async function launchChromium(): Promise<Browser> {
  if (!fs.existsSync(CHROMIUM)) throw new Error(`Chromium is not at ${CHROMIUM}: apt-get install -y chromium (or set EDGEPLANE_CHROMIUM)`);
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: FLAGS });
}

const newest = (dir: string): number =>
  Math.max(
    ...fs
      .readdirSync(dir, { withFileTypes: true })
      .map((e) => (e.isDirectory() ? newest(path.join(dir, e.name)) : fs.statSync(path.join(dir, e.name)).mtimeMs)),
  );

/**
 * Builds the console when dist/console is missing or older than its sources (a few seconds), so a test
 * never checks a stale build. Test files run in parallel processes: a lock folder lets one build.
 */
export async function ensureConsoleBuilt(): Promise<void> {
  const built = path.join(root, 'dist', 'console', 'index.html');
  const fresh = () => fs.existsSync(built) && fs.statSync(built).mtimeMs >= newest(path.join(root, 'console'));
  const lock = path.join(root, 'dist', '.console-build-lock');
  fs.mkdirSync(path.dirname(lock), { recursive: true });
  for (;;) {
    if (fresh()) return;
    try {
      fs.mkdirSync(lock);
      break;
    } catch {
      // Another test process builds it; a lock older than two minutes was left by a dead one.
      if (Date.now() - fs.statSync(lock, { throwIfNoEntry: false })!.mtimeMs > 120_000) fs.rmSync(lock, { recursive: true, force: true });
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
  try {
    if (!fresh()) {
      const { buildConsole } = await import('../../scripts/build-console.js');
      await buildConsole();
    }
  } finally {
    fs.rmSync(lock, { recursive: true, force: true });
  }
}
