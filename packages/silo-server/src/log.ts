/**
 * Structured logs through pino: one JSON object per line, `{"level", "time", "msg", ...fields}`,
 * written to stdout without ever blocking the server on its reader (log-sink.ts), or one plain
 * line per entry for people at a terminal (SILO_LOG_FORMAT=pretty).
 *
 * Nothing logged here ever carries a key value: requests are logged by method, path (key values
 * cut out), status and timing only (never headers or query strings), errors by their message.
 */
import pino from 'pino';
import { streamSink } from './log-sink.js';

export type Level = 'debug' | 'info' | 'warn' | 'error';
export type Fields = Record<string, unknown>;
export const LOG_LEVELS = ['debug', 'info', 'warn', 'error', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
export type LogFormat = 'json' | 'pretty';

export interface Logger {
  debug(msg: string, fields?: Fields): void;
  info(msg: string, fields?: Fields): void;
  warn(msg: string, fields?: Fields): void;
  error(msg: string, fields?: Fields): void;
  /** One answered request, at level info: the line every response writes. */
  request(line: RequestLine): void;
  /** Resolves once every line has reached stdout's reader, or after `timeoutMs` (at shutdown). */
  flush(timeoutMs?: number): Promise<void>;
}

/** A request's log line (`"msg":"request"`): what was asked and answered, never a header or query. */
export interface RequestLine {
  method: string;
  path: string;
  status: number;
  duration_ms: number;
  host: string;
  ip: string | undefined;
  /** The client went away before the whole answer was sent. */
  aborted?: true;
}

export interface LogOptions {
  /** Entries below this level are not written. Default info. */
  level?: LogLevel;
  format?: LogFormat;
  /** Where lines go; default stdout (log-sink.ts). */
  write?: (line: string) => void;
}

/** `12:04:05.123 INFO  listening port=8080 …`: a JSON line as a person reads it. */
export function prettyLine(json: string): string {
  const { level, time, msg, ...fields } = JSON.parse(json) as { level: string; time: string; msg: string } & Fields;
  const rest = Object.entries(fields)
    .map(([key, value]) => `${key}=${typeof value === 'string' && !/\s/.test(value) ? value : JSON.stringify(value)}`)
    .join(' ');
  return `${time.slice(11, 23)} ${level.toUpperCase().padEnd(5)} ${msg}${rest ? ` ${rest}` : ''}\n`;
}

/**
 * pino's `"time"` field in ISO form, built once per millisecond: under load many lines share a
 * millisecond, and `toISOString` was the log's largest single cost.
 */
function isoTimeField(): () => string {
  let ms = -1;
  let field = '';
  return () => {
    const now = Date.now();
    if (now !== ms) {
      ms = now;
      field = `,"time":"${new Date(now).toISOString()}"`;
    }
    return field;
  };
}

export function createLogger(options: LogOptions | ((line: string) => void) = {}): Logger {
  const { level = 'info', format = 'json', write } = typeof options === 'function' ? { write: options } : options;
  // Told of lines dropped for a reader that fell behind, once it has caught up: a line of its own.
  const out = write ? undefined : streamSink(process.stdout, (count) => logger.warn('log lines dropped: stdout was not read', { count }));
  const sink = write ?? ((line: string) => out!.write(line));
  const stream = { write: format === 'pretty' ? (line: string) => sink(prettyLine(line)) : sink };
  const time = isoTimeField();
  const log = pino(
    {
      level,
      base: null,
      timestamp: time,
      formatters: { level: (label) => ({ level: label }) },
    },
    stream,
  );
  // The message first among the fields (passed in the object, not as pino's trailing message).
  const emit = (at: Level) => (msg: string, fields: Fields = {}) => log[at]({ msg, ...fields });
  const logger: Logger = {
    debug: emit('debug'),
    info: emit('info'),
    warn: emit('warn'),
    error: emit('error'),
    request(line) {
      if (!log.isLevelEnabled('info')) return;
      stream.write(requestJson(line, time()));
    },
    flush: (timeoutMs = 2000) => out?.drained(timeoutMs) ?? Promise.resolve(),
  };
  return logger;
}

/**
 * A request's line as pino would write it, built directly: one is written per response, and
 * pino's general path (a fields object spread, then walked key by key) cost five times this.
 */
function requestJson(line: RequestLine, timeField: string): string {
  const { method, path, status, duration_ms, host, ip } = line;
  return (
    `{"level":"info"${timeField},"msg":"request","method":${JSON.stringify(method)},"path":${JSON.stringify(path)},` +
    `"status":${status},"duration_ms":${duration_ms},"host":${JSON.stringify(host)}` +
    `${ip === undefined ? '' : `,"ip":${JSON.stringify(ip)}`}${line.aborted ? ',"aborted":true' : ''}}\n`
  );
}

export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {}, request() {}, flush: async () => undefined };

export interface ThrottledWarn {
  /** One occurrence of `msg` (of the kind `kind`, for example an error code). */
  (msg: string, fields?: Fields, kind?: string): void;
  /** Writes the pending counts now (at shutdown) and stops the timer. */
  flush(): void;
}

/**
 * Warn lines for events a client can cause at will (malformed requests, reaped slow connections,
 * refused connections): the first of a kind is written at once; the next ones of that kind are
 * counted and written as one line with `count` every `intervalMs` while they go on, so that no
 * client can flood the log.
 */
export function throttledWarn(logger: Logger, intervalMs = 10_000): ThrottledWarn {
  // Kinds seen in the current interval, with what came after their first line.
  const open = new Map<string, { msg: string; fields: Fields; count: number }>();
  let timer: NodeJS.Timeout | undefined;
  const summarise = (final: boolean) => {
    for (const [key, entry] of open) {
      if (entry.count > 0) logger.warn(entry.msg, { ...entry.fields, count: entry.count, interval_s: intervalMs / 1000 });
      if (entry.count === 0 || final) open.delete(key);
      entry.count = 0;
    }
    if (open.size === 0 && timer) {
      clearInterval(timer);
      timer = undefined;
    }
  };
  const note = (msg: string, fields: Fields = {}, kind = '') => {
    const key = `${msg}\u0000${kind}`;
    const entry = open.get(key);
    if (entry) {
      entry.count++;
      entry.fields = fields;
      return;
    }
    open.set(key, { msg, fields, count: 0 });
    logger.warn(msg, fields);
    timer ??= setInterval(() => summarise(false), intervalMs).unref();
  };
  return Object.assign(note, { flush: () => summarise(true) });
}

/** An error as log fields: its message and, for unexpected errors (bugs), its stack and cause. */
export function errorFields(err: unknown): Fields {
  if (err === undefined) return {};
  if (!(err instanceof Error)) return { error: String(err) };
  const fields: Fields = { error: err.message, error_name: err.name };
  const status = (err as { status?: unknown }).status;
  if (typeof status === 'number') {
    // A typed Silo error: its message is the whole story.
    fields.status = status;
    if (err.cause !== undefined) fields.cause = err.cause instanceof Error ? err.cause.message : String(err.cause);
  } else if (err.stack) {
    fields.stack = err.stack;
  }
  return fields;
}
