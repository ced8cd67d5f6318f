// LIKE patterns built from user input: `\` is the escape character (queries say `escape '\'`).

/** Text matched literally inside a LIKE pattern: its `%`, `_` and `\` escaped. */
export function likeLiteral(text: string): string {
  return text.replace(/[\\%_]/g, (ch) => `\\${ch}`);
}
