/**
 * A Keyv 5 storage adapter over PostgreSQL (`pg`), with what koa-silo needs to run several
 * instances on one database: atomic batches (`atomic`, one statement: postgres-atomic.ts),
 * compare-and-swap (for its leases, the same statement), a sorted index (the listing), an audit
 * log (postgres-audit-log.ts) and key listing by prefix (the orphan sweep).
 *
 * - One table per store role (`main`, `region_api`, ...), `key text COLLATE "C" PRIMARY KEY`, so
 *   that key order is byte order (prefix ranges, as on SQLite and Redis).
 * - Writers of the same keys are serialised by transaction-scoped advisory locks on the keys'
 *   hashes, taken in one order, so a batch's expectations hold until it commits, also for keys
 *   that do not exist yet (which row locks cannot cover).
 * - Stores on one pool share it: a batch of one reaches the others' tables (`joined`).
 * - Point reads made in one turn of the event loop go out as one statement (TurnBatch): under
 *   load, the records many requests need (keys, accounts, heads, webhooks) cost one round trip.
 * - The schema is made at open, under a session advisory lock, so that instances starting
 *   together do not race; `silo_schema` records its version for later migrations.
 */
import { createHash } from 'node:crypto';
import pg from 'pg';
import type { KeyvStoreAdapter, StoredData } from 'keyv';
import { TurnBatch, type AtomicBatch, type AuditLog } from 'koa-silo';
import { ATOMIC_FUNCTION, ATOMIC_FUNCTION_SQL, atomicArguments } from './postgres-atomic.js';
import { staticAtomicFunction } from './postgres-atomic-static.js';
import { auditLogSchema, postgresAuditLog } from './postgres-audit-log.js';
import { queryIdempotent } from './postgres-lost-connections.js';
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

const statements = new Map<string, string>();

/**
 * The store tables opened on each pool, sorted: the atomic function made for the deployment covers
 * them all. A new array at each open, so that a batch tells by identity whether its function is current.
 */
const poolTables = new WeakMap<pg.Pool, readonly string[]>();

/** How long a function that could not be made is not tried again (a role may not create functions). */
const MAKE_AGAIN_MS = 60_000;

interface MadeFunction {
  name: string;
  tables: ReadonlySet<string>;
}

/** Per pool, the atomic function made for its tables as they were (undefined when it could not be made). */
const madeFunctions = new WeakMap<pg.Pool, { tables: readonly string[]; made: Promise<MadeFunction | undefined> }>();

/**
 * Makes the function `name` in the current schema unless it exists (under the schema lock). Its name
 * carries its version or its text's digest, so one that exists is this one, and a role that does
 * not own it, sharing the database, need not replace it.
 */
async function makeFunctionOnce(client: pg.PoolClient, name: string, sql: string): Promise<void> {
  const found = await client.query('SELECT 1 FROM pg_proc WHERE proname = $1 AND pronamespace = (SELECT oid FROM pg_namespace WHERE nspname = current_schema())', [name]);
  if (found.rowCount === 0) await client.query(sql);
}

/**
 * The atomic function for the tables opened on `pool` (postgres-atomic-static.ts), made once per
 * schema under the schema lock; undefined (the generic function serves) when it cannot be made.
 */
function tablesFunction(pool: pg.Pool): Promise<MadeFunction | undefined> {
  const tables = poolTables.get(pool) ?? [];
  const known = madeFunctions.get(pool);
  if (known?.tables === tables) return known.made;
  const { name, sql, tables: covered } = staticAtomicFunction(tables);
  const made = underSchemaLock(pool, (client) => makeFunctionOnce(client, name, sql(name))).then(
    (): MadeFunction => ({ name, tables: covered }),
    () => {
      // A role that may not create functions, or the database away for a moment: the generic
      // function (made with the tables) serves, and this one is tried again later.
      setTimeout(() => {
        if (madeFunctions.get(pool)?.made === made) madeFunctions.delete(pool);
      }, MAKE_AGAIN_MS).unref();
      return undefined;
    },
  );
  madeFunctions.set(pool, { tables, made });
  return made;
}

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
  /** The audit log (koa-silo's AuditLogAdapter): `<table>_audit`, one row per entry (postgres-audit-log.ts). */
  readonly auditLog: AuditLog;
  readonly #pool: pg.Pool;
  readonly #t: string;
  readonly #reads = new TurnBatch<string, string | undefined>((keys) => this.#read(keys));

  private constructor(pool: pg.Pool, table: string) {
    super();
    this.#pool = pool;
    this.#t = table;
    this.opts = { dialect: 'postgres', table };
    this.sortedIndex = {
      count: async (indexKey) => {
        const { rows } = await queryIdempotent<{ n: string }>(pool, named(`SELECT n FROM "${table}_index_count" WHERE index_key = $1`, [indexKey]));
        return rows[0] ? Number(rows[0].n) : 0;
      },
      range: async (indexKey, offset, limit) => {
        const { rows } = await queryIdempotent<{ member: string }>(
          pool,
          named(`SELECT member FROM "${table}_index" WHERE index_key = $1 ORDER BY score, member OFFSET $2 LIMIT $3`, [indexKey, offset, limit]),
        );
        return rows.map((r) => r.member);
      },
    };
    this.auditLog = postgresAuditLog(table, async <R>(text: string, values: unknown[]) => (await queryIdempotent<R & pg.QueryResultRow>(pool, named(text, values))).rows);
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
      for (const statement of auditLogSchema(table)) await client.query(statement);
      await client.query('INSERT INTO silo_schema (table_name, version) VALUES ($1, $2) ON CONFLICT (table_name) DO NOTHING', [table, SCHEMA_VERSION]);
      await makeFunctionOnce(client, ATOMIC_FUNCTION, ATOMIC_FUNCTION_SQL);
    });
    poolTables.set(options.pool, [...new Set([...(poolTables.get(options.pool) ?? []), table])].sort());
    return new PostgresStore(options.pool, table);
  }

  async get<Value>(key: string): Promise<StoredData<Value> | undefined> {
    return (await this.#reads.call(key)) as StoredData<Value> | undefined;
  }

  /**
   * The values of `keys` (undefined where missing), in one statement. A key holding NUL is not sent:
   * PostgreSQL's text cannot hold one (so no such row exists), and the error would be the whole
   * batch's, failing other requests' reads with it.
   */
  async #read(keys: string[]): Promise<(string | undefined)[]> {
    if (keys.some((key) => key.includes('\0'))) {
      const sendable = keys.filter((key) => !key.includes('\0'));
      const found = new Map(sendable.length === 0 ? [] : (await this.#read(sendable)).map((value, i) => [sendable[i]!, value]));
      return keys.map((key) => found.get(key));
    }
    if (keys.length === 1) {
      const { rows } = await queryIdempotent<{ value: string }>(this.#pool, named(`SELECT value FROM "${this.#t}" WHERE key = $1`, keys));
      return [rows[0]?.value];
    }
    const { rows } = await queryIdempotent<{ key: string; value: string }>(this.#pool, named(`SELECT key, value FROM "${this.#t}" WHERE key = ANY($1)`, [[...new Set(keys)]]));
    const found = new Map(rows.map((r) => [r.key, r.value]));
    return keys.map((key) => found.get(key));
  }

  /** As `get` for each key: a listing's heads go out with the other reads of their turn. */
  async getMany<Value>(keys: string[]): Promise<Array<StoredData<Value | undefined>>> {
    return (await Promise.all(keys.map((key) => this.#reads.call(key)))) as Array<StoredData<Value | undefined>>;
  }

  async set(key: string, value: unknown): Promise<boolean> {
    if (typeof value !== 'string') throw new TypeError('PostgresStore stores strings (Keyv serializes values before storing them)');
    await queryIdempotent(this.#pool, named(`INSERT INTO "${this.#t}" (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value`, [key, value]));
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
      await this.#pool.query(named(`DELETE FROM "${this.#t}_audit" WHERE log >= $1 AND log < $2`, [prefix, prefixEnd(prefix)]));
    } else {
      await this.#pool.query(`DELETE FROM "${this.#t}"`);
      await this.#pool.query(`DELETE FROM "${this.#t}_audit"`);
    }
  }

  /** Every key that starts with `prefix` (koa-silo's KeyListingAdapter, for its orphan sweep). */
  async keysWithPrefix(prefix: string): Promise<string[]> {
    if (prefix === '') throw new TypeError('keysWithPrefix needs a prefix');
    const { rows } = await queryIdempotent<{ key: string }>(this.#pool, named(`SELECT key FROM "${this.#t}" WHERE key >= $1 AND key < $2 ORDER BY key`, [
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
  compareAndSwap(key: string, expected: string | undefined, next: string | undefined): Promise<boolean> {
    return this.atomic({
      expect: [[key, expected]],
      set: next === undefined ? [] : [[key, next]],
      delete: next === undefined ? [key] : [],
      indexAdd: [],
      indexRemove: [],
    });
  }

  /**
   * koa-silo's AtomicBatch in one statement, its own transaction (the commit point): the keys it
   * expects or writes locked, every expectation checked, then every write, index and joined
   * stores included (postgres-atomic.ts), by the function made for the pool's tables where it
   * covers the batch's (postgres-atomic-static.ts).
   */
  async atomic(batch: AtomicBatch): Promise<boolean> {
    const joined = (batch.joined ?? []).map((part) => {
      if (!this.joins(part.store)) throw new TypeError('a joined write names a store on another PostgreSQL pool');
      return { table: part.store.#t, set: part.set, delete: part.delete };
    });
    const args = atomicArguments({ table: this.#t, batch, joined });
    const made = await tablesFunction(this.#pool);
    const covered = made !== undefined && made.tables.has(this.#t) && joined.every((part) => made.tables.has(part.table));
    const fn = covered ? made.name : ATOMIC_FUNCTION;
    const { rows } = await this.#pool.query<{ ok: boolean }>(named(`SELECT ${fn}(${args.map((_, i) => `$${i + 1}`).join(', ')}) AS ok`, args));
    return rows[0]?.ok === true;
  }

  async disconnect(): Promise<void> {
    // The pool belongs to whoever opened it (several stores share one).
  }
}
