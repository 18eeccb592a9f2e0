export * from './types.js';
export { createAccountService, DEFAULT_MANAGE_KEY_DURATION, type AccountServiceOptions } from './account-service.js';
export { createSiloService, MAX_PER_PAGE, type PatchApplier, type SiloServiceOptions } from './silo-service.js';
export { DEFAULT_MAX_DATA_BYTES, DEFAULT_PLAN_NAME, type PlanLimits, type Plans } from '../model/index.js';
export { KEY_HEADER, KEY_PREFIX } from '../model/index.js';
export type { Clock } from '../model/index.js';

import type { SiloStorage } from '../storage/index.js';
import { createAccountService } from './account-service.js';
import type { Clock, Plans } from '../model/index.js';
import { createSiloService, type SiloServiceOptions } from './silo-service.js';
import type { AccountService, SiloService } from './types.js';

export interface Services {
  accounts: AccountService;
  silos: SiloService;
}

/** Both services over one storage, with the same plans and clock. */
export function createServices(
  storage: SiloStorage,
  options: { plans?: Plans; now?: Clock } & Pick<SiloServiceOptions, 'applyPatch' | 'maxJsonDepth' | 'charge' | 'onCommit' | 'outboxFor' | 'actor'> = {},
): Services {
  const accounts = createAccountService(storage, options);
  // One cache of plan names for both (authentication and the silo service's limits).
  return { accounts, silos: createSiloService(storage, { ...options, planOf: accounts.planOf }) };
}
