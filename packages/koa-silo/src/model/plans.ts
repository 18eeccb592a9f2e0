/**
 * Plans: the limits an account lives by (size, history, keys, requests). One definition for the
 * options, the HTTP layer's rate limits and the services' limits. Imports nothing.
 */

export interface Plan {
  /** Largest compact JSON text of `file_data`, in bytes (the request body may carry a small envelope more). */
  maxDataBytes: number;
  /** Requests per client per minute; `0` turns rate limiting off for the plan. */
  rateLimitPerMinute: number;
  /** Versions each silo keeps in history, the current one included. Default 20 (1: only the current). */
  historyVersions?: number;
  /** Keys (manage and access together) an account may have. Default 20. */
  maxKeys?: number;
  /**
   * Requests per account per minute, whatever keys they use, beside each key's own limit (so more
   * keys do not mean more traffic). Default four keys' worth (4 × rateLimitPerMinute); 0 turns it off.
   */
  accountRateLimitPerMinute?: number;
  /** Days the account's audit entries are kept (contract §19). Default 90. */
  auditDays?: number;
}

/** What the services read of a plan: its size limit, and the rest where given. */
export type PlanLimits = Pick<Plan, 'maxDataBytes'> & Partial<Omit<Plan, 'maxDataBytes'>>;

export type Plans = Record<string, PlanLimits>;

export const DEFAULT_PLAN_NAME = 'default';

export const DEFAULT_PLAN: Plan = { maxDataBytes: 10_000_000, rateLimitPerMinute: 600, historyVersions: 20, maxKeys: 20, accountRateLimitPerMinute: 2400, auditDays: 90 };

export const DEFAULT_MAX_DATA_BYTES = DEFAULT_PLAN.maxDataBytes;
export const DEFAULT_HISTORY_VERSIONS = DEFAULT_PLAN.historyVersions!;
/** The most versions a plan may keep (`historyVersions`): no silo of any Silo store holds more. */
export const MAX_HISTORY_VERSIONS = 1000;
export const DEFAULT_MAX_KEYS = DEFAULT_PLAN.maxKeys!;

/** How deeply JSON may nest, bodies and stored data alike (`maxJsonDepth`). */
export const DEFAULT_MAX_JSON_DEPTH = 1000;

/** The given plans, with `default` filled in when missing. */
export function withDefaultPlan<P extends PlanLimits>(plans: Record<string, P> | undefined, fallback: P): Record<string, P> {
  const all: Record<string, P> = { ...plans };
  if (!Object.hasOwn(all, DEFAULT_PLAN_NAME)) all[DEFAULT_PLAN_NAME] = fallback;
  return all;
}

/** The plan named `name`, or the default plan when there is none of that name (one removed from the configuration, say). */
export function planNamed<P extends PlanLimits>(plans: Record<string, P>, name: string | undefined): P {
  const own = name !== undefined && Object.hasOwn(plans, name) ? plans[name] : undefined;
  return own ?? (plans[DEFAULT_PLAN_NAME] as P);
}
