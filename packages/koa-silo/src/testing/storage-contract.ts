/**
 * The storage contract: what Silo needs of a Keyv store, checked through Silo's own storage facade
 * and services, in the style of @keyv/test-suite. Run it once per store adapter:
 *
 *     import { storageContract } from 'koa-silo/testing';
 *     storageContract('sqlite', () => new Keyv({ store: new SqliteStore({ path }) }));
 *
 * `makeKeyv` is called for every test (several times in some); each test writes under a storage
 * prefix of its own, so the Keyvs may share one backing store. Self-contained on purpose: it
 * imports only vitest, keyv and koa-silo's sources. Exported as `koa-silo/testing`, as keyv exports its
 * test suite, so that every engine (silo-server's SQLite and PostgreSQL stores) runs the same contract.
 */
import Keyv, { type KeyvStoreAdapter } from 'keyv';
import { afterAll, describe, expect, it } from 'vitest';
import { type AuditEntry, ConflictError, NotFoundError, PreconditionFailedError, type Region, REGIONS, type SiloData, type SiloRecord, StorageUnavailableError, UnauthorizedError } from '../model/index.js';
import { createServices } from '../service/index.js';

type Services = ReturnType<typeof createServices>;
import { createStorage, storageKeys, type SiloStorage } from '../storage/index.js';

export interface StorageContractOptions {
  /** Skip the whole suite (for example: Redis unreachable on a laptop). */
  skip?: boolean;
  /**
   * Two Keyvs from two `makeKeyv()` calls reach the same data and the store is atomic across
   * them (Redis, or an adapter with compareAndSwap): runs the tests of several server instances.
   */
  multiInstance?: boolean;
  /** Bytes of the large text that must round-trip. Default 5 MB. */
  largeTextBytes?: number;
  /** The store is a Redis Cluster: Silo's keys carry hash tags (storage-keys.ts). */
  clustered?: boolean;
  /** Runs once after the suite: drop what the tests wrote, close clients. */
  cleanup?: () => Promise<void> | void;
}

type MakeKeyv = () => Keyv | Promise<Keyv>;

const ACCOUNT_A = 'alice';
const ACCOUNT_B = 'bob';

/** The methods a failing store answers with a rejection (sync helpers keep working). */
const IO_METHODS = new Set<PropertyKey>([
  'get', 'getMany', 'set', 'setMany', 'delete', 'deleteMany', 'has', 'hasMany', 'clear', 'getClient', 'compareAndSwap', 'atomic', 'keysWithPrefix',
]);

/** Every method of `inner`, rejecting while `failing()` says so. */
function failingMethods(inner: object, failing: () => boolean): object {
  return new Proxy(inner, {
    get(target, prop) {
      const value: unknown = Reflect.get(target, prop);
      if (typeof value !== 'function') return value;
      if (failing()) return () => Promise.reject(new Error('injected storage failure'));
      return (value as (...args: unknown[]) => unknown).bind(target);
    },
  });
}

/**
 * Wraps an adapter so that, once `fail` is set, every I/O method rejects. Methods run bound to the
 * real adapter (adapters may use private fields), property writes land on it too.
 */
function switchable(inner: object): { adapter: KeyvStoreAdapter; setFailing(on: boolean): void } {
  let failing = false;
  const failingWith = (index: object) => failingMethods(index, () => failing);
  const adapter = new Proxy(inner, {
    get(target, prop) {
      const value: unknown = Reflect.get(target, prop);
      // A sorted index or audit log capability (SortedIndexAdapter, AuditLogAdapter) fails with the store.
      if ((prop === 'sortedIndex' || prop === 'auditLog') && typeof value === 'object' && value !== null) return failingWith(value);
      if (typeof value !== 'function') return value;
      if (failing && IO_METHODS.has(prop)) return () => Promise.reject(new Error('injected storage failure'));
      return (value as (...args: unknown[]) => unknown).bind(target);
    },
    set(target, prop, value) {
      return Reflect.set(target, prop, value);
    },
  }) as KeyvStoreAdapter;
  return { adapter, setFailing: (on) => (failing = on) };
}

/**
 * The adapter as a store without an audit log of its own sees it (AuditLogAdapter hidden): what an
 * earlier version of Silo wrote to it, in the generic layout (records and sorted indexes).
 */
function withoutAuditLog(inner: object): KeyvStoreAdapter {
  return new Proxy(inner, {
    get(target, prop) {
      if (prop === 'auditLog') return undefined;
      const value: unknown = Reflect.get(target, prop);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
    has: (target, prop) => prop !== 'auditLog' && Reflect.has(target, prop),
    set: (target, prop, value) => Reflect.set(target, prop, value),
  }) as KeyvStoreAdapter;
}

function sorted<T>(items: T[]): T[] {
  return [...items].sort();
}

export function storageContract(name: string, makeKeyv: MakeKeyv, options: StorageContractOptions = {}): void {
  const largeBytes = options.largeTextBytes ?? 5_000_000;
  let runs = 0;
  const newPrefix = () => `silo-contract-${process.pid}-${Date.now().toString(36)}-${++runs}`;

  interface Setup {
    storage: SiloStorage;
    prefix: string;
    regionKeyvs: Record<Region, Keyv>;
    main: Keyv;
  }

  /** A storage on fresh Keyvs: one for everything, or one per region plus main. */
  async function setup(layout: 'shared' | 'separate' = 'shared', prefix = newPrefix()): Promise<Setup> {
    const main = await makeKeyv();
    const regionKeyvs = {} as Record<Region, Keyv>;
    for (const region of REGIONS) regionKeyvs[region] = layout === 'separate' ? await makeKeyv() : main;
    const storage = createStorage({ main, regions: layout === 'separate' ? regionKeyvs : undefined, prefix });
    return { storage, prefix, regionKeyvs, main };
  }

  async function withAccounts(storage: SiloStorage, clock?: () => number) {
    const services = createServices(storage, clock ? { now: clock } : {});
    await services.accounts.createAccount(ACCOUNT_A);
    await services.accounts.createAccount(ACCOUNT_B);
    return services;
  }

  describe.skipIf(options.skip === true)(`storage contract: ${name}`, () => {
    afterAll(async () => {
      await options.cleanup?.();
    });

    describe('records', () => {
      it('stores an account once: a second account of that name is refused', async () => {
        const { storage } = await setup();
        const account = { name: 'acme', plan: 'default', created_at: '2026-01-01T00:00:00.000Z' };
        expect(await storage.getAccount('acme')).toBeUndefined();
        expect(await storage.insertAccount(account)).toBe(true);
        expect(await storage.insertAccount({ ...account, plan: 'pro' })).toBe(false);
        expect(await storage.getAccount('acme')).toEqual(account);
        expect(await storage.listAccountNames()).toEqual(['acme']);
      });

      it('reads many heads at once, undefined where missing', async () => {
        const { storage } = await setup();
        const { silos } = await withAccounts(storage);
        const made = await silos.create(ACCOUNT_A, { file_name: 'h', file_data: {} });
        const missing = '00000000-0000-4000-8000-00000000000c';
        const heads = await storage.getHeads(ACCOUNT_A, [missing, made.file_uuid]);
        expect(heads[0]).toBeUndefined();
        expect(heads[1]).toMatchObject({ file_uuid: made.file_uuid, version: 1, etag: made.etag });
        expect(await storage.getHeads(ACCOUNT_A, [])).toEqual([]);
      });

      it('finds a key by its hash; names are unique per account and type', async () => {
        const { storage } = await setup();
        const key = { type: 'access' as const, name: 'ci', account: 'acme', created_at: '2026-01-01T00:00:00.000Z', hash: 'ab'.repeat(32) };
        expect(await storage.insertKey(key)).toBe('inserted');
        expect(await storage.insertKey({ ...key, hash: 'cd'.repeat(32) })).toBe('taken');
        expect(await storage.insertKey({ ...key, type: 'manage', hash: 'ef'.repeat(32) })).toBe('inserted');
        expect(await storage.insertKey({ ...key, account: 'other', hash: '01'.repeat(32) })).toBe('inserted');
        // A cap judged on the list the insert commits against: of racing inserts, only what fits.
        const racing = await Promise.all(['r1', 'r2', 'r3'].map((name, i) => storage.insertKey({ ...key, account: 'capped', name, hash: `${i}`.repeat(64) }, undefined, 2)));
        expect(racing.filter((r) => r === 'inserted')).toHaveLength(2);
        expect(racing.filter((r) => r === 'full')).toHaveLength(1);
        expect(await storage.listKeys('capped')).toHaveLength(2);
        expect(await storage.getKeyByHash(key.hash)).toEqual(key);
        expect((await storage.listKeys('acme')).map((k) => k.type).sort()).toEqual(['access', 'manage']);
        expect(await storage.removeKey('acme', 'access', 'ci')).toEqual(key);
        expect(await storage.getKeyByHash(key.hash)).toBeUndefined();
        expect(await storage.removeKey('acme', 'access', 'ci')).toBeUndefined();
        expect(await storage.listKeys('acme')).toHaveLength(1);
      });
    });

    describe('exact JSON text', () => {
      const texts: Record<string, string> = {
        'unicode and astral characters': JSON.stringify({ 'ключ': 'значение', 中文: '漢字', emoji: '😀👍🏽🏳️‍🌈', math: '𝔸𝕓' }),
        'escapes and separators': JSON.stringify({ q: '"\\/\b\f\n\r\t', nul: '\u0000', ls: '\u2028\u2029', del: '\u007f' }),
        '__proto__ and constructor keys': '{"__proto__":{"polluted":true},"constructor":{"prototype":{"x":1}}}',
        'whitespace kept as written': '[ {"a" : 1 } ,\t{ "b":[ ] } ]',
        'numbers as written': '{"big":12345678901234567890123,"exp":1E+2,"neg":-0.0}',
        'empty object': '{}',
        'empty array': '[]',
      };
      for (const [label, text] of Object.entries(texts)) {
        it(`round-trips ${label}`, async () => {
          const { storage } = await setup('separate');
          const { silos } = await withAccounts(storage);
          const made = await silos.createText(ACCOUNT_A, { file_name: label, region_name: 'sg-01-api', is_public: true }, text);
          expect(made.size).toBe(Buffer.byteLength(text));
          expect((await silos.read(ACCOUNT_A, made.file_uuid)).text).toBe(text);
          expect((await silos.readData('sg-01-api', made.file_uuid, undefined)).text).toBe(text);
          const renamed = await silos.updateText(ACCOUNT_A, made.file_uuid, { file_name: 'renamed' }, undefined);
          expect(renamed.text).toBe(text);
          expect((await silos.version(ACCOUNT_A, made.file_uuid, 1)).text).toBe(text);
        });
      }

      it('stores file_data as its JSON text and serves exactly that text', async () => {
        const { storage } = await setup('separate');
        const { silos } = await withAccounts(storage);
        const data = JSON.parse('[{"__proto__":{"admin":true},"name":"😀","n":1.5}]') as SiloData;
        const created = await silos.create(ACCOUNT_A, { file_name: 'f', file_data: data, is_public: true });
        const read = await silos.read(ACCOUNT_A, created.file_uuid);
        expect(read.text).toBe(JSON.stringify(data));
        expect(read.record.size).toBe(Buffer.byteLength(read.text));
        const served = await silos.readData('api', created.file_uuid, undefined);
        expect(served.text).toBe(read.text);
        const parsed = JSON.parse(served.text) as Record<string, unknown>[];
        expect(Object.hasOwn(parsed[0]!, '__proto__')).toBe(true);
        expect(({} as Record<string, unknown>).admin).toBeUndefined();
      });

      it(`round-trips a large text (${largeBytes} bytes)`, { timeout: 30_000 }, async () => {
        const { storage } = await setup('separate');
        const { silos } = await withAccounts(storage);
        const item = { id: 0, text: 'ünïcödé 😀 '.repeat(8), flag: true };
        const items: (typeof item)[] = [];
        let size = 2;
        for (let i = 0; size < largeBytes; i++) {
          const next = { ...item, id: i };
          items.push(next);
          size += Buffer.byteLength(JSON.stringify(next)) + 1;
        }
        const created = await silos.create(ACCOUNT_A, { file_name: 'big', file_data: items });
        expect(created.size).toBeGreaterThanOrEqual(largeBytes);
        const served = await silos.readData('api', created.file_uuid, ACCOUNT_A);
        expect(served.text.length).toBe(JSON.stringify(items).length);
        expect(served.text === JSON.stringify(items)).toBe(true);
      });
    });

    describe('listing', () => {
      it('lists newest first, ties by file_uuid, paginated, with the true total', async () => {
        const { storage } = await setup();
        let clock = 0;
        const { silos } = await withAccounts(storage, () => clock);
        const times = [1000, 1000, 2000, 3000, 3000, 3000, 4000];
        const created: SiloRecord[] = [];
        for (const t of times) {
          clock = t;
          created.push(await silos.create(ACCOUNT_A, { file_name: `at ${t}`, file_data: {} }));
        }
        const expected = [...created]
          .sort((a, b) => b.created_at.localeCompare(a.created_at) || a.file_uuid.localeCompare(b.file_uuid))
          .map((r) => r.file_uuid);
        const pages = await Promise.all([1, 2, 3, 4].map((page) => silos.list(ACCOUNT_A, page, 3)));
        expect(pages.map((p) => p.metadata.total_items)).toEqual([7, 7, 7, 7]);
        expect(pages.flatMap((p) => p.silos.map((s) => s.file_uuid))).toEqual(expected);
        expect(pages[3]!.silos).toEqual([]);
        expect(pages[0]!.metadata).toEqual({ total_items: 7, per_page: 3, page_no: 1 });
        expect(Object.keys(pages[0]!.silos[0]!).sort()).toEqual(
          ['created_at', 'file_name', 'file_uuid', 'is_public', 'region_name', 'size', 'updated_at', 'version'],
        );
        // The size of the stored data ({}), as the head holds it: no data store read.
        expect(pages[0]!.silos[0]!.size).toBe(2);
        expect((await silos.list(ACCOUNT_B, 1, 25)).metadata.total_items).toBe(0);
      });

      it('never reads a data store to list', async () => {
        const { storage, regionKeyvs } = await setup('separate');
        const { silos } = await withAccounts(storage);
        for (const region of REGIONS) await silos.create(ACCOUNT_A, { file_name: region, file_data: [{}], region_name: region });
        let dataReads = 0;
        for (const keyv of Object.values(regionKeyvs)) {
          keyv.hooks.addHandler('preGet', () => dataReads++);
          keyv.hooks.addHandler('preGetMany', () => dataReads++);
        }
        const page = await silos.list(ACCOUNT_A, 1, 100);
        expect(page.silos.map((s) => s.region_name).sort()).toEqual([...REGIONS].sort());
        expect(dataReads).toBe(0);
      });

      it('loses no entry when 200 creates run at once', { timeout: 30_000 }, async () => {
        const { storage } = await setup();
        const { silos } = await withAccounts(storage);
        const created = await Promise.all(
          Array.from({ length: 200 }, (_, i) => silos.create(ACCOUNT_A, { file_name: `c${i}`, file_data: { i } })),
        );
        const [first, second, third] = await Promise.all([1, 2, 3].map((p) => silos.list(ACCOUNT_A, p, 100)));
        expect(first!.metadata.total_items).toBe(200);
        const listed = [...first!.silos, ...second!.silos].map((s) => s.file_uuid);
        expect(new Set(listed).size).toBe(200);
        expect(sorted(listed)).toEqual(sorted(created.map((r) => r.file_uuid)));
        expect(third!.silos).toEqual([]);
      });

      it('keeps the listing equal to what exists when creates and deletes interleave', { timeout: 30_000 }, async () => {
        const { storage } = await setup();
        const { silos } = await withAccounts(storage);
        const first = await Promise.all(Array.from({ length: 40 }, (_, i) => silos.create(ACCOUNT_A, { file_name: `a${i}`, file_data: {} })));
        const doomed = first.filter((_, i) => i % 2 === 0);
        const [, more] = await Promise.all([
          Promise.all(doomed.map((r) => silos.delete(ACCOUNT_A, r.file_uuid))),
          Promise.all(Array.from({ length: 40 }, (_, i) => silos.create(ACCOUNT_A, { file_name: `b${i}`, file_data: {} }))),
        ]);
        const alive = [...first.filter((_, i) => i % 2 === 1), ...more].map((r) => r.file_uuid);
        const page = await silos.list(ACCOUNT_A, 1, 100);
        expect(page.metadata.total_items).toBe(60);
        expect(sorted(page.silos.map((s) => s.file_uuid))).toEqual(sorted(alive));
      });
    });

    describe('delete', () => {
      it('removes metadata, data and the listing entry at once', async () => {
        const { storage } = await setup('separate');
        const { silos } = await withAccounts(storage);
        const keep = await silos.create(ACCOUNT_A, { file_name: 'keep', file_data: {} });
        const gone = await silos.create(ACCOUNT_A, { file_name: 'gone', file_data: [{ a: 1 }], region_name: 'sg-01-api', is_public: true });
        await silos.delete(ACCOUNT_A, gone.file_uuid);
        const page = await silos.list(ACCOUNT_A, 1, 25);
        expect(page.metadata.total_items).toBe(1);
        expect(page.silos.map((s) => s.file_uuid)).toEqual([keep.file_uuid]);
        const id = gone.file_uuid;
        // One at a time: a rejection must meet its handler before the next call starts.
        for (const attempt of [
          () => silos.meta(ACCOUNT_A, id),
          () => silos.read(ACCOUNT_A, id),
          () => silos.update(ACCOUNT_A, id, { file_name: 'x' }),
          () => silos.delete(ACCOUNT_A, id),
          () => silos.readData('sg-01-api', id, ACCOUNT_A),
          () => silos.readData('sg-01-api', id, undefined),
        ]) {
          await expect(attempt()).rejects.toBeInstanceOf(NotFoundError);
        }
        expect(await storage.getHead(id)).toBeUndefined();
        expect(await storage.getVersions({ account: ACCOUNT_A, file_uuid: id }, [1, 2])).toEqual([undefined, undefined]);
        // Its blobs went with it: nothing is left for the sweep.
        expect(await storage.sweep(0)).toEqual({ removed: 0, scanned: 1 });
      });
    });

    describe('region move', () => {
      it('copies the data to the new region, switches, then removes it from the old one', async () => {
        const { storage } = await setup('separate');
        const { silos } = await withAccounts(storage);
        const data = [{ city: 'Zürich' }];
        const created = await silos.create(ACCOUNT_A, { file_name: 'moving', file_data: data, is_public: true });
        const id = created.file_uuid;
        // Started before the move: it has read the old region already and must still succeed.
        const inFlight = silos.readData('api', id, undefined);
        const moved = await silos.update(ACCOUNT_A, id, { region_name: 'usc-01-api' });
        expect((await inFlight).text).toBe(JSON.stringify(data));
        expect(moved.record.region_name).toBe('usc-01-api');
        expect(moved.text).toBe(JSON.stringify(data));
        await expect(silos.readData('api', id, undefined)).rejects.toBeInstanceOf(NotFoundError);
        await expect(silos.readData('api', id, ACCOUNT_A)).rejects.toBeInstanceOf(NotFoundError);
        expect((await silos.readData('usc-01-api', id, undefined)).text).toBe(JSON.stringify(data));
        expect((await silos.meta(ACCOUNT_A, id)).region_name).toBe('usc-01-api');
        // History went along: version 1 (written in api) still reads, and api keeps no blob.
        expect((await silos.version(ACCOUNT_A, id, 1)).text).toBe(JSON.stringify(data));
        expect(await storage.sweep(0)).toEqual({ removed: 0, scanned: 1 });
        expect((await silos.read(ACCOUNT_A, id)).text).toBe(JSON.stringify(data));
        expect((await silos.list(ACCOUNT_A, 1, 10)).silos[0]!.region_name).toBe('usc-01-api');
      });
    });

    describe('versions and history', () => {
      const plans = { default: { maxDataBytes: 1_000_000, historyVersions: 3 } };

      async function historyOf(silos: Services['silos'], id: string) {
        return (await silos.versions(ACCOUNT_A, id, 1, 100)).versions.map((v) => v.version);
      }

      it('numbers versions from 1, one more per write, and lists them newest first', async () => {
        const { storage } = await setup('separate');
        const { silos } = await withAccounts(storage);
        const made = await silos.create(ACCOUNT_A, { file_name: 'v', file_data: { n: 1 } });
        expect(made.version).toBe(1);
        const second = await silos.update(ACCOUNT_A, made.file_uuid, { file_data: { n: 2 }, is_public: true });
        const third = await silos.update(ACCOUNT_A, made.file_uuid, { file_name: 'renamed' });
        expect([second.record.version, third.record.version]).toEqual([2, 3]);
        expect(new Set([made.etag, second.record.etag, third.record.etag]).size).toBe(3);
        const page = await silos.versions(ACCOUNT_A, made.file_uuid, 1, 2);
        expect(page.metadata).toEqual({ total_items: 3, per_page: 2, page_no: 1 });
        expect(page.versions).toEqual([
          { version: 3, updated_at: third.record.updated_at, file_name: 'renamed', is_public: true, region_name: 'api', size: 7 },
          { version: 2, updated_at: second.record.updated_at, file_name: 'v', is_public: true, region_name: 'api', size: 7 },
        ]);
        expect((await silos.versions(ACCOUNT_A, made.file_uuid, 2, 2)).versions.map((v) => v.version)).toEqual([1]);
        expect((await silos.versions(ACCOUNT_A, made.file_uuid, 3, 2)).versions).toEqual([]);
        expect((await silos.version(ACCOUNT_A, made.file_uuid, 1)).text).toBe('{"n":1}');
        expect((await silos.version(ACCOUNT_A, made.file_uuid, 3)).text).toBe('{"n":2}');
        await expect(silos.version(ACCOUNT_A, made.file_uuid, 4)).rejects.toBeInstanceOf(NotFoundError);
        await expect(silos.versions(ACCOUNT_B, made.file_uuid, 1, 10)).rejects.toBeInstanceOf(NotFoundError);
      });

      it('restores an old version as a new one, keeping name and flags', async () => {
        const { storage } = await setup('separate');
        const { silos } = await withAccounts(storage);
        const made = await silos.create(ACCOUNT_A, { file_name: 'r', file_data: [{ v: 1 }] });
        const two = await silos.update(ACCOUNT_A, made.file_uuid, { file_data: [{ v: 2 }], file_name: 'two', is_public: true });
        await expect(silos.restore(ACCOUNT_A, made.file_uuid, 1, [made.etag])).rejects.toBeInstanceOf(PreconditionFailedError);
        const restored = await silos.restore(ACCOUNT_A, made.file_uuid, 1, [two.record.etag]);
        expect(restored.record).toMatchObject({ version: 3, file_name: 'two', is_public: true });
        expect(restored.text).toBe('[{"v":1}]');
        expect((await silos.readData('api', made.file_uuid, undefined)).text).toBe('[{"v":1}]');
        await expect(silos.restore(ACCOUNT_A, made.file_uuid, 9)).rejects.toBeInstanceOf(NotFoundError);
      });

      it('keeps the plan’s number of versions and removes the blobs of pruned ones', async () => {
        const { storage } = await setup('separate');
        const services = createServices(storage, { plans });
        await services.accounts.createAccount(ACCOUNT_A);
        const { silos } = services;
        const made = await silos.create(ACCOUNT_A, { file_name: 'p', file_data: { n: 0 } });
        for (let n = 1; n <= 3; n++) await silos.update(ACCOUNT_A, made.file_uuid, { file_data: { n } });
        expect(await historyOf(silos, made.file_uuid)).toEqual([4, 3, 2]);
        await expect(silos.version(ACCOUNT_A, made.file_uuid, 1)).rejects.toBeInstanceOf(NotFoundError);
        // Metadata-only versions share their predecessor's blob, also across a prune.
        await silos.update(ACCOUNT_A, made.file_uuid, { file_name: 'a' });
        await silos.update(ACCOUNT_A, made.file_uuid, { file_name: 'b' });
        expect(await historyOf(silos, made.file_uuid)).toEqual([6, 5, 4]);
        for (const v of [6, 5, 4]) expect((await silos.version(ACCOUNT_A, made.file_uuid, v)).text).toBe('{"n":3}');
        expect(await storage.sweep(0)).toEqual({ removed: 0, scanned: 1 });
        await silos.update(ACCOUNT_A, made.file_uuid, { file_data: { n: 7 } });
        expect(await storage.sweep(0)).toEqual({ removed: 0, scanned: 2 });
      });

      it('takes history along on a region move', async () => {
        const { storage } = await setup('separate');
        const services = createServices(storage, { plans });
        await services.accounts.createAccount(ACCOUNT_A);
        const { silos } = services;
        const made = await silos.create(ACCOUNT_A, { file_name: 'm', file_data: { n: 0 } });
        await silos.update(ACCOUNT_A, made.file_uuid, { file_data: { n: 1 } });
        await silos.update(ACCOUNT_A, made.file_uuid, { file_data: { n: 2 }, region_name: 'sg-01-api' });
        await silos.update(ACCOUNT_A, made.file_uuid, { region_name: 'usc-01-api' });
        expect(await historyOf(silos, made.file_uuid)).toEqual([4, 3, 2]);
        expect((await silos.version(ACCOUNT_A, made.file_uuid, 2)).text).toBe('{"n":1}');
        expect((await silos.version(ACCOUNT_A, made.file_uuid, 4)).text).toBe('{"n":2}');
        const restored = await silos.restore(ACCOUNT_A, made.file_uuid, 2);
        expect(restored.record.region_name).toBe('usc-01-api');
        expect((await silos.readData('usc-01-api', made.file_uuid, ACCOUNT_A)).text).toBe('{"n":1}');
        await expect(silos.readData('sg-01-api', made.file_uuid, ACCOUNT_A)).rejects.toBeInstanceOf(NotFoundError);
        expect((await storage.sweep(0)).removed).toBe(0);
      });

      it('sweeps blobs that no version names once they are older than the grace period', async () => {
        const { storage, prefix, regionKeyvs } = await setup('separate');
        const { silos } = await withAccounts(storage);
        const made = await silos.create(ACCOUNT_A, { file_name: 's', file_data: { kept: true }, region_name: 'sg-01-api' });
        const hour = 3_600_000;
        const old = (Date.now() - hour).toString(36);
        const fresh = Date.now().toString(36);
        // What a crash leaves: a blob written before a commit that never came, and a copy in a
        // region the silo is not in; and a blob of a silo that no longer exists.
        const sg = regionKeyvs['sg-01-api'];
        const at = storageKeys(prefix, options.clustered).silo(ACCOUNT_A, made.file_uuid);
        const gone = storageKeys(prefix, options.clustered).silo(ACCOUNT_A, '00000000-0000-4000-8000-0000000000ff');
        await sg.set(at.blob('sg-01-api', `2-${old}-crashed`), '{"lost":1}');
        await sg.set(at.blob('sg-01-api', `2-${fresh}-inflight`), '{"lost":2}');
        await regionKeyvs.api.set(at.blob('api', `1-${old}-moved`), '{"lost":3}');
        await regionKeyvs.api.set(gone.blob('api', `1-${old}-gone`), '{}');
        expect(await storage.sweep(60_000)).toEqual({ removed: 3, scanned: 5 });
        expect(await sg.get(at.blob('sg-01-api', `2-${fresh}-inflight`))).toBe('{"lost":2}');
        expect(await storage.sweep(0)).toEqual({ removed: 1, scanned: 2 });
        expect((await silos.readData('sg-01-api', made.file_uuid, ACCOUNT_A)).text).toBe('{"kept":true}');
      });

      it('stores appends as tails: every version reads whole, pruning and moves keep the blobs exact', { timeout: 30_000 }, async () => {
        const { storage } = await setup('separate');
        const services = createServices(storage, { plans });
        await services.accounts.createAccount(ACCOUNT_A);
        const { silos } = services;
        const made = await silos.create(ACCOUNT_A, { file_name: 't', file_data: [] });
        const append = (value: object) =>
          silos.patch(ACCOUNT_A, made.file_uuid, { type: 'json-patch', operations: [{ op: 'add', path: '/file_data/-', value }] });
        const expected = (n: number) => JSON.stringify(Array.from({ length: n }, (_, i) => ({ i })));
        // Past the tail limit (32), so that some write stores the data whole again.
        for (let i = 0; i < 40; i++) {
          const written = await append({ i });
          expect(written.text).toBe(expected(i + 1));
          expect(written.record.size).toBe(Buffer.byteLength(expected(i + 1)));
        }
        expect((await silos.read(ACCOUNT_A, made.file_uuid)).text).toBe(expected(40));
        // Versions 2–33 each added a tail blob; version 34 was stored whole; 35–41 added 7 tails.
        expect((await storage.getHead(made.file_uuid))?.tail).toHaveLength(7);
        expect(await historyOf(silos, made.file_uuid)).toEqual([41, 40, 39]);
        for (const v of [41, 40, 39]) expect((await silos.version(ACCOUNT_A, made.file_uuid, v)).text).toBe(expected(v - 1));
        // Only the blobs of kept versions remain: nothing for the sweep, whatever its grace.
        expect((await storage.sweep(0)).removed).toBe(0);
        // A move takes tails along, a restore reads a version with a tail, an update replaces both.
        await silos.update(ACCOUNT_A, made.file_uuid, { region_name: 'sg-01-api' });
        expect((await silos.readData('sg-01-api', made.file_uuid, ACCOUNT_A)).text).toBe(expected(40));
        expect((await silos.version(ACCOUNT_A, made.file_uuid, 40)).text).toBe(expected(39));
        const restored = await silos.restore(ACCOUNT_A, made.file_uuid, 40);
        expect(restored.text).toBe(expected(39));
        await append({ i: 39 });
        expect((await silos.read(ACCOUNT_A, made.file_uuid)).text).toBe(expected(40));
        expect((await storage.sweep(0)).removed).toBe(0);
        await silos.delete(ACCOUNT_A, made.file_uuid);
        expect((await storage.sweep(0)).scanned).toBe(0);
      });

      it('applies every one of 100 concurrent appends, in some order, none lost or doubled', { timeout: 30_000 }, async () => {
        const { storage } = await setup('separate');
        const { silos } = await withAccounts(storage);
        const made = await silos.create(ACCOUNT_A, { file_name: 'log', file_data: [] });
        await Promise.all(
          Array.from({ length: 100 }, (_, i) =>
            silos.patch(ACCOUNT_A, made.file_uuid, { type: 'json-patch', operations: [{ op: 'add', path: '/file_data/-', value: { i } }] }),
          ),
        );
        const items = JSON.parse((await silos.read(ACCOUNT_A, made.file_uuid)).text) as { i: number }[];
        expect(items.map((x) => x.i).sort((a, b) => a - b)).toEqual(Array.from({ length: 100 }, (_, i) => i));
        expect((await silos.meta(ACCOUNT_A, made.file_uuid)).version).toBe(101);
      });
    });

    describe('accounts and keys', () => {
      it('creates keys, authenticates them, and revokes them', async () => {
        const { storage } = await setup();
        const { accounts } = await withAccounts(storage);
        const manage = await accounts.createKey({ account: ACCOUNT_A, type: 'manage', name: 'deploy' });
        const access = await accounts.createKey({ account: ACCOUNT_A, type: 'access', name: 'reader' });
        expect(await accounts.authenticate(manage.key, 'manage')).toEqual({ account: ACCOUNT_A, keyType: 'manage', keyName: 'deploy' });
        expect(await accounts.authenticate(access.key, 'access')).toEqual({ account: ACCOUNT_A, keyType: 'access', keyName: 'reader' });
        await expect(accounts.authenticate(access.key, 'manage')).rejects.toBeInstanceOf(UnauthorizedError);
        await accounts.revokeKey({ account: ACCOUNT_A, type: 'manage', name: 'deploy', confirm: 'deploy' });
        await expect(accounts.authenticate(manage.key, 'manage')).rejects.toBeInstanceOf(UnauthorizedError);
        expect((await accounts.listKeys(ACCOUNT_A)).map((k) => k.name)).toEqual(['reader']);
      });

      it('lets exactly one of many concurrent creations of a key name win', async () => {
        const { storage } = await setup();
        const { accounts } = await withAccounts(storage);
        const results = await Promise.allSettled(
          Array.from({ length: 20 }, () => accounts.createKey({ account: ACCOUNT_A, type: 'access', name: 'same' })),
        );
        expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
        for (const r of results) if (r.status === 'rejected') expect(r.reason).toBeInstanceOf(ConflictError);
        expect(await accounts.listKeys(ACCOUNT_A)).toHaveLength(1);
      });

      it('lets exactly one of many concurrent creations of an account name win', async () => {
        const { storage } = await setup();
        const { accounts } = createServices(storage);
        const results = await Promise.allSettled(Array.from({ length: 10 }, () => accounts.createAccount('racer')));
        expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
        expect((await accounts.listAccounts()).map((a) => a.name)).toEqual(['racer']);
      });
    });

    describe('audit log', () => {
      const by = (name: string) => ({ actor: { type: 'manage' as const, name }, address: '192.0.2.1' });

      it('commits one entry with each action, lists them newest first, filters by silo, actor and time', async () => {
        const { storage } = await setup('separate');
        const { silos, accounts } = await withAccounts(storage);
        const made = await silos.create(ACCOUNT_A, { file_name: 'a', file_data: [{ n: 1 }] }, by('one'));
        await silos.update(ACCOUNT_A, made.file_uuid, { file_name: 'b' }, undefined, by('two'));
        await silos.update(ACCOUNT_A, made.file_uuid, { region_name: 'sg-01-api' }, undefined, by('one'));
        await accounts.createKey({ account: ACCOUNT_A, type: 'access', name: 'k' }, by('two'));
        await accounts.revokeKey({ account: ACCOUNT_A, type: 'access', name: 'k', confirm: 'k' }, by('one'));
        const other = await silos.create(ACCOUNT_B, { file_name: 'b', file_data: {} }, by('one'));
        await silos.delete(ACCOUNT_A, made.file_uuid, undefined, by('two'));
        const all = await storage.listAudit(ACCOUNT_A, { offset: 0, limit: 100 });
        expect(all.total).toBe(6);
        expect(all.entries.map((e) => [e.action, e.actor.name, e.version ?? null, e.subject ?? null])).toEqual([
          ['silo.delete', 'two', 3, null],
          ['key.revoke', 'one', null, 'access:k'],
          ['key.create', 'two', null, 'access:k'],
          ['silo.move', 'one', 3, 'sg-01-api'],
          ['silo.update', 'two', 2, null],
          ['silo.create', 'one', 1, null],
        ]);
        expect(all.entries.every((e) => e.account === ACCOUNT_A && e.address === '192.0.2.1' && e.outcome === 'success')).toBe(true);
        // Pages of one, merged in the same order (on a cluster, from the account's two parts).
        const pages = await Promise.all(all.entries.map((_, i) => storage.listAudit(ACCOUNT_A, { offset: i, limit: 1 })));
        expect(pages.map((p) => p.entries[0]!.id)).toEqual(all.entries.map((e) => e.id));
        expect((await storage.listAudit(ACCOUNT_A, { offset: 2, limit: 3 })).entries.map((e) => e.id)).toEqual(all.entries.slice(2, 5).map((e) => e.id));
        const ofSilo = await storage.listAudit(ACCOUNT_A, { offset: 0, limit: 100, silo: made.file_uuid });
        expect(ofSilo.entries.map((e) => e.action)).toEqual(['silo.delete', 'silo.move', 'silo.update', 'silo.create']);
        const ofOne = await storage.listAudit(ACCOUNT_A, { offset: 0, limit: 100, actor: 'one' });
        expect(ofOne.entries.map((e) => e.action)).toEqual(['key.revoke', 'silo.move', 'silo.create']);
        expect((await storage.listAudit(ACCOUNT_A, { offset: 0, limit: 100, actor: 'one', silo: made.file_uuid })).entries.map((e) => e.action)).toEqual(['silo.move', 'silo.create']);
        const since = Date.parse(all.entries[2]!.time);
        const recent = await storage.listAudit(ACCOUNT_A, { offset: 0, limit: 100, since });
        expect(recent.entries.map((e) => e.id)).toEqual(all.entries.filter((e) => Date.parse(e.time) >= since).map((e) => e.id));
        expect((await storage.listAudit(ACCOUNT_B, { offset: 0, limit: 100 })).entries.map((e) => [e.action, e.file_uuid])).toEqual([['silo.create', other.file_uuid]]);
        expect((await storage.listAudit(ACCOUNT_B, { offset: 0, limit: 100, silo: made.file_uuid })).total).toBe(0);
      });

      it('writes no entry for a write that did not commit, one for each of many concurrent ones', async () => {
        const { storage } = await setup();
        const { silos } = await withAccounts(storage);
        const made = await silos.create(ACCOUNT_A, { file_name: 'c', file_data: [] }, by('w'));
        await expect(silos.update(ACCOUNT_A, made.file_uuid, { file_name: 'x' }, ['nope'], by('w'))).rejects.toBeInstanceOf(PreconditionFailedError);
        const results = await Promise.allSettled(
          Array.from({ length: 20 }, (_, i) => silos.patch(ACCOUNT_A, made.file_uuid, { type: 'json-patch', text: JSON.stringify([{ op: 'add', path: '/file_data/-', value: { i } }]) }, undefined, by('w'))),
        );
        expect(results.every((r) => r.status === 'fulfilled')).toBe(true);
        const { entries, total } = await storage.listAudit(ACCOUNT_A, { offset: 0, limit: 100, silo: made.file_uuid });
        expect(total).toBe(21);
        expect(entries.map((e) => e.version).sort((a, b) => a! - b!)).toEqual(Array.from({ length: 21 }, (_, i) => i + 1));
      });

      it('prunes what is older than the cut, from every index; imports entries exactly as given', async () => {
        const { storage } = await setup();
        const day = 86_400_000;
        const at = (d: number) => new Date(Date.now() - d * day).toISOString();
        const entry = (d: number, action: 'silo.update' | 'key.create', actor: string) => ({
          account: ACCOUNT_A,
          time: at(d),
          action,
          actor: { type: 'manage' as const, name: actor },
          address: null,
          outcome: 'success' as const,
          ...(action === 'silo.update' ? { file_uuid: '00000000-0000-4000-8000-0000000000aa', version: d } : {}),
        });
        for (const [d, action, actor] of [[40, 'silo.update', 'old'], [35, 'key.create', 'old'], [20, 'silo.update', 'new'], [1, 'key.create', 'new']] as const) {
          await storage.appendAudit(entry(d, action, actor));
        }
        expect(await storage.pruneAudit(ACCOUNT_A, Date.now() - 30 * day)).toBe(2);
        const left = await storage.listAudit(ACCOUNT_A, { offset: 0, limit: 100 });
        expect(left.entries.map((e) => e.actor.name)).toEqual(['new', 'new']);
        expect((await storage.listAudit(ACCOUNT_A, { offset: 0, limit: 100, actor: 'old' })).total).toBe(0);
        expect((await storage.listAudit(ACCOUNT_A, { offset: 0, limit: 100, silo: '00000000-0000-4000-8000-0000000000aa' })).total).toBe(1);
        // Into another storage, as an import writes them: same ids, same order; again is refused.
        const target = (await setup()).storage;
        await target.importAudit(left.entries);
        expect((await target.listAudit(ACCOUNT_A, { offset: 0, limit: 100 })).entries).toEqual(left.entries);
        await expect(target.importAudit(left.entries.slice(0, 1))).rejects.toThrow();
        expect(await target.pruneAudit(ACCOUNT_A, Number.POSITIVE_INFINITY)).toBe(2);
        expect((await target.listAudit(ACCOUNT_A, { offset: 0, limit: 100 })).total).toBe(0);
      });

      const note = (time: string, action: 'silo.update' | 'key.create', actor: string, silo?: string) => ({
        account: ACCOUNT_A,
        time,
        action,
        actor: { type: 'manage' as const, name: actor },
        address: null,
        outcome: 'success' as const,
        ...(silo !== undefined ? { file_uuid: silo, version: 1 } : {}),
      });
      const SILO_X = '00000000-0000-4000-8000-0000000000a1';
      const SILO_Y = '00000000-0000-4000-8000-0000000000a2';

      it('lists entries of one millisecond newest first, counts exactly past a page, and filters by silo, actor and time together', async () => {
        const { storage } = await setup();
        const t0 = Date.now() - 60_000;
        const at = (ms: number) => new Date(t0 + ms).toISOString();
        // 60 entries in 3 milliseconds (20 each), over two silos, two actors, and key entries without a silo.
        const written: AuditEntry[] = [];
        for (let i = 0; i < 60; i++) {
          const silo = i % 3 === 0 ? undefined : i % 3 === 1 ? SILO_X : SILO_Y;
          written.push(await storage.appendAudit(note(at(Math.floor(i / 20)), silo ? 'silo.update' : 'key.create', i % 2 === 0 ? 'even' : 'odd', silo)));
        }
        const newestFirst = [...written].reverse();
        const ids = (list: { id: string }[]) => list.map((e) => e.id);
        const all = await storage.listAudit(ACCOUNT_A, { offset: 0, limit: 100 });
        expect(all.total).toBe(60);
        expect(ids(all.entries)).toEqual(ids(newestFirst));
        expect(all.entries[0]).toEqual(newestFirst[0]);
        const page = await storage.listAudit(ACCOUNT_A, { offset: 25, limit: 25 });
        expect([page.total, ids(page.entries)]).toEqual([60, ids(newestFirst.slice(25, 50))]);
        expect((await storage.listAudit(ACCOUNT_A, { offset: 60, limit: 25 })).entries).toEqual([]);
        const cases: [{ since?: number; silo?: string; actor?: string }, (e: AuditEntry) => boolean][] = [
          [{ silo: SILO_X }, (e) => e.file_uuid === SILO_X],
          [{ actor: 'odd' }, (e) => e.actor.name === 'odd'],
          [{ since: t0 + 1 }, (e) => Date.parse(e.time) >= t0 + 1],
          [{ silo: SILO_Y, actor: 'even' }, (e) => e.file_uuid === SILO_Y && e.actor.name === 'even'],
          [{ silo: SILO_X, actor: 'odd', since: t0 + 2 }, (e) => e.file_uuid === SILO_X && e.actor.name === 'odd' && Date.parse(e.time) >= t0 + 2],
          [{ actor: 'nobody' }, () => false],
        ];
        for (const [filter, keep] of cases) {
          const expected = newestFirst.filter(keep);
          const got = await storage.listAudit(ACCOUNT_A, { offset: 1, limit: 5, ...filter });
          expect([got.total, ids(got.entries)], JSON.stringify(filter)).toEqual([expected.length, ids(expected.slice(1, 6))]);
        }
        expect((await storage.listAudit(ACCOUNT_B, { offset: 0, limit: 100 })).total).toBe(0);
      });

      it('prunes at most `max` entries, the oldest first; refuses an import of an entry that exists, writing none of its batch', async () => {
        const { storage } = await setup();
        const t0 = Date.now() - 60_000;
        const made: AuditEntry[] = [];
        for (let i = 0; i < 5; i++) made.push(await storage.appendAudit(note(new Date(t0 + i).toISOString(), 'key.create', 'k')));
        expect(await storage.pruneAudit(ACCOUNT_A, t0 + 3, 2)).toBe(2);
        expect((await storage.listAudit(ACCOUNT_A, { offset: 0, limit: 100 })).entries.map((e) => e.id)).toEqual(made.slice(2).reverse().map((e) => e.id));
        const target = (await setup()).storage;
        await target.importAudit(made.slice(0, 2));
        await expect(target.importAudit([made[2]!, made[1]!])).rejects.toThrow();
        expect((await target.listAudit(ACCOUNT_A, { offset: 0, limit: 100 })).entries).toEqual([made[1], made[0]]);
      });

      it('moves what an earlier version wrote as records into a store audit log of its own, each entry once', { timeout: 30_000 }, async (test) => {
        const probe = await makeKeyv();
        const adapter: unknown = probe.store;
        if (typeof adapter !== 'object' || adapter === null || !('auditLog' in adapter)) return test.skip();
        const prefix = newPrefix();
        const old = await makeKeyv();
        old.store = withoutAuditLog(adapter);
        const before = createStorage({ main: old, prefix });
        const t0 = Date.now() - 60_000;
        // More than one commit's worth (200), in a few milliseconds.
        await Promise.all(
          Array.from({ length: 230 }, (_, i) =>
            before.appendAudit(note(new Date(t0 + (i % 4)).toISOString(), i % 2 ? 'silo.update' : 'key.create', i % 5 ? 'a' : 'b', i % 2 ? SILO_X : undefined)),
          ),
        );
        const written = await before.listAudit(ACCOUNT_A, { offset: 0, limit: 1000 });
        expect(written.total).toBe(230);
        // Two processes of the new version at once, one of them writing an entry first.
        const [one, two] = [createStorage({ main: await makeKeyv(), prefix }), createStorage({ main: await makeKeyv(), prefix })];
        const fresh = await one.appendAudit(note(new Date().toISOString(), 'key.create', 'new'));
        const [a, b] = await Promise.all([one.listAudit(ACCOUNT_A, { offset: 0, limit: 1000 }), two.listAudit(ACCOUNT_A, { offset: 0, limit: 1000 })]);
        expect(a.entries).toEqual([fresh, ...written.entries]);
        expect(b).toEqual(a);
        expect((await two.listAudit(ACCOUNT_A, { offset: 0, limit: 0, silo: SILO_X, actor: 'b' })).total).toBe(written.entries.filter((e) => e.file_uuid === SILO_X && e.actor.name === 'b').length);
        // The records are gone: the generic layout lists nothing.
        expect((await before.listAudit(ACCOUNT_A, { offset: 0, limit: 1000 })).total).toBe(0);
        expect(await two.pruneAudit(ACCOUNT_A, Number.POSITIVE_INFINITY)).toBe(231);
      });
    });

    describe('conditional and concurrent writes', () => {
      it('applies exactly one of many updates that carry the same If-Match', async () => {
        const { storage } = await setup('separate');
        const { silos } = await withAccounts(storage);
        const created = await silos.create(ACCOUNT_A, { file_name: 'cas', file_data: { n: 0 } });
        const results = await Promise.allSettled(
          Array.from({ length: 20 }, (_, i) =>
            silos.update(ACCOUNT_A, created.file_uuid, { file_data: { n: i + 1 } }, [created.etag]),
          ),
        );
        const won = results.filter((r) => r.status === 'fulfilled');
        expect(won).toHaveLength(1);
        for (const r of results) if (r.status === 'rejected') expect(r.reason).toBeInstanceOf(PreconditionFailedError);
        const winner = (won[0] as PromiseFulfilledResult<{ text: string }>).value;
        expect((await silos.read(ACCOUNT_A, created.file_uuid)).text).toBe(winner.text);
      });

      it('leaves exactly one writer’s silo, never a mix, when updates race without If-Match', async () => {
        const { storage } = await setup('separate');
        const { silos } = await withAccounts(storage);
        const created = await silos.create(ACCOUNT_A, { file_name: 'w', file_data: { w: -1 } });
        await Promise.all(
          Array.from({ length: 20 }, (_, i) =>
            silos.update(ACCOUNT_A, created.file_uuid, {
              file_name: `w${i}`,
              file_data: { w: i },
              region_name: REGIONS[i % REGIONS.length],
            }),
          ),
        );
        const meta = await silos.meta(ACCOUNT_A, created.file_uuid);
        const data = await silos.read(ACCOUNT_A, created.file_uuid);
        expect(data.record.version).toBe(meta.version);
        expect(meta.version).toBe(21);
        expect(data.text).toBe(JSON.stringify({ w: Number(meta.file_name.slice(1)) }));
        // Every blob left is named by a kept version of the silo's current region.
        expect((await storage.sweep(0)).removed).toBe(0);
      });

      it('refuses a delete with a stale If-Match and accepts the current one', async () => {
        const { storage } = await setup();
        const { silos } = await withAccounts(storage);
        const created = await silos.create(ACCOUNT_A, { file_name: 'd', file_data: {} });
        const updated = await silos.update(ACCOUNT_A, created.file_uuid, { is_public: true });
        await expect(silos.delete(ACCOUNT_A, created.file_uuid, [created.etag])).rejects.toBeInstanceOf(PreconditionFailedError);
        await silos.delete(ACCOUNT_A, created.file_uuid, ['stale', updated.record.etag]);
        await expect(silos.meta(ACCOUNT_A, created.file_uuid)).rejects.toBeInstanceOf(NotFoundError);
      });
    });

    describe('a failing store', () => {
      it('surfaces every failure as StorageUnavailableError', async (test) => {
        const base = await makeKeyv();
        // An in-process Map cannot fail (and commits synchronously): nothing to check.
        if (base.store instanceof Map) return test.skip();
        const { adapter, setFailing } = switchable(base.store as object);
        const keyv = new Keyv({ store: adapter, namespace: base.namespace });
        const storage = createStorage({ main: keyv, prefix: newPrefix() });
        const { accounts, silos } = await withAccounts(storage);
        const key = await accounts.createKey({ account: ACCOUNT_A, type: 'manage', name: 'k' });
        const silo = await silos.create(ACCOUNT_A, { file_name: 's', file_data: {}, is_public: true });
        const id = silo.file_uuid;
        setFailing(true);
        const attempts: [string, () => Promise<unknown>][] = [
          ['authenticate', () => accounts.authenticate(key.key, 'manage')],
          ['createAccount', () => accounts.createAccount('carol')],
          ['createKey', () => accounts.createKey({ account: ACCOUNT_A, type: 'access', name: 'a' })],
          ['listKeys', () => accounts.listKeys(ACCOUNT_A)],
          ['create', () => silos.create(ACCOUNT_A, { file_name: 'n', file_data: {} })],
          ['list', () => silos.list(ACCOUNT_A, 1, 25)],
          ['meta', () => silos.meta(ACCOUNT_A, id)],
          ['read', () => silos.read(ACCOUNT_A, id)],
          ['readData', () => silos.readData('api', id, undefined)],
          ['update', () => silos.update(ACCOUNT_A, id, { file_name: 'u' })],
          ['delete', () => silos.delete(ACCOUNT_A, id)],
        ];
        for (const [label, attempt] of attempts) {
          await expect(attempt(), label).rejects.toBeInstanceOf(StorageUnavailableError);
        }
        // And it recovers by itself when the store answers again.
        setFailing(false);
        expect((await silos.readData('api', id, undefined)).text).toBe('{}');
        expect((await accounts.authenticate(key.key, 'manage')).account).toBe(ACCOUNT_A);
      });
    });

    describe.runIf(options.multiInstance === true)('several instances on one store', () => {
      async function twoInstances() {
        const prefix = newPrefix();
        const one = await setup('shared', prefix);
        const two = await setup('shared', prefix);
        const first = await withAccounts(one.storage);
        const second = createServices(two.storage);
        return { first, second, one, two };
      }

      it('uses a coordination that spans instances', async () => {
        const { one } = await twoInstances();
        expect(one.storage.coordination).not.toBe('in-process');
      });

      it('loses no entry when 200 creates are split across two instances', { timeout: 30_000 }, async () => {
        const { first, second } = await twoInstances();
        await Promise.all(
          Array.from({ length: 200 }, (_, i) =>
            (i % 2 === 0 ? first : second).silos.create(ACCOUNT_A, { file_name: `x${i}`, file_data: { i } }),
          ),
        );
        for (const services of [first, second]) {
          const pages = await Promise.all([1, 2].map((p) => services.silos.list(ACCOUNT_A, p, 100)));
          expect(pages[0]!.metadata.total_items).toBe(200);
          expect(new Set(pages.flatMap((p) => p.silos.map((s) => s.file_uuid))).size).toBe(200);
        }
      });

      it('applies exactly one of 40 updates with the same If-Match across two instances', { timeout: 30_000 }, async () => {
        const { first, second } = await twoInstances();
        const created = await first.silos.create(ACCOUNT_A, { file_name: 'cas', file_data: { n: 0 } });
        const results = await Promise.allSettled(
          Array.from({ length: 40 }, (_, i) =>
            (i % 2 === 0 ? first : second).silos.update(ACCOUNT_A, created.file_uuid, { file_data: { n: i } }, [created.etag]),
          ),
        );
        expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
        for (const r of results) if (r.status === 'rejected') expect(r.reason).toBeInstanceOf(PreconditionFailedError);
      });

      it('applies all of 200 appends split across two instances', { timeout: 60_000 }, async () => {
        const { first, second } = await twoInstances();
        const made = await first.silos.create(ACCOUNT_A, { file_name: 'log', file_data: [] });
        await Promise.all(
          Array.from({ length: 200 }, (_, i) =>
            (i % 2 === 0 ? first : second).silos.patch(ACCOUNT_A, made.file_uuid, {
              type: 'json-patch',
              operations: [{ op: 'add', path: '/file_data/-', value: { i } }],
            }),
          ),
        );
        const items = JSON.parse((await second.silos.read(ACCOUNT_A, made.file_uuid)).text) as { i: number }[];
        expect(items.map((x) => x.i).sort((a, b) => a - b)).toEqual(Array.from({ length: 200 }, (_, i) => i));
      });

      it('sees silos and key revocations of the other instance at once', async () => {
        const { first, second } = await twoInstances();
        const key = await first.accounts.createKey({ account: ACCOUNT_A, type: 'access', name: 'shared' });
        const silo = await first.silos.create(ACCOUNT_A, { file_name: 's', file_data: [{ a: 1 }] });
        expect((await second.accounts.authenticate(key.key, 'access')).account).toBe(ACCOUNT_A);
        expect((await second.silos.readData('api', silo.file_uuid, ACCOUNT_A)).text).toBe('[{"a":1}]');
        await first.accounts.revokeKey({ account: ACCOUNT_A, type: 'access', name: 'shared', confirm: 'shared' });
        await expect(second.accounts.authenticate(key.key, 'access')).rejects.toBeInstanceOf(UnauthorizedError);
        await second.silos.delete(ACCOUNT_A, silo.file_uuid);
        await expect(first.silos.readData('api', silo.file_uuid, ACCOUNT_A)).rejects.toBeInstanceOf(NotFoundError);
      });
    });
  });
}
