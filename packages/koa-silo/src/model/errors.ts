/**
 * Typed errors raised by the service and storage layers. They know nothing of HTTP beyond the
 * status they stand for; one place in `http/errors.ts` turns them into contract-shaped JSON.
 */

/** One problem in a 422 body: `{loc, msg, type}` exactly as the contract's validation body. */
export interface ValidationIssue {
  loc: (string | number)[];
  msg: string;
  type: string;
  /** The numbers behind a bound (`{"more": 12}`, `{"max": 1000}`). */
  ctx?: Record<string, number>;
}

/** A 422 lists at most this many problems, then one `too_many_errors` item (contract §17). */
export const MAX_ISSUES = 100;

/**
 * Problems as they are found, keeping the first MAX_ISSUES and only counting the rest: a body of
 * a million bad items costs a million checks, never a million objects (nor a 26 MB answer).
 */
export class IssueList {
  readonly kept: ValidationIssue[] = [];
  more = 0;

  push(issue: ValidationIssue): void {
    if (this.kept.length < MAX_ISSUES) this.kept.push(issue);
    else this.more++;
  }

  /** Whether another problem would only be counted (a check may stop building messages). */
  get full(): boolean {
    return this.kept.length >= MAX_ISSUES;
  }

  get size(): number {
    return this.kept.length + this.more;
  }

  /** The problems as a 422 lists them: the kept ones, and a `too_many_errors` item for the rest. */
  get detail(): ValidationIssue[] {
    return this.more > 0 ? new ValidationError(this.kept, this.more).detail : this.kept;
  }

  throwIfAny(): void {
    if (this.size > 0) throw new ValidationError(this.kept, this.more);
  }
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

/**
 * 422 with the validation body: the first MAX_ISSUES problems, then (when there were more) one
 * `too_many_errors` item saying how many more (`more`: problems found beyond `issues`).
 */
export class ValidationError extends SiloError {
  readonly detail: ValidationIssue[];

  constructor(issues: ValidationIssue[], more = 0) {
    // A list already capped (and mapped since) is capped again the same way.
    const listed = issues.filter((issue) => issue.type !== 'too_many_errors');
    const capped = issues.reduce((n, issue) => n + (issue.type === 'too_many_errors' ? (issue.ctx?.more ?? 0) : 0), 0);
    const extra = more + capped + Math.max(0, listed.length - MAX_ISSUES);
    const detail = listed.slice(0, MAX_ISSUES);
    if (extra > 0) {
      // Where the listed problems are (body, query, path), so a client can still tell.
      detail.push({ loc: listed[0]?.loc.slice(0, 1) ?? [], msg: `${extra} more ${extra === 1 ? 'problem' : 'problems'} not listed`, type: 'too_many_errors', ctx: { more: extra } });
    }
    super(422, detail.map((d) => `${d.loc.join('.')}: ${d.msg}`).join('; '));
    this.detail = detail;
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

/** 503: the memory budget stayed full while the request waited (see admission.ts); nothing was done. */
export class MemoryBusyError extends SiloError {
  constructor(retryAfterSeconds: number) {
    super(503, `The server is busy with other large requests: retry in ${retryAfterSeconds} s`, { 'Retry-After': String(retryAfterSeconds) });
  }
}

/** 503: too many console sign-ins wait for their password check (console/password-work.ts); nothing was checked. */
export class SignInBusyError extends SiloError {
  constructor(retryAfterSeconds: number) {
    super(503, `Too many sign-in attempts are waiting: retry in ${retryAfterSeconds} s`, { 'Retry-After': String(retryAfterSeconds) });
  }
}

export function formatBytes(bytes: number): string {
  if (bytes >= 1_000_000 && bytes % 1_000_000 === 0) return `${bytes / 1_000_000} MB`;
  if (bytes >= 1_000 && bytes % 1_000 === 0) return `${bytes / 1_000} KB`;
  return `${bytes} bytes`;
}
