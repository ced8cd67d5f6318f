// Health-check monitors in the Prometheus text format: one healthcheck_state gauge per RRset whose meta
// asks for a health check. Edgeplane runs no checks (it probes nothing), so every monitor reports 1,
// healthy; failover logs stay empty accordingly.
import type { Principal } from '../../platform/auth/principal.js';
import { parseJson } from '../common/meta.js';
import type { RRsetStore } from '../rrsets/store.js';

const label = (value: string) => `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`;

export class MonitorService {
  constructor(private readonly rrsets: RRsetStore) {}

  async metrics(principal: Principal): Promise<string> {
    const clientId = principal.clientId;
    const lines = ['# HELP healthcheck_state State of an RRset health check: 1 healthy, 0 failing', '# TYPE healthcheck_state gauge'];
    for (const set of await this.rrsets.healthChecked(clientId)) {
      const meta = parseJson<Record<string, { protocol?: string }>>(set.meta, {});
      const check = meta.healthchecks ?? meta.failover ?? {};
      const labels = {
        client_id: String(clientId),
        monitor_id: String(set.id),
        monitor_locations: '',
        monitor_name: `${set.name}/${set.type}`,
        monitor_type: String(check.protocol ?? '').toLowerCase(),
        rrset_name: set.name,
        rrset_type: set.type,
        zone_name: set.zone,
      };
      lines.push(
        `healthcheck_state{${Object.entries(labels)
          .map(([k, v]) => `${k}=${label(v)}`)
          .join(',')}} 1`,
      );
    }
    return `${lines.join('\n')}\n`;
  }
}
