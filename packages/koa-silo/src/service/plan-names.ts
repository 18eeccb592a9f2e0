/**
 * Account → the name of its plan, read from storage and kept for a few seconds: plans change
 * rarely (with the `silo` command) and every request and every write needs one. One cache serves
 * authentication (which rate limit applies) and the silo service (size and history limits).
 */
import { type Account, DEFAULT_PLAN_NAME } from '../model/index.js';

/** How long a plan name read from storage is reused. */
export const PLAN_TTL_MS = 5_000;
/** Accounts remembered at most (the cache starts again past this). */
const MAX_ACCOUNTS = 10_000;

/** The account's plan name (`default` for an account that does not exist). */
export type PlanNameOf = (account: string) => Promise<string>;

export function cachedPlanNames(read: (account: string) => Promise<Account | undefined>): PlanNameOf {
  const cache = new Map<string, { plan: string; until: number }>();
  return async (account) => {
    const now = Date.now();
    const hit = cache.get(account);
    if (hit && hit.until > now) return hit.plan;
    const plan = (await read(account))?.plan ?? DEFAULT_PLAN_NAME;
    if (cache.size >= MAX_ACCOUNTS) cache.clear();
    cache.set(account, { plan, until: now + PLAN_TTL_MS });
    return plan;
  };
}
