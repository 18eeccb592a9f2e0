/**
 * Which requests are Silo's, and which handler answers them. Silo claims only its own addresses,
 * so it mounts beside an app's routes: `/api/v1/manage` and everything under it,
 * `/api/v1/openapi.json`, `/public/<uuid>`, `/<uuid>` and their `/events`. Anything else goes to the app.
 * A claimed path without a route is a 404; a route without the method is a 405 with Allow.
 */
import type { Context } from 'koa';

export type Handler = (ctx: Context, ...params: string[]) => Promise<void> | void;
export type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE' | 'OPTIONS';

export interface Route {
  pattern: RegExp;
  methods: Partial<Record<Method, Handler>>;
}

const UUID = '[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}';

export const PATTERNS = {
  openapi: /^\/api\/v1\/openapi\.json$/,
  create: /^\/api\/v1\/manage\/?$/,
  list: /^\/api\/v1\/manage\/silos\/?$/,
  meta: /^\/api\/v1\/manage\/meta\/([^/]+)\/?$/,
  silo: /^\/api\/v1\/manage\/([^/]+)\/?$/,
  versions: /^\/api\/v1\/manage\/([^/]+)\/versions\/?$/,
  version: /^\/api\/v1\/manage\/([^/]+)\/versions\/([^/]+)\/?$/,
  restore: /^\/api\/v1\/manage\/([^/]+)\/versions\/([^/]+)\/restore\/?$/,
  accountEvents: /^\/api\/v1\/manage\/events\/?$/,
  webhooks: /^\/api\/v1\/manage\/webhooks\/?$/,
  webhook: /^\/api\/v1\/manage\/webhooks\/([^/]+)\/?$/,
  deliveries: /^\/api\/v1\/manage\/webhooks\/([^/]+)\/deliveries\/?$/,
  signIn: /^\/console\/api\/sign-in$/,
  signOut: /^\/console\/api\/sign-out$/,
  me: /^\/console\/api\/me$/,
  consoleKeys: /^\/console\/api\/keys$/,
  consoleKey: /^\/console\/api\/keys\/([^/]+)\/([^/]+)$/,
  publicEvents: new RegExp(`^/public/(${UUID})/events$`),
  privateEvents: new RegExp(`^/(${UUID})/events$`),
  publicData: new RegExp(`^/public/(${UUID})$`),
  privateData: new RegExp(`^/(${UUID})$`),
} as const;

const MANAGE_PREFIX = /^\/api\/v1\/manage(\/|$)/;
const CONSOLE_API_PREFIX = /^\/console\/api(\/|$)/;

export type Match =
  | { kind: 'route'; handler: Handler; params: string[] }
  | { kind: 'method'; allow: string[] }
  | { kind: 'unknown' }
  | undefined;

/**
 * Resolve a request. `undefined`: not Silo's; `unknown`: Silo's path, no route. The first route
 * whose pattern matches owns the path (`/api/v1/manage/silos` is the listing, never a silo named
 * `silos`), so its methods alone make the Allow of a 405.
 */
export function matchRoute(routes: Route[], method: string, path: string, consoleApi = false): Match {
  const wanted = (method === 'HEAD' ? 'GET' : method) as Method;
  for (const route of routes) {
    const m = route.pattern.exec(path);
    if (!m) continue;
    const handler = route.methods[wanted];
    if (handler) return { kind: 'route', handler, params: m.slice(1) };
    const allow = Object.keys(route.methods).flatMap((name) => (name === 'GET' ? ['GET', 'HEAD'] : [name]));
    return { kind: 'method', allow };
  }
  return MANAGE_PREFIX.test(path) || (consoleApi && CONSOLE_API_PREFIX.test(path)) ? { kind: 'unknown' } : undefined;
}
