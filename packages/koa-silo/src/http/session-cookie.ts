/**
 * The console's session cookie (contract §13): HttpOnly (no script reads it), SameSite=Strict (no
 * other site's page sends it), Secure under TLS (Silo's own, or a trusted proxy's: clientProtocol);
 * and the Origin check that every mutating request made with it passes, a second guard against
 * cross-site requests.
 */
import type { Context } from 'koa';
import type { ConsoleService, SignedIn } from '../console/service.js';
import { UnauthorizedError } from '../model/index.js';
import { clientProtocol } from './client.js';
import { CrossSiteError } from './errors.js';

export const SESSION_COOKIE = 'silo_session';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export function sessionToken(ctx: Context): string | undefined {
  return ctx.cookies.get(SESSION_COOKIE) || undefined;
}

function setCookie(ctx: Context, token: string, trustProxy: boolean, extra: { maxAge?: number } = {}): void {
  const secure = clientProtocol(ctx, trustProxy) === 'https';
  // Koa's cookies refuse a Secure cookie on a connection they think plain: behind a TLS proxy it is not.
  if (secure) ctx.cookies.secure = true;
  ctx.cookies.set(SESSION_COOKIE, token, { httpOnly: true, sameSite: 'strict', secure, path: '/', overwrite: true, ...extra });
}

export function setSessionCookie(ctx: Context, token: string, trustProxy: boolean): void {
  setCookie(ctx, token, trustProxy);
}

export function clearSessionCookie(ctx: Context, trustProxy: boolean): void {
  setCookie(ctx, '', trustProxy, { maxAge: 0 });
}

/** A mutating request with the session must come from a page of this server (its Origin, as the browser wrote it). */
export function checkOrigin(ctx: Context, trustProxy: boolean): void {
  if (SAFE_METHODS.has(ctx.method)) return;
  if (ctx.get('Origin') !== `${clientProtocol(ctx, trustProxy)}://${ctx.host}`) throw new CrossSiteError();
}

/** Who holds session `token`, or 401 when it has ended (signed out, idle, user deleted). */
export async function sessionHolder(sessions: ConsoleService, token: string | undefined): Promise<SignedIn> {
  const who = token === undefined ? undefined : await sessions.resolve(token);
  if (!who) throw new UnauthorizedError('Your console session has ended: sign in again');
  return who;
}
