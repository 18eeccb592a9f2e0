/**
 * Structured logs: one JSON object per line, `{"time", "level", "msg", ...fields}`.
 * Nothing logged here ever carries a key value: requests are logged by method, path, status and
 * timing only (never headers or query strings), errors by their message.
 */
export type Level = 'info' | 'warn' | 'error';
export type Fields = Record<string, unknown>;

export interface Logger {
  info(msg: string, fields?: Fields): void;
  warn(msg: string, fields?: Fields): void;
  error(msg: string, fields?: Fields): void;
}

export function createLogger(write: (line: string) => void = (line) => process.stdout.write(line)): Logger {
  const emit = (level: Level, msg: string, fields: Fields = {}) => {
    write(`${JSON.stringify({ time: new Date().toISOString(), level, msg, ...fields })}\n`);
  };
  return {
    info: (msg, fields) => emit('info', msg, fields),
    warn: (msg, fields) => emit('warn', msg, fields),
    error: (msg, fields) => emit('error', msg, fields),
  };
}

export const silentLogger: Logger = { info() {}, warn() {}, error() {} };

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
