/**
 * The audit log (contract §19): an account's entries, newest first, paged as the silo list and
 * filtered by time, silo and actor; retention by the plan's `auditDays`; entries of actions that
 * commit nothing else (an import). The entries of every other action are written by the commits of
 * the actions themselves (the services build them, storage joins them to the commit): this room
 * only reads and prunes. No HTTP here.
 */
import {
  type AuditPage,
  type AuditQuery,
  auditInfoOf,
  type Clock,
  DEFAULT_AUDIT_DAYS,
  DEFAULT_PLAN,
  type NewAuditEntry,
  type PlanLimits,
  planNamed,
  type Plans,
  systemClock,
  ValidationError,
  withDefaultPlan,
} from '../model/index.js';
import { AuditScanTooLargeError, MAX_AUDIT_SCAN, runPeriodically, type SiloStorage } from '../storage/index.js';

/** Entries per page at most, as the silo list. */
export const MAX_AUDIT_PER_PAGE = 100;

const DAY_MS = 86_400_000;

export interface AuditService {
  /** One page of the account's entries, newest first (query as the HTTP layer validated it). */
  list(account: string, query: AuditQuery): Promise<AuditPage>;
  /** Removes every account's entries older than its plan's `auditDays`; how many went. */
  prune(): Promise<number>;
  /** An entry in a commit of its own, for an action that writes nothing else (an import). */
  record(entry: NewAuditEntry): Promise<void>;
}

export interface AuditServiceOptions {
  plans?: Plans;
  now?: Clock;
}

function whole(value: number | undefined, fallback: number, min: number, max: number): number {
  if (value === undefined || !Number.isFinite(value)) return fallback;
  return Math.min(max, Math.max(min, Math.trunc(value)));
}

export function createAuditService(storage: SiloStorage, options: AuditServiceOptions = {}): AuditService {
  const plans = withDefaultPlan<PlanLimits>(options.plans, DEFAULT_PLAN);
  const now = options.now ?? systemClock;

  return {
    async list(account, query) {
      const pageNo = whole(query.page, 1, 1, Number.MAX_SAFE_INTEGER);
      const size = whole(query.perPage, 25, 1, MAX_AUDIT_PER_PAGE);
      const offset = (pageNo - 1) * size;
      try {
        const { total, entries } = await storage.listAudit(account, {
          offset: Number.isSafeInteger(offset) ? offset : Number.MAX_SAFE_INTEGER,
          limit: size,
          ...(query.since !== undefined ? { since: query.since } : {}),
          ...(query.silo !== undefined ? { silo: query.silo.toLowerCase() } : {}),
          ...(query.actor !== undefined ? { actor: query.actor } : {}),
        });
        return { metadata: { total_items: total, per_page: size, page_no: pageNo }, entries: entries.map(auditInfoOf) };
      } catch (error) {
        if (!(error instanceof AuditScanTooLargeError)) throw error;
        throw new ValidationError([
          {
            loc: ['query', 'actor'],
            msg: `silo and actor together look through at most ${MAX_AUDIT_SCAN} entries, and both have more: add since, or ask for one of them`,
            type: 'too_many_entries',
            ctx: { max: MAX_AUDIT_SCAN },
          },
        ]);
      }
    },

    async prune() {
      let removed = 0;
      for (const name of await storage.listAccountNames()) {
        const account = await storage.getAccount(name);
        const days = planNamed(plans, account?.plan).auditDays ?? DEFAULT_AUDIT_DAYS;
        removed += await storage.pruneAudit(name, now() - days * DAY_MS);
      }
      return removed;
    },

    async record(entry) {
      await storage.appendAudit(entry);
    },
  };
}

/** Prunes the audit log by itself: 10 s after start, then every `intervalMs` (0: never). */
export function startAuditPruner(prune: () => Promise<unknown>, intervalMs: number, logger: { error(message: string, err?: unknown): void }): { stop(): void } {
  return runPeriodically(prune, { intervalMs, firstRunMs: 10_000, failure: 'silo: pruning the audit log failed (it runs again later)' }, logger);
}
