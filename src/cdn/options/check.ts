// The checks a rule (template or resource rule) and a resource's options go through before anything is
// stored: schema problems, the rule's pattern, and every option rule, reported together.
import type { FieldError } from '../../platform/errors.js';
import { bodyField } from '../../platform/errors.js';
import { EDGE_APP_ALIAS, type StoredOptions } from './catalogue.js';
import { ruleErrors } from './pattern.js';
import { inheritedConflicts, optionErrors, type ResourceContext } from './rules.js';

/** Fields the schema refused at their top level (their rules are not run: their shape is unknown). */
export function refusedTopFields(schemaFields: FieldError[]): Set<string> {
  return new Set(schemaFields.map((f) => String(f.path[0])));
}

/** Options the schema refused; they take part in no option rule. */
function refusedOptions(schemaFields: FieldError[]): Set<string> {
  const bad = new Set(schemaFields.filter((f) => f.path[0] === 'options' && f.path.length > 1).map((f) => String(f.path[1])));
  if (bad.has(EDGE_APP_ALIAS)) bad.add('fastedge');
  return bad;
}

/** The rule pattern's problems, when the schema accepted rule and ruleType. */
export function patternProblems(schemaFields: FieldError[], rule: unknown, ruleType: unknown): FieldError[] {
  const refused = refusedTopFields(schemaFields);
  if (refused.has('rule') || refused.has('ruleType') || typeof rule !== 'string' || typeof ruleType !== 'number') return [];
  return ruleErrors(rule, ruleType);
}

/** Every option rule on the options that would be stored. */
export function optionProblems(schemaFields: FieldError[], options: StoredOptions, resource?: ResourceContext): FieldError[] {
  return optionErrors(options, refusedOptions(schemaFields), resource);
}

/** A resource rule's options against those it inherits from its resource. */
export function inheritedProblems(schemaFields: FieldError[], inherited: StoredOptions, options: StoredOptions): FieldError[] {
  const bad = refusedOptions(schemaFields);
  return inheritedConflicts(inherited, options)
    .filter((c) => !bad.has(c.own))
    .map((c) =>
      bodyField(
        ['options', c.own],
        `Cannot be enabled together with ${c.inherited}, which the resource enables: turn ${c.inherited} OFF in this rule`,
        'conflict',
      ),
    );
}
