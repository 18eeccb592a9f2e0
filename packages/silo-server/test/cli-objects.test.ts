/**
 * The `silo` command over every object of an account (issue 27): silos and webhooks over the same
 * storage as the server, accounts deleted with everything they hold, --account and --json on every
 * command, and a --help that lists every option each command accepts, with its values and default.
 * In-process (`main(argv, io)`) over a temporary data directory.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../src/cli.js';
import { SPECS } from '../src/cli/spec.js';
import { openSilo } from '../src/serve.js';
import { loadStorageConfig } from '../src/config.js';
import { silentLogger } from '../src/log.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'silo-cli-objects-'));
const env = { SILO_DATA_DIR: path.join(dir, 'data') };
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

async function silo(...argv: string[]): Promise<Result> {
  return siloWith({}, ...argv);
}

async function siloWith(more: { stdin?: string; env?: Record<string, string> }, ...argv: string[]): Promise<Result> {
  let stdout = '';
  let stderr = '';
  const code = await main(argv, {
    stdout: (t) => (stdout += t),
    stderr: (t) => (stderr += t),
    env: { ...env, ...more.env },
    cwd: dir,
    ...(more.stdin !== undefined ? { stdin: Readable.from([more.stdin]) } : {}),
  });
  return { code, stdout, stderr };
}

const ok = (r: Result) => {
  expect(r.code, JSON.stringify(r)).toBe(0);
  return r;
};
const json = <T = any>(r: Result): T => JSON.parse(ok(r).stdout) as T;

beforeAll(async () => {
  ok(await silo('accounts', 'create', 'default', '--create'));
});

describe('silo help', () => {
  it('every command of a group lists every option it takes, with its values and default', async () => {
    for (const [command, spec] of Object.entries(SPECS)) {
      const [group, verb] = command.split(' ') as [string, string];
      const r = await silo(group, verb, '--help');
      expect(r.code, command).toBe(0);
      expect(r.stdout, command).toMatch(new RegExp(`^Usage: silo ${command}`));
      expect(await silo('help', group, verb), command).toEqual(r);
      for (const [name, option] of Object.entries(spec.options)) {
        // Its line: the flag, its values, what it does, and its default (or that it is required).
        const line = r.stdout.split('\n').find((l) => l.startsWith(`  --${name}${option.value ? ` ${option.value}` : ''} `));
        expect(line, `${command} --${name}`).toBeDefined();
        if (option.required) expect(line, `${command} --${name}`).toContain('(required)');
        else if (option.default !== undefined) expect(line, `${command} --${name}`).toContain(`(default: ${option.default})`);
        // And the command accepts it.
        const args = option.value ? [`--${name}`, 'x'] : [`--${name}`];
        expect((await silo(group, verb, ...args, '--help')).code, `${command} --${name}`).toBe(0);
      }
      // What is not listed is refused.
      const bogus = await silo(group, verb, '--frobnicate');
      expect(bogus.code, command).toBe(2);
      expect(bogus.stderr, command).toMatch(/unknown option '--frobnicate'/);
      // The storage settings, as for every command.
      expect(r.stdout, command).toContain('SILO_DATA_DIR');
    }
  });

  it('silo help GROUP prints each command in full: the options, not only the usage lines', async () => {
    const keys = await silo('help', 'keys');
    expect(keys.stdout).toContain('--silos UUID,...');
    expect(keys.stdout).toContain('--duration 7d|30d|90d|365d|never');
    expect(keys.stdout).toContain('(default: default)');
    expect(keys).toEqual(await silo('keys', '--help'));
    for (const group of ['accounts', 'keys', 'users', 'silos', 'webhooks']) {
      const r = await silo('help', group);
      for (const command of Object.keys(SPECS).filter((c) => c.startsWith(`${group} `))) expect(r.stdout).toContain(`Usage: silo ${command}`);
    }
    // The main help names every command, and the transfer commands list their options too.
    const all = await silo('--help');
    for (const command of Object.keys(SPECS)) expect(all.stdout).toContain(`silo ${command}`);
    expect((await silo('export', '--help')).stdout).toMatch(/--out FILE\s+write into FILE \(default: stdout\)/);
    expect((await silo('import', '--help')).stdout).toMatch(/--in FILE\s+read FILE \(default: stdin\)/);
    expect((await silo('migrate', '--help')).stdout).toMatch(/--from URL\s+the store to copy \(default: the configured storage\)/);
  });

  it('every command of a group takes --json (and --account where it works on one account)', () => {
    for (const [command, spec] of Object.entries(SPECS)) {
      expect(spec.options, command).toHaveProperty('json');
      if (!command.startsWith('accounts ')) expect(spec.options, command).toHaveProperty('account');
    }
  });
});

describe('silo silos', () => {
  let uuid: string;

  it('creates a silo from --data, keeping numbers as written, and lists it with its size', async () => {
    const created = json(await silo('silos', 'create', '--name', 'prices', '--data', '[{"id": 1, "total": 12.50}, {"id": 2, "total": 99999999999999999.99}]', '--json'));
    expect(created).toMatchObject({ file_name: 'prices', region_name: 'api', is_public: false, version: 1 });
    uuid = created.file_uuid;
    const got = json(await silo('silos', 'get', uuid, '--json'));
    expect(got).toMatchObject({ file_uuid: uuid, file_name: 'prices', version: 1, size: 62 });
    expect((await silo('silos', 'get', uuid, '--json')).stdout).toContain('"file_data":[{"id":1,"total":12.50},{"id":2,"total":99999999999999999.99}]');
    const text = ok(await silo('silos', 'get', uuid));
    expect(text.stdout).toMatch(/^name\s+prices\nuuid\s+\S+\nvisibility\s+private\nregion\s+api\nversion\s+1\nsize\s+62 B\n/);
    expect(text.stdout.trimEnd().endsWith('[{"id":1,"total":12.50},{"id":2,"total":99999999999999999.99}]')).toBe(true);

    const listed = json(await silo('silos', 'list', '--json'));
    expect(listed.metadata).toEqual({ total_items: 1, per_page: 25, page_no: 1 });
    expect(listed.silos[0]).toMatchObject({ file_uuid: uuid, size: 62 });
    expect(ok(await silo('silos', 'list')).stdout).toMatch(/^NAME\s+UUID\s+VISIBILITY\s+REGION\s+VERSION\s+SIZE\s+UPDATED\nprices\s+\S+\s+private\s+api\s+1\s+62 B\s+\S+\nPage 1 of 1, 1 silo in all\.\n$/);
  });

  it('creates from stdin or a file, public and in another region; the server serves what the command made', async () => {
    const file = path.join(dir, 'data.json');
    fs.writeFileSync(file, '{\n  "theme": "dark"\n}\n');
    const fromFile = json(await silo('silos', 'create', '--name', 'settings', '--data-file', file, '--region', 'sg-01-api', '--public', '--json'));
    expect(fromFile).toMatchObject({ region_name: 'sg-01-api', is_public: true });
    const fromStdin = json(await siloWith({ stdin: '{"a": [1, 2]}' }, 'silos', 'create', '--name', 'piped', '--json'));
    // Without --json: the uuid alone on stdout (for U=$(silo silos create ...)), the sentence on stderr.
    const plain = ok(await silo('silos', 'create', '--name', 'plain', '--data', '{}'));
    expect(plain.stdout).toMatch(/^[0-9a-f-]{36}\n$/);
    expect(plain.stderr).toContain('Created private silo "plain" in region api');
    expect(ok(await silo('silos', 'get', fromStdin.file_uuid)).stdout).toContain('{"a":[1,2]}');
    expect(ok(await silo('silos', 'get', fromFile.file_uuid)).stdout.trimEnd().endsWith('{"theme":"dark"}')).toBe(true);

    // The same store opened as the server opens it: the silos are there, with the API's rules.
    const { silo: server, stores } = await openSilo(loadStorageConfig(env, {}, dir), silentLogger);
    try {
      const read = await server.silos.read('default', fromFile.file_uuid);
      expect(read.text).toBe('{"theme":"dark"}');
      expect(read.record).toMatchObject({ region_name: 'sg-01-api', is_public: true });
    } finally {
      await server.close();
      await stores.close();
    }
  });

  it('refuses what the API refuses, in the command\'s words', async () => {
    const cases: Array<[string[], number, RegExp]> = [
      [['silos', 'create', '--name', 'x', '--data', '[1, 2]'], 2, /must be a JSON object, or an array whose items are all objects/],
      [['silos', 'create', '--name', 'x', '--data', '{"a":'], 2, /the data \(--data\) is not JSON/],
      [['silos', 'create', '--name', 'x', '--data', '{}', '--region', 'eu'], 2, /--region must be one of api, sg-01-api, usc-01-api, got "eu"/],
      [['silos', 'create', '--data', '{}'], 2, /--name is required/],
      [['silos', 'create', '--name', 'x', '--data', '{}', '--data-file', 'f'], 2, /give --data or --data-file, not both/],
      [['silos', 'get', 'nope'], 2, /"nope" is not a file_uuid/],
      [['silos', 'get'], 2, /missing UUID/],
      [['silos', 'get', '00000000-0000-4000-8000-000000000000'], 1, /^silo silos get: silo not found$/im],
      [['silos', 'list', '--per-page', '101'], 2, /--per-page must be a whole number from 1 to 100/],
      [['silos', 'list', '--page', '-1'], 2, /option '--page' argument is ambiguous; a value that starts with a dash is written '--page=-XYZ'/],
      [['silos', 'list', '--page=-1'], 2, /--page must be a whole number from 1 to/],
      [['silos', 'list', '--account', 'ghost'], 1, /account "ghost" does not exist/],
      [['silos', 'create', '--name', 'big', '--data', `{"x":"${'y'.repeat(200)}"}`], 1, /limit/i],
    ];
    for (const [argv, code, pattern] of cases) {
      const r = await siloWith({ env: { SILO_MAX_DATA_BYTES: '100' } }, ...argv);
      expect(r.code, argv.join(' ')).toBe(code);
      expect(r.stdout, argv.join(' ')).toBe('');
      expect(r.stderr, argv.join(' ')).toMatch(pattern);
    }
  });

  it('deletes a silo once its name is confirmed', async () => {
    const wrong = await silo('silos', 'delete', uuid, '--confirm', 'other');
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toMatch(/--confirm "other" does not match the silo's name "prices"; nothing was deleted/);
    expect(ok(await silo('silos', 'get', uuid)).code).toBe(0);
    expect(json(await silo('silos', 'delete', uuid, '--confirm', 'prices', '--json'))).toEqual({ file_uuid: uuid, deleted: true });
    expect((await silo('silos', 'get', uuid)).code).toBe(1);
  });
});

describe('silo webhooks', () => {
  it('creates (the secret shown once), lists with its state, deletes once the id is confirmed', async () => {
    const refused = await silo('webhooks', 'create', '--url', 'http://127.0.0.1:9/hook');
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/silo webhooks create: --url: blocked address 127\.0\.0\.1.*SILO_WEBHOOK_ALLOW_PRIVATE=true/);
    const made = json(await silo('webhooks', 'create', '--url', 'http://127.0.0.1:9/hook', '--events', 'silo.created,silo.deleted', '--webhook-allow-private', '--json'));
    expect(made).toMatchObject({ url: 'http://127.0.0.1:9/hook', events: ['silo.created', 'silo.deleted'], silos: null, disabled: false, secret: expect.stringMatching(/^whsec_/) });
    const byEnv = ok(await siloWith({ env: { SILO_WEBHOOK_ALLOW_PRIVATE: 'true' } }, 'webhooks', 'create', '--url', 'http://10.1.2.3/hook'));
    expect(byEnv.stdout).toMatch(/^Created webhook wh_\S+ for account "default": silo\.created, silo\.updated, silo\.deleted of every silo to http:\/\/10\.1\.2\.3\/hook\.\nSigning secret \(shown once, never again: store it now\):\nwhsec_\S+\n/);

    const listed = ok(await silo('webhooks', 'list'));
    expect(listed.stdout).toMatch(/^ID\s+URL\s+EVENTS\s+SILOS\s+STATE\s+CREATED\n/);
    expect(listed.stdout).toMatch(new RegExp(`${made.id}\\s+http://127\\.0\\.0\\.1:9/hook\\s+silo\\.created,silo\\.deleted\\s+all\\s+active`));
    expect(listed.stdout).not.toContain('whsec_');
    expect(json<unknown[]>(await silo('webhooks', 'list', '--json'))).toHaveLength(2);

    expect((await silo('webhooks', 'create', '--url', 'https://example.org/', '--events', 'silo.moved')).stderr).toMatch(/--events must list some of silo\.created, silo\.updated, silo\.deleted, got "silo\.moved"/);
    expect((await silo('webhooks', 'delete', made.id, '--confirm', 'wh_other')).code).toBe(2);
    expect(json(await silo('webhooks', 'delete', made.id, '--confirm', made.id, '--json'))).toEqual({ id: made.id, deleted: true });
    expect((await silo('webhooks', 'delete', made.id, '--confirm', made.id)).stderr).toMatch(/no webhook with this id/i);
  });
});

describe('silo accounts delete', () => {
  it('refuses without the name confirmed; then removes the account with its silos, keys, webhooks and console users', async () => {
    ok(await silo('accounts', 'create', 'acme'));
    const key = json(await silo('keys', 'create', '--account', 'acme', '--type', 'access', '--name', 'reader', '--json'));
    ok(await silo('keys', 'create', '--account', 'acme', '--type', 'manage', '--name', 'deploy'));
    const made = json(await silo('silos', 'create', '--account', 'acme', '--name', 'orders', '--data', '{}', '--json'));
    ok(await silo('webhooks', 'create', '--account', 'acme', '--url', 'https://example.org/hook'));
    ok(await silo('users', 'create', '--account', 'acme', '--name', 'acme-admin'));

    for (const argv of [['accounts', 'delete', 'acme'], ['accounts', 'delete', 'acme', '--confirm', 'ACME']]) {
      const r = await silo(...argv);
      expect(r.code, argv.join(' ')).toBe(2);
      expect(r.stderr).toMatch(/^silo accounts delete: --confirm (is required|"ACME" does not match the account name "acme"; nothing was deleted)/);
    }
    expect(json<Array<{ name: string }>>(await silo('accounts', 'list', '--json')).map((a) => a.name)).toContain('acme');

    const deleted = json(await silo('accounts', 'delete', 'acme', '--confirm', 'acme', '--json'));
    expect(deleted).toEqual({ deleted: true, name: 'acme', silos: 1, keys: 2, webhooks: 1, users: 1 });
    expect(json<Array<{ name: string }>>(await silo('accounts', 'list', '--json')).map((a) => a.name)).not.toContain('acme');
    expect((await silo('silos', 'list', '--account', 'acme')).stderr).toMatch(/account "acme" does not exist/);
    expect((await silo('accounts', 'delete', 'acme', '--confirm', 'acme')).stderr).toMatch(/no account named "acme"/);

    // Nothing of it works any more.
    const { silo: server, stores } = await openSilo(loadStorageConfig(env, {}, dir), silentLogger);
    try {
      await expect(server.accounts.authenticate(key.key, 'access')).rejects.toThrow(/Invalid/);
      await expect(server.silos.meta('acme', made.file_uuid)).rejects.toThrow();
      expect(await server.console.listUsers('acme')).toEqual([]);
    } finally {
      await server.close();
      await stores.close();
    }
  });
});

describe('--account and --json everywhere', () => {
  it('users list shows the default account\'s users unless told another; users delete takes --account', async () => {
    ok(await silo('accounts', 'create', 'beta'));
    ok(await silo('users', 'create', '--name', 'dee'));
    ok(await silo('users', 'create', '--account', 'beta', '--name', 'bea'));
    expect(json<Array<{ name: string }>>(await silo('users', 'list', '--json')).map((u) => u.name)).toEqual(['dee']);
    expect(json<Array<{ name: string }>>(await silo('users', 'list', '--account', 'beta', '--json')).map((u) => u.name)).toEqual(['bea']);
    // A user of another account is not deleted through this one.
    const other = await silo('users', 'delete', '--name', 'bea', '--confirm', 'bea');
    expect(other.code).toBe(1);
    expect(other.stderr).toMatch(/no console user named "bea" in account "default"/);
    expect(json(await silo('users', 'delete', '--account', 'beta', '--name', 'bea', '--confirm', 'bea', '--json'))).toEqual({ deleted: true, name: 'bea', account: 'beta' });
  });

  it('every command of a group prints JSON with --json', async () => {
    const silo1 = json(await silo('silos', 'create', '--name', 'j', '--data', '{}', '--json'));
    const hook = json(await silo('webhooks', 'create', '--url', 'https://example.org/j', '--json'));
    const runs: string[][] = [
      ['accounts', 'create', 'gamma', '--json'],
      ['accounts', 'list', '--json'],
      ['keys', 'create', '--type', 'access', '--name', 'j', '--json'],
      ['keys', 'list', '--json'],
      ['keys', 'revoke', '--type', 'access', '--name', 'j', '--confirm', 'j', '--json'],
      ['users', 'create', '--name', 'jay', '--json'],
      ['users', 'list', '--json'],
      ['users', 'delete', '--name', 'jay', '--confirm', 'jay', '--json'],
      ['silos', 'list', '--json'],
      ['silos', 'get', silo1.file_uuid, '--json'],
      ['silos', 'delete', silo1.file_uuid, '--confirm', 'j', '--json'],
      ['webhooks', 'list', '--json'],
      ['webhooks', 'delete', hook.id, '--confirm', hook.id, '--json'],
      ['accounts', 'delete', 'gamma', '--confirm', 'gamma', '--json'],
    ];
    const covered = new Set(runs.map((argv) => `${argv[0]} ${argv[1]}`));
    for (const command of Object.keys(SPECS)) if (!['silos create', 'webhooks create'].includes(command)) expect(covered, command).toContain(command);
    for (const argv of runs) {
      const r = ok(await silo(...argv));
      expect(() => JSON.parse(r.stdout), argv.join(' ')).not.toThrow();
      expect(r.stdout.trim().split('\n'), argv.join(' ')).toHaveLength(1);
    }
  });
});

describe('key expiry', () => {
  it('access keys may expire (--duration), shown in lists; keys expiring within 7 days are called out', async () => {
    const week = json(await silo('keys', 'create', '--type', 'access', '--name', 'weekly-reader', '--duration', '7d', '--json'));
    expect(week).toMatchObject({ type: 'access', duration: '7d', expires_at: expect.stringMatching(/Z$/) });
    const forever = json(await silo('keys', 'create', '--type', 'access', '--name', 'forever-reader', '--json'));
    expect(forever).not.toHaveProperty('expires_at');
    const text = ok(await silo('keys', 'list'));
    expect(text.stdout).toMatch(/access\s+weekly-reader\s+\S+\s+\S+Z \(in 7 days\)\s+all/);
    expect(text.stdout).toMatch(/access\s+forever-reader\s+\S+\s+never\s+all/);
    expect(text.stdout).toMatch(/^Warning: access key "weekly-reader" expires in 7 days \(\S+Z\): replace it with silo keys create --account default --type access --name NAME --duration 90d, then revoke it\.$/m);
    // With --json, stdout stays one JSON value; the warning goes to stderr.
    const asJson = await silo('keys', 'list', '--json');
    expect(JSON.parse(asJson.stdout).find((k: { name: string }) => k.name === 'weekly-reader')).toMatchObject({ duration: '7d' });
    expect(asJson.stderr).toMatch(/Warning: access key "weekly-reader" expires in 7 days/);
  });

  it("says an account's key limit in the command's words (no API `body:`), exit 1: the command failed, it was not misused", async () => {
    const r = await siloWith({ env: { SILO_MAX_KEYS: '1' } }, 'keys', 'create', '--type', 'access', '--name', 'one-too-many');
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^silo keys create: an account may have at most 1 keys: revoke one first$/m);
  });
});

describe('the start of silo serve', () => {
  it('the first-start banner says when the manage key stops working, and how to make a longer-lived one', async () => {
    const { bannerText } = await import('../src/serve.js');
    const now = Date.parse('2026-11-22T02:26:16.643Z');
    const key = (type: 'manage' | 'access', expires_at?: string | null) => ({ type, name: 'default', account: 'default', created_at: '2026-11-22T02:26:16.643Z', key: `silo_${type === 'manage' ? 'man' : 'acc'}_x`, ...(expires_at !== undefined ? { expires_at } : {}) });
    const text = bannerText('http://localhost:8080', { manage: key('manage', '2026-12-22T02:26:16.643Z'), access: key('access'), admin: { name: 'admin', password: 'pw' } }, now);
    expect(text).toContain('  manage key "default" (expires 2026-12-22T02:26:16.643Z, in 30 days): silo_man_x\n');
    expect(text).toMatch(/The manage key stops working in 30 days: before then, make one that lasts longer\n\(npx silo keys create --type manage --name NAME --duration 365d\)/);
    expect(text).toMatch(/More keys: .*\n$/);
  });

  it("the banner's commands reach the server's storage: its data directory in front when it is not the default", async () => {
    const { bannerText, commandStorage } = await import('../src/serve.js');
    const { loadStorageConfig } = await import('../src/config.js');
    const at = (env: Record<string, string>) => commandStorage(loadStorageConfig(env, {}, '/srv/app'), '/srv/app');
    expect(at({})).toEqual({ prefix: '', sameStoreUrl: false });
    expect(at({ SILO_DATA_DIR: '/tmp/new user/data' })).toEqual({ prefix: "SILO_DATA_DIR='/tmp/new user/data' ", sameStoreUrl: false });
    expect(at({ SILO_DATA_DIR: 'data' })).toEqual({ prefix: 'SILO_DATA_DIR=/srv/app/data ', sameStoreUrl: false });
    expect(at({ SILO_STORE_URL: 'redis://:secret@127.0.0.1:6379/3' })).toEqual({ prefix: '', sameStoreUrl: true });
    const key = (type: 'manage' | 'access') => ({ type, name: 'default', account: 'default', created_at: '2026-11-22T02:26:16.643Z', key: `silo_${type}_x`, expires_at: '2026-12-22T02:26:16.643Z' });
    const text = bannerText('http://localhost:8080', { manage: key('manage'), access: key('access'), admin: { name: 'admin', password: 'pw' } }, Date.parse('2026-11-22T02:26:16.643Z'), 'SILO_DATA_DIR=/d ', true);
    expect(text).toContain('(SILO_DATA_DIR=/d npx silo keys create --type manage --name NAME --duration 365d)');
    expect(text).toContain('More keys: SILO_DATA_DIR=/d npx silo keys create');
    expect(text).toContain('(Run them with the same SILO_STORE_URL as this server.)');
  });

  it("the banner's commands run this silo: npx silo where npx finds it, else node and the bin's path (never a registry lookup)", async () => {
    const { bannerText, siloCommand } = await import('../src/serve.js');
    const repo = path.resolve(import.meta.dirname, '../../..');
    const bin = path.join(repo, 'packages/silo-server/bin/silo.js');
    expect(siloCommand(repo, bin)).toBe('npx silo');
    expect(siloCommand(path.join(repo, 'packages'), bin)).toBe('node silo-server/bin/silo.js');
    const elsewhere = fs.mkdtempSync(path.join(os.tmpdir(), 'silo-banner-'));
    expect(siloCommand(elsewhere, bin)).toBe(`node ${bin}`);
    fs.rmSync(elsewhere, { recursive: true });
    const key = (type: 'manage' | 'access') => ({ type, name: 'default', account: 'default', created_at: '2026-11-22T02:26:16.643Z', key: `silo_${type}_x` });
    const text = bannerText('http://localhost:8080', { manage: key('manage'), access: key('access'), admin: { name: 'admin', password: 'pw' } }, 0, '', false, `node ${bin}`);
    expect(text).toContain(`More keys: node ${bin} keys create --type manage --name NAME; more console users: node ${bin} users create --name NAME   (node ${bin} --help)`);
    expect(text).not.toContain('npx');
  });

  it('names, for every account, the keys that expire within 7 days', async () => {
    const { expiringKeys } = await import('../src/cli/serve.js');
    ok(await silo('accounts', 'create', 'delta'));
    ok(await silo('keys', 'create', '--account', 'delta', '--type', 'manage', '--name', 'soon', '--duration', '7d'));
    ok(await silo('keys', 'create', '--account', 'delta', '--type', 'manage', '--name', 'later', '--duration', '90d'));
    const { silo: server, stores } = await openSilo(loadStorageConfig(env, {}, dir), silentLogger);
    try {
      const lines = await expiringKeys(server.accounts);
      expect(lines.filter((l) => l.includes('--account delta'))).toEqual([expect.stringMatching(/^Warning: manage key "soon" expires in 7 days \(\S+Z\): replace it with silo keys create --account delta --type manage --name NAME --duration 90d, then revoke it\.$/)]);
    } finally {
      await server.close();
      await stores.close();
    }
  });
});
