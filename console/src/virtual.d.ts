declare module 'virtual:cdn-options' {
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
    starter: Record<string, unknown>;
  }
  const options: Record<string, OptionEntry>;
  export default options;
}
