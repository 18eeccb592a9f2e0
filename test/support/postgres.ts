/**
 * The PostgreSQL that storage tests run against (override with SILO_TEST_POSTGRES_URL), and a
 * schema of the test's own in it: made fresh, dropped afterwards, nothing else touched.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';

export const TEST_POSTGRES_URL = process.env.SILO_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/**
 * Whether PostgreSQL tests should run. In CI (CI=true) an unreachable database is a failure,
 * never a silent skip; on a laptop without it the tests skip with a loud message.
 */
export async function postgresAvailable(): Promise<boolean> {
  const client = new pg.Client({ connectionString: TEST_POSTGRES_URL, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch (error) {
    if (process.env.CI === 'true') throw new Error(`PostgreSQL is required in CI but ${TEST_POSTGRES_URL} is unreachable: ${String(error)}`);
    console.warn(`\n!!! SKIPPING PostgreSQL tests: ${TEST_POSTGRES_URL} is unreachable. Start PostgreSQL to run them. !!!\n`);
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

export interface TestSchema {
  name: string;
  /** A pool whose connections use the schema (search_path). */
  pool: pg.Pool;
  /** A SILO_STORE_URL on the schema (through `port` instead of the database's own, for a proxy). */
  storeUrl(port?: number): string;
  /** Closes the pool and drops the schema with everything in it. */
  drop(): Promise<void>;
}

export async function testSchema(label: string): Promise<TestSchema> {
  const name = `silo_${label}_${process.pid}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: TEST_POSTGRES_URL });
  await admin.connect();
  await admin.query(`CREATE SCHEMA "${name}"`);
  await admin.end();
  const pool = new pg.Pool({ connectionString: TEST_POSTGRES_URL, options: `-c search_path=${name}`, max: 10 });
  return {
    name,
    pool,
    storeUrl(port) {
      const url = new URL(TEST_POSTGRES_URL);
      if (port !== undefined) url.port = String(port);
      // The schema rides on the URL as a connection option, as a user would choose one.
      url.searchParams.set('options', `-c search_path=${name}`);
      return url.toString();
    },
    async drop() {
      await pool.end();
      const client = new pg.Client({ connectionString: TEST_POSTGRES_URL });
      await client.connect();
      await client.query(`DROP SCHEMA "${name}" CASCADE`);
      await client.end();
    },
  };
}
