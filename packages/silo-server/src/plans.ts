/**
 * The plans a configuration gives Silo: one, `default`, shaped by SILO_RATE_LIMIT_PER_MINUTE,
 * SILO_MAX_DATA_BYTES, SILO_HISTORY_VERSIONS, SILO_MAX_KEYS, SILO_ACCOUNT_RATE_LIMIT_PER_MINUTE and SILO_AUDIT_DAYS. The server runs with them, and an import checks
 * what it loads against them (an account on another plan, or a silo larger than the limit, is
 * refused there as the API would refuse it).
 */
import { DEFAULT_PLAN, DEFAULT_PLAN_NAME, type Plan } from 'koa-silo/model';
import type { ServerConfig } from './config.js';

export type PlanConfig = Pick<ServerConfig, 'rateLimitPerMinute' | 'maxDataBytes' | 'historyVersions' | 'maxKeys' | 'accountRateLimitPerMinute' | 'auditDays'>;

export function plansOf(config: PlanConfig): Record<string, Plan> {
  return {
    [DEFAULT_PLAN_NAME]: {
      maxDataBytes: config.maxDataBytes ?? DEFAULT_PLAN.maxDataBytes,
      rateLimitPerMinute: config.rateLimitPerMinute ?? DEFAULT_PLAN.rateLimitPerMinute,
      historyVersions: config.historyVersions ?? DEFAULT_PLAN.historyVersions,
      ...(config.maxKeys !== undefined ? { maxKeys: config.maxKeys } : {}),
      // Unset, it follows the per-key limit (four keys' worth), as koa-silo's default does.
      ...(config.accountRateLimitPerMinute !== undefined ? { accountRateLimitPerMinute: config.accountRateLimitPerMinute } : {}),
      ...(config.auditDays !== undefined ? { auditDays: config.auditDays } : {}),
    },
  };
}
