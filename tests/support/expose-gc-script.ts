// Runs an ES-module script from the sources (tsx) in a process of its own started as the built command
// starts its server (--expose-gc, so V8's collector can be asked for), and gives back what it printed.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** `script` runs with the project's root as its folder; its standard output, once it has exited 0. */
export function runWithExposedGc(script: string): Promise<string> {
  return new Promise<string>((resolve, reject) =>
    execFile(
      process.execPath,
      ['--expose-gc', '--import', 'tsx', '--input-type=module', '-e', script],
      { cwd: root, timeout: 60_000 },
      (error, stdout, stderr) => (error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(stdout)),
    ),
  );
}
