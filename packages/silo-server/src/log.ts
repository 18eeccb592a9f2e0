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
