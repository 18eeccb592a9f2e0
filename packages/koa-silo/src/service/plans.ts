/**
 * The part of a plan the service enforces: the size of `file_data`. Rate limits are the HTTP
 * layer's (it counts requests); the service only needs to know how large a silo may be.
 */

/** Structurally a subset of the HTTP layer's `Plan`, so its plans can be passed as they are. */
export interface PlanLimits {
  /** Largest JSON text of `file_data` in UTF-8 bytes. */
  maxDataBytes: number;
  /** Versions kept in history, the current one included (contract §9). Default 20. */
  historyVersions?: number;
  /** Keys an account may have (contract §17). Default 20. */
  maxKeys?: number;
}

export const DEFAULT_PLAN_NAME = 'default';
export const DEFAULT_MAX_DATA_BYTES = 10_000_000;
export const DEFAULT_HISTORY_VERSIONS = 20;
export const DEFAULT_MAX_KEYS = 20;

export type Plans = Record<string, PlanLimits>;

/** The given plans, with `default` filled in when missing. */
export function withDefaultPlan(plans: Plans | undefined): Plans {
  const all: Plans = { ...plans };
  if (!Object.hasOwn(all, DEFAULT_PLAN_NAME)) all[DEFAULT_PLAN_NAME] = { maxDataBytes: DEFAULT_MAX_DATA_BYTES };
  return all;
}

/** The limits of `plan`, or of the default plan when `plan` is unknown (for example removed from the configuration). */
export function limitsOf(plans: Plans, plan: string | undefined): PlanLimits {
  const own = plan !== undefined && Object.hasOwn(plans, plan) ? plans[plan] : undefined;
  return own ?? (plans[DEFAULT_PLAN_NAME] as PlanLimits);
}
