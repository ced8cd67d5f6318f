// `virtual:cdn-options`: the CDN rule options as the console's option editor needs them (each option's
// fields, their kinds and help, and a starting value), derived at build time from the same TypeBox
// schemas that validate the API (src/cdn/options/catalogue.ts), so the form cannot drift from them.
import type { Plugin } from 'vite';
import { RULE_OPTION_SCHEMAS as OPTION_SCHEMAS } from '../src/cdn/options/catalogue.js';

const ID = 'virtual:cdn-options';
const RESOLVED = `\0${ID}`;

interface JsonSchema {
  type?: string | string[];
  description?: string;
  default?: unknown;
  enum?: unknown[];
  anyOf?: JsonSchema[];
  const?: unknown;
  minimum?: number;
  deprecated?: boolean;
  properties?: Record<string, JsonSchema>;
  required?: string[];
}

export interface OptionField {
  name: string;
  kind: string;
  required: boolean;
  help?: string;
  choices?: unknown[];
}

export interface OptionEntry {
  help?: string;
  deprecated?: boolean;
  fields: OptionField[];
  /** A value to start editing from when the option is switched on. */
  starter: Record<string, unknown>;
}

function kindOf(schema: JsonSchema): string {
  if (schema.anyOf) return [...new Set(schema.anyOf.map(kindOf))].join(' | ');
  if (schema.enum) return 'choice';
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  return Array.isArray(schema.type) ? schema.type.join(' | ') : (schema.type ?? 'any');
}

function starterValue(schema: JsonSchema): unknown {
  if (schema.default !== undefined) return schema.default;
  if (schema.enum) return schema.enum[0];
  if (schema.anyOf) return starterValue(schema.anyOf.find((branch) => branch.enum ?? branch.const) ?? schema.anyOf[0]);
  if (schema.const !== undefined) return schema.const;
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  if (type === 'boolean') return true;
  if (type === 'integer' || type === 'number') return schema.minimum ?? 0;
  if (type === 'array') return [];
  if (type === 'object') return starterObject(schema);
  if (type === 'null') return null;
  return '';
}

function starterObject(schema: JsonSchema): Record<string, unknown> {
  const required = new Set(schema.required ?? []);
  const entries = Object.entries(schema.properties ?? {}).filter(([name, field]) => name !== 'enabled' && (required.has(name) || field.default !== undefined));
  return Object.fromEntries(entries.map(([name, field]) => [name, starterValue(field)]));
}

export function optionCatalogue(): Record<string, OptionEntry> {
  return Object.fromEntries(
    Object.entries(OPTION_SCHEMAS as unknown as Record<string, JsonSchema>).map(([name, schema]) => {
      const required = new Set(schema.required ?? []);
      const fields = Object.entries(schema.properties ?? {})
        .filter(([field]) => field !== 'enabled')
        .map(([field, fieldSchema]): OptionField => ({
          name: field,
          kind: kindOf(fieldSchema),
          required: required.has(field),
          help: fieldSchema.description,
          choices: fieldSchema.enum,
        }));
      return [name, { help: schema.description, deprecated: schema.deprecated, fields, starter: starterObject(schema) }];
    }),
  );
}

export function cdnOptionCatalogue(): Plugin {
  return {
    name: 'edgeplane-cdn-options',
    resolveId: (id) => (id === ID ? RESOLVED : undefined),
    load: (id) => (id === RESOLVED ? `export default ${JSON.stringify(optionCatalogue())};` : undefined),
  };
}
