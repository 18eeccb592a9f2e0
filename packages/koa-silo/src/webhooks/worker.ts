/**
 * Delivers the outbox (contract §12). Every `pollMs`, for each account with webhooks, it reads the
 * deliveries due, claims each one (its entry rewritten, by compare-and-swap, to lapse after one
 * attempt's time limit), POSTs it signed, and settles it: removed once delivered (or given up),
 * else due again after an exponential backoff with jitter. A claim makes every instance but one
 * skip the delivery while it is attempted; a claim whose instance died lapses, and the delivery
 * is attempted again, with the same `webhook-id`.
 *
 * An endpoint that fails every attempt for `disableAfterMs` is disabled (its deliveries dropped).
 */
import type { SiloLogger } from '../options.js';
import { type DeliveryAttempt, type DeliveryTiming, isoTime, type PendingDelivery, type StoredWebhook } from '../model/index.js';
import type { SiloStorage } from '../storage/index.js';
import { postWebhook } from './post.js';
import { signatureHeaders } from './signature.js';

/** Deliveries read per account per round, and attempted at once per round. */
const BATCH = 20;
const CONCURRENCY = 8;
/** Time a claim keeps beyond one attempt's limit (settling it, a slow store). */
const CLAIM_SLACK_MS = 5_000;

export interface WorkerOptions {
  storage: SiloStorage;
  allowPrivate: boolean;
  timing: DeliveryTiming;
  logger: SiloLogger;
  now?: () => number;
  /** Told of each attempt's outcome (metrics), and of deliveries dropped because their webhook is gone. */
  onOutcome?: (outcome: DeliveryAttempt['outcome'] | 'dropped') => void;
}

export interface DeliveryWorker {
  /** One round now (tests; the timer runs rounds by itself). */
  runOnce(): Promise<void>;
  stop(): Promise<void>;
}

export function backoffMs(attempts: number, timing: Pick<DeliveryTiming, 'retryBaseMs' | 'maxRetryMs'>, random = Math.random): number {
  const delay = Math.min(timing.retryBaseMs * 2 ** Math.max(0, attempts - 1), timing.maxRetryMs);
  return Math.round(delay * (0.75 + 0.5 * random()));
}

export function startDeliveryWorker(options: WorkerOptions): DeliveryWorker {
  const { storage, timing, logger } = options;
  const now = options.now ?? Date.now;
  let stopped = false;
  let round: Promise<void> | undefined;
  let timer: NodeJS.Timeout | undefined;

  /** Claims what is due: the claimed deliveries with their webhook and the text they were claimed as. */
  async function claimDue(): Promise<{ delivery: PendingDelivery; text: string; hook: StoredWebhook }[]> {
    const claimed: { delivery: PendingDelivery; text: string; hook: StoredWebhook }[] = [];
    for (const account of await storage.hookedAccounts()) {
      const hooks = new Map((await storage.listWebhooks(account)).map((h) => [h.id, h]));
      const pending = await storage.pendingDeliveries(account, BATCH);
      if (hooks.size === 0 && pending.length === 0) {
        await storage.unhookIfIdle(account);
        continue;
      }
      for (const { delivery, text } of pending) {
        if (claimed.length >= CONCURRENCY) return claimed;
        const at = now();
        // Ascending by due time: the rest are later still.
        if (delivery.due > at) break;
        const hook = hooks.get(delivery.webhook);
        if (!hook || hook.disabled) {
          // Its webhook was removed or disabled: nothing will ever deliver it.
          if (await storage.replaceDelivery(account, delivery.id, text, undefined)) options.onOutcome?.('dropped');
          continue;
        }
        const claim: PendingDelivery = { ...delivery, due: at + timing.timeoutMs + CLAIM_SLACK_MS, claimed: true };
        if (await storage.replaceDelivery(account, delivery.id, text, claim)) claimed.push({ delivery, text: JSON.stringify(claim), hook });
      }
    }
    return claimed;
  }

  async function attempt({ delivery, text, hook }: { delivery: PendingDelivery; text: string; hook: StoredWebhook }): Promise<void> {
    const started = now();
    // Receivers check the timestamp against their own clock (±5 min): real time, whatever `now` is.
    const headers = signatureHeaders(hook.secret, delivery.id, Math.floor(Date.now() / 1000), delivery.body);
    const outcome = await postWebhook(hook.url, headers, delivery.body, { allowPrivate: options.allowPrivate, timeoutMs: timing.timeoutMs });
    const attempts = delivery.attempts + 1;
    const at = now();
    const givenUp = !outcome.ok && at - delivery.created_at >= timing.giveUpAfterMs;
    // (A claim that lapsed and was taken again carries its old mark: the next entry is unclaimed.)
    const { claimed: _claimed, ...waiting } = delivery;
    const next = outcome.ok || givenUp ? undefined : { ...waiting, attempts, due: at + backoffMs(attempts, timing) };
    // Only if the claim still holds: a claim that lapsed was taken by another instance.
    await storage.replaceDelivery(delivery.account, delivery.id, text, next);
    const record: DeliveryAttempt = {
      id: delivery.id,
      type: delivery.type,
      attempt: attempts,
      at: isoTime(started),
      status: outcome.status ?? null,
      error: outcome.error ?? null,
      duration_ms: Math.round(outcome.durationMs),
      outcome: outcome.ok ? 'delivered' : givenUp ? 'given up' : 'retrying',
    };
    options.onOutcome?.(record.outcome);
    await storage.recordAttempt(delivery.account, hook.id, record);
    await storage.updateWebhook(delivery.account, hook.id, (h) => {
      if (outcome.ok) return { ...h, failing_since: null };
      const since = h.failing_since ?? isoTime(started);
      return { ...h, failing_since: since, disabled: h.disabled || at - Date.parse(since) >= timing.disableAfterMs };
    });
  }

  async function runRound(): Promise<void> {
    const claimed = await claimDue();
    await Promise.all(
      claimed.map((c) =>
        attempt(c).catch((error: unknown) => logger.error('silo: a webhook delivery could not be settled; it is attempted again', error)),
      ),
    );
  }

  /** Whether the last round failed (a storage outage is logged once, not every poll). */
  let failing = false;
  const runOnce = (): Promise<void> => {
    if (round) return round;
    const running = runRound()
      .then(() => {
        failing = false;
      })
      .catch((error: unknown) => {
        if (!failing) logger.error('silo: the webhook outbox could not be read; retrying', error);
        failing = true;
      })
      .finally(() => {
        round = undefined;
      });
    round = running;
    return running;
  };

  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(() => void runOnce().finally(schedule), timing.pollMs);
    timer.unref();
  };
  schedule();

  return {
    runOnce,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await round;
    },
  };
}
