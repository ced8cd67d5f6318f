// A stored rule as the API answers it. The rule's `originProtocol` is the one in force for the requests
// it applies to: its override, else its resource's.
import { RULE_OPTION_NAMES } from '../options/catalogue.js';
import { allOptions, parseOptions } from '../options/states.js';
import type { ResourceRule } from './schemas.js';
import type { RuleRow } from './store.js';

export function toRule(row: RuleRow, resourceOriginProtocol: string): ResourceRule {
  return {
    id: row.id,
    name: row.name,
    active: row.active === 1,
    deleted: false,
    originGroup: row.origin_group_id,
    rule: row.rule,
    ruleType: row.rule_type,
    weight: row.weight,
    originProtocol: (row.override_origin_protocol ?? resourceOriginProtocol) as ResourceRule['originProtocol'],
    overrideOriginProtocol: row.override_origin_protocol as ResourceRule['overrideOriginProtocol'],
    preset_applied: false,
    primary_rule: null,
    options: allOptions(RULE_OPTION_NAMES, parseOptions(row.options)) as ResourceRule['options'],
  };
}
