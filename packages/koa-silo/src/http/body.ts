/**
 * Reading a JSON request body: a size limit checked on Content-Length before reading and counted
 * while streaming (never buffering more than the limit), strict UTF-8, bounded nesting depth.
 * Every failure is a 4xx: 413 over the limit, 415 for a compressed body, 422 json_invalid otherwise.
 * With a memory budget, the body's bytes and text (as they arrive), then its parsed value, are
 * charged to it until the response is over (admission.ts): a large body waits for room as it is
 * read, or is a 503.
 */
import type { Context } from 'koa';
import { PayloadTooLargeError, ValidationError } from '../model/index.js';
import { releaseWhenDone, type Admission, type Reservation } from '../limits/admission.js';
import { ClientAbortedError, UnsupportedMediaTypeError } from './errors.js';
import { estimateParsedBytes } from '../limits/heap-estimate.js';
import { parseBodyJson } from '../work/body-check.js';
import { drainUnreadBody } from './unread-body.js';

export interface BodyLimit {
  /** Bytes the body may have. */
  bodyBytes: number;
  /** The plan limit that the 413 states. */
  planBytes: number;
  /** Where the body's memory is charged and its parse takes turns (none: neither). */
  admission?: Admission;
  /** Whose body it is (the caller's account): its bodies together stay within a share of the budget. */
  holder?: string;
}

/** How many times over a body is held while it is read: its chunks, and its text (two bytes a character where it is not Latin-1). */
const BODY_COPIES = 3;
/** The first charge of a body (for its first 16 KiB, or all of a smaller Content-Length): under SMALL_BYTES, so it never waits. */
const FIRST_CHARGE = BODY_COPIES * 16 * 1024;

/** Content codings a client may well send (all refused), by their registered names. */
const KNOWN_CODINGS = /^(gzip|x-gzip|deflate|br|zstd|compress|x-compress|aes128gcm|exi|pack200-gzip)$/;

/** No body at all: the contract's "Field required" at ["body"]. */
const EMPTY = Symbol('empty body');

/** Read, decode and parse the body of `ctx`. Returns the parsed JSON value. */
export async function readJsonBody(ctx: Context, limit: BodyLimit, maxDepth: number): Promise<unknown> {
  return (await readJson(ctx, limit, maxDepth)).value;
}

/** As readJsonBody, with the body's text too (for values kept exactly as sent). */
export async function readJson(ctx: Context, limit: BodyLimit, maxDepth: number): Promise<{ value: unknown; text: string }> {
  const text = await readBodyText(ctx, limit);
  if (text === EMPTY) {
    throw new ValidationError([{ loc: ['body'], msg: 'Field required', type: 'missing' }]);
  }
  if (!limit.admission) return { value: parseBodyJson(text, maxDepth), text };
  releaseWhenDone(ctx, await limit.admission.parses.take(estimateParsedBytes(text)));
  return { value: parseBodyJson(text, maxDepth), text };
}

/** The body's text, charged to the memory budget until the response is over; a 422 when there is none. */
export async function readText(ctx: Context, limit: BodyLimit): Promise<string> {
  const text = await readBodyText(ctx, limit);
  if (text === EMPTY) throw new ValidationError([{ loc: ['body'], msg: 'Field required', type: 'missing' }]);
  return text;
}

async function readBodyText(ctx: Context, limit: BodyLimit): Promise<string | typeof EMPTY> {
  const req = ctx.req;
  const encoding = (req.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
  if (encoding !== 'identity' && encoding !== '') {
    // Named back only when it is a known coding: an error body never repeats arbitrary input.
    const named = KNOWN_CODINGS.test(encoding) ? `Content-Encoding ${encoding}` : 'This Content-Encoding';
    throw new UnsupportedMediaTypeError(`${named} is not supported: send the JSON uncompressed`);
  }
  const declared = req.headers['content-length'];
  let length: number | undefined;
  if (declared !== undefined) {
    length = Number(declared);
    if (Number.isFinite(length) && length > limit.bodyBytes) tooLarge(ctx, limit);
    if (!Number.isSafeInteger(length) || length < 0) length = undefined;
  }
  // A body parser mounted before Silo already read the stream: use what it kept.
  if (req.readableEnded) {
    const raw = (ctx.request as { rawBody?: unknown }).rawBody;
    if (typeof raw === 'string') {
      if (Buffer.byteLength(raw) > limit.bodyBytes) tooLarge(ctx, limit);
      return raw.length === 0 ? EMPTY : raw;
    }
    const parsed = (ctx.request as { body?: unknown }).body;
    return parsed === undefined ? EMPTY : JSON.stringify(parsed);
  }
  const text = await collect(ctx, limit, length);
  return text === '' ? EMPTY : text;
}

const NOT_UTF8 = () => new ValidationError([{ loc: ['body'], msg: 'JSON decode error: the body is not valid UTF-8', type: 'json_invalid' }]);

/**
 * The body's text, each chunk decoded (strict UTF-8) as it arrives: decoding 10 MB at the end took
 * 30 ms of the event loop in one piece, and joining its chunks first 30 ms more. Charged to the
 * memory budget as the bytes arrive (not by what Content-Length announces): the charge doubles each time the bytes received outgrow it, up
 * to three times the body's most. A step that must wait in the budget's line pauses the body (the
 * rest stays in the client's socket) until it is granted, or ends it with a 503. So a body trickled
 * in a few bytes a second holds what it sent, not 30 MB of the budget for five minutes (4 such
 * uploads had made every other account's writes 503).
 */
function collect(ctx: Context, limit: BodyLimit, length: number | undefined): Promise<string> {
  const req = ctx.req;
  const gate = limit.admission?.texts;
  const most = BODY_COPIES * (length ?? limit.bodyBytes);
  return new Promise<string>((resolve, reject) => {
    const decoder = new TextDecoder('utf-8', { fatal: true });
    let text = '';
    /** A chunk was not UTF-8: the rest is still read (and counted), then the 422. */
    let invalid = false;
    let received = 0;
    let charged = 0;
    let reservation: Reservation | undefined;
    /** A step of the charge waiting in the budget's line (the body is paused meanwhile). */
    let pending: Promise<void> | undefined;
    /** Charges what the bytes received need, when they outgrew the charge. */
    const charge = (): void => {
      if (!gate || pending || BODY_COPIES * received <= charged || charged >= most) return;
      const step = Math.min(most, Math.max(FIRST_CHARGE, 2 * charged, BODY_COPIES * received)) - charged;
      req.pause();
      const taken = reservation
        ? reservation.grow(step)
        : gate.take(step, limit.holder).then((first) => {
            reservation = first;
            releaseWhenDone(ctx, first);
          });
      pending = taken.then(() => {
        charged += step;
        pending = undefined;
        // Still short (a large chunk came with the step): another step before reading on.
        charge();
        if (!pending) req.resume();
      });
      pending.catch((error: unknown) => {
        cleanup();
        reject(error);
      });
    };
    const cleanup = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('aborted', onAborted);
      req.off('close', onClose);
    };
    const onData = (chunk: Buffer) => {
      received += chunk.length;
      // Past its own Content-Length (Node's parser never lets one through) counts as too large too.
      if (received > limit.bodyBytes || (length !== undefined && received > length)) {
        cleanup();
        req.pause();
        try {
          tooLarge(ctx, limit);
        } catch (err) {
          reject(err);
        }
        return;
      }
      if (!invalid) {
        try {
          text += decoder.decode(chunk, { stream: true });
        } catch {
          invalid = true;
          text = '';
        }
      }
      charge();
    };
    const onEnd = () => {
      cleanup();
      // The end may come while a step waits: the bytes are all here, but not yet all charged.
      const settled = async () => {
        while (pending) await pending;
      };
      // A step refused has rejected already (above).
      const finish = () => {
        try {
          if (!invalid) text += decoder.decode(); // a sequence cut short at the end is invalid too
        } catch {
          invalid = true;
        }
        if (invalid) reject(NOT_UTF8());
        else resolve(text);
      };
      settled().then(finish, () => undefined);
    };
    const onError = () => {
      cleanup();
      // A server in front may have cut the body for coming too slowly and answered 408 itself
      // (silo-server's body-rate guard), saying so in the status: the error, and so the
      // metrics, report what the client got.
      reject(new ClientAbortedError(ctx.res.statusCode === 408 ? 408 : 400));
    };
    const onAborted = onError;
    const onClose = () => {
      if (!req.complete) onError();
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('aborted', onAborted);
    req.on('close', onClose);
  });
}

/** Refuse: the rest of the body is dropped as it comes, within bounds (unread-body.ts). */
function tooLarge(ctx: Context, limit: BodyLimit): never {
  drainUnreadBody(ctx);
  throw new PayloadTooLargeError(limit.planBytes);
}
