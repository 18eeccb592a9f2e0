/**
 * The console's own routes (contract §13), beside the API that the console uses with its session:
 * sign-in, sign-out, who is signed in, and the account's keys (made and revoked only here and with
 * the `silo` command, never with a key: a leaked key cannot mint more).
 *
 *   POST /console/api/sign-in {user, password}   200 {user, account} + the session cookie; 401; 429 (sign-in-guard.ts)
 *   POST /console/api/sign-out                   204
 *   GET  /console/api/me                         200 {user, account}; 401
 *   GET  /console/api/session                    200 {signed_in: true, user, account} or {signed_in: false}: the
 *                                                console's first question, which a page without a session asks
 *                                                too (a 401 there would be an error in every browser's console)
 *   GET  /console/api/keys                       200 {keys: [...]} (never values)
 *   POST /console/api/keys {type, name, duration?, silos?}   201 the key, its value shown once
 *   DELETE /console/api/keys/{type}/{name}       204
 */
import type { Context } from 'koa';
import { BadRequestError, type KeyType, UnauthorizedError } from '../model/index.js';
import type { SignedIn, ConsoleService } from '../console/service.js';
import { validator } from '../schemas/validate.js';
import type { AccountService } from '../service/types.js';
import { readJson } from './body.js';
import { clientAddress, clientNetwork } from './client.js';
import { sendEmpty, sendJson } from './respond.js';
import { checkOrigin, clearSessionCookie, sessionHolder, sessionToken, setSessionCookie } from './session-cookie.js';
import type { SignInGuard } from './sign-in-guard.js';
import type { Auth } from './auth.js';
import { consoleKeyBody, signInBody, type ConsoleKeyBody, type SignInBody } from '../schemas/console.js';

const BODY = { bodyBytes: 16 * 1024, planBytes: 16 * 1024 };
const checkSignIn = validator<SignInBody>(signInBody);
const checkKey = validator<ConsoleKeyBody>(consoleKeyBody);

export interface ConsoleApiDeps {
  console: ConsoleService;
  /** The rate limits the console's requests are counted in. */
  auth: Pick<Auth, 'anonymous' | 'countSession'>;
  accounts: AccountService;
  signInGuard: SignInGuard;
  maxJsonDepth: number;
  /** Take the client address from X-Forwarded-For (for the audit log, as the rate limits do). */
  trustProxy?: boolean;
}

export function consoleApiHandlers(deps: ConsoleApiDeps) {
  const { accounts } = deps;
  const trustProxy = deps.trustProxy ?? false;

  /**
   * The signed-in user, or 401; a mutating request must also come from this server's pages. Every
   * request is counted as the console's requests over the API are: a made-up cookie against its
   * address (as a wrong key is), a signed-in user against its session's and its account's budgets.
   */
  async function signedIn(ctx: Context): Promise<SignedIn> {
    let who: SignedIn;
    try {
      who = await sessionHolder(deps.console, sessionToken(ctx));
    } catch (error) {
      if (error instanceof UnauthorizedError) await deps.auth.anonymous(ctx);
      throw error;
    }
    checkOrigin(ctx, trustProxy);
    await deps.auth.countSession(ctx, who);
    return who;
  }

  const from = (ctx: Context) => ({ address: clientAddress(ctx, trustProxy) });
  /** A sign-in's client: its address (for the audit log) and network (for the password check's line). */
  const signingIn = (ctx: Context) => {
    const address = clientAddress(ctx, trustProxy);
    return { address, network: clientNetwork(address) };
  };
  /** The signed-in user as the audit log's actor. */
  const as = (ctx: Context, who: SignedIn) => ({ actor: { type: 'console' as const, name: who.user }, ...from(ctx) });

  return {
    async signIn(ctx: Context): Promise<void> {
      checkOrigin(ctx, trustProxy);
      const body = await readJson(ctx, BODY, deps.maxJsonDepth);
      const input = checkSignIn(body.value, 'body');
      await deps.signInGuard.admit(ctx, input.user);
      const session = await deps.console.signIn(input.user, input.password, signingIn(ctx));
      // One answer for an unknown user and a wrong password (and the same scrypt work and slow-down behind both).
      if (!session) {
        await deps.signInGuard.failed(input.user);
        throw new UnauthorizedError('Wrong user name or password');
      }
      setSessionCookie(ctx, session.token, trustProxy);
      sendJson(ctx, 200, session.who);
    },

    async signOut(ctx: Context): Promise<void> {
      checkOrigin(ctx, trustProxy);
      const token = sessionToken(ctx);
      if (token !== undefined) await deps.console.signOut(token, from(ctx));
      clearSessionCookie(ctx, trustProxy);
      sendEmpty(ctx, 204);
    },

    async me(ctx: Context): Promise<void> {
      sendJson(ctx, 200, await signedIn(ctx));
    },

    async session(ctx: Context): Promise<void> {
      const token = sessionToken(ctx);
      const who = token === undefined ? undefined : await deps.console.resolve(token);
      if (who) await deps.auth.countSession(ctx, who);
      else await deps.auth.anonymous(ctx);
      ctx.set('Cache-Control', 'no-store');
      sendJson(ctx, 200, who ? { signed_in: true, ...who } : { signed_in: false });
    },

    async listKeys(ctx: Context): Promise<void> {
      const who = await signedIn(ctx);
      const keys = await accounts.listKeys(who.account);
      sendJson(ctx, 200, {
        keys: keys.map((k) => ({ type: k.type, name: k.name, created_at: k.created_at, expires_at: k.expires_at ?? null, silos: k.silos ?? null })),
      });
    },

    async createKey(ctx: Context): Promise<void> {
      const who = await signedIn(ctx);
      const body = await readJson(ctx, BODY, deps.maxJsonDepth);
      const input = checkKey(body.value, 'body');
      const key = await accounts.createKey({
        account: who.account,
        type: input.type,
        name: input.name,
        ...(input.duration !== undefined ? { duration: input.duration } : {}),
        ...(input.silos !== undefined ? { silos: input.silos } : {}),
      }, as(ctx, who));
      sendJson(ctx, 201, { type: key.type, name: key.name, created_at: key.created_at, expires_at: key.expires_at ?? null, silos: key.silos ?? null, key: key.key });
    },

    async revokeKey(ctx: Context, type: string, name: string): Promise<void> {
      const who = await signedIn(ctx);
      if (type !== 'manage' && type !== 'access') throw new BadRequestError('A key type is "manage" or "access"');
      let keyName: string;
      try {
        keyName = decodeURIComponent(name);
      } catch {
        throw new BadRequestError('The key name is not valid percent-encoding');
      }
      await accounts.revokeKey({ account: who.account, type: type as KeyType, name: keyName, confirm: keyName }, as(ctx, who));
      sendEmpty(ctx, 204);
    },
  };
}
