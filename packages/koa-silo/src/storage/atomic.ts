/**
 * Atomic batches (see AtomicBatch) on each kind of main store: one Lua script on Redis, the
 * adapter's own transaction where it has one (silo-server's SqliteStore), synchronous steps on an
 * in-memory Map (nothing else runs in between). Every commit of Silo goes through one of these, so
 * a write is all or nothing on every store, whatever instant a crash picks.
 */
import { memorySortedIndexOf } from './memory-sorted-index.js';
import type { KeyvTextStore, StorageErrorListener } from './keyv-text-store.js';
import { guarded } from './storage-guard.js';
import type { AtomicAdapter, AtomicBatch, Coordination } from './types.js';
import { RedisNative } from './redis-native.js';

/** A batch as Silo writes it: keys are Silo's, and joined writes name the KeyvTextStore they go to. */
export type SiloBatch = Omit<AtomicBatch, 'joined'> & { joined?: { store: KeyvTextStore; set: [string, string][]; delete: string[] }[] };

export interface Atomic {
  readonly coordination: Coordination;
  /** Whether writes to `store` can join a batch (in `joined`) besides the main store's. */
  joins(store: KeyvTextStore): boolean;
  apply(batch: SiloBatch): Promise<boolean>;
}

export function hasAtomic(store: unknown): store is AtomicAdapter {
  return typeof store === 'object' && store !== null && 'atomic' in store && typeof store.atomic === 'function';
}

/** Audit rows go to stores with a log of their own only (audit-log.ts): elsewhere they would be lost. */
function noAuditRows(batch: SiloBatch): void {
  if (batch.auditAdd?.length) throw new TypeError('this store keeps no audit log of its own: its entries are records (audit-records.ts)');
}

/** The batch with every key as the adapter sees it. */
function mapKeys(batch: SiloBatch, key: (k: string) => string): AtomicBatch {
  return {
    expect: batch.expect.map(([k, v]) => [key(k), v]),
    set: batch.set.map(([k, v]) => [key(k), v]),
    delete: batch.delete.map(key),
    indexAdd: batch.indexAdd.map(([k, score, member]) => [key(k), score, member]),
    indexRemove: batch.indexRemove.map(([k, member]) => [key(k), member]),
    ...(batch.auditAdd?.length ? { auditAdd: batch.auditAdd.map((row) => ({ ...row, log: key(row.log) })) } : {}),
    ...(batch.joined?.length
      ? {
          joined: batch.joined.map(({ store, set, delete: del }) => ({
            store: store.keyv.store,
            set: set.map(([k, v]): [string, string] => [store.keyvKey(k), v]),
            delete: del.map((k) => store.keyvKey(k)),
          })),
        }
      : {}),
  };
}

/**
 * KEYS are every key of the batch; ARGV[1] is the plan, in JSON, naming keys by their position in
 * KEYS and texts by their position in ARGV (so that a large text is not JSON-encoded twice):
 * e = [[key, text or 0 for absent]], s = [[key, text]], d = [key], a = [[key, score, member]],
 * r = [[key, member]].
 */
const BATCH_SCRIPT = `
local p = cjson.decode(ARGV[1])
for _, c in ipairs(p.e) do
  local want = false
  if c[2] ~= 0 then want = ARGV[c[2]] end
  if redis.call('GET', KEYS[c[1]]) ~= want then return 0 end
end
for _, s in ipairs(p.s) do redis.call('SET', KEYS[s[1]], ARGV[s[2]]) end
for _, d in ipairs(p.d) do redis.call('DEL', KEYS[d]) end
for _, a in ipairs(p.a) do redis.call('ZADD', KEYS[a[1]], a[2], a[3]) end
for _, r in ipairs(p.r) do redis.call('ZREM', KEYS[r[1]], r[2]) end
return 1
`;

function redisAtomic(redis: RedisNative): Atomic {
  const natives = new WeakMap<KeyvTextStore, RedisNative | undefined>();
  const nativeOf = (store: KeyvTextStore) => {
    if (!natives.has(store)) natives.set(store, RedisNative.of(store.keyv, store));
    return natives.get(store);
  };
  return {
    coordination: 'redis',
    joins(store) {
      const native = nativeOf(store);
      return native !== undefined && redis.sharesClient(native);
    },
    async apply(batch) {
      noAuditRows(batch);
      const keys: string[] = [];
      const at = new Map<string, number>();
      const rawSlot = (raw: string): number => {
        let i = at.get(raw);
        if (i === undefined) {
          keys.push(raw);
          i = keys.length;
          at.set(raw, i);
        }
        return i;
      };
      const slot = (key: string) => rawSlot(redis.redisKey(key));
      const set = batch.set.map(([k, v]) => [slot(k), v] as const);
      const del = batch.delete.map(slot);
      for (const part of batch.joined ?? []) {
        const native = nativeOf(part.store)!;
        for (const [k, v] of part.set) set.push([rawSlot(native.redisKey(k)), v]);
        for (const k of part.delete) del.push(rawSlot(native.redisKey(k)));
      }
      // ARGV[1] is the plan; texts follow it.
      const texts: string[] = [];
      const text = (value: string): number => texts.push(value) + 1;
      const plan = {
        e: batch.expect.map(([k, v]) => [slot(k), v === undefined ? 0 : text(v)]),
        s: set.map(([k, v]) => [k, text(v)]),
        d: del,
        a: batch.indexAdd.map(([k, score, member]) => [slot(k), String(score), member]),
        r: batch.indexRemove.map(([k, member]) => [slot(k), member]),
      };
      const reply = await redis.script(BATCH_SCRIPT, keys, [JSON.stringify(plan), ...texts]);
      return Number(reply) === 1;
    },
  };
}

function adapterAtomic(adapter: AtomicAdapter, main: KeyvTextStore, onError: StorageErrorListener): Atomic {
  return {
    coordination: 'store',
    joins(store) {
      return adapter.joins?.(store.keyv.store) ?? false;
    },
    apply(batch) {
      return guarded('atomic', main, async () => {
        try {
          return await adapter.atomic(mapKeys(batch, (k) => main.keyvKey(k)));
        } catch (error) {
          // Keyv reports its own calls' failures; this call bypasses it.
          onError(error);
          throw error;
        }
      });
    },
  };
}

function mapAtomic(map: Map<unknown, unknown>, main: KeyvTextStore): Atomic {
  const index = memorySortedIndexOf(map);
  return {
    coordination: 'in-process',
    joins(store) {
      return store.keyv.store === map;
    },
    async apply(silo) {
      noAuditRows(silo);
      const batch = mapKeys(silo, (k) => main.keyvKey(k));
      for (const part of batch.joined ?? []) {
        batch.set.push(...part.set);
        batch.delete.push(...part.delete);
      }
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
export function atomicFor(main: KeyvTextStore, redis: RedisNative | undefined, onError: StorageErrorListener): Atomic | undefined {
  if (redis) return redisAtomic(redis);
  const adapter: unknown = main.keyv.store;
  if (hasAtomic(adapter)) return adapterAtomic(adapter, main, onError);
  if (adapter instanceof Map) return mapAtomic(adapter, main);
  return undefined;
}
