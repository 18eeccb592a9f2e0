/**
 * koa-silo's storage contract on PostgresStore (a schema of this run in the test database, dropped
 * afterwards): every Keyv is a store on one pool, as the server's instances are on one database,
 * so multiInstance runs the tests of several instances sharing it.
 */
import { spawn } from 'node:child_process';
import Keyv from 'keyv';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { storageContract } from 'koa-silo/testing';
import { postgresAvailable, TEST_POSTGRES_URL, testSchema, type TestSchema } from '../../../test/support/postgres.js';
import { PostgresStore } from '../src/postgres-store.js';

const havePostgres = await postgresAvailable();
const schema: TestSchema | undefined = havePostgres ? await testSchema('contract') : undefined;

/** A fresh table per Keyv asked for would split one instance's store: one table, many Keyvs. */
const store = havePostgres ? await PostgresStore.open({ pool: schema!.pool, table: 'main' }) : undefined;

afterAll(async () => {
  await schema?.drop();
});

storageContract(
  'PostgreSQL (silo-server PostgresStore)',
  async () => {
    return new Keyv({ store: store!, namespace: undefined, useKeyPrefix: false, throwOnErrors: true });
  },
  { skip: !havePostgres, multiInstance: true },
);

describe.skipIf(!havePostgres)('PostgresStore', () => {
  it('makes its tables once, also when instances open at the same time', async () => {
    const opened = await Promise.all(Array.from({ length: 4 }, () => PostgresStore.open({ pool: schema!.pool, table: 'twice' })));
    await opened[0]!.set('k', 'v');
    expect(await opened[3]!.get('k')).toBe('v');
    const { rows } = await schema!.pool.query<{ version: number }>('SELECT version FROM silo_schema WHERE table_name = $1', ['twice']);
    expect(rows).toEqual([{ version: 1 }]);
  });

  it('swaps a value only from the expected one, absent included', async () => {
    const s = await PostgresStore.open({ pool: schema!.pool, table: 'cas' });
    expect(await s.compareAndSwap('k', undefined, 'a')).toBe(true);
    expect(await s.compareAndSwap('k', undefined, 'b')).toBe(false);
    expect(await s.compareAndSwap('k', 'a', 'b')).toBe(true);
    const racers = await Promise.all(Array.from({ length: 20 }, (_, i) => s.compareAndSwap('k', 'b', `c${i}`)));
    expect(racers.filter(Boolean)).toHaveLength(1);
    expect(await s.compareAndSwap('k', (await s.get<string>('k')) as string, undefined)).toBe(true);
    expect(await s.get('k')).toBeUndefined();
  });

  it('applies an atomic batch whole across joined tables and the index, or nothing when an expectation fails', async () => {
    const main = await PostgresStore.open({ pool: schema!.pool, table: 'batch_main' });
    const region = await PostgresStore.open({ pool: schema!.pool, table: 'batch_region' });
    const batch = (expectHead: string | undefined, head: string) => ({
      expect: [['head', expectHead]] as [string, string | undefined][],
      set: [['head', head], ['ver', `entry of ${head}`], ['head', head]] as [string, string][], // a key twice keeps its last value
      delete: ['old'],
      indexAdd: [['idx', -5, head]] as [string, number, string][],
      indexRemove: expectHead ? ([['idx', expectHead]] as [string, string][]) : [],
      joined: [{ store: region, set: [[`blob-${head}`, 'data']] as [string, string][], delete: expectHead ? [`blob-${expectHead}`] : [] }],
    });
    await main.set('old', 'to be deleted');
    expect(await main.atomic(batch(undefined, 'v1'))).toBe(true);
    expect(await main.atomic(batch(undefined, 'v1b'))).toBe(false); // head exists: nothing of it lands
    expect(await main.atomic(batch('v1', 'v2'))).toBe(true);
    const rows = async (table: string) => (await schema!.pool.query(`SELECT * FROM ${table} ORDER BY 1, 2`)).rows;
    expect(await rows('batch_main')).toEqual([
      { key: 'head', value: 'v2' },
      { key: 'ver', value: 'entry of v2' },
    ]);
    expect(await rows('batch_region')).toEqual([{ key: 'blob-v2', value: 'data' }]);
    expect(await rows('batch_main_index')).toEqual([{ index_key: 'idx', score: '-5', member: 'v2' }]);
    expect(await main.sortedIndex.count('idx')).toBe(1);
    await expect(main.atomic({ ...batch('v2', 'v3'), joined: [{ store: {} as PostgresStore, set: [], delete: [] }] })).rejects.toThrow(/another PostgreSQL pool/);
  });

  it('reads the keys asked for in one turn, by get and getMany, with one statement, each caller its own values (missing and repeated keys too)', async () => {
    const pool = schema!.pool;
    const s = await PostgresStore.open({ pool, table: 'turns' });
    await s.set('a', 'A');
    await s.set('b', 'B');
    const statements: string[] = [];
    const query = pool.query.bind(pool);
    pool.query = ((config: pg.QueryConfig) => {
      statements.push(config.text);
      return query(config);
    }) as typeof pool.query;
    try {
      const gets = Promise.all(['a', 'missing', 'b', 'a'].map((key) => s.get(key)));
      expect(await Promise.all([gets, s.getMany(['b', 'missing', 'a'])])).toEqual([
        ['A', undefined, 'B', 'A'],
        ['B', undefined, 'A'],
      ]);
      expect(statements).toHaveLength(1);
      // Asked in two turns: two statements.
      expect(await s.get('b')).toBe('B');
      expect(await s.get('missing')).toBeUndefined();
      expect(statements).toHaveLength(3);
    } finally {
      pool.query = query;
    }
  });

  it('answers a key holding NUL as missing without sending it, so that the other reads of its turn go on', async () => {
    const s = await PostgresStore.open({ pool: schema!.pool, table: 'turns_nul' });
    await s.set('a', 'A');
    expect(await Promise.all([s.get('a'), s.get('a\0b'), s.getMany(['\0', 'a'])])).toEqual(['A', undefined, [undefined, 'A']]);
    expect(await s.get('\0')).toBeUndefined();
  });

  it('fails every read of a turn whose statement fails, and reads again in the next turn', async () => {
    const pool = new pg.Pool({ connectionString: TEST_POSTGRES_URL, options: `-c search_path=${schema!.name}`, max: 2 });
    const s = await PostgresStore.open({ pool, table: 'turns_failed' });
    await s.set('a', 'A');
    const query = pool.query.bind(pool);
    pool.query = (() => Promise.reject(Object.assign(new Error('canceling statement due to statement timeout'), { code: '57014' }))) as typeof pool.query;
    try {
      const settled = await Promise.allSettled([s.get('a'), s.get('b')]);
      expect(settled.map((r) => (r.status === 'rejected' ? (r.reason as Error).message : r.value))).toEqual([
        'canceling statement due to statement timeout',
        'canceling statement due to statement timeout',
      ]);
      pool.query = query;
      expect(await Promise.all([s.get('a'), s.get('b')])).toEqual(['A', undefined]);
    } finally {
      pool.query = query;
      await pool.end();
    }
  });

  it('commits through a function made for the tables of its pool, made again when a table is opened later', async () => {
    const pool = new pg.Pool({ connectionString: TEST_POSTGRES_URL, options: `-c search_path=${schema!.name}`, max: 2 });
    const made = async () =>
      (await pool.query<{ proname: string }>("SELECT proname FROM pg_proc WHERE proname LIKE 'silo_atomic_t_%' AND pronamespace = (SELECT oid FROM pg_namespace WHERE nspname = current_schema())")).rows.length;
    try {
      const before = await made();
      const [a, b] = await Promise.all([PostgresStore.open({ pool, table: 'static_a' }), PostgresStore.open({ pool, table: 'static_b' })]);
      const batch = (key: string, other: PostgresStore) => ({ expect: [[key, undefined]] as [string, string | undefined][], set: [[key, 'A']] as [string, string][], delete: [], indexAdd: [['i', 1, key]] as [string, number, string][], indexRemove: [], joined: [{ store: other, set: [[key, 'B']] as [string, string][], delete: [] }] });
      expect(await a.atomic(batch('k1', b))).toBe(true);
      expect(await made()).toBe(before + 1);
      expect([await a.get('k1'), await b.get('k1'), await a.sortedIndex.count('i')]).toEqual(['A', 'B', 1]);
      // An expectation that fails writes nothing, as the generic function's does.
      expect(await a.atomic(batch('k1', b))).toBe(false);
      const c = await PostgresStore.open({ pool, table: 'static_c' });
      expect(await a.atomic(batch('k2', c))).toBe(true);
      expect(await made()).toBe(before + 2);
      expect([await c.get('k2'), await a.sortedIndex.count('i')]).toEqual(['B', 2]);
    } finally {
      await pool.end();
    }
  });

  it('keeps audit entries as rows inserted by the batch, all or nothing: an entry twice fails its whole batch', async () => {
    const s = await PostgresStore.open({ pool: schema!.pool, table: 'audit_rows' });
    const row = (id: string, time: number, actor: string, silo?: string) => ({ log: 'p:audit:a', time, id, actor, ...(silo ? { silo } : {}), entry: JSON.stringify({ id }) });
    const batch = (rows: ReturnType<typeof row>[], set: [string, string][] = []) => ({ expect: [], set, delete: [], indexAdd: [], indexRemove: [], auditAdd: rows });
    expect(await s.atomic(batch([row('x1', 1000, 'a', 'u1'), row('x2', 1000, 'b'), row('x0', 999, 'a')]))).toBe(true);
    await expect(s.atomic(batch([row('x3', 1001, 'a'), row('x1', 1000, 'a')], [['k', 'v']]))).rejects.toThrow(/exists already/);
    expect(await s.get('k')).toBeUndefined();
    const ids = (texts: string[]) => texts.map((t) => (JSON.parse(t) as { id: string }).id);
    // Newest first; within one millisecond, ascending ids.
    expect(ids(await s.auditLog.list('p:audit:a', {}, 0, 10))).toEqual(['x1', 'x2', 'x0']);
    expect(ids(await s.auditLog.list('p:audit:a', { actor: 'a' }, 1, 10))).toEqual(['x0']);
    expect(await Promise.all([s.auditLog.count('p:audit:a', { since: 1000 }), s.auditLog.count('p:audit:a', { silo: 'u1', actor: 'a' }), s.auditLog.count('p:audit:b', {})])).toEqual([2, 1, 0]);
    // The oldest go first: the listing's order backwards.
    expect(await s.auditLog.prune('p:audit:a', 1001, 2)).toBe(2);
    expect(ids(await s.auditLog.list('p:audit:a', {}, 0, 10))).toEqual(['x1']);
  });

  /**
   * A store on a pool of `max` connections of its own, which `endAll` ends as a restart of
   * PostgreSQL does (found by an application name of this test's own), counting how many; `ends`
   * counts the idle connections that have learnt of their end (the server logs each).
   */
  async function endablePool(table: string, max: number) {
    const application = `silo_${table}_${process.pid}`;
    const pool = new pg.Pool({ connectionString: TEST_POSTGRES_URL, options: `-c search_path=${schema!.name}`, application_name: application, max });
    const told = { ends: 0 };
    pool.on('error', () => void told.ends++);
    const admin = new pg.Client({ connectionString: TEST_POSTGRES_URL });
    await admin.connect();
    const s = await PostgresStore.open({ pool, table });
    await s.set('k', 'v');
    return {
      s,
      pool,
      told,
      /** Every connection of the pool made and left idle (the store's reads of one turn share one). */
      async fill(): Promise<void> {
        await Promise.all(Array.from({ length: max }, () => pool.query('SELECT 1')));
      },
      async endAll(): Promise<number> {
        const { rows } = await admin.query<{ n: number }>('SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity WHERE application_name = $1', [application]);
        return rows[0]!.n;
      },
      async close() {
        await admin.end();
        await pool.end();
      },
    };
  }

  it('reads on through a restart of PostgreSQL: the pooled connections it ended are left for new ones, not answered with an error', async () => {
    const { s, pool, fill, endAll, close } = await endablePool('restart', 4);
    try {
      for (let round = 0; round < 5; round++) {
        // Four idle connections, then all are ended as a restart ends them.
        await fill();
        expect(pool.idleCount).toBe(4);
        expect(await endAll()).toBe(4);
        expect(await Promise.all([s.get('k'), s.getMany(['k', 'x']), s.sortedIndex.count('i'), s.auditLog.count('a', {})])).toEqual(['v', ['v', undefined], 0, 0]);
      }
    } finally {
      await close();
    }
  });

  it('reads on when the ends of its connections arrive one at a time, as on a loaded machine (CI failed a request on it)', async () => {
    // Two busy processes slow PostgreSQL's backends, so that a read is handed dead connections
    // while the ends of the others are still arriving: the idle ones leave the pool under it.
    const hogs = Array.from({ length: 2 }, () => spawn(process.execPath, ['-e', 'for (;;);'], { stdio: 'ignore' }));
    const { s, told, fill, endAll, close } = await endablePool('loaded', 8);
    try {
      for (let round = 0; round < 12; round++) {
        await fill();
        const before = told.ends;
        await endAll();
        // As the server's first "storage connection lost" line, then a request's reads one after another.
        while (told.ends === before) await new Promise((resolve) => setTimeout(resolve, 1));
        for (let i = 0; i < 4; i++) expect(await Promise.all([s.get('k'), s.getMany(['k'])])).toEqual(['v', ['v']]);
      }
    } finally {
      for (const hog of hogs) hog.kill();
      await close();
    }
  }, 30_000);
});
