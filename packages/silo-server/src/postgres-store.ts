/**
 * A Keyv 5 storage adapter over PostgreSQL (`pg`), with what koa-silo needs to run several
 * instances on one database: atomic batches (`atomic`, one transaction), compare-and-swap (for
 * its leases), a sorted index (the listing) and key listing by prefix (the orphan sweep).
 *
 * - One table per store role (`main`, `region_api`, ...), `key text COLLATE "C" PRIMARY KEY`, so
 *   that key order is byte order (prefix ranges, as on SQLite and Redis).
 * - Writers of the same keys are serialised by transaction-scoped advisory locks on the keys'
 *   hashes, taken in one order, so a batch's expectations hold until it commits, also for keys
 *   that do not exist yet (which row locks cannot cover).
 * - Stores on one pool share it: a batch of one reaches the others' tables (`joined`).
 * - The schema is made at open, under a session advisory lock, so that instances starting
 *   together do not race; `silo_schema` records its version for later migrations.
 */
import { createHash } from 'node:crypto';
import pg from 'pg';
import type { KeyvStoreAdapter, StoredData } from 'keyv';
import type { AtomicBatch } from 'koa-silo';
import { AdapterEvents, prefixEnd } from './store-adapter.js';

export interface PostgresStoreOptions {
  pool: pg.Pool;
  /** The table holding this store's rows; created when missing. Default `keyv`. */
  table?: string;
}

const TABLE_NAME = /^[a-z_][a-z0-9_]{0,40}$/;
/** The session advisory lock that serialises schema changes (any constant of our own). */
const SCHEMA_LOCK = 0x51_10_5c_4e;
const SCHEMA_VERSION = 1;

type Queryable = Pick<pg.PoolClient, 'query'>;

const statements = new Map<string, string>();

/**
 * `text` as a named statement: each connection parses and plans it once, then only binds and
 * runs it (PostgreSQL's CPU shares the machine with the server). The name is the text's hash, so
 * one text never meets two names, nor one name two texts.
 */
function named(text: string, values: unknown[]): pg.QueryConfig<unknown[]> {
  let name = statements.get(text);
  if (name === undefined) statements.set(text, (name = `silo_${createHash('sha256').update(text).digest('hex').slice(0, 24)}`));
  return { name, text, values };
}

/**
 * Runs `work` holding the session advisory lock of schema changes, so that instances starting at
 * once make each table once (concurrent CREATE TABLE IF NOT EXISTS can fail in PostgreSQL).
 */
export async function underSchemaLock(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<void>): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [SCHEMA_LOCK]);
    try {
      await work(client);
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [SCHEMA_LOCK]);
    }
  } finally {
    client.release();
  }
}

/** Sorted index of one table: members with integer scores per index key, counted in a side table. */
export interface PostgresSortedIndex {
  count(indexKey: string): Promise<number>;
  range(indexKey: string, offset: number, limit: number): Promise<string[]>;
}

export class PostgresStore extends AdapterEvents implements KeyvStoreAdapter {
  readonly opts: { dialect: 'postgres'; table: string };
  namespace?: string | undefined;
  readonly sortedIndex: PostgresSortedIndex;
  readonly #pool: pg.Pool;
  readonly #t: string;

  private constructor(pool: pg.Pool, table: string) {
    super();
    this.#pool = pool;
    this.#t = table;
    this.opts = { dialect: 'postgres', table };
    this.sortedIndex = {
      count: async (indexKey) => {
        const { rows } = await pool.query<{ n: string }>(named(`SELECT n FROM "${table}_index_count" WHERE index_key = $1`, [indexKey]));
        return rows[0] ? Number(rows[0].n) : 0;
      },
      range: async (indexKey, offset, limit) => {
        const { rows } = await pool.query<{ member: string }>(
          named(`SELECT member FROM "${table}_index" WHERE index_key = $1 ORDER BY score, member OFFSET $2 LIMIT $3`, [indexKey, offset, limit]),
        );
        return rows.map((r) => r.member);
      },
    };
  }

  /** Opens the store of `table`, making its tables when missing. */
  static async open(options: PostgresStoreOptions): Promise<PostgresStore> {
    const table = options.table ?? 'keyv';
    if (!TABLE_NAME.test(table)) throw new TypeError(`invalid PostgreSQL table name: ${JSON.stringify(table)}`);
    await underSchemaLock(options.pool, async (client) => {
      await client.query('CREATE TABLE IF NOT EXISTS silo_schema (table_name text PRIMARY KEY, version integer NOT NULL)');
      await client.query(`CREATE TABLE IF NOT EXISTS "${table}" (key text COLLATE "C" PRIMARY KEY, value text NOT NULL)`);
      await client.query(
        `CREATE TABLE IF NOT EXISTS "${table}_index" (index_key text COLLATE "C" NOT NULL, score bigint NOT NULL, member text COLLATE "C" NOT NULL, PRIMARY KEY (index_key, member))`,
      );
      await client.query(`CREATE INDEX IF NOT EXISTS "${table}_index_order" ON "${table}_index" (index_key, score, member)`);
      await client.query(`CREATE TABLE IF NOT EXISTS "${table}_index_count" (index_key text COLLATE "C" PRIMARY KEY, n bigint NOT NULL)`);
      await client.query('INSERT INTO silo_schema (table_name, version) VALUES ($1, $2) ON CONFLICT (table_name) DO NOTHING', [table, SCHEMA_VERSION]);
    });
    return new PostgresStore(options.pool, table);
  }

  async get<Value>(key: string): Promise<StoredData<Value> | undefined> {
    const { rows } = await this.#pool.query<{ value: string }>(named(`SELECT value FROM "${this.#t}" WHERE key = $1`, [key]));
    return rows[0]?.value as StoredData<Value> | undefined;
  }

  async getMany<Value>(keys: string[]): Promise<Array<StoredData<Value | undefined>>> {
    if (keys.length === 0) return [];
    const { rows } = await this.#pool.query<{ key: string; value: string }>(named(`SELECT key, value FROM "${this.#t}" WHERE key = ANY($1)`, [keys]));
    const found = new Map(rows.map((r) => [r.key, r.value]));
    return keys.map((key) => found.get(key) as StoredData<Value | undefined>);
  }

  async set(key: string, value: unknown): Promise<boolean> {
    if (typeof value !== 'string') throw new TypeError('PostgresStore stores strings (Keyv serializes values before storing them)');
    await this.#pool.query(named(`INSERT INTO "${this.#t}" (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value`, [key, value]));
    return true;
  }

  async delete(key: string): Promise<boolean> {
    const { rowCount } = await this.#pool.query(named(`DELETE FROM "${this.#t}" WHERE key = $1`, [key]));
    return (rowCount ?? 0) > 0;
  }

  async clear(): Promise<void> {
    if (this.namespace) {
      const prefix = `${this.namespace}:`;
      await this.#pool.query(named(`DELETE FROM "${this.#t}" WHERE key >= $1 AND key < $2`, [prefix, prefixEnd(prefix)]));
    } else {
      await this.#pool.query(`DELETE FROM "${this.#t}"`);
    }
  }

  /** Every key that starts with `prefix` (koa-silo's KeyListingAdapter, for its orphan sweep). */
  async keysWithPrefix(prefix: string): Promise<string[]> {
    if (prefix === '') throw new TypeError('keysWithPrefix needs a prefix');
    const { rows } = await this.#pool.query<{ key: string }>(named(`SELECT key FROM "${this.#t}" WHERE key >= $1 AND key < $2 ORDER BY key`, [
      prefix,
      prefixEnd(prefix),
    ]));
    return rows.map((r) => r.key);
  }

  /** Whether `other` is a store on the same pool: one transaction reaches both tables. */
  joins(other: unknown): other is PostgresStore {
    return other instanceof PostgresStore && other.#pool === this.#pool;
  }

  /** Sets `key` to `next` (deletes it when undefined) if it holds `expected` (absent when undefined). */
  async compareAndSwap(key: string, expected: string | undefined, next: string | undefined): Promise<boolean> {
    return this.#transaction(async (client) => {
      await this.#lockKeys(client, [[this.#t, key]]);
      if (!(await this.#holds(client, this.#t, [[key, expected]]))) return false;
      if (next === undefined) await client.query(named(`DELETE FROM "${this.#t}" WHERE key = $1`, [key]));
      else await this.#write(client, this.#t, [[key, next]]);
      return true;
    });
  }

  /**
   * koa-silo's AtomicBatch in one transaction (its commit point): the keys it expects or writes
   * locked, every expectation checked, then every write, index and joined stores included.
   */
  async atomic(batch: AtomicBatch): Promise<boolean> {
    const joined = (batch.joined ?? []).map((part) => {
      if (!this.joins(part.store)) throw new TypeError('a joined write names a store on another PostgreSQL pool');
      return { table: part.store.#t, set: part.set, delete: part.delete };
    });
    const locked: [string, string][] = [
      ...batch.expect.map(([k]): [string, string] => [this.#t, k]),
      ...batch.set.map(([k]): [string, string] => [this.#t, k]),
      ...batch.delete.map((k): [string, string] => [this.#t, k]),
    ];
    return this.#transaction(async (client) => {
      await this.#lockKeys(client, locked);
      if (!(await this.#holds(client, this.#t, batch.expect))) return false;
      await this.#write(client, this.#t, batch.set);
      if (batch.delete.length > 0) await client.query(named(`DELETE FROM "${this.#t}" WHERE key = ANY($1)`, [batch.delete]));
      for (const part of joined) {
        await this.#write(client, part.table, part.set);
        if (part.delete.length > 0) await client.query(named(`DELETE FROM "${part.table}" WHERE key = ANY($1)`, [part.delete]));
      }
      for (const [indexKey, score, member] of batch.indexAdd) await this.#indexAdd(client, indexKey, score, member);
      for (const [indexKey, member] of batch.indexRemove) await this.#indexRemove(client, indexKey, member);
      return true;
    });
  }

  async disconnect(): Promise<void> {
    // The pool belongs to whoever opened it (several stores share one).
  }

  /** Runs `work` in a transaction, committed when it answers true, rolled back otherwise. */
  async #transaction(work: (client: pg.PoolClient) => Promise<boolean>): Promise<boolean> {
    const client = await this.#pool.connect();
    // A connection lost between two statements is reported as an 'error' event of the client
    // (fatal to the process without a listener); the next statement fails with it anyway.
    let lost: Error | undefined;
    const onError = (error: Error) => (lost = error);
    client.on('error', onError);
    try {
      await client.query('BEGIN');
      const result = await work(client);
      await client.query(result ? 'COMMIT' : 'ROLLBACK');
      return result;
    } catch (error) {
      if (!lost) await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.off('error', onError);
      // A broken connection goes, not back to the pool.
      client.release(lost);
    }
  }

  /** Transaction-scoped advisory locks on (table, key) pairs, in hash order (no deadlock between batches). */
  async #lockKeys(client: Queryable, keys: [table: string, key: string][]): Promise<void> {
    const names = [...new Set(keys.map(([table, key]) => `${table}\n${key}`))];
    if (names.length === 0) return;
    await client.query(named('SELECT pg_advisory_xact_lock(h) FROM (SELECT DISTINCT hashtextextended(n, 0) AS h FROM unnest($1::text[]) n ORDER BY 1) s', [names]));
  }

  /** Whether every key holds its expected value (absent for undefined). */
  async #holds(client: Queryable, table: string, expect: readonly (readonly [string, string | undefined])[]): Promise<boolean> {
    if (expect.length === 0) return true;
    const { rows } = await client.query<{ key: string; value: string }>(named(`SELECT key, value FROM "${table}" WHERE key = ANY($1)`, [
      expect.map(([k]) => k),
    ]));
    const current = new Map(rows.map((r) => [r.key, r.value]));
    return expect.every(([key, value]) => current.get(key) === value);
  }

  async #write(client: Queryable, table: string, entries: readonly (readonly [string, string])[]): Promise<void> {
    if (entries.length === 0) return;
    // One statement for all rows; a key twice in one batch keeps its last value.
    const last = new Map(entries);
    await client.query(
      named(
        `INSERT INTO "${table}" (key, value) SELECT * FROM unnest($1::text[], $2::text[]) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value`,
        [[...last.keys()], [...last.values()]],
      ),
    );
  }

  async #indexAdd(client: Queryable, indexKey: string, score: number, member: string): Promise<void> {
    const { rows } = await client.query<{ inserted: boolean }>(
      named(
        `INSERT INTO "${this.#t}_index" (index_key, score, member) VALUES ($1, $2, $3)
         ON CONFLICT (index_key, member) DO UPDATE SET score = EXCLUDED.score RETURNING (xmax = 0) AS inserted`,
        [indexKey, score, member],
      ),
    );
    if (rows[0]?.inserted) {
      await client.query(
        named(
          `INSERT INTO "${this.#t}_index_count" (index_key, n) VALUES ($1, 1) ON CONFLICT (index_key) DO UPDATE SET n = "${this.#t}_index_count".n + 1`,
          [indexKey],
        ),
      );
    }
  }

  async #indexRemove(client: Queryable, indexKey: string, member: string): Promise<void> {
    const { rowCount } = await client.query(named(`DELETE FROM "${this.#t}_index" WHERE index_key = $1 AND member = $2`, [indexKey, member]));
    if ((rowCount ?? 0) > 0) await client.query(named(`UPDATE "${this.#t}_index_count" SET n = n - 1 WHERE index_key = $1`, [indexKey]));
  }
}
