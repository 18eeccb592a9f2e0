/**
 * A stand-in server for trying the console by hand (and for screenshots) before the real
 * console API is merged: koa-silo's real API in memory, the built console, and a mock of the
 * console API (one user, in-memory sessions; a session's requests to /api/v1/manage get the
 * account's manage key injected, which is what the real server's session check will do).
 *
 *   npm run build -w silo-console && npx tsx packages/silo-console/test/dev-server.ts [port]
 *   → http://localhost:8090/console/   user admin, password admin
 */
import { randomBytes } from 'node:crypto';
import Koa, { type Context } from 'koa';
import { createSilo } from 'koa-silo';
import { consoleMiddleware } from '../src/index.js';

const USER = 'admin';
const PASSWORD = 'admin';
const ACCOUNT = 'default';

export async function startDevServer(port: number) {
  const silo = createSilo({ webhooks: { deliver: false } });
  await silo.accounts.createAccount(ACCOUNT);
  const { key: manageKey } = await silo.accounts.createKey({ account: ACCOUNT, type: 'manage', name: 'console', duration: 'never' });
  const { key: accessKey } = await silo.accounts.createKey({ account: ACCOUNT, type: 'access', name: 'default' });
  const sessions = new Set<string>();
  // Scopes are the lead's (contract section 15); the mock only remembers them for the list.
  const scopes = new Map<string, string[]>();

  const session = (ctx: Context) => {
    const id = ctx.cookies.get('silo_session');
    return id !== undefined && sessions.has(id);
  };
  const json = async (ctx: Context): Promise<Record<string, unknown>> => {
    let text = '';
    for await (const chunk of ctx.req) text += String(chunk);
    try {
      const v: unknown = JSON.parse(text);
      return typeof v === 'object' && v !== null ? (v as Record<string, unknown>) : {};
    } catch {
      return {};
    }
  };

  const app = new Koa();
  app.use(async (ctx, next) => {
    const p = ctx.path;
    if (!p.startsWith('/console/api/')) {
      if (p.startsWith('/api/v1/manage') && session(ctx)) ctx.request.headers['x-man-api'] = manageKey;
      return next();
    }
    const route = `${ctx.method} ${p.slice('/console/api'.length)}`;
    if (route === 'POST /sign-in') {
      const body = await json(ctx);
      if (body['user'] !== USER || body['password'] !== PASSWORD) {
        ctx.status = 401;
        ctx.body = { detail: 'Unknown user or wrong password' };
        return;
      }
      const id = randomBytes(24).toString('base64url');
      sessions.add(id);
      ctx.cookies.set('silo_session', id, { httpOnly: true, sameSite: 'strict' });
      ctx.body = { user: USER, account: ACCOUNT };
      return;
    }
    if (route === 'GET /session') {
      ctx.body = session(ctx) ? { signed_in: true, user: USER, account: ACCOUNT } : { signed_in: false };
      return;
    }
    if (!session(ctx)) {
      ctx.status = 401;
      ctx.body = { detail: 'Not signed in' };
      return;
    }
    if (route === 'GET /me') ctx.body = { user: USER, account: ACCOUNT };
    else if (route === 'POST /sign-out') {
      sessions.delete(ctx.cookies.get('silo_session') ?? '');
      ctx.status = 204;
    } else if (route === 'GET /keys') {
      const keys = await silo.accounts.listKeys(ACCOUNT);
      ctx.body = {
        keys: keys.map((k) => ({
          type: k.type,
          name: k.name,
          created_at: k.created_at,
          expires_at: k.expires_at ?? null,
          silos: k.type === 'access' ? (scopes.get(k.name) ?? null) : null,
        })),
      };
    } else if (route === 'POST /keys') {
      const body = await json(ctx);
      const type = body['type'] === 'manage' ? 'manage' : 'access';
      const name = typeof body['name'] === 'string' ? body['name'] : '';
      if (name === '') {
        ctx.status = 422;
        ctx.body = { detail: [{ loc: ['body', 'name'], msg: 'Field required', type: 'missing' }] };
        return;
      }
      try {
        const duration = type === 'manage' ? (body['duration'] as '7d' | '30d' | '90d' | '365d' | 'never' | undefined) : undefined;
        const created = await silo.accounts.createKey({ account: ACCOUNT, type, name, ...(duration ? { duration } : {}) });
        const silos = Array.isArray(body['silos']) ? body['silos'].map(String) : null;
        if (silos) scopes.set(name, silos);
        ctx.status = 201;
        ctx.body = { type, name, created_at: created.created_at, expires_at: created.expires_at ?? null, silos, key: created.key };
      } catch (e) {
        ctx.status = 422;
        ctx.body = { detail: [{ loc: ['body', 'name'], msg: e instanceof Error ? e.message : String(e), type: 'value_error' }] };
      }
    } else if (ctx.method === 'DELETE' && p.startsWith('/console/api/keys/')) {
      const [type = '', name = ''] = p.slice('/console/api/keys/'.length).split('/').map(decodeURIComponent);
      try {
        await silo.accounts.revokeKey({ account: ACCOUNT, type: type === 'manage' ? 'manage' : 'access', name, confirm: name });
        ctx.status = 204;
      } catch (e) {
        ctx.status = 404;
        ctx.body = { detail: e instanceof Error ? e.message : String(e) };
      }
    } else {
      ctx.status = 404;
      ctx.body = { detail: 'Not Found' };
    }
  });
  app.use(consoleMiddleware());
  app.use(silo.middleware());
  const server = app.listen(port, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  return {
    manageKey,
    accessKey,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await silo.close();
    },
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const port = Number(process.argv[2] ?? 8090);
  const s = await startDevServer(port);
  console.log(`Console at http://localhost:${port}/console/ (user ${USER}, password ${PASSWORD})`);
  console.log(`MANAGE_KEY=${s.manageKey} ACCESS_KEY=${s.accessKey}`);
}
