// Per-request loggers made on first use. Fastify gives every request a child logger bound to its request
// id; making one (pino serialises the bindings) costs more than some whole handlers, and with request
// logging off (the default) almost no request ever logs. This stands in for the child and makes the
// real one only when a message at an enabled level is written.
import type { FastifyBaseLogger, FastifyServerOptions } from 'fastify';
import type { Bindings, ChildLoggerOptions, LevelWithSilentOrString } from 'pino';

type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';
/** Fastify's logger is pino, which can say whether a level is on. */
type PinoLogger = FastifyBaseLogger & { isLevelEnabled(level: string): boolean };

class LazyRequestLogger {
  private real: PinoLogger | undefined;

  constructor(
    private readonly parent: PinoLogger,
    private readonly bindings: Bindings,
    private readonly options: ChildLoggerOptions,
  ) {}

  get level(): LevelWithSilentOrString {
    return this.real?.level ?? this.parent.level;
  }

  set level(level: LevelWithSilentOrString) {
    this.materialise().level = level;
  }

  isLevelEnabled(level: string): boolean {
    return (this.real ?? this.parent).isLevelEnabled(level);
  }

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.materialise().child(bindings, options);
  }

  silent(): void {}
  fatal(...args: unknown[]): void {
    this.write('fatal', args);
  }
  error(...args: unknown[]): void {
    this.write('error', args);
  }
  warn(...args: unknown[]): void {
    this.write('warn', args);
  }
  info(...args: unknown[]): void {
    this.write('info', args);
  }
  debug(...args: unknown[]): void {
    this.write('debug', args);
  }
  trace(...args: unknown[]): void {
    this.write('trace', args);
  }

  private write(level: Level, args: unknown[]): void {
    if (!this.isLevelEnabled(level)) return;
    (this.materialise()[level] as (...a: unknown[]) => void)(...args);
  }

  private materialise(): PinoLogger {
    return (this.real ??= this.parent.child(this.bindings, this.options) as PinoLogger);
  }
}

/** Fastify's `childLoggerFactory` option for servers that do not log every request. */
export const lazyRequestLoggers: NonNullable<FastifyServerOptions['childLoggerFactory']> = function (logger, bindings, options) {
  return new LazyRequestLogger(logger as PinoLogger, bindings, options) as unknown as FastifyBaseLogger;
};
