// Request headers as an event row stores them (`request_headers`): shared by ingestion, which writes
// them, and the service, which reads them back, so neither side imports the other.

/**
 * Request headers as stored: JSON, with a User-Agent header that repeats the event's user agent as null,
 * so the headers of one site repeat exactly and share one dictionary entry per block.
 */
export function headersText(headers: Record<string, string>, userAgent: string): string {
  if (headers['user-agent'] === undefined || headers['user-agent'] !== userAgent) return JSON.stringify(headers);
  return JSON.stringify({ ...headers, 'user-agent': null });
}

/** The stored headers back as the record's object. */
export function headersFromText(text: string, userAgent: string): Record<string, string> {
  const headers = JSON.parse(text) as Record<string, string | null>;
  for (const [name, value] of Object.entries(headers)) if (value === null) headers[name] = userAgent;
  return headers as Record<string, string>;
}
