/**
 * Reading a JSON request body: a size limit checked on Content-Length before reading and counted
 * while streaming (never buffering more than the limit), strict UTF-8, bounded nesting depth.
 * Every failure is a 4xx: 413 over the limit, 415 for a compressed body, 422 json_invalid otherwise.
 * With a memory budget, the body's bytes and text, then its parsed value, are charged to it until
 * the response is over (admission.ts): a large body waits for room before it is read, or is a 503.
 */
import type { Context } from 'koa';
import { PayloadTooLargeError, ValidationError } from '../model/index.js';
import { releaseWhenDone, type Admission } from '../limits/admission.js';
import { ClientAbortedError, UnsupportedMediaTypeError } from './errors.js';
import { estimateParsedBytes } from '../limits/heap-estimate.js';
import { parseBodyJson } from '../work/body-check.js';

export interface BodyLimit {
  /** Bytes the body may have. */
  bodyBytes: number;
  /** The plan limit that the 413 states. */
  planBytes: number;
  /** Where the body's memory is charged and its parse takes turns (none: neither). */
  admission?: Admission;
}

/**
 * How many times over a body is held while it is read: its bytes and its text; without
 * Content-Length, its chunks and their concatenation too.
 */
const BODY_COPIES = 2;
const BODY_COPIES_CHUNKED = 3;

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
  // Charged before the first byte is read: a body that must wait stays in the client's socket.
  const charge = length === undefined ? BODY_COPIES_CHUNKED * limit.bodyBytes : BODY_COPIES * length;
  if (limit.admission) releaseWhenDone(ctx, await limit.admission.texts.take(charge));
  const buffer = await collect(ctx, limit, length);
  if (buffer.length === 0) return EMPTY;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(buffer);
  } catch {
    throw new ValidationError([{ loc: ['body'], msg: 'JSON decode error: the body is not valid UTF-8', type: 'json_invalid' }]);
  }
}

/** The body's bytes: copied into one buffer of its Content-Length as they come, or chunks joined at the end. */
function collect(ctx: Context, limit: BodyLimit, length: number | undefined): Promise<Buffer> {
  const req = ctx.req;
  return new Promise<Buffer>((resolve, reject) => {
    const whole = length === undefined ? undefined : Buffer.allocUnsafe(length);
    const chunks: Buffer[] = [];
    let received = 0;
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
      if (received > limit.bodyBytes || (whole && received > whole.length)) {
        cleanup();
        req.pause();
        try {
          tooLarge(ctx, limit);
        } catch (err) {
          reject(err);
        }
        return;
      }
      if (whole) chunk.copy(whole, received - chunk.length);
      else chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      resolve(whole ? whole.subarray(0, received) : Buffer.concat(chunks, received));
    };
    const onError = () => {
      cleanup();
      reject(new ClientAbortedError());
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

/** Refuse: the connection is closed after the 413, so the rest of the body is never read. */
function tooLarge(ctx: Context, limit: BodyLimit): never {
  ctx.set('Connection', 'close');
  throw new PayloadTooLargeError(limit.planBytes);
}
