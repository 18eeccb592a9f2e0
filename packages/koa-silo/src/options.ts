/**
 * The options of createSilo, their defaults, and their resolution into one checked object.
 */
import type Keyv from 'keyv';
import { availableParallelism } from 'node:os';
import { type AuditActor, type CorsOrigins, DEFAULT_AUDIT_DAYS, DEFAULT_DELIVERY_TIMING, DEFAULT_MAX_PATCH_OPERATIONS, DEFAULT_MAX_JSON_DEPTH, DEFAULT_HOSTS, DEFAULT_PLAN, DEFAULT_PLAN_NAME, type DeliveryTiming, type EventBus, MAX_HISTORY_VERSIONS, MAX_WEBHOOKS_PER_ACCOUNT, normalizeHost, normalizeOrigin, type Plan, PROGRAM_ACTOR, type Region, REGIONS } from './model/index.js';


/**
 * A connected node-redis (v4+) client (`createClient()` of `redis` or `@keyv/redis`), for example
 * on the same Redis as the storage. rate-limiter-flexible drives it (`useRedisPackage: true`).
 */
export type RedisClientLike = object;

export type RateLimitStore =
  | { store: 'memory' }
  /** Shared by every server instance on the Redis; `keyPrefix` default `silo:rl`. */
  | { redis: RedisClientLike; keyPrefix?: string }
  /**
   * Shared by every server instance on the PostgreSQL database: a `pg` Pool, and the table of
   * counters (default `silo_rate_limits`, made on first use unless `tableCreated`).
   */
  | { postgres: object; tableName?: string; tableCreated?: boolean };

export interface SiloLogger {
  error(message: string, err?: unknown): void;
}

export interface SiloOptions {
  /** One Keyv store for everything (accounts, keys, metadata, data of every region without its own store). Default: in-memory `new Keyv()`. */
  store?: Keyv;
  /** Per-region data stores (a separate SQLite file, Redis database or namespace). Default: the main store, namespaced. */
  regionStores?: Partial<Record<Region, Keyv>>;
  /** Storage tuning: the first segment of every key (default `silo`) and the time limit of one storage call in ms (default 5000; 0 none). */
  storage?: { prefix?: string; timeoutMs?: number };
  /** Host name of each region (port ignored, case-insensitive). A Host that matches none is served as `api`. */
  hosts?: Partial<Record<Region, string>>;
  /** Plans by name. Accounts use `default` unless given another; a missing `default` is filled from the defaults. */
  plans?: Record<string, Plan>;
  /** Where rate-limit counters live. Default: `{ store: 'memory' }` (per process). */
  rateLimit?: RateLimitStore;
  /** Allow query and search parameters at /public/<file_uuid> (default false: they are a 400 there). */
  publicQueries?: boolean;
  /**
   * Browser origins allowed to make keyed requests (private reads, management, history) by CORS,
   * such as `['https://app.example.com']`, or `'*'` for every origin. Never with credentials: keys
   * travel in headers. Default none. Public data is readable from any origin regardless.
   */
  corsOrigins?: CorsOrigins;
  /** Take the client address from the last X-Forwarded-For entry (set it behind a trusted proxy only). Default false. */
  trustProxy?: boolean;
  /** PATCH and DELETE without If-Match answer 428 (default false). */
  requireIfMatch?: boolean;
  /**
   * What happens to a request that is not Silo's: `'next'` (default) passes it to the app's own
   * middleware; `'json'` answers 404 `{"detail":"Not Found"}` (for a standalone server).
   */
  notFound?: 'next' | 'json';
  /**
   * Bytes of memory Silo's large data may take: the two caches below plus the work in flight
   * (request bodies being read, silo data loaded and parsed for queries and patches). Requests
   * whose data does not fit wait up to `memoryWaitMs`, then answer 503 with Retry-After.
   * Default 512 MiB, for a server with 1 GB of memory.
   */
  memoryBudgetBytes?: number;
  /** How long a large request waits for room in the memory budget before its 503. Default 2000 ms. */
  memoryWaitMs?: number;
  /**
   * A full garbage collection (V8's `gc`, from `node --expose-gc`), run after large requests
   * (256 KiB and more) have released a quarter of the budget for requests since the last run. V8 sizes its heap by its own limit
   * (a quarter to a half of the machine's memory), not by memoryBudgetBytes: without it, garbage of
   * parsed data piles up to that limit on a large machine. silo-server passes it. Default: none.
   */
  collectGarbage?: () => void;
  /**
   * Budget of the cache of parsed silo data used by parameterised reads, in estimated bytes of heap
   * (see http/heap-estimate.ts), 0 turns it off. Part of memoryBudgetBytes. Default: an eighth of it (64 MiB).
   */
  parsedCacheBytes?: number;
  /**
   * Byte budget of the cache of encoded response bodies of plain data reads, get-silo and query
   * answers (a quarter of it), one per silo and version (and query), shared by concurrent
   * responses (0 turns keeping them off). Part of memoryBudgetBytes. Default: an eighth of it (64 MiB).
   */
  bodyCacheBytes?: number;
  /** Deepest JSON nesting accepted in a request body. Default 1000. */
  maxJsonDepth?: number;
  /** Operations one JSON Patch may have (contract §17). Default 1000. */
  maxPatchOperations?: number;
  /**
   * The worker threads that parse, query, patch and validate large data off the event loop
   * (work/). Default: one fewer than the machine's cores (at least 1, at most 4); a task waits
   * at most 5 s for its turn and runs at most 10 s; an account may have 16 tasks waiting per worker.
   */
  work?: { workers?: number; deadlineMs?: number; waitMs?: number; maxQueuedPerAccount?: number };
  /** Where unexpected errors (500s) and storage outages (503s) are logged. Default: console. */
  logger?: SiloLogger;
  /** How often the orphan sweep runs (ms), the first time shortly after start; 0 turns it off. Default 10 minutes. */
  sweepIntervalMs?: number;
  /**
   * Where committed writes are announced to the change feed of every instance. Default: Redis
   * pub/sub when `store` is @keyv/redis (a single Redis or a cluster), else this process only.
   */
  events?: EventBus;
  /** Event streams one client (a key, or an address without one) may hold open. Default 20. */
  maxStreamsPerClient?: number;
  /** How often an idle event stream gets a keep-alive comment (ms). Default 15 000. */
  eventsKeepAliveMs?: number;
  /** Webhooks (contract §12). */
  webhooks?: WebhookOptions;
  /**
   * Serve the console's routes (`/console/api/...`: sign-in, sign-out, keys) and accept its session
   * cookie on the API, from this server's own pages only (contract §13). Default false.
   */
  console?: boolean;
  /**
   * Prometheus metrics (contract §19) in a registry of this Silo's own, read from `silo.metrics`
   * (serve them on a listener of your own: Silo never answers /metrics). `true`, or
   * `{ defaultMetrics: false }` without prom-client's process metrics. Default off.
   */
  metrics?: boolean | { defaultMetrics?: boolean };
  /**
   * Who calls of the programmatic API (services used directly, not through HTTP) act as in the
   * audit log, unless a call names its own. Default `{ type: 'program', name: 'koa-silo' }`;
   * silo-server's commands say `{ type: 'command', name: 'silo' }`.
   */
  actor?: AuditActor;
  /** How often audit entries past their plan's `auditDays` are removed (ms), the first time shortly after start; 0 turns it off. Default 1 hour. */
  auditPruneIntervalMs?: number;
}

export interface WebhookOptions {
  /** Run the delivery worker in this instance. Default true (every instance may: claims keep them apart). */
  deliver?: boolean;
  /** Let webhooks reach loopback, private and link-local addresses (a test set-up, an intranet). Default false. */
  allowPrivate?: boolean;
  /** Webhooks per account. Default 10. */
  maxPerAccount?: number;
  /** Poll interval, attempt time limit, backoff, give-up and disable times (tests shorten them). */
  timing?: Partial<DeliveryTiming>;
}



export const DEFAULT_SWEEP_INTERVAL_MS = 10 * 60_000;

export const DEFAULT_AUDIT_PRUNE_INTERVAL_MS = 60 * 60_000;

export const DEFAULT_MAX_STREAMS_PER_CLIENT = 20;

function positiveInteger(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!(Number.isSafeInteger(value) && value > 0)) throw new TypeError(`${name} must be a positive integer`);
  return value;
}

/** What a request body may carry beside `file_data` (file_name, region, flags, whitespace). */
export const BODY_ENVELOPE_BYTES = 64 * 1024;

export interface ResolvedOptions {
  hosts: Record<Region, string>;
  plans: Record<string, Plan>;
  rateLimit: RateLimitStore;
  publicQueries: boolean;
  corsOrigins: CorsOrigins;
  trustProxy: boolean;
  requireIfMatch: boolean;
  notFound: 'next' | 'json';
  memoryBudgetBytes: number;
  memoryWaitMs: number;
  collectGarbage?: () => void;
  parsedCacheBytes: number;
  bodyCacheBytes: number;
  maxJsonDepth: number;
  maxPatchOperations: number;
  work: { workers: number; deadlineMs: number; waitMs: number; maxQueuedPerAccount: number };
  logger: SiloLogger;
  sweepIntervalMs: number;
  maxStreamsPerClient: number;
  eventsKeepAliveMs: number;
  webhooks: { deliver: boolean; allowPrivate: boolean; maxPerAccount: number; timing: DeliveryTiming };
  console: boolean;
  metrics: false | { defaultMetrics: boolean };
  actor: AuditActor;
  auditPruneIntervalMs: number;
}

export function resolveOptions(options: SiloOptions = {}): ResolvedOptions {
  const hosts = { ...DEFAULT_HOSTS };
  for (const region of REGIONS) {
    const host = options.hosts?.[region];
    if (host !== undefined) hosts[region] = normalizeHost(host);
  }
  const plans: Record<string, Plan> = { [DEFAULT_PLAN_NAME]: DEFAULT_PLAN };
  for (const [name, plan] of Object.entries(options.plans ?? {})) {
    if (!(Number.isSafeInteger(plan.maxDataBytes) && plan.maxDataBytes > 0)) {
      throw new TypeError(`plans.${name}.maxDataBytes must be a positive integer`);
    }
    if (!(Number.isSafeInteger(plan.rateLimitPerMinute) && plan.rateLimitPerMinute >= 0)) {
      throw new TypeError(`plans.${name}.rateLimitPerMinute must be an integer >= 0 (0 turns limiting off)`);
    }
    const historyVersions = plan.historyVersions ?? DEFAULT_PLAN.historyVersions!;
    if (!(Number.isSafeInteger(historyVersions) && historyVersions >= 1 && historyVersions <= MAX_HISTORY_VERSIONS)) {
      throw new TypeError(`plans.${name}.historyVersions must be an integer from 1 to ${MAX_HISTORY_VERSIONS}`);
    }
    const maxKeys = positiveInteger(`plans.${name}.maxKeys`, plan.maxKeys, DEFAULT_PLAN.maxKeys!);
    const accountRateLimitPerMinute = plan.accountRateLimitPerMinute ?? 4 * plan.rateLimitPerMinute;
    if (!(Number.isSafeInteger(accountRateLimitPerMinute) && accountRateLimitPerMinute >= 0)) {
      throw new TypeError(`plans.${name}.accountRateLimitPerMinute must be an integer >= 0 (0 turns it off)`);
    }
    const auditDays = plan.auditDays ?? DEFAULT_AUDIT_DAYS;
    if (!(Number.isSafeInteger(auditDays) && auditDays >= 1 && auditDays <= 36_500)) {
      throw new TypeError(`plans.${name}.auditDays must be an integer from 1 to 36500`);
    }
    plans[name] = { maxDataBytes: plan.maxDataBytes, rateLimitPerMinute: plan.rateLimitPerMinute, historyVersions, maxKeys, accountRateLimitPerMinute, auditDays };
  }
  const memory = resolveMemory(options);
  const notFound = options.notFound ?? 'next';
  if (notFound !== 'next' && notFound !== 'json') throw new TypeError("notFound must be 'next' or 'json'");
  return {
    hosts,
    plans,
    rateLimit: options.rateLimit ?? { store: 'memory' },
    publicQueries: options.publicQueries ?? false,
    corsOrigins: resolveCorsOrigins(options.corsOrigins),
    trustProxy: options.trustProxy ?? false,
    requireIfMatch: options.requireIfMatch ?? false,
    notFound,
    ...memory,
    maxJsonDepth: options.maxJsonDepth ?? DEFAULT_MAX_JSON_DEPTH,
    maxPatchOperations: positiveInteger('maxPatchOperations', options.maxPatchOperations, DEFAULT_MAX_PATCH_OPERATIONS),
    work: {
      workers: positiveInteger('work.workers', options.work?.workers, Math.max(1, Math.min(4, availableParallelism() - 1))),
      deadlineMs: positiveInteger('work.deadlineMs', options.work?.deadlineMs, 10_000),
      waitMs: positiveInteger('work.waitMs', options.work?.waitMs, 5_000),
      maxQueuedPerAccount: positiveInteger('work.maxQueuedPerAccount', options.work?.maxQueuedPerAccount, 16),
    },
    logger: options.logger ?? { error: (message, err) => console.error(message, err) },
    sweepIntervalMs: options.sweepIntervalMs ?? DEFAULT_SWEEP_INTERVAL_MS,
    maxStreamsPerClient: positiveInteger('maxStreamsPerClient', options.maxStreamsPerClient, DEFAULT_MAX_STREAMS_PER_CLIENT),
    eventsKeepAliveMs: positiveInteger('eventsKeepAliveMs', options.eventsKeepAliveMs, 15_000),
    webhooks: {
      deliver: options.webhooks?.deliver ?? true,
      allowPrivate: options.webhooks?.allowPrivate ?? false,
      maxPerAccount: positiveInteger('webhooks.maxPerAccount', options.webhooks?.maxPerAccount, MAX_WEBHOOKS_PER_ACCOUNT),
      timing: { ...DEFAULT_DELIVERY_TIMING, ...options.webhooks?.timing },
    },
    console: options.console ?? false,
    metrics: options.metrics ? { defaultMetrics: options.metrics === true || options.metrics.defaultMetrics !== false } : false,
    actor: options.actor ?? PROGRAM_ACTOR,
    auditPruneIntervalMs: options.auditPruneIntervalMs ?? DEFAULT_AUDIT_PRUNE_INTERVAL_MS,
  };
}

function resolveCorsOrigins(origins: CorsOrigins | undefined): CorsOrigins {
  if (origins === undefined || origins === '*') return origins ?? [];
  if (!Array.isArray(origins)) throw new TypeError("corsOrigins must be '*' or an array of origins");
  return [...new Set(origins.map(normalizeOrigin))];
}

export const DEFAULT_MEMORY_BUDGET_BYTES = 512 * 1024 * 1024;
export const DEFAULT_MEMORY_WAIT_MS = 2000;

/** The memory budget and the caches' parts of it; the caches must leave at least half of it to requests. */
function resolveMemory(options: SiloOptions) {
  const memoryBudgetBytes = options.memoryBudgetBytes ?? DEFAULT_MEMORY_BUDGET_BYTES;
  if (!(Number.isSafeInteger(memoryBudgetBytes) && memoryBudgetBytes >= 1024 * 1024)) {
    throw new TypeError('memoryBudgetBytes must be an integer of at least 1 MiB (1048576)');
  }
  const memoryWaitMs = options.memoryWaitMs ?? DEFAULT_MEMORY_WAIT_MS;
  if (!(Number.isSafeInteger(memoryWaitMs) && memoryWaitMs >= 0 && memoryWaitMs <= 60_000)) {
    throw new TypeError('memoryWaitMs must be an integer from 0 to 60000');
  }
  const eighth = Math.floor(memoryBudgetBytes / 8);
  const parsedCacheBytes = options.parsedCacheBytes ?? eighth;
  const bodyCacheBytes = options.bodyCacheBytes ?? eighth;
  for (const [name, value] of [['parsedCacheBytes', parsedCacheBytes], ['bodyCacheBytes', bodyCacheBytes]] as const) {
    if (!(Number.isSafeInteger(value) && value >= 0)) throw new TypeError(`${name} must be an integer >= 0`);
  }
  if (parsedCacheBytes + bodyCacheBytes > memoryBudgetBytes / 2) {
    throw new TypeError('parsedCacheBytes + bodyCacheBytes must be at most half of memoryBudgetBytes (the rest is for requests in flight)');
  }
  if (options.collectGarbage !== undefined && typeof options.collectGarbage !== 'function') throw new TypeError('collectGarbage must be a function');
  return {
    memoryBudgetBytes,
    memoryWaitMs,
    parsedCacheBytes,
    bodyCacheBytes,
    ...(options.collectGarbage ? { collectGarbage: options.collectGarbage } : {}),
  };
}

/**
 * The parsed-data cache split between the main thread, which keeps only small silos' data (work
 * on large ones runs on workers), and the workers, which keep the large ones'.
 */
/**
 * The encoded-body cache split between whole texts (plain reads, get-silo, past versions) and
 * query answers: many distinct queries of one silo must not push its plain body out.
 */
export function splitBodyCache(bodyCacheBytes: number): { texts: number; answers: number } {
  const answers = Math.floor(bodyCacheBytes / 4);
  return { texts: bodyCacheBytes - answers, answers };
}

export function splitParsedCache(parsedCacheBytes: number): { main: number; workers: number } {
  const main = Math.floor(parsedCacheBytes / 8);
  return { main, workers: parsedCacheBytes - main };
}
