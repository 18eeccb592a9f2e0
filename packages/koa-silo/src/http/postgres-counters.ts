/**
 * rate-limiter-flexible's PostgreSQL limiter, its counters counted together: the upserts of one
 * turn of the event loop (every limiter on the pool: each request's key and account, the plans'
 * and the slow-downs' counters) go out as one statement instead of one each (TurnBatch). A write
 * counted two counters in two round trips; under load a turn's requests now share one.
 *
 * The table, its rows and the answers are rate-limiter-flexible's: a key counted n times in one
 * statement gets the counts it would have got from n upserts one after another, so instances of
 * either kind can share the table. Rows are locked in key order, so two instances' statements
 * never wait on each other in a circle.
 */
import { RateLimiterPostgres } from 'rate-limiter-flexible';
import { TurnBatch } from '../limits/turn-batch.js';

/** What the batch needs of the limiter's `storeClient`: a `pg` Pool (or Client) has it. */
export interface PostgresQueryable {
  query(config: { name: string; text: string; values: unknown[] }): Promise<{ rows: CounterRow[] }>;
}

interface CounterRow {
  key: string;
  points: number;
  /** bigint: a string from `pg`, as rate-limiter-flexible reads it. */
  expire: string | number | null;
}

interface Upsert {
  key: string;
  points: number;
  expire: number;
}

/** The answer rate-limiter-flexible's `_getRateLimiterRes` reads: the counter after this call. */
interface UpsertResult {
  rows: [{ points: number; expire: string | number | null }];
}

export function isPostgresQueryable(client: object): client is PostgresQueryable {
  return typeof (client as { query?: unknown }).query === 'function';
}

/** One batch per pool and table: every limiter on them shares it. */
const batches = new WeakMap<PostgresQueryable, Map<string, TurnBatch<Upsert, UpsertResult>>>();

function batchOf(client: PostgresQueryable, tableName: string): TurnBatch<Upsert, UpsertResult> {
  let byTable = batches.get(client);
  if (!byTable) batches.set(client, (byTable = new Map()));
  let batch = byTable.get(tableName);
  if (!batch) byTable.set(tableName, (batch = new TurnBatch((upserts) => upsertAll(client, tableName, upserts))));
  return batch;
}

/** rate-limiter-flexible's upsert (a counter whose window has passed starts again), for many keys at once. */
async function upsertAll(client: PostgresQueryable, tableName: string, upserts: Upsert[]): Promise<UpsertResult[]> {
  const totals = new Map<string, { points: number; expire: number }>();
  for (const { key, points, expire } of upserts) {
    const total = totals.get(key);
    if (total) total.points += points;
    else totals.set(key, { points, expire });
  }
  const keys = [...totals.keys()].sort();
  const table = `"${tableName}"`;
  const { rows } = await client.query({
    name: `silo-rl-upsert:${tableName}`,
    text:
      `INSERT INTO ${table} AS c (key, points, expire) SELECT * FROM unnest($1::varchar[], $2::integer[], $3::bigint[]) ` +
      'ON CONFLICT (key) DO UPDATE SET ' +
      'points = CASE WHEN c.expire <= $4 THEN EXCLUDED.points ELSE c.points + EXCLUDED.points END, ' +
      'expire = CASE WHEN c.expire <= $4 THEN EXCLUDED.expire ELSE c.expire END ' +
      'RETURNING key, points, expire',
    values: [keys, keys.map((k) => totals.get(k)!.points), keys.map((k) => totals.get(k)!.expire), Date.now()],
  });
  const after = new Map(rows.map((row) => [row.key, row]));
  // Each call's count as if the calls had run in their order: the later ones' points come after it.
  const later = new Map([...totals].map(([key, total]) => [key, total.points]));
  return upserts.map(({ key, points }) => {
    const row = after.get(key);
    if (!row) throw new Error(`the rate-limit counter ${key} was not returned`);
    const rest = later.get(key)! - points;
    later.set(key, rest);
    return { rows: [{ points: row.points - rest, expire: row.expire }] };
  });
}

/** Whether the counters' table takes `key` (`varchar(255)`, no NUL). */
function batchable(key: string): boolean {
  return key.length <= 255 && !key.includes('\0');
}

type PostgresLimiterOptions = ConstructorParameters<typeof RateLimiterPostgres>[0] & { storeClient: PostgresQueryable; tableName: string };

/** RateLimiterPostgres whose consumes are counted per turn (the other operations as it does them). */
export class BatchedPostgresLimiter extends RateLimiterPostgres {
  readonly #batch: TurnBatch<Upsert, UpsertResult>;

  constructor(options: PostgresLimiterOptions, ready?: ConstructorParameters<typeof RateLimiterPostgres>[1]) {
    super(options, ready);
    this.#batch = batchOf(options.storeClient, options.tableName);
  }

  /** Overrides rate-limiter-flexible's (untyped) upsert: the store's one write of a counter. */
  _upsert(key: string, points: number, msDuration: number, forceExpire = false, options: object = {}): Promise<unknown> {
    // A forced expiry (block, set) and a counter without a window are rare: as rate-limiter-flexible
    // does them. So is a key the table refuses (NUL, over its 255 characters: a sign-in's user name
    // is in some): its error would be the whole batch's, every other request of the turn counted
    // in this process only.
    if (forceExpire || !(msDuration > 0) || !(this as unknown as { tableCreated: boolean }).tableCreated || !batchable(key)) {
      const own = RateLimiterPostgres.prototype as unknown as { _upsert: BatchedPostgresLimiter['_upsert'] };
      return own._upsert.call(this, key, points, msDuration, forceExpire, options);
    }
    return this.#batch.call({ key, points, expire: Date.now() + msDuration });
  }
}
