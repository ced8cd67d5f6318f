// Where the server's log goes and how it looks: JSON lines (pino's own) for machines, pipes and files;
// on a terminal, readable lines through pino-pretty. pino-pretty is loaded only then, and runs as a
// synchronous formatter on this thread rather than as a worker transport: a worker costs start-up time,
// and lines still queued for it are lost when the process exits right after logging.
import type { Config } from '../config.js';

interface Output {
  isTTY?: boolean;
  write(text: string): unknown;
}

export interface LoggerOptions {
  level: string;
  stream?: { write(line: string): void };
}

/** Whether the server's log is formatted for a person: `--log-format pretty`, or `auto` on a terminal. */
export function prettyLogs(config: Pick<Config, 'logFormat'>, output: Output = process.stdout): boolean {
  return config.logFormat === 'pretty' || (config.logFormat === 'auto' && output.isTTY === true);
}

/** The logger options of the Fastify app: pino's JSON to stdout, or pretty lines on a terminal. */
export async function loggerOptions(config: Pick<Config, 'logFormat' | 'logLevel'>, output: Output = process.stdout): Promise<LoggerOptions> {
  if (!prettyLogs(config, output)) return { level: config.logLevel };
  const { prettyFactory, isColorSupported } = await import('pino-pretty');
  const format = prettyFactory({
    // Colours only where they show (a terminal; NO_COLOR honoured), whatever --log-format says.
    colorize: output.isTTY === true && isColorSupported,
    translateTime: 'SYS:HH:MM:ss',
    ignore: 'pid,hostname',
    // Request logs (--log-requests) carry req/res objects: one line each is plenty on a terminal.
    singleLine: true,
  });
  return { level: config.logLevel, stream: { write: (line) => void output.write(format(line)) } };
}
