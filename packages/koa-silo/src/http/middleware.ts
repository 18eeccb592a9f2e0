/**
 * The Koa middleware: route the request (or pass it on when it is not Silo's), run the handler,
 * and turn whatever it throws into JSON in errors.ts. Errors of the app's own middleware
 * downstream are never caught here.
 */
import type { Context, Middleware, Next } from 'koa';
import { splitBodyCache, splitParsedCache, type ResolvedOptions } from '../options.js';
import type { AccountService, SiloService } from '../service/types.js';
import { createAuth } from './auth.js';
import { keyedCors, preflight } from './cors.js';
import { dataHandlers, type EncodedAnswer } from './data.js';
import { eventHandlers } from './events.js';
import { webhookHandlers } from './webhooks.js';
import { consoleApiHandlers } from './console-api.js';
import type { ConsoleService } from '../console/service.js';
import type { WebhookService } from '../webhooks/service.js';
import type { EventBus } from '../model/index.js';
import { MethodNotAllowedError, PathNotFoundError, renderError } from './errors.js';
import { manageHandlers } from './manage.js';
import { versionHandlers } from './versions.js';
import { createRateLimit } from './rate-limit.js';
import { ADDRESS_PER_MINUTE, createSignInGuard, PAIR_PER_MINUTE, SIGN_IN_ADDRESS_PLAN, SIGN_IN_PAIR_PLAN } from './sign-in-guard.js';
import { regionResolver } from './region.js';
import { sendEmpty, sendJsonText, setAnswerHeaders } from './respond.js';
import { compressAnswer } from './compression.js';
import { matchRoute, PATTERNS, type Route } from './routes.js';
import { rootHandler } from './root.js';
import { VersionCache } from '../limits/version-cache.js';
import type { Admission } from '../limits/admission.js';
import type { Work } from '../work/index.js';
import type { AuditService } from '../audit/index.js';
import type { Metrics } from '../metrics/index.js';
import { auditHandlers } from './audit.js';
import { auditFeedHandler } from './audit-feed.js';
import { countRefusal, measured } from './measure.js';
import { drainUnreadBody } from './unread-body.js';

export interface HttpDeps {
  accounts: AccountService;
  silos: SiloService;
  options: ResolvedOptions;
  /** The memory budget of requests in flight (shared with the service's patches). */
  admission: Admission;
  /** Large data's work, off the event loop. */
  work: Work;
  /** The OpenAPI document, serialized once. */
  openapiText: string;
  /** Where committed writes are heard (the change feed). */
  bus: EventBus;
  webhooks: WebhookService;
  /** Console users and sessions; its routes and session sign-in are served when `options.console`. */
  console: ConsoleService;
  /** The audit log's reads (GET /api/v1/manage/audit). */
  audit: AuditService;
  /** Request metrics, when metrics are on. */
  metrics?: Metrics;
}

export interface SiloHttp {
  middleware: Middleware;
  /** Drop in-process caches (parsed data, encoded bodies). */
  clear(): void;
  /** End every open event stream. */
  endStreams(): void;
}

export function createHttp(deps: HttpDeps): SiloHttp {
  const { options } = deps;
  // Sign-in attempts have plans of their own, whatever the accounts' plans allow.
  const limits = {
    ...options.plans,
    [SIGN_IN_ADDRESS_PLAN]: { maxDataBytes: 1, rateLimitPerMinute: ADDRESS_PER_MINUTE },
    [SIGN_IN_PAIR_PLAN]: { maxDataBytes: 1, rateLimitPerMinute: PAIR_PER_MINUTE },
  };
  const rateLimit = createRateLimit(options.rateLimit, limits, options.logger);
  const auth = createAuth({
    accounts: deps.accounts,
    plans: options.plans,
    rateLimit,
    trustProxy: options.trustProxy,
    ...(options.console ? { sessions: deps.console } : {}),
  });
  const parsed = new VersionCache<unknown>(splitParsedCache(options.parsedCacheBytes).main);
  const bodies = new VersionCache<Buffer>(splitBodyCache(options.bodyCacheBytes).texts);
  const answers = new VersionCache<EncodedAnswer>(splitBodyCache(options.bodyCacheBytes).answers);
  const { admission } = deps;
  const manage = manageHandlers({
    auth,
    silos: deps.silos,
    requireIfMatch: options.requireIfMatch,
    maxJsonDepth: options.maxJsonDepth,
    maxPatchOperations: options.maxPatchOperations,
    bodies,
    admission,
    work: deps.work,
  });
  const history = versionHandlers({ auth, silos: deps.silos, requireIfMatch: options.requireIfMatch, bodies, admission });
  const data = dataHandlers({
    auth,
    silos: deps.silos,
    regionOf: regionResolver(options.hosts),
    parsed,
    bodies,
    answers,
    admission,
    work: deps.work,
    publicQueries: options.publicQueries,
  });

  const events = eventHandlers({
    auth,
    silos: deps.silos,
    bus: deps.bus,
    regionOf: regionResolver(options.hosts),
    trustProxy: options.trustProxy,
    keepAliveMs: options.eventsKeepAliveMs,
    maxStreamsPerClient: options.maxStreamsPerClient,
    admission,
  });

  const hooks = webhookHandlers({ auth, webhooks: deps.webhooks, maxJsonDepth: options.maxJsonDepth });
  const consoleApi = consoleApiHandlers({
    console: deps.console,
    auth,
    accounts: deps.accounts,
    trustProxy: options.trustProxy,
    signInGuard: createSignInGuard(rateLimit, options.trustProxy),
    maxJsonDepth: options.maxJsonDepth,
  });

  const cors = keyedCors(options.corsOrigins);
  /** Addresses that allow every origin themselves; every other Silo address is keyed. */
  const anyOrigin = (path: string) => PATTERNS.publicData.test(path) || PATTERNS.publicEvents.test(path) || PATTERNS.openapi.test(path);

  const openapi = (ctx: Context) => {
    ctx.set('Access-Control-Allow-Origin', '*');
    sendJsonText(ctx, 200, deps.openapiText);
  };

  /** Answers that show a secret (a new key, a webhook's signing secret) or a signed-in user's view: kept by no cache. */
  const noStore =
    <A extends string[]>(handler: (ctx: Context, ...params: A) => Promise<void>) =>
    async (ctx: Context, ...params: A): Promise<void> => {
      ctx.set('Cache-Control', 'no-store');
      await handler(ctx, ...params);
    };

  // Order matters: /manage/silos and /manage/meta/x are tried before /manage/{file_uuid}.
  const routes: Route[] = [
    // `/` is Silo's only when it answers every path; mounted beside an app's routes, it is the app's.
    ...(options.notFound === 'json' ? [{ pattern: PATTERNS.root, methods: { GET: rootHandler({ console: Boolean(options.console) }) } }] : []),
    { pattern: PATTERNS.openapi, methods: { GET: openapi } },
    { pattern: PATTERNS.create, methods: { POST: manage.create } },
    { pattern: PATTERNS.list, methods: { GET: manage.list } },
    { pattern: PATTERNS.accountEvents, methods: { GET: events.accountEvents } },
    { pattern: PATTERNS.audit, methods: { GET: auditHandlers({ auth, audit: deps.audit }).list } },
    { pattern: PATTERNS.auditEvents, methods: { GET: auditFeedHandler({ auth, audit: deps.audit, open: events.open }) } },
    { pattern: PATTERNS.webhooks, methods: { GET: hooks.list, POST: noStore(hooks.create) } },
    { pattern: PATTERNS.webhook, methods: { GET: hooks.get, DELETE: hooks.remove } },
    { pattern: PATTERNS.deliveries, methods: { GET: hooks.deliveries } },
    { pattern: PATTERNS.retryDeliveries, methods: { POST: hooks.retry } },
    ...(options.console
      ? [
          { pattern: PATTERNS.signIn, methods: { POST: noStore(consoleApi.signIn) } },
          { pattern: PATTERNS.signOut, methods: { POST: noStore(consoleApi.signOut) } },
          { pattern: PATTERNS.me, methods: { GET: noStore(consoleApi.me) } },
          { pattern: PATTERNS.consoleSession, methods: { GET: noStore(consoleApi.session) } },
          { pattern: PATTERNS.consoleKeys, methods: { GET: noStore(consoleApi.listKeys), POST: noStore(consoleApi.createKey) } },
          { pattern: PATTERNS.consoleKey, methods: { DELETE: noStore(consoleApi.revokeKey) } },
        ]
      : []),
    { pattern: PATTERNS.meta, methods: { GET: manage.meta } },
    { pattern: PATTERNS.silo, methods: { GET: manage.get, PATCH: manage.update, DELETE: manage.delete } },
    { pattern: PATTERNS.versions, methods: { GET: history.list } },
    { pattern: PATTERNS.version, methods: { GET: history.get } },
    { pattern: PATTERNS.restore, methods: { POST: history.restore } },
    { pattern: PATTERNS.publicData, methods: { GET: data.publicRead, OPTIONS: preflight } },
    { pattern: PATTERNS.privateData, methods: { GET: data.privateRead } },
    { pattern: PATTERNS.publicEvents, methods: { GET: events.publicEvents, OPTIONS: preflight } },
    { pattern: PATTERNS.privateEvents, methods: { GET: events.privateEvents } },
  ];

  const middleware = async function silo(ctx: Context, next: Next): Promise<void> {
    const match = matchRoute(routes, ctx.method, ctx.path, options.console);
    if (match === undefined && options.notFound === 'next') return next();
    // From here on the answer is Silo's: its headers go on before any handler runs or throws.
    setAnswerHeaders(ctx);
    try {
      if (match === undefined || match.kind === 'unknown') throw new PathNotFoundError();
      if (match.kind === 'method') {
        if (ctx.method !== 'OPTIONS') {
          if (!anyOrigin(ctx.path)) cors.allow(ctx);
          // OPTIONS is answered on every path (below), so Allow names it too (RFC 9110 §10.2.1).
          throw new MethodNotAllowedError(match.allow.includes('OPTIONS') ? match.allow : [...match.allow, 'OPTIONS']);
        }
        if (!anyOrigin(ctx.path)) cors.preflight(ctx, match.allow);
        ctx.set('Allow', [...match.allow, 'OPTIONS'].join(', '));
        return sendEmpty(ctx, 204);
      }
      if (!anyOrigin(ctx.path)) cors.allow(ctx);
      await match.handler(ctx, ...match.params);
      await compressAnswer(ctx);
    } catch (err) {
      drainUnreadBody(ctx);
      countRefusal(deps.metrics, err);
      try {
        renderError(ctx, err, options.logger);
      } catch (fatal) {
        options.logger.error('silo: could not render an error', fatal);
        sendJsonText(ctx, 500, '{"detail":"Internal Server Error"}');
      }
    }
  };

  return {
    middleware: deps.metrics ? measured(deps.metrics, routes, options.console, middleware) : middleware,
    clear: () => {
      parsed.clear();
      bodies.clear();
      answers.clear();
    },
    endStreams: () => events.endAll(),
  };
}
