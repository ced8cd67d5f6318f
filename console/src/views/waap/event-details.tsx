// One event in full (GET .../requests/{request_id}/details), with shortcuts that filter the log by its
// IP, session, country or rule.
import { call } from '../../api';
import { time } from '../../format';
import { useResource } from '../../hooks';
import { Drawer, ErrorNote, Json, Pairs, Status } from '../../ui/widgets';
import type { EventRow } from './events';

interface Details {
  id: string;
  request_time: string;
  decision: string;
  optional_action: string;
  action: string;
  result: string;
  rule_id: string;
  rule_name: string;
  method: string;
  path: string;
  query_string: string;
  scheme: string;
  http_version: string;
  http_status_code: number;
  response_time: string;
  content_type: string;
  domain: string;
  requested_domain: string;
  reference_id: string;
  session_id: string;
  session_request_count: string;
  incident_id: string;
  request_type: string;
  traffic_types: string[];
  ja3: string;
  ja4: string;
  network: { client_ip: string; country: string; organization: { name: string; subnet: string } };
  user_agent: Record<string, string>;
  request_headers: Record<string, string>;
  pattern_matched_tags: {
    tag: string;
    display_name: string;
    field: string;
    field_name: string;
    pattern_name: string;
    pattern_value: string;
    execution_phase: string;
  }[];
  common_tags: { tag: string; display_name: string; description: string }[];
  detector: { rule_name: string; rule_id: string }[];
}

export function EventDetails(props: { id: string; summary?: EventRow; onClose: () => void; onFilter: (param: string, value: string) => void }) {
  const [domainId, requestId] = props.id.split(':');
  const details = useResource(props.id, (signal) =>
    call<Details>(`/waap/v1/domains/${domainId}/requests/${encodeURIComponent(requestId)}/details`, { signal }),
  );
  const d = details.data;
  const filterButton = (param: string, value: string | undefined, label: string) =>
    value ? (
      <button type="button" class="chip" onClick={() => props.onFilter(param, value)} title={`Show only events with this ${label}`}>
        filter by {label}
      </button>
    ) : null;
  return (
    <Drawer title={`Event ${requestId}`} onClose={props.onClose} wide>
      <ErrorNote error={details.error} />
      {!d && details.loading && <p class="muted">Loading…</p>}
      {d && (
        <>
          <div class="chips">
            {filterButton('ips', d.network.client_ip, 'IP')}
            {filterButton('session_ids', d.session_id, 'session')}
            {filterButton('countries', d.network.country, 'country')}
            {filterButton('security_rule_names', d.rule_name, 'rule')}
          </div>
          <h3>Request</h3>
          <Pairs
            items={[
              ['Time (UTC)', time(d.request_time)],
              ['Decision', <Status value={d.decision} />],
              ['Optional action', d.optional_action],
              ['Action / result', `${d.action} / ${d.result || '–'}`],
              ['Rule', d.rule_name ? `${d.rule_name} (${d.rule_id})` : ''],
              ['Request', <span class="mono">{`${d.method} ${d.scheme}://${d.requested_domain}${d.path}${d.query_string ? `?${d.query_string}` : ''}`}</span>],
              ['HTTP', `${d.http_version}, status ${d.http_status_code}, ${d.response_time}`],
              ['Content type', d.content_type],
              ['Domain', d.domain],
              ['Request type', d.request_type],
              ['Traffic types', d.traffic_types.join(', ')],
              ['Reference', <span class="mono">{d.reference_id}</span>],
              ['Session', <span class="mono">{`${d.session_id} (${d.session_request_count} requests)`}</span>],
              ['Incident', d.incident_id],
              ['JA3 / JA4', <span class="mono">{`${d.ja3 || '–'} / ${d.ja4 || '–'}`}</span>],
            ]}
          />
          <h3>Network</h3>
          <Pairs
            items={[
              ['Client IP', <span class="mono">{d.network.client_ip}</span>],
              ['Country', d.network.country],
              ['Organization', `${d.network.organization.name} (${d.network.organization.subnet})`],
            ]}
          />
          <h3>User agent</h3>
          <Pairs items={Object.entries(d.user_agent).map(([name, value]): [string, string] => [name.replace(/_/g, ' '), value])} />
          <h3>Request headers</h3>
          <Pairs
            items={Object.entries(d.request_headers).map(([name, value]): [string, preact.ComponentChildren] => [name, <span class="mono">{value}</span>])}
          />
          {d.pattern_matched_tags.length > 0 && (
            <>
              <h3>Matched patterns</h3>
              <table class="data compact">
                <thead>
                  <tr>
                    <th>Tag</th>
                    <th>Field</th>
                    <th>Pattern</th>
                    <th>Value</th>
                    <th>Phase</th>
                  </tr>
                </thead>
                <tbody>
                  {d.pattern_matched_tags.map((tag) => (
                    <tr>
                      <td>{tag.display_name || tag.tag}</td>
                      <td class="mono">{tag.field_name ? `${tag.field}: ${tag.field_name}` : tag.field}</td>
                      <td>{tag.pattern_name}</td>
                      <td class="mono clip" title={tag.pattern_value}>
                        {tag.pattern_value}
                      </td>
                      <td>{tag.execution_phase}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </>
          )}
          {d.common_tags.length > 0 && (
            <>
              <h3>Tags</h3>
              <ul class="plain">
                {d.common_tags.map((tag) => (
                  <li>
                    <strong>{tag.display_name || tag.tag}</strong> {tag.description}
                  </li>
                ))}
              </ul>
            </>
          )}
          {d.detector.length > 0 && (
            <>
              <h3>Detectors</h3>
              <ul class="plain">
                {d.detector.map((rule) => (
                  <li>
                    {rule.rule_name} <span class="muted">({rule.rule_id})</span>
                  </li>
                ))}
              </ul>
            </>
          )}
          <details>
            <summary>Raw answer</summary>
            <Json value={d} label="Event details as JSON" />
          </details>
        </>
      )}
    </Drawer>
  );
}
