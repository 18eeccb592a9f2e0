/**
 * Delivers the outbox (contract §12). Every `pollMs`, and whenever an attempt ends, it reads the
 * deliveries due of each account with webhooks, claims some (each entry rewritten, by
 * compare-and-swap, to lapse after one attempt's time limit), POSTs them signed, and settles each:
 * removed once delivered (or given up), else due again after an exponential backoff with jitter.
 * A claim makes every instance but one skip the delivery while it is attempted; a claim whose
 * instance died lapses, and the delivery is attempted again, with the same `webhook-id`.
 *
 * Attempts run in CONCURRENCY slots, each refilled as soon as its attempt ends (not a round that
 * waits for its slowest receiver, then a second): delivery keeps pace with the receivers. The
 * slots are shared fairly: accounts are claimed from in turn, one delivery each per pass, and one
 * account holds at most PER_ACCOUNT of them, so an account whose receiver hangs (10 s a try) never
 * keeps another account's deliveries waiting (5.5 minutes before, behind five writes).
 *
 * An endpoint that fails every attempt for `disableAfterMs` is disabled (its deliveries dropped).
 */
import type { SiloLogger } from '../options.js';
import { type DeliveryAttempt, type DeliveryTiming, isoTime, type PendingDelivery, type StoredWebhook } from '../model/index.js';
import type { SiloStorage } from '../storage/index.js';
import { postWebhook } from './post.js';
import { signatureHeaders } from './signature.js';

/** Deliveries read per account per pass. */
const BATCH = 20;
/** Attempts under way at once, and at most per account. */
const CONCURRENCY = 16;
const PER_ACCOUNT = 4;
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
  let timer: NodeJS.Timeout | undefined;

  type Claimed = { delivery: PendingDelivery; text: string; hook: StoredWebhook };
  /** Attempts under way, by account. */
  const busy = new Map<string, number>();
  let running = 0;
  /** Where the next pass starts in the list of accounts: each account leads in turn. */
  let turn = 0;
  /** Whether the last pass left deliveries due (or accounts unread): a slot that frees looks again at once. */
  let moreDue = false;

  /**
   * Claims what is due, up to the free slots: the accounts in turn, one delivery each per go
   * around, none past PER_ACCOUNT under way.
   */
  async function claimDue(): Promise<Claimed[]> {
    const claimed: Claimed[] = [];
    moreDue = false;
    const free = () => CONCURRENCY - running - claimed.length;
    const taken = (account: string) => (busy.get(account) ?? 0) + claimed.filter((c) => c.delivery.account === account).length;
    const accounts = await storage.hookedAccounts();
    const first = accounts.length === 0 ? 0 : turn++ % accounts.length;
    const lines: { account: string; hooks: Map<string, StoredWebhook>; due: { delivery: PendingDelivery; text: string }[] }[] = [];
    for (const account of [...accounts.slice(first), ...accounts.slice(0, first)]) {
      // Not read now (the slots are full, or its share is): perhaps due, looked at once a slot frees.
      if (free() <= 0 || taken(account) >= PER_ACCOUNT) {
        moreDue = true;
        continue;
      }
      const hooks = new Map((await storage.listWebhooks(account)).map((h) => [h.id, h]));
      const pending = await storage.pendingDeliveries(account, BATCH);
      if (hooks.size === 0 && pending.length === 0) {
        await storage.unhookIfIdle(account);
        continue;
      }
      const at = now();
      const due = pending.filter((p) => p.delivery.due <= at);
      if (due.length > 0) lines.push({ account, hooks, due });
    }
    for (let progress = true; progress && free() > 0; ) {
      progress = false;
      for (const line of lines) {
        if (free() <= 0) break;
        if (taken(line.account) >= PER_ACCOUNT) continue;
        const next = line.due.shift();
        if (!next) continue;
        progress = true;
        const { delivery, text } = next;
        const hook = line.hooks.get(delivery.webhook);
        if (!hook || hook.disabled) {
          // Its webhook was removed or disabled: nothing will ever deliver it.
          if (await storage.replaceDelivery(line.account, delivery.id, text, undefined)) options.onOutcome?.('dropped');
          continue;
        }
        const claim: PendingDelivery = { ...delivery, due: now() + timing.timeoutMs + CLAIM_SLACK_MS, claimed: true };
        if (await storage.replaceDelivery(line.account, delivery.id, text, claim)) claimed.push({ delivery, text: JSON.stringify(claim), hook });
      }
    }
    if (lines.some((line) => line.due.length > 0)) moreDue = true;
    return claimed;
  }

  async function attempt({ delivery, text, hook }: Claimed): Promise<void> {
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

  /** Attempts under way (stop waits for them). */
  const attempts = new Set<Promise<void>>();

  /** Attempts `claimed` in its slot; when it ends, the slot is filled again at once. */
  function start(claimed: Claimed): Promise<void> {
    const account = claimed.delivery.account;
    running++;
    busy.set(account, (busy.get(account) ?? 0) + 1);
    const attempted: Promise<void> = attempt(claimed)
      .catch((error: unknown) => logger.error('silo: a webhook delivery could not be settled; it is attempted again', error))
      .finally(() => {
        attempts.delete(attempted);
        running--;
        const left = (busy.get(account) ?? 1) - 1;
        if (left > 0) busy.set(account, left);
        else busy.delete(account);
        refill();
      });
    attempts.add(attempted);
    return attempted;
  }

  /** Whether the last pass failed (a storage outage is logged once, not every poll). */
  let failing = false;
  /** One pass at a time: what it claimed is under way once it resolves. */
  let pass: Promise<Promise<void>[]> | undefined;
  let again = false;

  /** Claims what is due into the free slots; resolves to the attempts started. */
  function claimPass(): Promise<Promise<void>[]> {
    if (pass) {
      again = true;
      return pass.then(() => []);
    }
    const current = (async () => {
      if (stopped || running >= CONCURRENCY) return [];
      try {
        const claimed = await claimDue();
        failing = false;
        return claimed.map(start);
      } catch (error) {
        if (!failing) logger.error('silo: the webhook outbox could not be read; retrying', error);
        failing = true;
        return [];
      }
    })().finally(() => {
      pass = undefined;
      if (again) {
        // A pass was asked for while this one ran: what it would have seen may be due now.
        again = false;
        moreDue = true;
        refill();
      }
    });
    pass = current;
    return current;
  }

  /**
   * Fills freed slots soon (in the next turn: a burst of attempts ending makes one pass), when the
   * last pass left something due; else the next poll looks.
   */
  let refilling = false;
  function refill(): void {
    if (refilling || stopped || !moreDue) return;
    refilling = true;
    setImmediate(() => {
      refilling = false;
      void claimPass();
    });
  }

  /** One pass now, and its attempts awaited (tests; the timer and ending attempts run passes by themselves). */
  const runOnce = async (): Promise<void> => {
    await Promise.all(await claimPass());
  };

  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(() => {
      void claimPass();
      schedule();
    }, timing.pollMs);
    timer.unref();
  };
  schedule();

  return {
    runOnce,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await pass;
      await Promise.all(attempts);
    },
  };
}
