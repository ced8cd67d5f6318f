// CDN rule templates: the list, and an editor for one template whose every field and option shows the
// API's field-path errors (`weight`, `options.gzipOn`, `options.browser_cache_settings.value`) in place.
import { useLocation } from 'preact-iso';
import { useState } from 'preact/hooks';
import { call, queryString } from '../../api';
import { useAction, useResource } from '../../hooks';
import { loadSession } from '../../session';
import { columnsFor, DataTable } from '../../ui/table';
import { Card, Drawer, ErrorNote, Field, Json } from '../../ui/widgets';
import { OptionsEditor, optionsBody, type OptionDrafts, draftsOf } from './options-editor';

export interface RuleTemplate {
  id: number;
  name: string;
  client: number;
  rule: string;
  ruleType: number;
  weight: number;
  default: boolean;
  overrideOriginProtocol: string | null;
  options: Record<string, Record<string, unknown> | null>;
}

const LIST = '/cdn/resources/rule_templates';
const h = columnsFor<RuleTemplate>();
const COLUMNS = [
  h.accessor('id', { header: 'ID' }),
  h.accessor('name', { header: 'Name', cell: (c) => <strong>{c.getValue() || '(no name)'}</strong> }),
  h.accessor('rule', {
    header: 'Rule',
    cell: (c) => (
      <span class="mono clip" title={c.getValue()}>
        {c.getValue()}
      </span>
    ),
  }),
  h.accessor('ruleType', { header: 'Type' }),
  h.accessor('weight', { header: 'Weight' }),
  h.accessor((t) => Object.values(t.options).filter(Boolean).length, { id: 'options', header: 'Options set' }),
  h.accessor('overrideOriginProtocol', { header: 'Origin protocol', cell: (c) => c.getValue() ?? 'inherit' }),
  h.accessor('default', { header: 'Owner', cell: (c) => (c.getValue() ? 'system' : 'yours') }),
];

export function RuleTemplatesView() {
  const { query, path, route } = useLocation();
  const templates = useResource('rule-templates', (signal) => call<{ count: number; results: RuleTemplate[] }>(LIST, { query: { limit: 1000 }, signal }));
  const rows = templates.data?.results ?? [];
  const select = (id: string | undefined) => route(path + queryString({ ...query, template: id }));
  const openId = query.template;
  const open = openId === 'new' ? null : rows.find((t) => String(t.id) === openId);
  return (
    <div class="stack">
      <div class="card-head">
        <h2>
          Rule templates <span class="muted">({templates.data?.count ?? '…'})</span>
        </h2>
        <div class="card-actions">
          <button type="button" class="primary" onClick={() => select('new')}>
            New template
          </button>
        </div>
      </div>
      <ErrorNote error={templates.error} />
      <DataTable
        label="Rule templates"
        columns={COLUMNS}
        rows={rows}
        rowId={(t) => String(t.id)}
        openId={openId}
        onOpen={(t) => select(String(t.id))}
        loading={templates.loading && !templates.data}
      />
      {loadSession()?.operatorToken && <MatchCard />}
      {openId && (open !== undefined || openId === 'new') && (
        <Drawer title={open ? `Template ${open.id}${open.name ? `: ${open.name}` : ''}` : 'New rule template'} onClose={() => select(undefined)} wide>
          <TemplateEditor
            key={openId}
            template={open ?? undefined}
            optionNames={Object.keys(rows[0]?.options ?? {})}
            onSaved={(saved) => {
              templates.reload();
              select(String(saved.id));
            }}
            onDeleted={() => {
              templates.reload();
              select(undefined);
            }}
          />
        </Drawer>
      )}
    </div>
  );
}

const TOP_FIELDS = ['name', 'rule', 'ruleType', 'weight', 'overrideOriginProtocol', 'options'];

/** A number when the text is one; otherwise the text, so the API names the field in its answer. */
const numberOrText = (text: string) => (text.trim() !== '' && Number.isFinite(Number(text)) ? Number(text) : text);

function TemplateEditor(props: { template?: RuleTemplate; optionNames: string[]; onSaved: (t: RuleTemplate) => void; onDeleted: () => void }) {
  const t = props.template;
  const readOnly = Boolean(t?.default);
  const [name, setName] = useState(t?.name ?? '');
  const [rule, setRule] = useState(t?.rule ?? '/');
  const [ruleType, setRuleType] = useState(String(t?.ruleType ?? 0));
  const [weight, setWeight] = useState(String(t?.weight ?? 1));
  const [protocol, setProtocol] = useState(t?.overrideOriginProtocol ?? '');
  const [options, setOptions] = useState<OptionDrafts>(() => draftsOf(t?.options ?? {}, props.optionNames));
  const [localError, setLocalError] = useState<string>();
  const save = useAction(async () => {
    const built = optionsBody(options);
    if ('invalid' in built) {
      setLocalError(built.invalid);
      return undefined;
    }
    setLocalError(undefined);
    const body = {
      name,
      rule,
      ruleType: numberOrText(ruleType),
      weight: numberOrText(weight),
      overrideOriginProtocol: protocol || null,
      options: built.options,
    };
    const saved = t ? await call<RuleTemplate>(`${LIST}/${t.id}`, { method: 'PUT', body }) : await call<RuleTemplate>(LIST, { method: 'POST', body });
    props.onSaved(saved);
    return saved;
  });
  const remove = useAction(async () => {
    await call(`${LIST}/${t?.id}`, { method: 'DELETE' });
    props.onDeleted();
  });
  const [confirm, setConfirm] = useState(false);
  const error = save.error;
  return (
    <form
      aria-label="Rule template"
      onSubmit={(event) => {
        event.preventDefault();
        if (!readOnly) void save.run();
      }}
    >
      {readOnly && <p class="note info">A system template: every account can use it, nobody can change it.</p>}
      <fieldset disabled={readOnly} class="plain-fieldset">
        <div class="form-grid">
          <Field label="Name" error={error} path="name">
            <input name="name" value={name} onInput={(e) => setName((e.target as HTMLInputElement).value)} />
          </Field>
          <Field label="Rule (regular expression on the path)" error={error} path="rule" wide>
            <input name="rule" class="mono" value={rule} onInput={(e) => setRule((e.target as HTMLInputElement).value)} />
          </Field>
          <Field label="Rule type" error={error} path="ruleType">
            <select name="ruleType" value={ruleType} onChange={(e) => setRuleType((e.target as HTMLSelectElement).value)}>
              <option value="0">0: starts with / or ^/</option>
              <option value="1">1: legacy (deprecated)</option>
            </select>
          </Field>
          <Field label="Weight (lowest applies first)" error={error} path="weight">
            <input name="weight" inputMode="numeric" value={weight} onInput={(e) => setWeight((e.target as HTMLInputElement).value)} />
          </Field>
          <Field label="Origin protocol" error={error} path="overrideOriginProtocol">
            <select name="overrideOriginProtocol" value={protocol} onChange={(e) => setProtocol((e.target as HTMLSelectElement).value)}>
              <option value="">inherit</option>
              <option value="HTTPS">HTTPS</option>
              <option value="HTTP">HTTP</option>
              <option value="MATCH">MATCH</option>
            </select>
          </Field>
        </div>
        <h3>Options</h3>
        <OptionsEditor drafts={options} onChange={setOptions} error={error} />
      </fieldset>
      {localError && (
        <p class="note error" role="alert">
          {localError}
        </p>
      )}
      <ErrorNote error={save.error ?? remove.error} shown={TOP_FIELDS} />
      {!readOnly && (
        <div class="form-actions">
          <button type="submit" class="primary" disabled={save.pending}>
            {save.pending ? 'Saving…' : t ? 'Save (replace)' : 'Create'}
          </button>
          {t && (
            <button type="button" class="danger" onClick={() => (confirm ? remove.run() : setConfirm(true))}>
              {confirm ? 'Confirm delete' : 'Delete'}
            </button>
          )}
        </div>
      )}
      {t && (
        <details>
          <summary>Raw answer</summary>
          <Json value={t} label="Template as JSON" />
        </details>
      )}
    </form>
  );
}

interface MatchResult {
  path: string;
  template: RuleTemplate | null;
  matching: { id: number; weight: number }[];
}

/** Which template applies to a path (control API: the operator token). */
function MatchCard() {
  const [uri, setUri] = useState('/images/logo.png');
  const match = useAction((target: string) =>
    call<MatchResult>('/_edgeplane/cdn/rule-templates/match', { method: 'POST', as: 'operator', body: { client_id: loadSession()?.clientId, uri: target } }),
  );
  return (
    <Card title="Which template applies to a path?">
      <form
        class="toolbar"
        onSubmit={(event) => {
          event.preventDefault();
          void match.run(uri);
        }}
      >
        <Field label="Path or URL" error={match.error} path="uri">
          <input name="uri" class="mono" value={uri} onInput={(e) => setUri((e.target as HTMLInputElement).value)} />
        </Field>
        <button type="submit">Match</button>
      </form>
      <ErrorNote error={match.error} shown={['uri']} />
      {match.result && (
        <p role="status">
          {match.result.template ? (
            <>
              <code>{match.result.path}</code> is served by template <strong>{match.result.template.id}</strong> ({match.result.template.name || 'no name'},
              weight {match.result.template.weight}); {match.result.matching.length} template(s) match.
            </>
          ) : (
            <>
              No template matches <code>{match.result.path}</code>.
            </>
          )}
        </p>
      )}
    </Card>
  );
}
