// The details-only fields of an event, stored compactly in one text column: a positional JSON array
// (no key names), the requested domain left out when it is the domain itself, and the User-Agent header
// left out when it repeats the user-agent column. At ten million events this halves the column.
import type { EventDetails } from './schemas.js';

export interface ExtraFields {
  ua: Pick<EventDetails['user_agent'], 'client_version' | 'base_browser' | 'base_browser_version' | 'os' | 'device_type' | 'cpu' | 'rendering_engine' | 'client_type'>;
  subnet: string;
  content_type: string;
  response_time: string;
  request_headers: Record<string, string>;
  incident_id: string;
  request_type: string;
  session_request_count: string;
  requested_domain: string;
  query_string: string;
  pattern_matched_tags: EventDetails['pattern_matched_tags'];
  common_tags: EventDetails['common_tags'];
  detector: EventDetails['detector'];
}

const UA_KEYS = ['client_version', 'base_browser', 'base_browser_version', 'os', 'device_type', 'cpu', 'rendering_engine', 'client_type'] as const;

export function packExtra(extra: ExtraFields, context: { userAgent: string; domain: string }): string {
  let headers = extra.request_headers;
  let repeatsAgent = 0;
  if (headers['user-agent'] !== undefined && headers['user-agent'] === context.userAgent) {
    headers = { ...headers };
    delete headers['user-agent'];
    repeatsAgent = 1;
  }
  return JSON.stringify([
    ...UA_KEYS.map((k) => extra.ua[k]),
    extra.subnet, extra.content_type, extra.response_time, headers, repeatsAgent, extra.incident_id, extra.request_type,
    extra.session_request_count, extra.requested_domain === context.domain ? 0 : extra.requested_domain, extra.query_string,
    extra.pattern_matched_tags, extra.common_tags, extra.detector,
  ]);
}

export function unpackExtra(text: string, context: { userAgent: string; domain: string }): ExtraFields {
  const v = JSON.parse(text) as unknown[];
  const ua = Object.fromEntries(UA_KEYS.map((k, i) => [k, v[i] as string])) as ExtraFields['ua'];
  const headers = v[11] as Record<string, string>;
  return {
    ua,
    subnet: v[8] as string,
    content_type: v[9] as string,
    response_time: v[10] as string,
    // The header goes back where it was: first, as the generator and most clients send it after Host.
    request_headers: v[12] === 1 ? { ...headers, 'user-agent': context.userAgent } : headers,
    incident_id: v[13] as string,
    request_type: v[14] as string,
    session_request_count: v[15] as string,
    requested_domain: v[16] === 0 ? context.domain : (v[16] as string),
    query_string: v[17] as string,
    pattern_matched_tags: v[18] as ExtraFields['pattern_matched_tags'],
    common_tags: v[19] as ExtraFields['common_tags'],
    detector: v[20] as ExtraFields['detector'],
  };
}
