/**
 * Atomic batches (see AtomicBatch) on each kind of main store: one Lua script on Redis, the
 * adapter's own transaction where it has one (silo-server's SqliteStore), synchronous steps on an
 * in-memory Map (nothing else runs in between). Every commit of Silo goes through one of these, so
 * a write is all or nothing on every store, whatever instant a crash picks.
 */
import { memorySortedIndexOf } from './memory-sorted-index.js';
import type { KeyvTextStore } from './keyv-text-store.js';
import type { RedisNative } from './redis-native.js';
import { guarded } from './storage-guard.js';
import type { AtomicAdapter, AtomicBatch, Coordination } from './types.js';

export interface Atomic {
  readonly coordination: Coordination;
  apply(batch: AtomicBatch): Promise<boolean>;
}

export function hasAtomic(store: unknown): store is AtomicAdapter {
  return typeof store === 'object' && store !== null && 'atomic' in store && typeof store.atomic === 'function';
}

/** The batch with every key as the adapter sees it. */
function mapKeys(batch: AtomicBatch, key: (k: string) => string): AtomicBatch {
  return {
    expect: batch.expect.map(([k, v]) => [key(k), v]),
    set: batch.set.map(([k, v]) => [key(k), v]),
    delete: batch.delete.map(key),
    indexAdd: batch.indexAdd.map(([k, score, member]) => [key(k), score, member]),
    indexRemove: batch.indexRemove.map(([k, member]) => [key(k), member]),
  };
}

/**
 * KEYS are every key of the batch; ARGV[1] is the plan, in JSON, naming keys by their position:
 * e = [[key, expected text or false for absent]], s = [[key, text]], d = [key],
 * a = [[key, score as text, member]], r = [[key, member]].
 */
const BATCH_SCRIPT = `
local p = cjson.decode(ARGV[1])
for _, c in ipairs(p.e) do
  local current = redis.call('GET', KEYS[c[1]])
  if current ~= c[2] then return 0 end
end
for _, s in ipairs(p.s) do redis.call('SET', KEYS[s[1]], s[2]) end
for _, d in ipairs(p.d) do redis.call('DEL', KEYS[d]) end
for _, a in ipairs(p.a) do redis.call('ZADD', KEYS[a[1]], a[2], a[3]) end
for _, r in ipairs(p.r) do redis.call('ZREM', KEYS[r[1]], r[2]) end
return 1
`;

function redisAtomic(redis: RedisNative): Atomic {
  return {
    coordination: 'redis',
    async apply(batch) {
      const keys: string[] = [];
      const at = new Map<string, number>();
      const slot = (key: string): number => {
        let i = at.get(key);
        if (i === undefined) {
          keys.push(redis.redisKey(key));
          i = keys.length;
          at.set(key, i);
        }
        return i;
      };
      const plan = {
        e: batch.expect.map(([k, v]) => [slot(k), v ?? false]),
        s: batch.set.map(([k, v]) => [slot(k), v]),
        d: batch.delete.map(slot),
        a: batch.indexAdd.map(([k, score, member]) => [slot(k), String(score), member]),
        r: batch.indexRemove.map(([k, member]) => [slot(k), member]),
      };
      const reply = await redis.send(['EVAL', BATCH_SCRIPT, String(keys.length), ...keys, JSON.stringify(plan)]);
      return Number(reply) === 1;
    },
  };
}

function adapterAtomic(adapter: AtomicAdapter, main: KeyvTextStore): Atomic {
  return {
    coordination: 'store',
    apply(batch) {
      return guarded('atomic', main.timeoutMs, async () => adapter.atomic(mapKeys(batch, (k) => main.keyvKey(k))));
    },
  };
}

function mapAtomic(map: Map<unknown, unknown>, main: KeyvTextStore): Atomic {
  const index = memorySortedIndexOf(map);
  return {
    coordination: 'in-process',
    async apply(silo) {
      const batch = mapKeys(silo, (k) => main.keyvKey(k));
      for (const [key, value] of batch.expect) if (map.get(key) !== value) return false;
      for (const [key, value] of batch.set) map.set(key, value);
      for (const key of batch.delete) map.delete(key);
      for (const [key, score, member] of batch.indexAdd) index.add(key, score, member);
      for (const [key, member] of batch.indexRemove) index.remove(key, member);
      return true;
    },
  };
}

/** How `main` commits batches, or undefined when it cannot (a Keyv adapter without `atomic`). */
export function atomicFor(main: KeyvTextStore, redis: RedisNative | undefined): Atomic | undefined {
  if (redis) return redisAtomic(redis);
  const adapter: unknown = main.keyv.store;
  if (hasAtomic(adapter)) return adapterAtomic(adapter, main);
  if (adapter instanceof Map) return mapAtomic(adapter, main);
  return undefined;
}
