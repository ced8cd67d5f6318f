// The benchmarks' command-line options: `--name value` pairs and bare `--flag`s.

/** The value after `--name` on the command line, or `fallback`. */
export function option(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : fallback;
}
