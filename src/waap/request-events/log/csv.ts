// The CSV export's text, made where the events are read: in a reader thread (or inline, without threads),
// so the main thread only passes the text on. Formatting 1,000 events a chunk on the main thread held it
// for milliseconds at a time while other clients' requests waited.

/**
 * One CSV field, exactly as csv-stringify writes it with its defaults (the export's format before; a
 * test holds the two equal): quoted when it holds a comma, a quote or a line break, quotes doubled;
 * numbers in decimal; null and undefined empty. Written here because csv-stringify spent about 10 us a
 * record on options this export never changes.
 */
export function csvField(value: unknown): string {
  if (value === null || value === undefined) return '';
  const text = typeof value === 'string' ? value : typeof value === 'boolean' ? (value ? '1' : '') : String(value);
  const quote = text.includes('"');
  if (quote || text.includes(',') || text.includes('\n') || text.includes('\r')) return `"${quote ? text.replaceAll('"', '""') : text}"`;
  return text;
}

/** One line per record: the values of `columns`, in that order. */
export function csvLines(records: readonly Record<string, unknown>[], columns: readonly string[]): string {
  let text = '';
  for (const record of records) {
    for (let c = 0; c < columns.length; c += 1) text += (c === 0 ? '' : ',') + csvField(record[columns[c]]);
    text += '\n';
  }
  return text;
}
