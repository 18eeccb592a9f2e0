/** CORS for public data: any origin may GET it; preflights are answered here. */
import type { Context } from 'koa';
import { sendEmpty } from './respond.js';

const EXPOSED = 'ETag, Retry-After, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset';

/** On every response of a public data address (errors too, so a browser can read them). */
export function allowAnyOrigin(ctx: Context): void {
  ctx.set('Access-Control-Allow-Origin', '*');
  ctx.set('Access-Control-Expose-Headers', EXPOSED);
}

/** OPTIONS /public/<file_uuid>. */
export function preflight(ctx: Context): void {
  allowAnyOrigin(ctx);
  ctx.set('Access-Control-Allow-Methods', 'GET, HEAD, OPTIONS');
  ctx.set('Access-Control-Allow-Headers', 'If-None-Match');
  ctx.set('Access-Control-Max-Age', '86400');
  ctx.set('Allow', 'GET, HEAD, OPTIONS');
  sendEmpty(ctx, 204);
}
