// Moving options between their states, and combining a resource's options with a rule's. Shared by rule
// templates, resource rules and resources.
import { bodyField, type FieldError } from '../../platform/errors.js';
import { fixedShape, type ShapeMaker } from '../../platform/fixed-shape.js';
import { prune } from '../prune.js';
import { EDGE_APP_ALIAS, type OptionName, type OptionValue, RESOURCE_OPTION_SCHEMAS, type StoredOptions } from './catalogue.js';

/** Options as sent: an object per option (ON or OFF), null (inherit), or absent (unchanged). */
export type OptionsSent = Record<string, OptionValue | null | undefined>;

/**
 * Options as sent, with unknown options and unknown fields inside options dropped, and the seed's
 * `edge_app` name folded into `fastedge`. `known` is the catalogue of the object being written.
 */
export function readOptions(sent: unknown, known: Record<string, unknown>): { options: OptionsSent; errors: FieldError[] } {
  const raw = (sent && typeof sent === 'object' && !Array.isArray(sent) ? sent : {}) as OptionsSent;
  const options: OptionsSent = {};
  for (const [name, value] of Object.entries(raw)) {
    const canonical = name === EDGE_APP_ALIAS ? 'fastedge' : name;
    if (!(canonical in known)) continue;
    options[name] = value && typeof value === 'object' ? prune(known[canonical], value) : value;
  }
  if (!(EDGE_APP_ALIAS in options)) return { options, errors: [] };
  const { [EDGE_APP_ALIAS]: edgeApp, ...rest } = options;
  if ('fastedge' in rest)
    return { options: rest, errors: [bodyField(['options', EDGE_APP_ALIAS], 'edge_app is another name for fastedge: send one of them', 'conflict')] };
  return { options: { ...rest, fastedge: edgeApp }, errors: [] };
}

/** Applies sent options to stored ones: null removes (inherit), an object sets (ON or OFF), absent keeps. */
export function applyOptions(base: StoredOptions, sent: OptionsSent): StoredOptions {
  const next: StoredOptions = { ...base };
  for (const [name, value] of Object.entries(sent)) {
    if (value === undefined) continue;
    if (value === null) delete next[name as OptionName];
    else next[name as OptionName] = value;
  }
  return next;
}

const optionShapes = new WeakMap<readonly string[], ShapeMaker>();

/**
 * Every key of a catalogue, null where the option is not set: one object literal per catalogue of names
 * (fixedShape), as every resource, rule and template of a list is presented with one.
 */
export function allOptions<N extends string>(names: readonly N[], stored: StoredOptions): Record<N, OptionValue | null> {
  let make = optionShapes.get(names);
  if (!make) optionShapes.set(names, (make = fixedShape(names)));
  return make(names.map((name) => stored[name as OptionName] ?? null)) as Record<N, OptionValue | null>;
}

export function parseOptions(text: string): StoredOptions {
  return JSON.parse(text) as StoredOptions;
}

/** Where an effective option's value comes from. */
export type OptionSource = 'rule' | 'resource';

/**
 * The options in force for a request a rule applies to: the rule's option where it sets one (ON or
 * OFF), otherwise the resource's. Options neither sets are absent.
 */
export function mergeOptions(
  resource: StoredOptions,
  rule: StoredOptions | null,
): { options: StoredOptions; sources: Partial<Record<OptionName, OptionSource>> } {
  const options: StoredOptions = {};
  const sources: Partial<Record<OptionName, OptionSource>> = {};
  for (const name of Object.keys(RESOURCE_OPTION_SCHEMAS) as OptionName[]) {
    const fromRule = rule?.[name];
    if (fromRule) {
      options[name] = fromRule;
      sources[name] = 'rule';
    } else if (resource[name]) {
      options[name] = resource[name];
      sources[name] = 'resource';
    }
  }
  return { options, sources };
}
