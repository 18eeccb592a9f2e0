/**
 * Typed errors raised by the service and storage layers. They know nothing of HTTP beyond the
 * status they stand for; one place in `http/errors.ts` turns them into contract-shaped JSON.
 */

/** One problem in a 422 body: `{loc, msg, type}` exactly as the contract's validation body. */
export interface ValidationIssue {
  loc: (string | number)[];
  msg: string;
  type: string;
}

export class SiloError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** 422 with the validation body listing every problem found. */
export class ValidationError extends SiloError {
  constructor(readonly detail: ValidationIssue[]) {
    super(422, detail.map((d) => `${d.loc.join('.')}: ${d.msg}`).join('; '));
  }
}

/** 401: missing, unknown, revoked or expired key, or a key of the wrong type. */
export class UnauthorizedError extends SiloError {
  constructor(message: string) {
    super(401, message);
  }
}

/** 404: also used when a silo exists but the caller may not see it, so nothing leaks. */
export class NotFoundError extends SiloError {
  constructor(message = 'Silo not found') {
    super(404, message);
  }
}

/** 400: a request the contract refuses outright (for example parameters on a public address). */
export class BadRequestError extends SiloError {
  constructor(message: string) {
    super(400, message);
  }
}

/** 409: a name that must be unique is taken (key names per account and type, account names). */
export class ConflictError extends SiloError {
  constructor(message: string) {
    super(409, message);
  }
}

/** 413: the body or `file_data` is over the plan's size limit; the message states the limit. */
export class PayloadTooLargeError extends SiloError {
  constructor(readonly limitBytes: number) {
    super(413, `Payload too large: the limit is ${limitBytes} bytes (${formatBytes(limitBytes)})`);
  }
}

/** 412: `If-Match` names a version that is no longer current. */
export class PreconditionFailedError extends SiloError {
  constructor(message = 'The silo has changed since the given ETag') {
    super(412, message);
  }
}

/** 503: the storage could not be reached or failed; the server recovers when it returns. */
export class StorageUnavailableError extends SiloError {
  constructor(cause?: unknown) {
    super(503, 'Storage is unavailable, please retry shortly');
    if (cause !== undefined) this.cause = cause;
  }
}

export function formatBytes(bytes: number): string {
  if (bytes >= 1_000_000 && bytes % 1_000_000 === 0) return `${bytes / 1_000_000} MB`;
  if (bytes >= 1_000 && bytes % 1_000 === 0) return `${bytes / 1_000} KB`;
  return `${bytes} bytes`;
}
