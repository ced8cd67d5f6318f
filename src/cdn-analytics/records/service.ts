// Rules of the access-record log: per-record validation with a report, the generator, and retention
// (records older than 90 days are deleted by a bulk job that runs whenever the clock moves and hourly).
import { RerunningPass } from '../../platform/rerun.js';
import type { Clock } from '../../platform/clock.js';
import { invalid, bodyField } from '../../platform/errors.js';
import { generateRecords, MAX_GENERATED_RECORDS, type GenerateOptions } from './generator.js';
import { RETENTION_DAYS, RETENTION_MS, UnparseableLine, validateRecord, type AccessRecord } from './model.js';
import type { AccessRecordStore } from './store.js';

export const MAX_INGEST_RECORDS = 100_000;
const MAX_REPORTED_ERRORS = 100;
const GENERATE_BATCH = 5_000;

export interface IngestReport {
  received: number;
  accepted: number;
  rejected: number;
  /** The first problems found, by record index (at most 100; `rejected` has the full count). */
  errors: { index: number; field: string; message: string }[];
}

export class AccessRecordService {
  private readonly retention = new RerunningPass(() => this.store.deleteOlderThan(this.clock.now() - RETENTION_MS));

  constructor(
    private readonly store: AccessRecordStore,
    private readonly clock: Clock,
  ) {}

  /** Stores the valid records of a batch (all at once) and reports the invalid ones. */
  async ingest(raw: unknown[]): Promise<IngestReport> {
    if (raw.length > MAX_INGEST_RECORDS) throw invalid([bodyField([], `at most ${MAX_INGEST_RECORDS} records per request`)]);
    const now = this.clock.now();
    const accepted: AccessRecord[] = [];
    const errors: IngestReport['errors'] = [];
    let rejected = 0;
    raw.forEach((item, index) => {
      if (item instanceof UnparseableLine) {
        rejected += 1;
        if (errors.length < MAX_REPORTED_ERRORS) errors.push({ index, field: '', message: item.message });
        return;
      }
      const result = validateRecord(item, now);
      if ('record' in result) return void accepted.push(result.record);
      rejected += 1;
      for (const problem of result.problems) if (errors.length < MAX_REPORTED_ERRORS) errors.push({ index, ...problem });
    });
    await this.store.insertMany(accepted);
    return { received: raw.length, accepted: accepted.length, rejected, errors };
  }

  /** `onProgress` is told how many records are written after each batch (the command line's progress bar). */
  async generate(
    options: Omit<GenerateOptions, 'end'> & { end?: number },
    onProgress?: (done: number) => void,
  ): Promise<{ generated: number; from: number; to: number }> {
    const problems = [];
    if (options.records < 1 || options.records > MAX_GENERATED_RECORDS) problems.push(bodyField(['records'], `must be from 1 to ${MAX_GENERATED_RECORDS}`));
    if (options.days < 1 || options.days > RETENTION_DAYS) problems.push(bodyField(['days'], `must be from 1 to ${RETENTION_DAYS}`));
    if (problems.length > 0) throw invalid(problems);
    const end = options.end ?? this.clock.now();
    let batch: AccessRecord[] = [];
    let done = 0;
    for (const record of generateRecords({ ...options, end })) {
      batch.push(record);
      if (batch.length === GENERATE_BATCH) {
        await this.store.insertMany(batch);
        onProgress?.((done += batch.length));
        batch = [];
      }
    }
    await this.store.insertMany(batch);
    onProgress?.(options.records);
    return { generated: options.records, from: end - options.days * 86_400_000, to: end };
  }

  countForClient(clientId: number): Promise<number> {
    return this.store.countForClient(clientId);
  }

  /** Resolves when no retention run is in flight (so the database can be closed under none). */
  settled(): Promise<void> {
    return this.retention.settled();
  }

  /**
   * Deletes records past the retention. Runs never overlap: a call during a run waits for it and then
   * runs once more (time may have moved again), and resolves with the total the run deleted.
   */
  purgeExpired(): Promise<number> {
    return this.retention.run();
  }
}
