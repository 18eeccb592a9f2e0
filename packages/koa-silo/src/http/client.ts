/** The client address used for rate limits of unauthenticated requests. */
import type { Context } from 'koa';

/**
 * The socket's peer address; with `trustProxy`, the last X-Forwarded-For entry (the address the
 * trusted proxy saw; entries before it are whatever the client claimed).
 */
export function clientAddress(ctx: Context, trustProxy: boolean): string {
  if (trustProxy) {
    const forwarded = ctx.get('X-Forwarded-For');
    const last = forwarded.split(',').map((s) => s.trim()).filter(Boolean).at(-1);
    if (last) return last;
  }
  return ctx.req.socket.remoteAddress ?? 'unknown';
}
