/**
 * Webhooks of an account (contract §12): register, list, remove, see deliveries; and, for every
 * committed silo write, the deliveries it owes, which the write records in its own commit (so a
 * crash right after the write's answer still delivers). No HTTP here; the worker delivers.
 */
import { randomBytes } from 'node:crypto';
import { type AuditActor, auditEntryOf, type AuditSource, type Clock, type DeliveryAttempt, PROGRAM_ACTOR, isoTime, NotFoundError, type PendingDelivery, type SiloEvent, type StoredWebhook, systemClock, ValidationError, type ValidationIssue, type WebhookEventType, type WebhookInfo } from '../model/index.js';
import { foreignSilos } from '../service/foreign-silos.js';
import type { SiloStorage } from '../storage/index.js';
import { bareHostname, BlockedAddressError, REFUSED_RULE, resolveDeliveryAddress, webhookUrlProblem, type GuardOptions, type LookupFn } from './address-guard.js';
import { newMessageId, newWebhookSecret } from './signature.js';

export interface CreateWebhookInput {
  url: string;
  events: WebhookEventType[];
  silos?: string[];
}

export interface WebhookService {
  /**
   * 422 for a refused URL, a listed silo that is not the account's, or over `maxPerAccount`; the
   * answer holds the secret, this once.
   */
  create(account: string, input: CreateWebhookInput, by?: AuditSource): Promise<WebhookInfo & { secret: string }>;
  /** The 422 issue of a URL refused as written (scheme, credentials, a literal private address), if any; no DNS. */
  urlIssue(url: string): ValidationIssue | undefined;
  list(account: string): Promise<WebhookInfo[]>;
  /** One webhook (never its secret); 404 when the account has no such webhook. */
  get(account: string, id: string): Promise<WebhookInfo>;
  /** 404 when the account has no such webhook. */
  remove(account: string, id: string, by?: AuditSource): Promise<void>;
  deliveries(account: string, id: string): Promise<DeliveryAttempt[]>;
  /**
   * Makes the webhook's deliveries that wait for a retry due now (the worker attempts them within
   * its poll interval); one being attempted is left alone. Resolves to how many. 404 as `remove`.
   */
  retryNow(account: string, id: string): Promise<number>;
  /** The deliveries a write reported by `event` owes (for its commit). */
  outboxFor(event: SiloEvent): Promise<PendingDelivery[]>;
}

/** `allowPrivate`: private and loopback addresses allowed (SILO_WEBHOOK_ALLOW_PRIVATE). */
export interface WebhookServiceOptions extends GuardOptions {
  maxPerAccount: number;
  /** How a create's check resolves a URL's name (default: the system's resolver). */
  lookup?: LookupFn;
  now?: Clock;
  /** Who a change without an AuditSource acts as in the audit log. Default: the programmatic API's actor. */
  actor?: AuditActor;
}

/** How long a create waits for DNS to check the URL's addresses. */
const CREATE_DNS_MS = 2000;

/** Pending deliveries of an account a retry-now looks through (its outbox, soonest first). */
const RETRY_SCAN = 1000;

/** How long another instance's webhook change may take to reach this instance's writes. */
const CACHE_MS = 1000;

const TYPE_OF: Record<SiloEvent['type'], WebhookEventType> = {
  create: 'silo.created',
  update: 'silo.updated',
  move: 'silo.updated',
  delete: 'silo.deleted',
};

/**
 * Why a URL whose host resolves to a refused address is refused now (delivery checks again). A
 * name that does not resolve today is let through: it may tomorrow, and delivery will check it.
 */
async function resolvedProblem(url: string, guard: GuardOptions & { lookup?: LookupFn }): Promise<string | undefined> {
  if (guard.allowPrivate) return undefined;
  let timer: NodeJS.Timeout | undefined;
  // A resolver that does not answer does not hold the request: delivery checks again anyway.
  const slow = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), CREATE_DNS_MS)));
  const checked = resolveDeliveryAddress(bareHostname(new URL(url).hostname), guard).then(
    () => undefined,
    // Not the address itself, nor its kind: a client would learn what names resolve to inside the network.
    (error: unknown) => (error instanceof BlockedAddressError ? `${error.hostname} resolves to an address webhooks may not reach${REFUSED_RULE}` : undefined),
  );
  try {
    return await Promise.race([checked, slow]);
  } finally {
    clearTimeout(timer);
  }
}

function urlRefused(problem: string): ValidationIssue {
  return { loc: ['body', 'url'], msg: problem, type: 'url_refused' };
}

function infoOf(hook: StoredWebhook): WebhookInfo {
  const { id, url, events, silos, created_at, disabled, failing_since } = hook;
  return { id, url, events, silos, created_at, disabled, failing_since };
}

export function createWebhookService(storage: SiloStorage, options: WebhookServiceOptions): WebhookService {
  const now = options.now ?? systemClock;
  const programmatic: AuditSource = { actor: options.actor ?? PROGRAM_ACTOR, address: null };
  /** Each account's webhooks as writes last read them, and when. */
  const cache = new Map<string, { at: number; hooks: Promise<StoredWebhook[]> }>();

  const hooksOf = (account: string): Promise<StoredWebhook[]> => {
    const cached = cache.get(account);
    if (cached && Date.now() - cached.at < CACHE_MS) return cached.hooks;
    const hooks = storage.listWebhooks(account);
    if (cache.size > 10_000) cache.clear();
    cache.set(account, { at: Date.now(), hooks });
    hooks.catch(() => cache.delete(account));
    return hooks;
  };

  async function owned(account: string, id: string): Promise<StoredWebhook> {
    const hook = (await storage.listWebhooks(account)).find((h) => h.id === id);
    if (!hook) throw new NotFoundError('No webhook with this id');
    return hook;
  }

  return {
    urlIssue(url) {
      const problem = webhookUrlProblem(url, options);
      return problem === undefined ? undefined : urlRefused(problem);
    },

    async create(account, input, by = programmatic) {
      const silos = input.silos?.map((uuid) => uuid.toLowerCase());
      const [problem, foreign] = await Promise.all([
        webhookUrlProblem(input.url, options) ?? resolvedProblem(input.url, options),
        foreignSilos(storage, account, silos ?? []),
      ]);
      const issues: ValidationIssue[] = problem ? [urlRefused(problem), ...foreign] : foreign;
      if (issues.length > 0) throw new ValidationError(issues);
      const hook: StoredWebhook = {
        id: `wh_${randomBytes(12).toString('base64url')}`,
        url: input.url,
        events: [...new Set(input.events)],
        silos: silos ? [...new Set(silos)] : null,
        created_at: isoTime(now()),
        disabled: false,
        failing_since: null,
        account,
        secret: newWebhookSecret(),
      };
      const entry = auditEntryOf('webhook.create', account, by, hook.created_at, undefined, hook.id);
      if (!(await storage.insertWebhook(hook, options.maxPerAccount, entry))) {
        throw new ValidationError([
          { loc: ['body'], msg: `An account may have at most ${options.maxPerAccount} webhooks: delete one first`, type: 'too_many_webhooks' },
        ]);
      }
      cache.delete(account);
      return { ...infoOf(hook), secret: hook.secret };
    },

    async list(account) {
      return (await storage.listWebhooks(account)).map(infoOf);
    },

    async get(account, id) {
      return infoOf(await owned(account, id));
    },

    async remove(account, id, by = programmatic) {
      const entry = auditEntryOf('webhook.delete', account, by, isoTime(now()), undefined, id);
      if (!(await storage.removeWebhook(account, id, entry))) throw new NotFoundError('No webhook with this id');
      cache.delete(account);
    },

    async deliveries(account, id) {
      await owned(account, id);
      return storage.listAttempts(account, id);
    },

    async retryNow(account, id) {
      await owned(account, id);
      const at = now();
      let rescheduled = 0;
      for (const { delivery, text } of await storage.pendingDeliveries(account, RETRY_SCAN)) {
        if (delivery.webhook !== id || delivery.claimed || delivery.due <= at) continue;
        // Compare-and-swap on the entry as read: a worker that claimed it meanwhile wins.
        if (await storage.replaceDelivery(account, delivery.id, text, { ...delivery, due: at })) rescheduled++;
      }
      return rescheduled;
    },

    async outboxFor(event) {
      const type = TYPE_OF[event.type];
      const uuid = event.silo.file_uuid;
      const wanted = (await hooksOf(event.account)).filter(
        (h) => !h.disabled && h.events.includes(type) && (h.silos === null || h.silos.includes(uuid)),
      );
      if (wanted.length === 0) return [];
      const at = now();
      const body = JSON.stringify({ type, timestamp: isoTime(at), data: event.silo });
      return wanted.map((hook) => ({ id: newMessageId(), webhook: hook.id, account: event.account, type, body, created_at: at, attempts: 0, due: at }));
    },
  };
}
