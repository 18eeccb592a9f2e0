/**
 * KeyvTextStore's reads answered in memory: from a plain Map, and from an adapter's `cached`
 * (silo-server's SQLite store), the same answers as through Keyv; what the memory does not hold,
 * and any Map that is not a plain one, still goes through Keyv; the observer hears of every read.
 */
import Keyv from 'keyv';
import { describe, expect, it } from 'vitest';
import { configureKeyv, KeyvTextStore } from '../src/storage/keyv-text-store.js';

function textStore(keyv: Keyv): { store: KeyvTextStore; calls: string[] } {
  configureKeyv(keyv, () => undefined);
  const calls: string[] = [];
  return { store: new KeyvTextStore(keyv, 1000, { call: (operation) => calls.push(operation) }), calls };
}

/** A Map that counts its reads. */
class CountingMap extends Map<string, string> {
  reads = 0;
  override get(key: string): string | undefined {
    this.reads++;
    return super.get(key);
  }
}

/** A Keyv adapter whose `cached` holds what `held` says. */
class CachingAdapter extends CountingMap {
  readonly held = new Map<string, string | null>();
  cached(key: string): string | null | undefined {
    return this.held.get(key);
  }
}

describe('KeyvTextStore reads answered in memory', () => {
  it('from a plain Map, as Keyv answers them, the namespace prefix included', async () => {
    const keyv = new Keyv({ namespace: 'ns' });
    const { store, calls } = textStore(keyv);
    await store.set('a', 'one');
    expect([await store.get('a'), await store.get('b')]).toEqual(['one', undefined]);
    expect([await keyv.get('a'), await keyv.get('b')]).toEqual(['one', undefined]);
    await store.delete('a');
    expect(await store.get('a')).toBeUndefined();
    expect(calls.filter((c) => c === 'get')).toHaveLength(3);
  });

  it("from an adapter's cached values; what it does not hold is read through Keyv", async () => {
    const adapter = new CachingAdapter();
    const { store, calls } = textStore(new Keyv({ store: adapter, namespace: undefined, useKeyPrefix: false }));
    adapter.set('k', 'stored');
    adapter.held.set('k', 'held');
    adapter.held.set('gone', null);
    // Held: answered from the cache, no read of the adapter.
    expect([await store.get('k'), await store.get('gone')]).toEqual(['held', undefined]);
    expect(adapter.reads).toBe(0);
    adapter.held.clear();
    expect(await store.get('k')).toBe('stored');
    expect(adapter.reads).toBe(1);
    expect(calls).toEqual(['get', 'get', 'get']);
  });

  it('not from a Map that is no plain Map (its get may do more than read)', async () => {
    const adapter = new CountingMap();
    const { store } = textStore(new Keyv({ store: adapter }));
    await store.set('k', 'v');
    expect(await store.get('k')).toBe('v');
    expect(adapter.reads).toBe(1);
  });
});
