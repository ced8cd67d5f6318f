// Usage metrics of an instance, simulated: nothing runs, so each point is derived from the instance's ID
// and the point's time (the same request always answers the same figures). A running instance shows
// load; one that is not running shows none (null values).
import { createHash } from 'node:crypto';
import { Type, type Static } from 'typebox';
import { Nullable, StringEnum } from '../../platform/schema.js';

/** Points per request at most: 30 days hour by hour, 60 hours five minutes by five minutes. */
export const METRICS_LIMITS = { day: 30, hour: 60 } as const;

export const MetricsBody = Type.Object({
  time_interval: Type.Integer({ minimum: 1, maximum: 60, description: 'How far back, in time_unit (at most 30 days or 60 hours)' }),
  time_unit: StringEnum(['day', 'hour']),
});

const N = () => Nullable(Type.Number());
export const MetricPoint = Type.Object({
  time: Type.String(),
  cpu_util: N(),
  memory_util: N(),
  network_Bps_egress: N(),
  network_Bps_ingress: N(),
  network_pps_egress: N(),
  network_pps_ingress: N(),
  disks: Type.Array(Type.Object({ disk_name: Nullable(Type.String()), disk_Bps_read: N(), disk_Bps_write: N(), disk_iops_read: N(), disk_iops_write: N() })),
});
type Point = Static<typeof MetricPoint>;
type UsagePoint = Omit<Point, 'disks'>;

const STEP = { hour: 300_000, day: 3_600_000 } as const;
const UNIT = { hour: 3_600_000, day: 86_400_000 } as const;

/** A number in [min, max) from the key: the simulated reading of one metric at one time. */
export function reading(key: string, min: number, max: number): number {
  const n = createHash('sha1').update(key).digest().readUInt32BE(0) / 0x1_0000_0000;
  return Math.round((min + n * (max - min)) * 100) / 100;
}

/** Something whose usage is simulated: readings exist while it runs, and never before it was made. */
export interface Subject {
  id: string;
  created_at: number;
  running: boolean;
}

/** A simulated reading of one metric at one time, or null while the subject is not running. */
export type Reader = (metric: string, min: number, max: number) => number | null;

/**
 * Points from `now` back over the interval (never before the subject existed), oldest first: CPU, memory
 * and network readings, and what `extra` adds from the same reader.
 */
export function usagePoints<T extends object>(
  subject: Subject,
  now: number,
  interval: number,
  unit: 'day' | 'hour',
  extra: (at: Reader) => T,
): (UsagePoint & T)[] {
  const step = STEP[unit];
  const from = Math.max(now - interval * UNIT[unit], subject.created_at);
  const points: (UsagePoint & T)[] = [];
  for (let t = Math.ceil(from / step) * step; t <= now; t += step) {
    const at: Reader = (metric, min, max) => (subject.running ? reading(`${subject.id}/${metric}/${t}`, min, max) : null);
    points.push({
      time: new Date(t).toISOString().slice(0, 19),
      cpu_util: at('cpu', 2, 65),
      memory_util: at('memory', 15, 80),
      network_Bps_egress: at('net-out', 1e3, 5e6),
      network_Bps_ingress: at('net-in', 1e3, 5e6),
      network_pps_egress: at('pps-out', 10, 5e3),
      network_pps_ingress: at('pps-in', 10, 5e3),
      ...extra(at),
    });
  }
  return points;
}

/** An instance's points: usage and each of its disks. */
export function metricPoints(instance: Subject, disks: string[], now: number, interval: number, unit: 'day' | 'hour'): Point[] {
  return usagePoints(instance, now, interval, unit, (at) => ({
    disks: disks.map((name) => ({
      disk_name: name,
      disk_Bps_read: at(`${name}/r`, 0, 2e7),
      disk_Bps_write: at(`${name}/w`, 0, 1e7),
      disk_iops_read: at(`${name}/ri`, 0, 500),
      disk_iops_write: at(`${name}/wi`, 0, 300),
    })),
  }));
}
