// Reads the CPU profiles `node --cpu-prof` wrote for the server (one per thread) and says where the time
// went: self time per source file of the project (mapped through the bundle's source map) or package,
// and the functions with the most self time.
import fs from 'node:fs';
import { SourceMap } from 'node:module';
import path from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const maps = new Map<string, SourceMap | null>();

/** The source map of a bundle (dist/server.cjs.map beside dist/server.cjs), once per file. */
function mapOf(url: string): SourceMap | null {
  if (!maps.has(url)) {
    const file = url.startsWith('file://') ? new URL(url).pathname : url;
    try {
      maps.set(url, new SourceMap(JSON.parse(fs.readFileSync(`${file}.map`, 'utf8'))));
    } catch {
      maps.set(url, null);
    }
  }
  return maps.get(url)!;
}

/** Where a frame's code comes from: a project file, a package, Node itself, or V8's own work. */
function origin(frame: ProfileNode['callFrame']): { where: string; name: string } {
  const name = frame.functionName || '(anonymous)';
  if (!frame.url) return { where: name.startsWith('(') ? name : '(native)', name };
  const map = mapOf(frame.url);
  const entry = map?.findEntry(frame.lineNumber, frame.columnNumber) as { originalSource?: string; originalLine?: number } | undefined;
  const source = entry?.originalSource ?? frame.url;
  const packageMatch = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(source);
  if (packageMatch) return { where: packageMatch[1], name };
  if (source.startsWith('node:')) return { where: source, name };
  const project = /(src\/.*)$/.exec(source);
  return {
    where: project ? project[1] : path.basename(source),
    name: `${name} (${project ? project[1] : path.basename(source)}:${(entry?.originalLine ?? frame.lineNumber) + 1})`,
  };
}

export interface ProfileSummary {
  file: string;
  totalMs: number;
  idleMs: number;
  byWhere: [string, number][];
  byFunction: [string, number][];
}

export function summarise(file: string, top = 12): ProfileSummary {
  const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const selfMs = new Map<number, number>();
  profile.samples.forEach((id, i) => selfMs.set(id, (selfMs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000));
  const where = new Map<string, number>();
  const functions = new Map<string, number>();
  let totalMs = 0;
  let idleMs = 0;
  for (const [id, ms] of selfMs) {
    const frame = byId.get(id)!.callFrame;
    totalMs += ms;
    if (frame.functionName === '(idle)') {
      idleMs += ms;
      continue;
    }
    const o = origin(frame);
    where.set(o.where, (where.get(o.where) ?? 0) + ms);
    functions.set(o.name, (functions.get(o.name) ?? 0) + ms);
  }
  const sorted = (m: Map<string, number>) => [...m.entries()].sort((a, b) => b[1] - a[1]).slice(0, top);
  return { file, totalMs, idleMs, byWhere: sorted(where), byFunction: sorted(functions) };
}

/** The profiles in a directory, the busiest (least idle) first. */
export function summariseDir(dir: string, top = 12): ProfileSummary[] {
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.cpuprofile'))
    .map((f) => summarise(path.join(dir, f), top))
    .sort((a, b) => b.totalMs - b.idleMs - (a.totalMs - a.idleMs));
}
