/**
 * `silo export` / `silo import` (issue 11) on real stores, through the command in-process: round
 * trips on SQLite and PostgreSQL (export → import → export, equal line for line; the old keys
 * authenticate), and bad input (a malformed line, an unknown record, a truncated file, counts that
 * do not match, a target that is not empty), after each of which the target is empty again.
 * Redis is in transfer-migrate.test.ts, which owns the test Redis's database 9.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresAvailable, testSchema, type TestSchema } from '../../../test/support/postgres.js';
import { authenticates, exportOf, removeTempDirs, seed, silo, sorted, sqliteRows, sqliteUrl, tempFile, withoutImports, withStorage, type KeyValue } from './transfer-fixtures.js';

const havePostgres = await postgresAvailable();

afterAll(() => removeTempDirs());

const isEmpty = (url: string): Promise<boolean> => withStorage(url, ({ storage }) => storage.isEmpty());

describe('export and import on SQLite', () => {
  const source = sqliteUrl('source');
  let keys: KeyValue[];
  let exported: string;

  beforeAll(async () => {
    keys = await seed(source, { accounts: 3, silos: 60 });
    exported = await exportOf(source);
  }, 60_000);

  it('writes a header, accounts, keys, webhooks, silos with their history, and the counts; never a key value or a blob id', () => {
    const lines = exported.trimEnd().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines[0]).toEqual({ record: 'silo-export', version: 1, silos: 60 });
    expect(lines.at(-1)).toMatchObject({ record: 'counts', accounts: 3, keys: 6, silos: 60, webhooks: 5 });
    const kinds = lines.map((l) => l.record);
    expect(kinds.indexOf('key')).toBeGreaterThan(kinds.lastIndexOf('account'));
    expect(kinds.indexOf('webhook')).toBeGreaterThan(kinds.lastIndexOf('key'));
    expect(kinds.indexOf('silo')).toBeGreaterThan(kinds.lastIndexOf('webhook'));
    expect(kinds.filter((k) => k === 'webhook')).toHaveLength(5);
    for (const key of keys) expect(exported).not.toContain(key.value);
    expect(exported).not.toMatch(/"blob"|"tail"/);
    const versions = lines.filter((l) => l.record === 'version');
    expect(versions.length).toBe((lines.at(-1) as { versions: number }).versions);
    // Pruned history (3 kept) and appends (tails) are both there.
    expect(lines.some((l) => l.record === 'silo' && (l.oldest as number) > 1)).toBe(true);
    expect(versions.some((v) => (v.data as string).startsWith('[') && (v.data as string).includes('"v":2'))).toBe(true);
  });

  it('round trip: import into a new store, export again: the same lines; the old keys authenticate', async () => {
    const target = sqliteUrl('target');
    const run = await silo(['import'], { store: target, stdin: exported });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/silo import: 60\/60 silos in .* 3 accounts, 6 keys, 60 silos, \d+ versions, 5 webhooks/);
    expect(sorted(await exportOf(target))).toEqual(sorted(exported));
    expect(await authenticates(target, keys)).toBe(true);
  }, 30_000);

  it('--out writes a file (never a half one, readable by its owner only), --in reads it', async () => {
    const file = tempFile('out');
    const out = await silo(['export', '--out', file], { store: source });
    expect(out.code, out.stderr).toBe(0);
    expect(out.stdout).toBe('');
    expect(fs.existsSync(`${file}.partial`)).toBe(false);
    // It holds key and password hashes and webhook secrets: 0600 whatever the umask (0644 before).
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(fs.readFileSync(file, 'utf8')).toBe(exported);
    const target = sqliteUrl('in');
    const run = await silo(['import', '--in', file], { store: target });
    expect(run.code, run.stderr).toBe(0);
    expect(sorted(await exportOf(target))).toEqual(sorted(exported));
  }, 30_000);

  describe('bad input: exit 1, one clear line, no store left where there was none', () => {
    const lines = () => exported.trimEnd().split('\n');
    /** Imports `text` into a new store: the failure's last stderr line; the store it created must be gone after. */
    async function fails(text: string): Promise<string> {
      const target = sqliteUrl('bad');
      const run = await silo(['import'], { store: target, stdin: text });
      expect(run.code, run.stderr).toBe(1);
      expect(run.stderr).toContain('(new and empty: created now)');
      // Not an empty store a later command would take for the server's: no store at all.
      const dir = path.dirname(target.slice('sqlite://'.length));
      expect(fs.readdirSync(dir)).toEqual([]);
      const later = await silo(['keys', 'list'], { store: target });
      expect(later.code).toBe(1);
      expect(later.stderr).toMatch(/no store at /);
      return run.stderr.trimEnd().split('\n').at(-1)!;
    }

    it('a malformed line: its number', async () => {
      const l = lines();
      const bad = [...l.slice(0, 40), '{"record":"silo", oops', ...l.slice(40)].join('\n');
      expect(await fails(bad)).toMatch(/^silo import: line 41: not JSON; nothing was imported \(what this import wrote is removed again\)$/);
    });

    it('an unknown record type', async () => {
      const l = lines();
      const bad = [...l.slice(0, 5), '{"record":"widget","email":"someone@example.test"}', ...l.slice(5)].join('\n');
      expect(await fails(bad)).toMatch(/^silo import: line 6: unknown record type "widget"; nothing was imported/);
    });

    it('a truncated file (no counts line)', async () => {
      const l = lines();
      // Cut after a whole silo: every line is fine, only the end is missing.
      const cut = l.findLastIndex((line, i) => i < l.length - 1 && JSON.parse(l[i + 1]!).record === 'silo');
      expect(await fails(l.slice(0, cut + 1).join('\n'))).toMatch(/^silo import: the input ends after line \d+ without its counts line: it is truncated .*nothing was imported/);
      expect(await fails(l.slice(0, -1).join('\n') + '\n')).toMatch(/without its counts line/);
    });

    it('counts that do not match', async () => {
      const l = lines();
      const counts = JSON.parse(l.at(-1)!) as Record<string, number>;
      const bad = [...l.slice(0, -1), JSON.stringify({ ...counts, silos: counts.silos! + 1 })].join('\n');
      expect(await fails(bad)).toMatch(new RegExp(`^silo import: line ${l.length}: the counts line says ${counts.silos! + 1} silos where there are ${counts.silos} in the file; nothing was imported`));
      // A silo line dropped with its versions: the counts no longer match either.
      const first = l.findIndex((line) => JSON.parse(line).record === 'silo');
      const next = l.findIndex((line, i) => i > first && JSON.parse(line).record === 'silo');
      expect(await fails([...l.slice(0, first), ...l.slice(next)].join('\n'))).toMatch(/the counts line says 60 silos where there are 59(, \d+ versions where there are \d+)? in the file/);
    });

    it('a version whose data does not match its size, a version out of place', async () => {
      const l = lines();
      const i = l.findIndex((line) => JSON.parse(line).record === 'version');
      const v = JSON.parse(l[i]!) as Record<string, unknown>;
      const changed = [...l.slice(0, i), JSON.stringify({ ...v, data: `${v.data as string} ` }), ...l.slice(i + 1)].join('\n');
      expect(await fails(changed)).toMatch(new RegExp(`^silo import: line ${i + 1}: version \\d+ of silo \\S+ has data of \\d+ bytes, its size says \\d+`));
      const swapped = [...l.slice(0, i), JSON.stringify({ ...v, version: (v.version as number) + 1 }), ...l.slice(i + 1)].join('\n');
      expect(await fails(swapped)).toMatch(new RegExp(`^silo import: line ${i + 1}: version \\d+ of silo \\S+ where version \\d+ belongs`));
    });

    it('not an export at all', async () => {
      expect(await fails('{"hello":"world"}\n')).toMatch(/^silo import: line 1: unknown record type undefined/);
      expect(await fails(lines().slice(1).join('\n'))).toMatch(/^silo import: line 1: not a silo export/);
    });

    it('a target that is not empty is refused before anything is read; nothing is written', async () => {
      const target = sqliteUrl('busy');
      expect((await silo(['accounts', 'create', 'someone', '--create'], { store: target })).code).toBe(0);
      const before = await exportOf(target);
      const run = await silo(['import'], { store: target, stdin: exported });
      expect(run.code).toBe(1);
      expect(run.stderr.trimEnd().split('\n').at(-1)).toBe(
        'silo import: the target storage is not empty (it holds accounts, keys or silos): import into an empty store; nothing was written',
      );
      expect(await exportOf(target)).toBe(before);
    });
  });
});

describe('migrate a configuration with a region store', () => {
  const main = sqliteUrl('regions-main');
  const sg = sqliteUrl('regions-sg');
  const env = { SILO_STORE_URL: main, SILO_STORE_URL_SG_01_API: sg };

  beforeAll(async () => {
    const made = await silo(['silos', 'create', '--name', 'far', '--data', '[{"at":"sg"}]', '--region', 'sg-01-api', '--create'], { env });
    expect(made.code, made.stderr).toBe(0);
    expect((await silo(['silos', 'create', '--name', 'near', '--data', '[{"at":"api"}]'], { env })).code).toBe(0);
  }, 30_000);

  it('without --from, copies the configured storage, the region store included; the copy exports as the configuration does', async () => {
    const target = sqliteUrl('regions-target');
    const run = await silo(['migrate', '--to', target], { env });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain(`(region stores: sg-01-api at ${sg})`);
    const configured = await silo(['export'], { env });
    expect(configured.code, configured.stderr).toBe(0);
    const copied = await exportOf(target);
    expect(copied).toContain(JSON.stringify('[{"at":"sg"}]'));
    expect(withoutImports(copied)).toBe(configured.stdout);
  }, 30_000);

  it('--from the main store alone says that data is in a region store, not that the silo kept changing; nothing is left at --to', async () => {
    const target = sqliteUrl('regions-main-only');
    const run = await silo(['migrate', '--from', main, '--to', target], { env });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/silo [0-9a-f-]{36} \(region sg-01-api\) has versions or data missing from this storage: .*SILO_STORE_URL_<REGION>/);
    expect(run.stderr).not.toContain('kept changing');
    expect(fs.existsSync(new URL(target).pathname)).toBe(false);
  }, 30_000);

  it('refuses a --to that the source uses, a region store included', async () => {
    for (const to of [main, sg]) {
      const run = await silo(['migrate', '--to', to], { env });
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(`--to names a store that the source uses: ${to}`);
    }
  });
});

describe.skipIf(!havePostgres)('export and import on PostgreSQL', () => {
  let source: TestSchema;
  let target: TestSchema;
  beforeAll(async () => {
    [source, target] = await Promise.all([testSchema('transfer_src'), testSchema('transfer_dst')]);
  });
  afterAll(async () => {
    await Promise.all([source?.drop(), target?.drop()]);
  });

  it('round trip: the same lines; the old keys authenticate; a second import is refused', async () => {
    const keys = await seed(source.storeUrl(), { accounts: 3, silos: 30 });
    const exported = await exportOf(source.storeUrl());
    const run = await silo(['import'], { store: target.storeUrl(), stdin: exported });
    expect(run.code, run.stderr).toBe(0);
    expect(sorted(await exportOf(target.storeUrl()))).toEqual(sorted(exported));
    expect(await authenticates(target.storeUrl(), keys)).toBe(true);
    const again = await silo(['import'], { store: target.storeUrl(), stdin: exported });
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/the target storage is not empty/);
  }, 60_000);

  it('a failure after silos were written leaves the schema empty', async () => {
    const other = await testSchema('transfer_bad');
    try {
      const exported = await exportOf(source.storeUrl());
      const l = exported.trimEnd().split('\n');
      const run = await silo(['import'], { store: other.storeUrl(), stdin: [...l.slice(0, -3), 'garbage'].join('\n') });
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(new RegExp(`line ${l.length - 2}: not JSON; nothing was imported`));
      expect(await isEmpty(other.storeUrl())).toBe(true);
      const { rows } = await other.pool.query<{ n: string }>(
        `SELECT (SELECT count(*) FROM main) + (SELECT count(*) FROM main_index) + (SELECT count(*) FROM region_api) + (SELECT count(*) FROM region_sg_01_api) + (SELECT count(*) FROM region_usc_01_api) AS n`,
      );
      expect(Number(rows[0]!.n)).toBe(0);
    } finally {
      await other.drop();
    }
  }, 60_000);
});
