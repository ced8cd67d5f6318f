// A write refused by a unique index: two requests raced past the service's own check (names, host
// names). Both engines are recognised so the service can answer the same refusal its check gives.
export function isUniqueViolation(error: unknown): boolean {
  const e = error as { code?: string; message?: string } | undefined;
  return e?.code === '23505' || e?.code === 'SQLITE_CONSTRAINT_UNIQUE' || /UNIQUE constraint failed/.test(e?.message ?? '');
}
