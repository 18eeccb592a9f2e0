/**
 * The `silo` command end to end, spawned on a temporary data directory: accounts and keys, --json,
 * errors (one line on stderr, non-zero exit, no stack), and a revocation seen by a running server.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanup, ensureBuilt, eventually, runSilo, startSilo, tempDir, type RunResult } from '../../../test/support/silo-process.js';

beforeAll(() => ensureBuilt(), 120_000);
afterAll(() => cleanup());

const dir = tempDir('cli');
const env = { SILO_DATA_DIR: path.join(dir, 'data') };
const silo = (...args: string[]) => runSilo(args, { env, cwd: dir });

/** A failure: the store line if a store was opened, then one line for the error. */
function failsWith(r: RunResult, code: number, pattern: RegExp): void {
  const context = JSON.stringify(r);
  expect(r.code, context).toBe(code);
  expect(r.stdout, context).toBe('');
  const lines = r.stderr.trimEnd().split('\n');
  expect(lines.length, context).toBeLessThanOrEqual(2);
  if (lines.length === 2) expect(lines[0], context).toMatch(/^silo [a-z]+ [a-z]+: store /);
  expect(lines.at(-1), context).toMatch(pattern);
}

describe('silo command', () => {
  it('--help lists the commands and every setting; --version', async () => {
    const [help, version] = await Promise.all([silo('--help'), silo('--version')]);
    expect(help.code).toBe(0);
    for (const text of ['silo serve', 'silo accounts create NAME', 'silo keys create --type manage|access --name NAME', 'silo keys list', 'silo keys revoke', 'PORT', 'SILO_STORE_URL', 'SILO_RATE_LIMIT_PER_MINUTE']) {
      expect(help.stdout).toContain(text);
    }
    expect(version.stdout).toMatch(/^silo \d+\.\d+\.\d+\n$/);
  }, 20_000);

  it('keys create --json prints one object with the value; keys list never shows values', async () => {
    // The first command makes the store (--create); the others find it.
    const first = await silo('accounts', 'create', 'first', '--create');
    expect(first.code, first.stderr).toBe(0);
    const [manage, access, never] = await Promise.all([
      silo('keys', 'create', '--type', 'manage', '--name', 'deploy', '--duration', '90d', '--json'),
      silo('keys', 'create', '--type', 'access', '--name', 'reader', '--json'),
      silo('keys', 'create', '--type', 'manage', '--name', 'forever', '--duration', 'never'),
    ]);
    expect(manage.code, manage.stderr).toBe(0);
    const m = JSON.parse(manage.stdout) as Record<string, unknown>;
    expect(m).toMatchObject({ type: 'manage', name: 'deploy', account: 'default', duration: '90d', key: expect.stringMatching(/^silo_man_[A-Za-z0-9_-]{43,}$/) });
    expect(Date.parse(m.expires_at as string) - Date.parse(m.created_at as string)).toBe(90 * 86_400_000);
    expect(manage.stdout.trim().split('\n')).toHaveLength(1);

    expect(access.code, access.stderr).toBe(0);
    const a = JSON.parse(access.stdout) as Record<string, unknown>;
    expect(a).toMatchObject({ type: 'access', name: 'reader', account: 'default', key: expect.stringMatching(/^silo_acc_/) });
    expect(a).not.toHaveProperty('expires_at');

    expect(never.code).toBe(0);
    expect(never.stdout).toMatch(/Created manage key "forever" for account "default", never expires\.\nsilo_man_\S+\n/);

    const list = await silo('keys', 'list', '--json');
    expect(list.code).toBe(0);
    const keys = JSON.parse(list.stdout) as Array<Record<string, unknown>>;
    expect(keys.map((k) => `${k.type}:${k.name}`).sort()).toEqual(['access:reader', 'manage:deploy', 'manage:forever']);
    for (const k of keys) expect(k).not.toHaveProperty('key');
    expect(list.stdout).not.toMatch(/silo_(man|acc)_/);
    expect(list.stdout).not.toContain(m.key as string);

  }, 30_000);

  it('errors: one line on stderr, exit 1 (failed) or 2 (misused), never a stack', async () => {
    // A sample, spawned; every case is checked in-process in cli.test.ts.
    const results = await Promise.all([
      silo('keys', 'create', '--type', 'manage', '--name', 'deploy'),
      silo('keys', 'revoke', '--type', 'access', '--name', 'reader', '--confirm', 'raeder'),
      runSilo(['keys', 'list'], { env: { SILO_STORE_URL: 'nosql://x' }, cwd: dir }),
    ]);
    const expected: Array<[number, RegExp]> = [
      [1, /^silo keys create: .*already has a manage key named "deploy"/],
      [2, /^silo keys revoke: --confirm "raeder" does not match --name "reader"; nothing was revoked$/],
      [2, /^silo keys list: SILO_STORE_URL: unsupported store URL "nosql:\/\/x"/],
    ];
    for (const [i, r] of results.entries()) {
      failsWith(r, expected[i]![0], expected[i]![1]);
      expect(r.stderr).not.toMatch(/\n\s+at /);
    }
    // Nothing was revoked by the refused commands.
    const list = await silo('keys', 'list', '--json');
    expect(list.code, list.stderr).toBe(0);
    expect((JSON.parse(list.stdout) as Array<{ name: string }>).some((k) => k.name === 'reader')).toBe(true);
  }, 30_000);

  it('a key revoked with the command stops working on the running server within 1 s', async () => {
    // A storage of its own, so that the server's first start prints a manage and an access key.
    const own = { SILO_DATA_DIR: path.join(dir, 'revoke') };
    const server = await startSilo({ env: own, cwd: dir });
    try {
      const { manage, access } = server.keys!;
      const create = await server.fetch('/api/v1/manage/', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-MAN-API': manage },
        body: JSON.stringify({ file_name: 'r', file_data: { ok: true } }),
      });
      expect(create.status).toBe(201);
      const { file_uuid } = (await create.json()) as { file_uuid: string };
      expect((await server.fetch(`/${file_uuid}`, { headers: { 'X-SILO-KEY': access } })).status).toBe(200);

      const [revokeManage, revokeAccess] = await Promise.all([
        runSilo(['keys', 'revoke', '--type', 'manage', '--name', 'default', '--confirm', 'default'], { env: own, cwd: dir }),
        runSilo(['keys', 'revoke', '--type', 'access', '--name', 'default', '--confirm', 'default', '--json'], { env: own, cwd: dir }),
      ]);
      expect(revokeManage.stdout).toBe('Revoked manage key "default" of account "default".\n');
      expect(JSON.parse(revokeAccess.stdout)).toEqual({ revoked: true, type: 'access', name: 'default', account: 'default' });
      const took = await eventually(async () => {
        const [m, a] = await Promise.all([
          server.fetch('/api/v1/manage/silos', { headers: { 'X-MAN-API': manage } }),
          server.fetch(`/${file_uuid}`, { headers: { 'X-SILO-KEY': access } }),
        ]);
        return m.status === 401 && a.status === 401;
      }, 1000);
      expect(took).toBeLessThanOrEqual(1000);
    } finally {
      expect((await server.stop()).code).toBe(0);
    }
  }, 30_000);

  it('with no settings, silo serve and the command use the same store of the current directory; from below it, the command refuses and points at it', async () => {
    const project = tempDir('project');
    const below = path.join(project, 'src');
    fs.mkdirSync(below);
    const store = `sqlite://${path.join(project, '.silo-data', 'silo.sqlite')}`;
    const server = await startSilo({ env: {}, cwd: project });
    try {
      expect(server.logs().find((l) => l.msg === 'listening')).toMatchObject({ store, instances: 'processes on this machine sharing the file' });
      const list = await runSilo(['keys', 'list'], { env: {}, cwd: project });
      expect(list.stderr).toBe(`silo keys list: store ${store}\n`);
      // Both keys of the first start (created in the same millisecond, they may come in either order).
      expect(list.stdout).toMatch(/^TYPE\s+NAME\s+CREATED\s+EXPIRES\s+SILOS\n/);
      expect(list.stdout).toMatch(/\nmanage\s+default\s+\S+\s+\S+Z \(in 30 days\)\s+all\n/);
      expect(list.stdout).toMatch(/\naccess\s+default\s+\S+\s+never\s+all\n/);

      const elsewhere = await runSilo(['keys', 'list'], { env: {}, cwd: below });
      failsWith(elsewhere, 1, new RegExp(`^silo keys list: no store at ${below}/\\.silo-data/silo\\.sqlite .*there is one in ${project}/\\.silo-data`));
      expect(fs.existsSync(path.join(below, '.silo-data'))).toBe(false);
    } finally {
      expect((await server.stop()).code).toBe(0);
    }
  }, 30_000);

  it('silo help keys and silo help accounts', async () => {
    const [keys, accounts] = await Promise.all([silo('help', 'keys'), silo('help', 'accounts')]);
    expect([keys.code, keys.stderr]).toEqual([0, '']);
    // Each command in full, with its options (issue 27: usage lines alone said nothing of --silos or the durations).
    expect(keys.stdout).toMatch(/^Usage: silo keys create [^]*--silos UUID,\.\.\.[^]*\nUsage: silo keys list [^]*\nUsage: silo keys revoke /);
    expect([accounts.code, accounts.stdout]).toEqual([0, expect.stringMatching(/^Usage: silo accounts create NAME [^]*\nUsage: silo accounts list [^]*\nUsage: silo accounts delete NAME /)]);
  }, 20_000);

  it('silo serve warns at start about a manage key that expires within 7 days: account and name, never the value', async () => {
    const own = { SILO_DATA_DIR: path.join(dir, 'expiry') };
    const created = await runSilo(['keys', 'create', '--type', 'manage', '--name', 'weekly', '--duration', '7d', '--json', '--create'], { env: own, cwd: dir });
    const { key } = JSON.parse(created.stdout) as { key: string };
    const listed = await runSilo(['keys', 'list'], { env: own, cwd: dir });
    expect(listed.stdout).toMatch(/manage\s+weekly\s+\S+\s+\S+Z \(in 7 days\)\s+all\n/);

    const server = await startSilo({ env: own, cwd: dir });
    try {
      await eventually(async () => server.logs().some((l) => l.msg === 'manage key expires soon'), 5000);
      const warnings = server.logs().filter((l) => l.level === 'warn');
      expect(warnings).toEqual([expect.objectContaining({ msg: 'manage key expires soon', account: 'default', name: 'weekly', expires_in_hours: 167 })]);
      // And in words, on stderr, for the person who started it.
      await eventually(async () => /Silo: Warning: manage key "weekly" expires in 7 days/.test(server.stderr()), 5000);
      expect(server.stdout() + server.stderr()).not.toContain(key);
    } finally {
      expect((await server.stop()).code).toBe(0);
    }
  }, 30_000);
});
