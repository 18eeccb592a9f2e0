/**
 * `silo serve` on PostgreSQL (a schema of this run in the test database, dropped afterwards):
 * first start, a silo written and patched, two instances on one database seeing each other's
 * writes, data kept across a restart; and an unreachable database refused at start with one line.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresAvailable, TEST_POSTGRES_URL, testSchema, type TestSchema } from '../../../test/support/postgres.js';
import { cleanup, ensureBuilt, eventually, runSilo, startSilo, tempDir, type SiloServer } from '../../../test/support/silo-process.js';

const havePostgres = await postgresAvailable();

beforeAll(() => ensureBuilt(), 120_000);
afterAll(() => cleanup());

const json = { 'Content-Type': 'application/json' };

describe.skipIf(!havePostgres)('silo serve on PostgreSQL', () => {
  let schema: TestSchema;
  let env: Record<string, string>;
  const dir = tempDir('postgres');

  beforeAll(async () => {
    schema = await testSchema('serve');
    env = { SILO_STORE_URL: schema.storeUrl(), SILO_DATA_DIR: dir };
  });
  afterAll(async () => {
    await schema?.drop();
  });

  it('serves, shares one database between two instances, and keeps the data across a restart', async () => {
    let one: SiloServer | undefined;
    let two: SiloServer | undefined;
    try {
      one = await startSilo({ env, cwd: dir });
      const keys = one.keys!;
      expect(keys).toBeDefined();
      two = await startSilo({ env, cwd: dir });
      expect(two.keys, 'the second instance finds the keys of the first').toBeUndefined();

      const made = await one.fetch('/api/v1/manage/', {
        method: 'POST',
        headers: { ...json, 'X-MAN-API': keys.manage },
        body: JSON.stringify({ file_name: 'pg', file_data: [{ n: 1 }] }),
      });
      expect(made.status).toBe(201);
      const { file_uuid: uuid } = (await made.json()) as { file_uuid: string };
      // Appends through both instances at once: every one applied, in one order.
      const appends = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          (i % 2 ? one! : two!).fetch(`/api/v1/manage/${uuid}`, {
            method: 'PATCH',
            headers: { 'Content-Type': 'application/json-patch+json', 'X-MAN-API': keys.manage },
            body: JSON.stringify([{ op: 'add', path: '/file_data/-', value: { n: i + 2 } }]),
          }),
        ),
      );
      expect(appends.map((r) => r.status)).toEqual(Array(20).fill(200));
      const read = await two.fetch(`/${uuid}`, { headers: { 'X-SILO-KEY': keys.access } });
      const items = (await read.json()) as { n: number }[];
      expect(items.map((x) => x.n).sort((a, b) => a - b)).toEqual(Array.from({ length: 21 }, (_, i) => i + 1));

      await one.stop();
      one = await startSilo({ env, cwd: dir });
      const meta = await one.fetch(`/api/v1/manage/meta/${uuid}`, { headers: { 'X-MAN-API': keys.manage } });
      expect(((await meta.json()) as { version: number }).version).toBe(21);
    } finally {
      await one?.stop();
      await two?.stop();
    }
  }, 60_000);

  it('says once that its connections were lost (a restart of PostgreSQL drops them all) and once that it reached the database again', async () => {
    // This server's connections, and only them, are found by an application name of this test's own.
    const application = `silo_lost_${process.pid}`;
    const server = await startSilo({ env: { ...env, SILO_STORE_URL: `${schema.storeUrl()}&application_name=${application}` }, cwd: dir });
    const admin = new pg.Client({ connectionString: TEST_POSTGRES_URL });
    await admin.connect();
    try {
      const created = await runSilo(['keys', 'create', '--type', 'manage', '--name', 'lost', '--json'], { env, cwd: dir });
      const headers = { 'X-MAN-API': (JSON.parse(created.stdout) as { key: string }).key };
      const list = () => server.fetch('/api/v1/manage/silos', { headers });
      // Several at once: several pooled connections, idle afterwards.
      expect((await Promise.all(Array.from({ length: 6 }, list))).map((r) => r.status)).toEqual(Array(6).fill(200));
      const { rows } = await admin.query<{ n: number }>(
        'SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity WHERE application_name = $1',
        [application],
      );
      expect(rows[0]!.n).toBeGreaterThan(1);
      const said = (msg: string) => server.logs().filter((l) => l.msg === msg);
      await eventually(async () => said('storage connection lost').length > 0, 5000);
      expect((await list()).status).toBe(200);
      await eventually(async () => said('storage reachable again').length > 0, 5000);
      expect(said('storage connection lost')).toHaveLength(1);
      expect(said('storage reachable again')).toHaveLength(1);
    } finally {
      await admin.end();
      await server.stop();
    }
  }, 30_000);

  it('refuses to start on an unreachable database within 5 s, with one line naming it and no password', async () => {
    const started = Date.now();
    const result = await runSilo(['serve'], { env: { SILO_STORE_URL: 'postgres://silo:secret-pw@127.0.0.1:9/test', SILO_DATA_DIR: dir }, cwd: dir });
    expect(Date.now() - started).toBeLessThan(8000);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('cannot reach PostgreSQL at postgres://silo:***@127.0.0.1:9/test');
    expect(result.stderr + result.stdout).not.toContain('secret-pw');
  }, 20_000);
});
