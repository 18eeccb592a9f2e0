/**
 * The one place where errors become responses. Every error that rises out of a Silo handler
 * (typed errors of ../errors.ts, silo-query's SiloQueryError, the HTTP-only errors below, or a bug)
 * is turned here into contract-shaped JSON: `{"detail": "..."}` or the validation body.
 */
import type { Context } from 'koa';
import { SiloQueryError } from 'silo-query';
import { SiloError, StorageUnavailableError, type ValidationIssue } from '../model/index.js';
import type { SiloLogger } from '../options.js';
import { redactKeyValues } from './redact.js';
import { sendJson, setAnswerHeaders } from './respond.js';

/** 404 for a path Silo owns but has no route for (and for every unknown path with notFound 'json'). */
export class PathNotFoundError extends SiloError {
  constructor() {
    super(404, 'Not Found');
  }
}

export class MethodNotAllowedError extends SiloError {
  constructor(allow: readonly string[]) {
    super(405, 'Method Not Allowed', { Allow: allow.join(', ') });
  }
}

export class UnsupportedMediaTypeError extends SiloError {
  constructor(message: string) {
    super(415, message);
  }
}

/** 428: the operator requires If-Match on PATCH and DELETE. */
export class PreconditionRequiredError extends SiloError {
  constructor() {
    super(428, 'This request requires an If-Match header with the ETag of the silo');
  }
}

export class TooManyRequestsError extends SiloError {
  constructor(retryAfterSeconds: number) {
    super(429, `Too many requests: retry in ${retryAfterSeconds} s`, { 'Retry-After': String(retryAfterSeconds) });
  }
}


/** The client went away (or broke the stream) while sending its body: nobody reads the answer. */
export class ClientAbortedError extends SiloError {
  constructor(status: 400 | 408 = 400) {
    super(status, 'The request body was not received completely');
  }
}

const INTERNAL = 'Internal Server Error';

/**
 * What an error answer may quote of the request: a message, or one place of a 422's `loc`. An
 * error names the input it could not take (a pointer, an unknown member), and that input may be
 * megabytes long; its answer stays small however long the input (100 issues at most, each bounded).
 */
const MAX_MESSAGE_CHARS = 1000;
const MAX_QUOTED_CHARS = 200;

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}… (${text.length} characters)`;
}

function boundedIssue(issue: ValidationIssue): ValidationIssue {
  const loc = issue.loc.map((place) => (typeof place === 'string' ? clip(place, MAX_QUOTED_CHARS) : place));
  return { ...issue, loc, msg: clip(issue.msg, MAX_MESSAGE_CHARS) };
}

/** Error codes that mean the storage (or the Redis behind it) could not be reached. */
const OUTAGE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH', 'SQLITE_BUSY']);

function isStorageOutage(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' && OUTAGE_CODES.has(code)) return true;
  return /^(ClientClosedError|ConnectionTimeoutError|SocketClosedUnexpectedlyError|ClientOfflineError)$/.test(err.name);
}

/** How often an outage of the storage is logged while it lasts: every request meets it, and any client can send requests. */
export const OUTAGE_LOG_EVERY_MS = 10_000;

/** Per logger (one per Silo): when the last outage line was written, and the requests met since. */
const outages = new WeakMap<SiloLogger, { at: number; since: number }>();

function logOutage(ctx: Context, err: StorageUnavailableError, logger: SiloLogger): void {
  const now = Date.now();
  const last = outages.get(logger);
  if (last && now - last.at < OUTAGE_LOG_EVERY_MS) {
    last.since++;
    return;
  }
  const more = last && last.since > 0 ? ` (and ${last.since} more requests in the last ${Math.round((now - last.at) / 1000)} s)` : '';
  outages.set(logger, { at: now, since: 0 });
  logger.error(`silo: storage unavailable on ${ctx.method} ${requestPath(ctx)}${more}`, err.cause ?? err);
}

/** The request's path for a log line: keys cut out, and no longer than a line should be. */
function requestPath(ctx: Context): string {
  return clip(redactKeyValues(ctx.path), MAX_QUOTED_CHARS);
}

/** What describes a successful answer's representation, never an error's. */
const REPRESENTATION_HEADERS = ['ETag', 'X-Total-Count', 'Preference-Applied', 'Location'];

/** Write `err` as the response of `ctx`. Headers already set (rate limit, CORS) are kept. */
export function renderError(ctx: Context, err: unknown, logger: SiloLogger): void {
  // Headers of the answer that was being made (a data read sets its ETag before its query runs):
  // an error is not that representation, and a client must not keep its tag for one.
  for (const name of REPRESENTATION_HEADERS) ctx.remove(name);
  if (err instanceof SiloQueryError) {
    sendJson(ctx, 422, { detail: (err.detail satisfies ValidationIssue[]).map(boundedIssue) });
    return;
  }
  if (!(err instanceof SiloError) && isStorageOutage(err)) {
    err = new StorageUnavailableError(err);
  }
  if (err instanceof SiloError) {
    if (err instanceof StorageUnavailableError) {
      logOutage(ctx, err, logger);
      ctx.set('Retry-After', '1');
    }
    for (const [name, value] of Object.entries(err.headers)) ctx.set(name, value);
    const detail = 'detail' in err && Array.isArray(err.detail) ? (err.detail as ValidationIssue[]).map(boundedIssue) : clip(err.message, MAX_MESSAGE_CHARS);
    sendJson(ctx, err.status, { detail });
    return;
  }
  logger.error(`silo: unexpected error on ${ctx.method} ${requestPath(ctx)}`, err);
  sendJson(ctx, 500, { detail: INTERNAL });
}

/**
 * A Koa middleware that answers every request reaching it with 404 `{"detail":"Not Found"}`.
 * Add it last in a standalone server so that unknown paths get JSON too.
 */
export function jsonNotFound() {
  return async function jsonNotFoundMiddleware(ctx: Context): Promise<void> {
    setAnswerHeaders(ctx);
    sendJson(ctx, 404, { detail: 'Not Found' });
  };
}

/** 429 for a client holding as many event streams as it may (contract §11). */
export class TooManyStreamsError extends SiloError {
  constructor(max: number) {
    super(429, `Too many open event streams: a client may hold ${max} at once`, { 'Retry-After': '5' });
  }
}

/** 403: a console session's request from another origin (cross-site request forgery). */
export class CrossSiteError extends SiloError {
  constructor() {
    super(403, 'Cross-site request refused: the Origin of a console request must be this server');
  }
}
