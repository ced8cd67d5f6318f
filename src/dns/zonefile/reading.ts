// Reading an imported zone file into records, counting its new RRsets against the zone's quota as it goes
// (NewSetCount): on the main thread for a small file, in a thread of its own for a large one
// (parse-thread.ts). Both read with readZoneFile, so both keep, skip and refuse the same records.
import { moduleWorker, WorkerPool } from '../../platform/workers.js';
import { type ExistingSets, NewSetCount } from './import.js';
import { type ParsedZoneFile, parseZoneFile } from './parse.js';
import { ZoneFileError } from './tokens.js';

/** What a read needs: the file, the zone, and the zone's sets before it (as plain arrays, to cross threads). */
export interface ReadCall {
  text: string;
  origin: string;
  types: [string, string[]][];
  count: number;
}

/**
 * The file's records; or why it is refused: a syntax error (its message names the line), or a record past
 * a quota (the records read until then are not sent back: a refused file past the quota is about 10,000).
 */
export type ReadResult = { parsed: ParsedZoneFile } | { syntaxError: string } | { refused: string };

export async function readZoneFile({ text, origin, types, count }: ReadCall): Promise<ReadResult> {
  const existing: ExistingSets = { types: new Map(types.map(([name, list]) => [name, new Set(list)])), count };
  // Counted as the file is read, so a file far over the quota is refused without reading the rest.
  const sets = new NewSetCount(origin, existing);
  try {
    const parsed = await parseZoneFile(text, origin, (name, type) => sets.add(name, type));
    return parsed.refused === undefined ? { parsed } : { refused: parsed.refused };
  } catch (error) {
    if (error instanceof ZoneFileError) return { syntaxError: error.message };
    throw error;
  }
}

/**
 * Files of this many characters or more are read in the thread. Below, reading on the main thread (in
 * time slices) costs less than sending the text and taking the records back.
 */
const THREAD_FROM_CHARACTERS = 64 * 1024;

export class ZoneFileReading {
  private pool: WorkerPool | undefined;

  constructor(private readonly threadFrom = THREAD_FROM_CHARACTERS) {}

  read(call: ReadCall): Promise<ReadResult> {
    if (call.text.length < this.threadFrom) return readZoneFile(call);
    this.pool ??= new WorkerPool(() => moduleWorker(import.meta.url, './parse-thread.ts', 'dns-zonefile-worker.cjs', null), 1);
    return this.pool.call<ReadResult>(call as unknown as Record<string, unknown>);
  }

  async close(): Promise<void> {
    await this.pool?.close();
  }
}
