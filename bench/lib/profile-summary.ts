// Summarises a V8 .cpuprofile (node --cpu-prof): self time by function and by package, and total
// (inclusive) time of the heaviest frames, as text. A flame graph's content without the picture.
//   npx tsx bench/lib/profile-summary.ts <file.cpuprofile> [--top 40] [--skip-ms 2000] [--per 100000]
// --skip-ms leaves out the first milliseconds of the profile (start-up, when the load came later).
// --per n adds each line's microseconds per one of n units of work (the requests the profile answered).
// Frames of a bundle (dist/server.cjs) are put under the package or source file they were bundled from,
// found by the `// node_modules/...` and `// src/...` comments esbuild writes before each module.
import fs from 'node:fs';
import { bundledModule, packageOf } from './bundle-modules.js';

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount: number;
  children?: number[];
}
interface Profile {
  nodes: Node[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

const file = process.argv[2];
const topIndex = process.argv.indexOf('--top');
const top = topIndex > 0 ? Number(process.argv[topIndex + 1]) : 40;
const skipIndex = process.argv.indexOf('--skip-ms');
const skipUs = skipIndex > 0 ? Number(process.argv[skipIndex + 1]) * 1000 : 0;
const perIndex = process.argv.indexOf('--per');
const per = perIndex > 0 ? Number(process.argv[perIndex + 1]) : 0;
const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as Profile;
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

// Time per sample: the delta that follows it.
const self = new Map<number, number>();
let at = 0;
profile.samples.forEach((id, i) => {
  at += profile.timeDeltas[i];
  if (at >= skipUs) self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i + 1] ?? 0));
});
const total = [...self.values()].reduce((a, b) => a + b, 0);

const where = (n: Node) => {
  let url = n.callFrame.url.replace(/^file:\/\//, '');
  if (url.endsWith('.cjs')) url = bundledModule(url, n.callFrame.lineNumber) ?? url;
  const pkg = packageOf(url);
  if (pkg) return pkg;
  if (url.startsWith('node:')) return url;
  if (url === '') return '(native)';
  return url.replace(/^.*\/(src|dist)\//, '$1/');
};
const label = (n: Node) => `${n.callFrame.functionName || '(anonymous)'} ${where(n)}:${n.callFrame.lineNumber + 1}`;

const pct = (us: number) => `${((100 * us) / total).toFixed(1).padStart(5)}%`;
const print = (title: string, entries: [string, number][]) => {
  console.log(`\n${title}`);
  for (const [name, us] of entries.sort((a, b) => b[1] - a[1]).slice(0, top))
    console.log(`${pct(us)} ${(us / 1000).toFixed(0).padStart(7)} ms${per > 0 ? ` ${(us / per).toFixed(2).padStart(7)} us` : ''}  ${name}`);
};

const selfByFunction = new Map<string, number>();
const selfByPackage = new Map<string, number>();
for (const [id, us] of self) {
  const n = byId.get(id)!;
  selfByFunction.set(label(n), (selfByFunction.get(label(n)) ?? 0) + us);
  selfByPackage.set(where(n), (selfByPackage.get(where(n)) ?? 0) + us);
}
// Inclusive time: each sample counts once for every distinct function on its stack.
const inclusive = new Map<string, number>();
for (const [id, us] of self) {
  const seen = new Set<string>();
  for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
    const name = label(byId.get(cur)!);
    if (seen.has(name)) continue;
    seen.add(name);
    inclusive.set(name, (inclusive.get(name) ?? 0) + us);
  }
}
console.log(`${file}: ${(total / 1000).toFixed(0)} ms sampled`);
print('self time by package or file', [...selfByPackage]);
print('self time by function', [...selfByFunction]);
print('total (inclusive) time by function', [...inclusive]);

// The call tree (a flame graph as text): frames with at least --tree-min percent of the time, children
// heaviest first, down to --depth levels.
const treeIndex = process.argv.indexOf('--tree-min');
if (treeIndex > 0) {
  const min = (Number(process.argv[treeIndex + 1]) / 100) * total;
  const depthIndex = process.argv.indexOf('--depth');
  const maxDepth = depthIndex > 0 ? Number(process.argv[depthIndex + 1]) : 40;
  const inclusiveOf = new Map<number, number>();
  const sum = (id: number): number => {
    const n = byId.get(id)!;
    let t = self.get(id) ?? 0;
    for (const c of n.children ?? []) t += sum(c);
    inclusiveOf.set(id, t);
    return t;
  };
  const rootNode = profile.nodes[0];
  sum(rootNode.id);
  console.log(`\ncall tree (frames >= ${process.argv[treeIndex + 1]}%)`);
  const walk = (id: number, depth: number) => {
    const n = byId.get(id)!;
    const t = inclusiveOf.get(id)!;
    if (t < min || depth > maxDepth) return;
    console.log(`${pct(t)} ${pct(self.get(id) ?? 0)} ${'  '.repeat(depth)}${label(n)}`);
    for (const c of [...(n.children ?? [])].sort((a, b) => inclusiveOf.get(b)! - inclusiveOf.get(a)!)) walk(c, depth + 1);
  };
  walk(rootNode.id, 0);
}
