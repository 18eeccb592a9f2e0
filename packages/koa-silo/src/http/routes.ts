/**
 * Which requests are Silo's, and which handler answers them. Silo claims only its own addresses,
 * so it mounts beside an app's routes: `/api/v1/manage` and everything under it,
 * `/api/v1/openapi.json`, `/public/<uuid>` and `/<uuid>`. Anything else goes to the app.
 * A claimed path without a route is a 404; a route without the method is a 405 with Allow.
 */
import type { Context } from 'koa';

export type Handler = (ctx: Context, param: string) => Promise<void> | void;
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
  publicData: new RegExp(`^/public/(${UUID})$`),
  privateData: new RegExp(`^/(${UUID})$`),
} as const;

const MANAGE_PREFIX = /^\/api\/v1\/manage(\/|$)/;

export type Match =
  | { kind: 'route'; handler: Handler; param: string }
  | { kind: 'method'; allow: string[] }
  | { kind: 'unknown' }
  | undefined;

/** Resolve a request. `undefined`: not Silo's; `unknown`: Silo's path, no route. */
export function matchRoute(routes: Route[], method: string, path: string): Match {
  const wanted = (method === 'HEAD' ? 'GET' : method) as Method;
  const allow = new Set<string>();
  let claimed = MANAGE_PREFIX.test(path);
  for (const route of routes) {
    const m = route.pattern.exec(path);
    if (!m) continue;
    claimed = true;
    const handler = route.methods[wanted];
    if (handler) return { kind: 'route', handler, param: m[1] ?? '' };
    for (const name of Object.keys(route.methods)) {
      allow.add(name);
      if (name === 'GET') allow.add('HEAD');
    }
  }
  if (allow.size > 0) return { kind: 'method', allow: [...allow] };
  return claimed ? { kind: 'unknown' } : undefined;
}
