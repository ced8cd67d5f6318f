// State snapshots: export (download), import (replace, all-or-nothing), reset of everything or one client.
import { useState } from 'preact/hooks';
import { call } from '../../api';
import { count } from '../../format';
import { useAction, useResource } from '../../hooks';
import { loadSession, saveSession } from '../../session';
import { Card, ErrorNote, Field } from '../../ui/widgets';

const op = { as: 'operator' } as const;

interface Info {
  engine: string;
  database: string;
  schemaVersion: string;
  counts: { tables: Record<string, number> };
}

export function StateView() {
  const info = useResource('info', (signal) => call<Info>('/_edgeplane/info', { ...op, signal }));
  const [clientId, setClientId] = useState('');
  const scope = clientId.trim() ? { clientId: Number(clientId) } : undefined;
  const download = useAction(async () => {
    const document = await call<unknown>('/_edgeplane/state', { ...op, query: scope });
    const url = URL.createObjectURL(new Blob([JSON.stringify(document)], { type: 'application/json' }));
    const link = Object.assign(window.document.createElement('a'), { href: url, download: `edgeplane-state${scope ? `-client-${scope.clientId}` : ''}.json` });
    link.click();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
    return true;
  });
  const upload = useAction(async (file: File) => {
    await call('/_edgeplane/state', { ...op, method: 'PUT', rawBody: { text: await file.text(), type: 'application/json' } });
    info.reload();
    return file.name;
  });
  const [confirm, setConfirm] = useState(false);
  const reset = useAction(async () => {
    const answer = await call<{ clientId: number | null; demo: { clientId: number; apiKey: string } | null }>('/_edgeplane/state/reset', {
      ...op,
      method: 'POST',
      body: scope ?? {},
    });
    setConfirm(false);
    info.reload();
    return answer;
  });
  const tables = Object.entries(info.data?.counts.tables ?? {});
  const demo = reset.result?.demo;
  return (
    <div class="grid-2">
      <Card title="Snapshot">
        <div class="toolbar">
          <Field label="Only client (optional)">
            <input
              name="clientId"
              inputMode="numeric"
              value={clientId}
              placeholder="every client"
              onInput={(e) => setClientId((e.target as HTMLInputElement).value)}
              size={10}
            />
          </Field>
          <button type="button" onClick={() => download.run()} disabled={download.pending}>
            Export (download JSON)
          </button>
        </div>
        <div class="toolbar">
          <Field label="Import a state document (replaces what it covers)" error={upload.error}>
            <input
              type="file"
              name="import"
              accept="application/json,.json"
              onChange={(e) => {
                const file = (e.target as HTMLInputElement).files?.[0];
                if (file) void upload.run(file);
              }}
            />
          </Field>
        </div>
        {upload.result && <p class="note info">Imported {upload.result}.</p>}
        <ErrorNote error={download.error ?? upload.error} />
        <h3>Reset</h3>
        <p class="muted small">
          {scope
            ? `Deletes every row of client ${scope.clientId}.`
            : 'Deletes every row, the faults and the journal, and re-creates the demo client. The clock does not move.'}
        </p>
        <button type="button" class="danger" onClick={() => (confirm ? reset.run() : setConfirm(true))}>
          {confirm ? 'Confirm reset' : scope ? `Reset client ${scope.clientId}` : 'Reset everything'}
        </button>
        <ErrorNote error={reset.error} />
        {demo && (
          <div class="note info">
            The demo client ({demo.clientId}) was re-created.{' '}
            <button type="button" onClick={() => saveSession({ ...loadSession()!, apiKey: demo.apiKey, clientId: demo.clientId })}>
              Use its new token in this console
            </button>
          </div>
        )}
      </Card>
      <Card title={`Stored rows (${info.data?.engine ?? '…'}, schema ${info.data?.schemaVersion ?? '…'})`}>
        <ErrorNote error={info.error} />
        <div class="table-wrap">
          <table class="data" aria-label="Rows per table">
            <thead>
              <tr>
                <th scope="col">Table</th>
                <th scope="col">Rows</th>
              </tr>
            </thead>
            <tbody>
              {tables.map(([name, rows]) => (
                <tr>
                  <td class="mono">{name}</td>
                  <td>{count(rows)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </Card>
    </div>
  );
}
