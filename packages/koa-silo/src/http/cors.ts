/**
 * CORS. Public data: any origin may read it (it needs no credentials). Keyed requests (private
 * reads, management, history): only the origins the operator allows (`corsOrigins`), and never
 * with credentials, since keys travel in headers, not cookies. Preflights are answered here.
 */
import type { Context } from 'koa';
import type { CorsOrigins } from '../model/index.js';
import { sendEmpty } from './respond.js';


const EXPOSED = 'ETag, Location, Retry-After, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, X-Total-Count, Preference-Applied';
/**
 * Headers a browser page may send to public data (a client library's `Content-Type` too, though a
 * GET has no body), and `Last-Event-ID`, with which a change feed read over fetch resumes (only
 * EventSource's own reconnections may send it without a preflight).
 */
const PUBLIC_HEADERS = 'Content-Type, If-None-Match, Last-Event-ID';
const KEYED_HEADERS = 'Content-Type, If-Match, If-None-Match, Last-Event-ID, Prefer, X-SILO-KEY, X-MAN-API';
const MAX_AGE = '86400';

/** On every response of a public data address (errors too, so a browser can read them). */
export function allowAnyOrigin(ctx: Context): void {
  ctx.set('Access-Control-Allow-Origin', '*');
  ctx.set('Access-Control-Expose-Headers', EXPOSED);
}

/** OPTIONS /public/<file_uuid>. */
export function preflight(ctx: Context): void {
  allowAnyOrigin(ctx);
  ctx.set('Access-Control-Allow-Methods', 'GET, HEAD, OPTIONS');
  ctx.set('Access-Control-Allow-Headers', PUBLIC_HEADERS);
  ctx.set('Access-Control-Max-Age', MAX_AGE);
  ctx.set('Allow', 'GET, HEAD, OPTIONS');
  sendEmpty(ctx, 204);
}

export interface KeyedCors {
  /** Sets the CORS headers of a response to a keyed request; false when its origin is not allowed (no headers then). */
  allow(ctx: Context): boolean;
  /** The CORS part of the answer to an OPTIONS of a keyed address whose methods are `allow`. */
  preflight(ctx: Context, allow: readonly string[]): void;
}

export function keyedCors(origins: CorsOrigins): KeyedCors {
  const listed = origins === '*' ? undefined : new Set(origins);
  const allow = (ctx: Context): boolean => {
    if (listed?.size === 0) return false;
    // The answer depends on Origin: a shared cache must not hand one origin's answer to another.
    if (listed) ctx.vary('Origin');
    const origin = ctx.get('Origin');
    if (origin === '' || (listed && !listed.has(origin))) return false;
    ctx.set('Access-Control-Allow-Origin', listed ? origin : '*');
    ctx.set('Access-Control-Expose-Headers', EXPOSED);
    return true;
  };
  return {
    allow,
    preflight(ctx, methods) {
      if (!allow(ctx)) return;
      ctx.set('Access-Control-Allow-Methods', [...methods, 'OPTIONS'].join(', '));
      ctx.set('Access-Control-Allow-Headers', KEYED_HEADERS);
      ctx.set('Access-Control-Max-Age', MAX_AGE);
    },
  };
}

