// Where a thread's CPU time goes by module, from `perf script` output of `perf record -g` on a node
// started with --perf-basic-prof: each sample goes to the kernel when it was taken there, otherwise to
// the module of the nearest JavaScript frame on its stack (so V8's builtins, ICs and runtime calls count
// for the JavaScript that called them), otherwise to the native library it was in (libuv, llhttp and the
// collector, with no JavaScript above them). A .cpuprofile cannot do this: it samples the main thread
// by signals, counts a syscall's whole wall time, and puts builtins under "(native)".
//   perf record -g -F 4999 -t <main thread id> -o perf.data -- sleep 5
//   perf script -i perf.data > perf.txt
//   npx tsx bench/lib/perf-modules.ts perf.txt [--top 40] [--per <requests in the window>] [--hertz <perf -F>]
import fs from 'node:fs';
import { bundledModule, packageOf } from './bundle-modules.js';

const args = process.argv.slice(2);
const option = (name: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : undefined;
};
const top = option('top') ?? 40;
const per = option('per');
// perf's clock samples at -F hertz: the time a sample stands for.
const hertz = option('hertz') ?? 4999;

/** The module a sample is counted for; `frames` runs from the leaf up, each `address symbol (object)`. */
function ownerOf(frames: string[]): string {
  if (frames[0].endsWith('([kernel.kallsyms])')) return 'kernel';
  for (const frame of frames) {
    // `JS:*name url:line:column+0xoffset (map)`: * optimised, ~ not; the name may be empty.
    const js = / JS:\S*(?: \S+)? ((?:node:|file:\/\/|\/)\S*?):(\d+):\d+(?:\+0x[0-9a-f]+)? \(/.exec(frame);
    if (!js) continue;
    let url = js[1].replace(/^file:\/\//, '');
    if (url.startsWith('node:')) return `node core: ${url.replace(/^node:(internal\/)?/, '').replace(/\/.*/, '')}`;
    if (url.endsWith('.cjs')) url = bundledModule(url, Number(js[2]) - 1) ?? url;
    const pkg = packageOf(url);
    return pkg ? `package ${pkg}` : url.replace(/^.*\/(src|dist|bench)\//, '$1/');
  }
  const object = /\(([^)]+)\)$/.exec(frames[0])?.[1] ?? '?';
  return `native, no JavaScript above: ${object.replace(/.*\//, '')}`;
}

const counts = new Map<string, number>();
let samples = 0;
for (const block of fs.readFileSync(args[0], 'utf8').split('\n\n')) {
  const frames = block
    .trim()
    .split('\n')
    .slice(1)
    .map((line) => line.trim());
  if (frames.length === 0) continue;
  samples += 1;
  const owner = ownerOf(frames);
  counts.set(owner, (counts.get(owner) ?? 0) + 1);
}
const ms = (n: number) => (n * 1000) / hertz;
console.log(`${args[0]}: ${samples} samples, ${ms(samples).toFixed(0)} ms of CPU${per ? `, ${((ms(samples) * 1000) / per).toFixed(1)} us per unit` : ''}`);
for (const [owner, n] of [...counts].sort((a, b) => b[1] - a[1]).slice(0, top)) {
  const share = `${((100 * n) / samples).toFixed(1).padStart(5)}%`;
  console.log(`${share} ${ms(n).toFixed(0).padStart(7)} ms${per ? ` ${((ms(n) * 1000) / per).toFixed(2).padStart(7)} us` : ''}  ${owner}`);
}
