// The options of a rule template, one row each: inherit, ON or OFF, and the option's other fields as JSON
// (started from the option's defaults when it is switched on). The list of options, their fields and
// help come from the server's own schemas at build time (virtual:cdn-options).
import catalogue from 'virtual:cdn-options';
import { fieldErrors } from '../../api';
import { json } from '../../format';

export type OptionState = 'inherit' | 'on' | 'off';
export interface OptionDraft {
  state: OptionState;
  /** The option's fields other than `enabled`, as JSON text. */
  text: string;
}
export type OptionDrafts = Record<string, OptionDraft>;

export function draftsOf(options: Record<string, Record<string, unknown> | null>, names: string[]): OptionDrafts {
  const all = [...new Set([...names, ...Object.keys(catalogue), ...Object.keys(options)])].sort();
  return Object.fromEntries(
    all.map((name) => {
      const value = options[name];
      if (!value) return [name, { state: 'inherit', text: json(catalogue[name]?.starter ?? {}) }];
      const { enabled, ...rest } = value;
      return [name, { state: enabled ? 'on' : 'off', text: json(rest) }];
    }),
  );
}

/** The `options` body (null = inherit), or which option's JSON does not parse. */
export function optionsBody(drafts: OptionDrafts): { options: Record<string, unknown> } | { invalid: string } {
  const options: Record<string, unknown> = {};
  for (const [name, draft] of Object.entries(drafts)) {
    if (draft.state === 'inherit') {
      options[name] = null;
      continue;
    }
    try {
      const fields = JSON.parse(draft.text || '{}');
      if (typeof fields !== 'object' || fields === null || Array.isArray(fields)) return { invalid: `Option ${name}: its fields must be a JSON object` };
      options[name] = { enabled: draft.state === 'on', ...fields };
    } catch (error) {
      return { invalid: `Option ${name}: ${(error as Error).message}` };
    }
  }
  return { options };
}

export function OptionsEditor(props: { drafts: OptionDrafts; onChange: (next: OptionDrafts) => void; error: unknown }) {
  const set = (name: string, patch: Partial<OptionDraft>) => props.onChange({ ...props.drafts, [name]: { ...props.drafts[name], ...patch } });
  return (
    <div class="options" role="list" aria-label="Options">
      {Object.entries(props.drafts).map(([name, draft]) => {
        const entry = catalogue[name];
        const messages = fieldErrors(props.error, `options.${name}`);
        return (
          <div role="listitem" class={`option-row${draft.state !== 'inherit' ? ' is-set' : ''}${messages.length ? ' has-error' : ''}`} data-option={name}>
            <div>
              <div class="option-name">{name}</div>
              {entry?.help && <div class="option-help">{entry.help}</div>}
              {entry?.deprecated && <div class="option-help">deprecated</div>}
            </div>
            <select
              aria-label={`${name} state`}
              name={`${name}-state`}
              value={draft.state}
              onChange={(e) => set(name, { state: (e.target as HTMLSelectElement).value as OptionState })}
            >
              <option value="inherit">inherit</option>
              <option value="on">ON</option>
              <option value="off">OFF</option>
            </select>
            <div>
              {draft.state !== 'inherit' && (
                <>
                  <textarea
                    aria-label={`${name} fields (JSON)`}
                    name={`${name}-fields`}
                    rows={Math.min(8, draft.text.split('\n').length + 1)}
                    value={draft.text}
                    onInput={(e) => set(name, { text: (e.target as HTMLTextAreaElement).value })}
                    spellcheck={false}
                  />
                  {entry && entry.fields.length > 0 && (
                    <div class="option-help">
                      {entry.fields.map((f) => (
                        <div>
                          <code>{f.name}</code> {f.kind}
                          {f.required ? ', required' : ''}
                          {f.choices ? `: ${f.choices.join(', ')}` : ''}
                          {f.help ? ` (${f.help})` : ''}
                        </div>
                      ))}
                    </div>
                  )}
                </>
              )}
              {messages.map((message) => (
                <div class="field-error" role="alert">
                  {message}
                </div>
              ))}
            </div>
          </div>
        );
      })}
    </div>
  );
}
