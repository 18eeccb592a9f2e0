/**
 * `silo import` checks every record as the API would, not only the export format: a file that is
 * well formed but holds what the API never lets in (data that is not JSON or not an object or
 * array of objects, data past the plan's size, a file_uuid that is not a uuid, an account name
 * with `:` or `__proto__`, a plan the server does not have...) is refused, with its line and
 * record named, and leaves the target empty. On PostgreSQL, a failed import leaves no row in any
 * table, the index counts included. The command runs in-process on real SQLite and PostgreSQL.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { postgresAvailable, testSchema } from '../../../test/support/postgres.js';
import { exportOf, removeTempDirs, seed, silo, sqliteRows, sqliteUrl, withStorage } from './transfer-fixtures.js';

const havePostgres = await postgresAvailable();

afterAll(() => removeTempDirs());

const UUID = '5b0c6a52-7d1e-4c3a-9f1b-2e8d4a6c0f13';
const T = '2026-01-02T03:04:05.000Z';
const ETAG = 'k3Jx0aBcDeFgHiJk';

type Line = Record<string, unknown>;

/**
 * A valid export of one account with a key, a webhook, a console user and one silo of one version
 * (lines 1 to 8: header, account, key, webhook, user, silo, version, counts), as `change` leaves it.
 */
function exportText(change: { account?: string; plan?: string; data?: string; uuid?: string; line?: (kind: string, line: Line) => Line } = {}): string {
  const account = change.account ?? 'acme';
  const uuid = change.uuid ?? UUID;
  const data = change.data ?? '[{"name":"Ada"}]';
  const size = Buffer.byteLength(data, 'utf8');
  const lines: [string, Line][] = [
    ['silo-export', { record: 'silo-export', version: 1, silos: 1 }],
    ['account', { record: 'account', name: account, plan: change.plan ?? 'default', created_at: T }],
    ['key', { record: 'key', type: 'access', name: 'reader', account, created_at: T, hash: 'a'.repeat(64) }],
    [
      'webhook',
      { record: 'webhook', id: 'wh_abcdefghijklmnop', account, url: 'https://hooks.example.test/in', events: ['silo.updated'], silos: [uuid], created_at: T, disabled: false, failing_since: null, secret: `whsec_${Buffer.alloc(24, 7).toString('base64')}` },
    ],
    ['user', { record: 'user', name: 'ann', account, hash: 'scrypt$32768$8$1$BwcHBwcHBwcHBwcHBwcHBw$CQkJCQkJCQkJCQkJCQkJCQkJCQkJCQkJCQkJCQkJCQk', created_at: T }],
    ['silo', { record: 'silo', file_uuid: uuid, file_name: 'todos', region_name: 'api', is_public: false, created_at: T, updated_at: T, account, size, version: 1, etag: ETAG, oldest: 1 }],
    ['version', { record: 'version', file_uuid: uuid, version: 1, updated_at: T, file_name: 'todos', is_public: false, region_name: 'api', size, etag: ETAG, data }],
    ['counts', { record: 'counts', accounts: 1, keys: 1, silos: 1, versions: 1, webhooks: 1, users: 1 }],
  ];
  return lines.map(([kind, line]) => JSON.stringify(change.line ? change.line(kind, line) : line)).join('\n') + '\n';
}

/** Imports `text` into a new SQLite store: exit code, last stderr line, and whether the store is empty after. */
async function importInto(text: string, env: Record<string, string> = {}) {
  const target = sqliteUrl('rules');
  const run = await silo(['import'], { store: target, stdin: text, env });
  const empty = await withStorage(target, ({ storage }) => storage.isEmpty());
  return { code: run.code, message: run.stderr.trimEnd().split('\n').at(-1)!, empty, rows: sqliteRows(target) };
}

async function refused(text: string, message: RegExp | string, env: Record<string, string> = {}): Promise<void> {
  const got = await importInto(text, env);
  if (typeof message === 'string') expect(got.message.startsWith(message), got.message).toBe(true);
  else expect(got.message).toMatch(message);
  expect(got.message).toMatch(/; nothing was imported/);
  expect(got.code).toBe(1);
  expect(got.empty).toBe(true);
  expect(got.rows).toBe(0);
}

describe('silo import reads a line only as long as a record can be', () => {
  it('refuses a longer one, naming it, before holding it whole', async () => {
    // With 1 000-byte silos a line is at most 8 × 1 000 characters and 1 MiB: 2 MB is none of Silo's.
    const lines = exportText().split('\n');
    lines[1] = `{"record":"account","name":"${'a'.repeat(2_000_000)}`;
    await refused(lines.join('\n'), /^silo import: line 2 is longer than 1056576 characters, more than any record of an export can be/, { SILO_MAX_DATA_BYTES: '1000' });
    await refused(lines.slice(0, 2).join('\n'), /line 2 is longer than/, { SILO_MAX_DATA_BYTES: '1000' }); // without a line end
  });
});

describe('silo import checks each record as the API would', () => {
  it('imports the valid file (the control)', async () => {
    const got = await importInto(exportText());
    expect(got.message).toMatch(/1 accounts, 1 keys, 1 silos, 1 versions, 1 webhooks/);
    expect(got.code).toBe(0);
  });

  it('refuses file_data that is not JSON, or not an object or an array of objects', async () => {
    await refused(exportText({ data: 'hello, world' }), new RegExp(`^silo import: line 7: version 1 of silo ${UUID}: file_data is not valid JSON`));
    await refused(exportText({ data: '{"a":1' }), /line 7: version 1 of silo \S+: file_data is not valid JSON/);
    for (const data of ['"text"', '42', 'null', 'true', '[1,2]', '[{"a":1},"b"]', '[[]]']) {
      await refused(exportText({ data }), /line 7: version 1 of silo \S+: file_data(\.\d+)?: Input should be /);
    }
  });

  it("refuses file_data past the plan's size (SILO_MAX_DATA_BYTES, as the server reads it) and past the JSON depth bound", async () => {
    const data = JSON.stringify([{ text: 'x'.repeat(200) }]);
    await refused(exportText({ data }), /line 7: version 1 of silo \S+: file_data is 213 bytes, over the 100-byte limit of plan "default"/, { SILO_MAX_DATA_BYTES: '100' });
    expect((await importInto(exportText({ data }), { SILO_MAX_DATA_BYTES: '1KB' })).code).toBe(0);
    const deep = `[${'{"a":'.repeat(1000)}1${'}'.repeat(1000)}]`;
    await refused(exportText({ data: deep }), /line 7: version 1 of silo \S+: file_data nests deeper than 999 levels/);
  });

  it('refuses a file_uuid that is not a uuid in canonical form', async () => {
    // The webhook filters on no silo here: its own uuid check would speak first.
    const line = (kind: string, l: Line) => (kind === 'webhook' ? { ...l, silos: null } : l);
    for (const uuid of ['not-a-uuid', UUID.toUpperCase(), `${UUID}0`, '../../etc/passwd']) {
      const name = JSON.stringify(uuid);
      await refused(exportText({ uuid, line }), `silo import: line 6: silo ${name}: file_uuid ${name} is not a uuid in lower case`);
    }
  });

  it('refuses account names the API refuses (":", "__proto__", too long) and plans the server does not have', async () => {
    for (const account of ['a:b', '__proto__', 'constructor ', 'x'.repeat(65), 'ümlaut']) {
      await refused(exportText({ account }), `silo import: line 2: account name ${JSON.stringify(account)}: An account name is 1 to 64 characters`);
    }
    await refused(exportText({ plan: 'gold' }), /^silo import: line 2: account "acme" is on plan "gold", which this server does not have \(its plans: default\)/);
    await refused(exportText({ plan: '__proto__' }), /line 2: account "acme" is on plan "__proto__", which this server does not have/);
  });

  it('refuses names, times and ids the API would not make, naming the record', async () => {
    const at = (kind: string, patch: Line) => exportText({ line: (k, line) => (k === kind ? { ...line, ...patch } : line) });
    const both = (patch: Line) => exportText({ line: (k, line) => (k === 'silo' || k === 'version' ? { ...line, ...patch } : line) });
    await refused(both({ file_name: '' }), /line 6: silo "\S+": file_name: String should have at least 1 character/);
    await refused(at('version', { file_name: 'n'.repeat(256) }), /line 7: version 1 of silo \S+: file_name: String should have at most 255 characters/);
    await refused(both({ etag: 'bad"tag\r\n' }), /line 6: silo "\S+": etag .* is not one Silo makes/);
    await refused(at('silo', { created_at: 'Fri, 02 Jan 2026 03:04:05 GMT' }), /line 6: silo "\S+": created_at "Fri, 02 Jan 2026 03:04:05 GMT" is not an RFC 3339 time/);
    await refused(at('key', { name: '   ' }), /^silo import: line 3: the access key "   " of account "acme": key name/);
    await refused(at('key', { silos: ['NOT-A-UUID'] }), /line 3: the access key "reader" of account "acme": the key names "NOT-A-UUID", not a silo's file_uuid/);
    await refused(at('key', { type: 'access', duration: '7d' }), /line 3: .*an access key with a duration or expiry/);
    await refused(at('user', { name: 'ann marie' }), /^silo import: line 5: console user name "ann marie": A user name is/);
    // Hashes whose parameters scrypt refuses or takes minutes over (every sign-in was a 500), or too weak to protect.
    const user = (JSON.parse(exportText().trimEnd().split('\n')[4]!) as { hash: string }).hash.split('$');
    for (const [n, r, p] of [['1073741824', '8', '1'], ['32768', '8', '1000000'], ['2', '8', '1'], ['32769', '8', '1']]) {
      await refused(at('user', { hash: ['scrypt', n, r, p, user[4], user[5]].join('$') }), /^silo import: line 5: .*hash/);
    }
    await refused(at('webhook', { silos: ['x'] }), /^silo import: line 4: webhook "wh_abcdefghijklmnop" of account "acme": the webhook names "x", not a silo's file_uuid/);
    await refused(at('webhook', { url: 'https://user:pw@hooks.example.test/' }), /line 4: webhook .*: webhook url: URL must not contain a username or password/);
    await refused(at('webhook', { id: '../../x' }), /line 4: webhook "..\/..\/x" of account "acme": webhook id/);
  });

  it('refuses a silo that keeps more versions than any store keeps, at its silo line, before holding any', async () => {
    const text = exportText({ line: (kind, line) => (kind === 'silo' ? { ...line, version: 5000, oldest: 1 } : line) });
    await refused(text, /line 6: silo "5b0c6a52-7d1e-4c3a-9f1b-2e8d4a6c0f13": it keeps 5000 versions \(1 to 5000\), more than any Silo store keeps \(1000\)/);
  });

  it('refuses a silo uuid that appears twice', async () => {
    const text = exportText();
    const lines = text.trimEnd().split('\n');
    const counts = { ...(JSON.parse(lines[7]!) as Line), silos: 2, versions: 2 };
    const twice = [...lines.slice(0, 7), ...lines.slice(5, 7), JSON.stringify(counts)].join('\n');
    await refused(twice, new RegExp(`line 8: silo ${UUID} appears twice`));
  });
});

describe.skipIf(!havePostgres)('a failed import on PostgreSQL', () => {
  it('leaves no row in any table, the sorted index and its counts included', async () => {
    const source = await testSchema('rules_src');
    const target = await testSchema('rules_dst');
    try {
      await seed(source.storeUrl(), { accounts: 2, silos: 12 });
      const lines = (await exportOf(source.storeUrl())).trimEnd().split('\n');
      // The last silo's last version: not JSON (its size kept right), found once every other silo is written.
      const last = lines.findLastIndex((line) => JSON.parse(line).record === 'version');
      const version = JSON.parse(lines[last]!) as Line;
      const data = `not json ${'.'.repeat(Math.max(0, (version.size as number) - 9))}`.slice(0, version.size as number);
      lines[last] = JSON.stringify({ ...version, data });
      const run = await silo(['import'], { store: target.storeUrl(), stdin: lines.join('\n') });
      expect(run.stderr).toMatch(new RegExp(`line ${last + 1}: version \\d+ of silo \\S+: file_data is not valid JSON; nothing was imported`));
      expect(run.code).toBe(1);
      const { rows: tables } = await target.pool.query<{ table_name: string }>(
        'SELECT table_name FROM information_schema.tables WHERE table_schema = $1 AND table_type = $2',
        [target.name, 'BASE TABLE'],
      );
      const names = tables.map((t) => t.table_name).filter((name) => name !== 'silo_schema');
      expect(names).toContain('main_index_count');
      const counts: Record<string, number> = {};
      for (const name of names) counts[name] = Number((await target.pool.query<{ n: string }>(`SELECT count(*) AS n FROM "${name}"`)).rows[0]!.n);
      expect(counts).toEqual(Object.fromEntries(names.map((name) => [name, 0])));
    } finally {
      await Promise.all([source.drop(), target.drop()]);
    }
  }, 60_000);
});
