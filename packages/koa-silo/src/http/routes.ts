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
  /** Only where Silo answers every path (`notFound: 'json'`): a pointer to the console and the API (root.ts). */
  root: /^\/$/,
  openapi: /^\/api\/v1\/openapi\.json$/,
  create: /^\/api\/v1\/manage\/?$/,
  list: /^\/api\/v1\/manage\/silos\/?$/,
  meta: /^\/api\/v1\/manage\/meta\/([^/]+)\/?$/,
  silo: /^\/api\/v1\/manage\/([^/]+)\/?$/,
  versions: /^\/api\/v1\/manage\/([^/]+)\/versions\/?$/,
  version: /^\/api\/v1\/manage\/([^/]+)\/versions\/([^/]+)\/?$/,
  restore: /^\/api\/v1\/manage\/([^/]+)\/versions\/([^/]+)\/restore\/?$/,
  accountEvents: /^\/api\/v1\/manage\/events\/?$/,
  audit: /^\/api\/v1\/manage\/audit\/?$/,
  auditEvents: /^\/api\/v1\/manage\/audit\/events\/?$/,
  webhooks: /^\/api\/v1\/manage\/webhooks\/?$/,
  webhook: /^\/api\/v1\/manage\/webhooks\/([^/]+)\/?$/,
  deliveries: /^\/api\/v1\/manage\/webhooks\/([^/]+)\/deliveries\/?$/,
  retryDeliveries: /^\/api\/v1\/manage\/webhooks\/([^/]+)\/retry\/?$/,
  signIn: /^\/console\/api\/sign-in$/,
  signOut: /^\/console\/api\/sign-out$/,
  me: /^\/console\/api\/me$/,
  consoleSession: /^\/console\/api\/session$/,
  consoleKeys: /^\/console\/api\/keys$/,
  consoleKey: /^\/console\/api\/keys\/([^/]+)\/([^/]+)$/,
  publicEvents: new RegExp(`^/public/(${UUID})/events$`),
  privateEvents: new RegExp(`^/(${UUID})/events$`),
  publicData: new RegExp(`^/public/(${UUID})$`),
  privateData: new RegExp(`^/(${UUID})$`),
} as const;

/**
 * Each route's template, as metrics label requests (never by their path: uuids would make a series
 * each). A pattern without one here is labelled by its name in PATTERNS.
 */
export const ROUTE_TEMPLATES: Partial<Record<keyof typeof PATTERNS, string>> = {
  root: '/',
  openapi: '/api/v1/openapi.json',
  create: '/api/v1/manage/',
  list: '/api/v1/manage/silos',
  meta: '/api/v1/manage/meta/{file_uuid}',
  silo: '/api/v1/manage/{file_uuid}',
  versions: '/api/v1/manage/{file_uuid}/versions',
  version: '/api/v1/manage/{file_uuid}/versions/{version}',
  restore: '/api/v1/manage/{file_uuid}/versions/{version}/restore',
  accountEvents: '/api/v1/manage/events',
  audit: '/api/v1/manage/audit',
  auditEvents: '/api/v1/manage/audit/events',
  webhooks: '/api/v1/manage/webhooks',
  webhook: '/api/v1/manage/webhooks/{id}',
  deliveries: '/api/v1/manage/webhooks/{id}/deliveries',
  retryDeliveries: '/api/v1/manage/webhooks/{id}/retry',
  signIn: '/console/api/sign-in',
  signOut: '/console/api/sign-out',
  me: '/console/api/me',
  consoleSession: '/console/api/session',
  consoleKeys: '/console/api/keys',
  consoleKey: '/console/api/keys/{type}/{name}',
  publicEvents: '/public/{file_uuid}/events',
  privateEvents: '/{file_uuid}/events',
  publicData: '/public/{file_uuid}',
  privateData: '/{file_uuid}',
};

/** The template of the route `pattern` answers (one of PATTERNS). */
export const templateOf = new Map<RegExp, string>(Object.entries(PATTERNS).map(([name, pattern]) => [pattern, ROUTE_TEMPLATES[name as keyof typeof PATTERNS] ?? name]));

const MANAGE_PREFIX = /^\/api\/v1\/manage(\/|$)/;
const CONSOLE_API_PREFIX = /^\/console\/api(\/|$)/;

export type Match =
  | { kind: 'route'; handler: Handler; params: string[]; pattern: RegExp }
  | { kind: 'method'; allow: string[]; pattern: RegExp }
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
    if (handler) return { kind: 'route', handler, params: m.slice(1), pattern: route.pattern };
    const allow = Object.keys(route.methods).flatMap((name) => (name === 'GET' ? ['GET', 'HEAD'] : [name]));
    return { kind: 'method', allow, pattern: route.pattern };
  }
  return MANAGE_PREFIX.test(path) || (consoleApi && CONSOLE_API_PREFIX.test(path)) ? { kind: 'unknown' } : undefined;
}
