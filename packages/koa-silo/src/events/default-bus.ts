/**
 * The bus a Silo uses unless given one: Redis pub/sub when its main store is @keyv/redis (every
 * instance on that Redis, or cluster, hears every write), otherwise this process only.
 */
import type { Keyv } from 'keyv';
import type { EventBus } from '../model/index.js';
import { eventTransportOf } from '../storage/index.js';
import { LocalBus } from './local-bus.js';
import { SharedBus } from './shared-bus.js';

export function defaultEventBus(
  main: Keyv,
  options: { prefix?: string | undefined; timeoutMs?: number | undefined; onError: (message: string, error: unknown) => void },
): EventBus {
  const transport = eventTransportOf(main, options);
  return transport ? new SharedBus(transport, options.onError) : new LocalBus();
}
