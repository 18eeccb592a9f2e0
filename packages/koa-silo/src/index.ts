/**
 * koa-silo: Silo's management and data API as Koa middleware over pluggable Keyv storage.
 *
 * ```ts
 * const silo = createSilo({ store: new Keyv(new KeyvRedis('redis://localhost:6379')) });
 * app.use(silo.middleware());   // claims /api/v1/manage/..., /public/<uuid>, /<uuid>; the rest goes on
 * await silo.accounts.createAccount('acme');
 * ```
 */
import type { Middleware } from 'koa';
import { Keyv } from 'keyv';
import { defaultEventBus } from './events/default-bus.js';
import { createAdmission } from './limits/admission.js';
import { createWork } from './work/index.js';
import { createHttp } from './http/middleware.js';
import { resolveOptions, splitParsedCache, type SiloOptions } from './options.js';
import { buildOpenApi } from './schemas/openapi.js';
import { createServices } from './service/index.js';
import type { AccountService, SiloService } from './service/types.js';
import { createStorage, type Coordination, type SweepReport } from './storage/index.js';
import { startSweeper } from './storage/index.js';
import { createWebhookService, type WebhookService } from './webhooks/service.js';
import { createConsoleService, type ConsoleService } from './console/service.js';
import { startDeliveryWorker } from './webhooks/worker.js';
import { createAuditService, startAuditPruner, type AuditService } from './audit/index.js';
import { createMetrics, type SiloMetrics } from './metrics/index.js';

export interface Silo {
  /** The whole API as one Koa middleware: `app.use(silo.middleware())`. */
  middleware(): Middleware;
  /** Accounts and keys: create an account, create/list/revoke keys (values are shown once). */
  accounts: AccountService;
  /** Silos of an account, the same rules as the HTTP API. */
  silos: SiloService;
  /** Webhooks of an account (create, list, remove, deliveries), the same rules as the HTTP API. */
  webhooks: WebhookService;
  /** Console users (create, list, delete) and their sessions. */
  console: ConsoleService;
  /** The audit log (contract §19): list an account's entries, prune past retention. */
  audit: AuditService;
  /**
   * Prometheus metrics when the `metrics` option is on: the registry and its text. Silo serves
   * them nowhere itself: expose them on a listener of their own (silo-server: SILO_METRICS_PORT).
   */
  metrics?: SiloMetrics;
  /** The OpenAPI 3.1 document served at /api/v1/openapi.json. */
  openapi: Record<string, unknown>;
  /**
   * How far the atomicity of writes reaches: `redis` and `store` across every process sharing the
   * store (several server instances may serve it), `in-process` this Silo object only.
   */
  readonly coordination: Coordination;
  /**
   * Remove blobs that no committed version names (a crash between a write's data and its commit
   * leaves them). Runs by itself at start and every `sweepIntervalMs`; safe on every instance.
   */
  sweep(): Promise<SweepReport>;
  /** End every open event stream (a server that stops calls it before waiting for its requests). */
  endStreams(): void;
  /** End the event streams, disconnect the Keyv stores (given or default), drop in-process caches. Idempotent. */
  close(): Promise<void>;
}

export function createSilo(options: SiloOptions = {}): Silo {
  const resolved = resolveOptions(options);
  const metrics = resolved.metrics ? createMetrics(resolved.metrics) : undefined;
  const main = options.store ?? new Keyv();
  const storage = createStorage({
    main,
    ...(options.regionStores ? { regions: options.regionStores } : {}),
    ...(options.storage?.prefix !== undefined ? { prefix: options.storage.prefix } : {}),
    ...(options.storage?.timeoutMs !== undefined ? { timeoutMs: options.storage.timeoutMs } : {}),
    onError: () => undefined,
    ...(metrics ? { observer: metrics.storage } : {}),
  });
  const admission = createAdmission(resolved);
  const bus =
    options.events ??
    defaultEventBus(main, { prefix: options.storage?.prefix, timeoutMs: options.storage?.timeoutMs, onError: resolved.logger.error });
  const webhooks = createWebhookService(storage, {
    maxPerAccount: resolved.webhooks.maxPerAccount,
    allowPrivate: resolved.webhooks.allowPrivate,
    actor: resolved.actor,
  });
  const work = createWork({
    ...resolved.work,
    cacheBytes: splitParsedCache(resolved.parsedCacheBytes).workers,
    taskBytes: Math.floor(admission.parses.budgetBytes / resolved.work.workers),
    onWorkerLost: (reason, error) => resolved.logger.error(`silo: a worker thread ${reason}`, error),
    charge: (bytes) => admission.texts.take(bytes),
    ...(metrics ? { observer: metrics.work } : {}),
  });
  const { accounts, silos } = createServices(storage, {
    plans: resolved.plans,
    applyPatch: work.patch,
    maxJsonDepth: resolved.maxJsonDepth,
    charge: (bytes) => admission.texts.take(bytes),
    onCommit: (event) => bus.publish(event),
    outboxFor: (event) => webhooks.outboxFor(event),
    actor: resolved.actor,
  });
  const consoleService = createConsoleService(storage, { actor: resolved.actor, onError: resolved.logger.error });
  const audit = createAuditService(storage, { plans: resolved.plans });
  metrics?.watch({
    admission,
    work,
    async outboxBacklog() {
      const sizes = await Promise.all((await storage.hookedAccounts()).map((account) => storage.outboxSize(account)));
      return sizes.reduce((a, b) => a + b, 0);
    },
  });
  const openapi = buildOpenApi(resolved);
  const http = createHttp({
    accounts,
    silos,
    options: resolved,
    admission,
    openapiText: JSON.stringify(openapi),
    bus,
    webhooks,
    console: consoleService,
    work,
    audit,
    ...(metrics ? { metrics } : {}),
  });
  const worker = resolved.webhooks.deliver
    ? startDeliveryWorker({
        storage,
        allowPrivate: resolved.webhooks.allowPrivate,
        timing: resolved.webhooks.timing,
        logger: resolved.logger,
        ...(metrics ? { onOutcome: (outcome) => metrics.delivery(outcome) } : {}),
      })
    : undefined;
  let closing: Promise<void> | undefined;
  const sweep = () => storage.sweep();
  const sweeper = startSweeper(sweep, resolved.sweepIntervalMs, resolved.logger);
  const pruner = startAuditPruner(() => audit.prune(), resolved.auditPruneIntervalMs, resolved.logger);

  return {
    middleware: () => http.middleware,
    accounts,
    silos,
    webhooks,
    console: consoleService,
    audit,
    ...(metrics ? { metrics: { registry: metrics.registry, contentType: metrics.contentType, text: () => metrics.text() } } : {}),
    openapi,
    coordination: storage.coordination,
    sweep,
    endStreams: () => http.endStreams(),
    close() {
      closing ??= (async () => {
        sweeper.stop();
        pruner.stop();
        await worker?.stop();
        http.endStreams();
        http.clear();
        // A bus given in the options is its giver's to close, like its stores' clients; what this
        // Silo published on it goes out first (its transport may be these very stores).
        if (!options.events) await bus.close();
        else await bus.settled?.();
        await work.close();
        await consoleService.settled();
        await storage.close();
      })();
      return closing;
    },
  };
}

export { jsonNotFound } from './http/errors.js';
export { redactKeyValues } from './http/redact.js';
export { clientAddress, clientProtocol } from './http/client.js';
export { drainUnreadBody, DRAIN_BYTES, DRAIN_MS } from './http/unread-body.js';
export { DEFAULT_RATE_LIMIT_TABLE } from './http/rate-limit.js';
export { type RateLimitStore, type SiloLogger, type SiloOptions } from './options.js';
export { DEFAULT_HOSTS, DEFAULT_PLAN, DEFAULT_PLAN_NAME, type Plan } from './model/index.js';
export { buildOpenApi, OPENAPI_VERSION } from './schemas/openapi.js';
export * from './model/index.js';
export type { AccountService, SiloService } from './service/types.js';
export { applyJsonPatch, applyMergePatch, checkJsonPatch, PatchConflictError, PatchTooLargeError, type ApplyOptions } from './patch/index.js';
export type { JsonPatchOperation } from './model/index.js';
export {
  createStorage,
  DEFAULT_SWEEP_GRACE_MS,
  UnsupportedStoreError,
  type AtomicAdapter,
  type AtomicBatch,
  type AuditLog,
  type AuditLogAdapter,
  type AuditLogFilter,
  type AuditRow,
  type CompareAndSwapAdapter,
  type ImportedSilo,
  type ImportedVersion,
  type KeyInsertion,
  type KeyListingAdapter,
  type SiloHead,
  type SiloStorage,
  type SortedIndex,
  type SortedIndexAdapter,
  type StorageOptions,
  type StoredKey,
  type SweepReport,
  type VersionEntry,
} from './storage/index.js';
export { recordRules, type RecordRuleOptions, type RecordRules } from './transfer/record-rules.js';
export { LocalBus } from './events/local-bus.js';
export { SharedBus } from './events/shared-bus.js';
export { TurnBatch } from './limits/turn-batch.js';
export type { EventBus, EventListener, SiloEvent, SiloEventType } from './model/index.js';
export { SESSION_IDLE_MS, type ConsoleService, type SignedIn } from './console/service.js';
export { isPasswordHash } from './console/passwords.js';
export type { UserInfo } from './model/index.js';
export type { AuditService } from './audit/index.js';
export type { SiloMetrics } from './metrics/index.js';
export type { StorageObserver } from './storage/index.js';
