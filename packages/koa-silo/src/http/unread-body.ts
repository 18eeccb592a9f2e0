/**
 * A request answered before its body was read (a 401, a 413, a 422 of the path...). Closing the
 * connection right after the answer breaks clients that send their whole body before they read
 * the answer, as fetch (undici) does: they get a broken pipe (EPIPE, ECONNRESET) instead of the
 * 4xx, and cannot tell a refusal from a network failure. Letting Node read and drop the rest, as
 * it does on a kept-alive connection, lets a client hold the connection for as long as it likes.
 *
 * So the rest is read and dropped within a bound, DRAIN_BYTES and DRAIN_MS, and the connection
 * closed past it: a client uploading a few megabytes too many gets its answer, one streaming
 * without end does not keep the connection. Dropped bytes are never held in memory.
 */
import type { IncomingMessage } from 'node:http';
import type { Context } from 'koa';

/** Bytes of an unread body read and dropped after the answer, at most. */
export const DRAIN_BYTES = 64 * 1024 * 1024;
/** Time the rest of an unread body may take to arrive, at most. */
export const DRAIN_MS = 10_000;

/** Whether `req` announced a body that has not been received completely. */
function bodyUnread(req: IncomingMessage): boolean {
  if (req.complete) return false;
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/**
 * After an answer given without reading the body: the rest read and dropped within the bounds,
 * the connection closed past them. Idempotent; nothing to do when the body was read.
 */
export function drainUnreadBody(ctx: Context): void {
  const req = ctx.req;
  if (!bodyUnread(req) || draining.has(req)) return;
  draining.add(req);
  let left = DRAIN_BYTES;
  // A body announced larger than the bound is not waited for, nor one whose client waits for a
  // 100 Continue that a final answer replaces (it sends no body): the connection goes after the answer.
  if (Number(req.headers['content-length'] ?? 0) > left || req.headers.expect !== undefined) {
    ctx.set('Connection', 'close');
    return;
  }
  const giveUp = () => {
    done();
    req.socket.destroy();
  };
  const timer = setTimeout(giveUp, DRAIN_MS);
  timer.unref();
  const onData = (chunk: Buffer) => {
    left -= chunk.length;
    if (left < 0) giveUp();
  };
  const done = () => {
    clearTimeout(timer);
    req.off('data', onData);
    req.off('end', done);
    req.off('close', done);
  };
  req.on('data', onData);
  req.on('end', done);
  req.on('close', done);
  req.resume();
}

/** Requests whose bodies are being drained (a second call changes nothing). */
const draining = new WeakSet<IncomingMessage>();
