/**
 * The `silo` command in-process (`main(argv, io)`), over a temporary data directory: every error
 * case and output format, quickly. cli.e2e.test.ts spawns the real command for a sample of them.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../src/cli.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'silo-cli-unit-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

async function silo(...argv: string[]): Promise<Result> {
  let stdout = '';
  let stderr = '';
  const code = await main(argv, {
    stdout: (t) => (stdout += t),
    stderr: (t) => (stderr += t),
    env: { SILO_DATA_DIR: path.join(dir, 'data') },
    cwd: dir,
  });
  return { code, stdout, stderr };
}

function fails(r: Result, code: number, pattern: RegExp): void {
  const context = JSON.stringify(r);
  expect(r.code, context).toBe(code);
  expect(r.stdout, context).toBe('');
  expect(r.stderr.endsWith('\n'), context).toBe(true);
  expect(r.stderr.trimEnd().split('\n'), context).toHaveLength(1);
  expect(r.stderr, context).toMatch(pattern);
}

describe('silo (in-process)', () => {
  it('help for every command', async () => {
    for (const argv of [['--help'], ['help'], [], ['serve', '--help'], ['keys', 'create', '--help'], ['keys', 'list', '-h'], ['keys', 'revoke', '--help'], ['accounts', 'create', '--help'], ['help', 'keys', 'revoke'], ['keys', '--help']]) {
      const r = await silo(...argv);
      expect(r.code, argv.join(' ')).toBe(0);
      expect(r.stdout, argv.join(' ')).toMatch(/Usage/);
    }
    expect((await silo('serve', '--help')).stdout).toContain('SILO_TLS_CERT');
    expect((await silo('keys', 'create', '--help')).stdout).toContain('SILO_STORE_URL');
    fails(await silo('keys'), 2, /^silo keys: which command\?/);
  });

  it('keys: create, list (text and JSON), revoke', async () => {
    const created = await silo('keys', 'create', '--type', 'manage', '--name', 'ci', '--duration', '7d');
    expect(created.code).toBe(0);
    expect(created.stdout).toMatch(/^Created manage key "ci" for account "default", expires \S+Z\.\nsilo_man_\S+\nThis value is shown once/);
    const access = JSON.parse((await silo('keys', 'create', '--type', 'access', '--name', 'reader', '--json')).stdout) as Record<string, unknown>;
    expect(Object.keys(access).sort()).toEqual(['account', 'created_at', 'key', 'name', 'type']);

    const text = await silo('keys', 'list');
    expect(text.stdout).toMatch(/^TYPE\s+NAME\s+CREATED\s+EXPIRES\nmanage\s+ci\s+\S+\s+\S+Z\naccess\s+reader\s+\S+\s+-\n$/);
    const list = JSON.parse((await silo('keys', 'list', '--json')).stdout) as Array<Record<string, unknown>>;
    expect(list).toEqual([
      { type: 'manage', name: 'ci', account: 'default', created_at: expect.any(String), duration: '7d', expires_at: expect.any(String) },
      { type: 'access', name: 'reader', account: 'default', created_at: expect.any(String) },
    ]);

    const revoked = await silo('keys', 'revoke', '--type', 'access', '--name', 'reader', '--confirm', 'reader');
    expect(revoked).toEqual({ code: 0, stdout: 'Revoked access key "reader" of account "default".\n', stderr: '' });
    expect(JSON.parse((await silo('keys', 'list', '--json')).stdout)).toHaveLength(1);
  });

  it('accounts: create, list, and keys of another account', async () => {
    expect((await silo('accounts', 'create', 'acme')).stdout).toMatch(/^Created account "acme" \(plan default\)/);
    expect(JSON.parse((await silo('keys', 'create', '--account', 'acme', '--type', 'manage', '--name', 'ci', '--json')).stdout)).toMatchObject({ account: 'acme', name: 'ci', duration: '30d' });
    expect((await silo('keys', 'list', '--account', 'acme')).stdout).toMatch(/manage\s+ci/);
    expect((await silo('accounts', 'list')).stdout).toMatch(/^NAME\s+PLAN\s+CREATED\n/);
    const accounts = JSON.parse((await silo('accounts', 'list', '--json')).stdout) as Array<{ name: string }>;
    expect(accounts.map((a) => a.name).sort()).toEqual(['acme', 'default']);
    // Same key name in another account, or of another type: allowed.
    expect((await silo('keys', 'create', '--type', 'access', '--name', 'ci')).code).toBe(0);
  });

  it('every error is one line, exit 1 when the command failed, 2 when it was misused', async () => {
    const cases: Array<[string[], number, RegExp]> = [
      [['keys', 'create', '--type', 'manage', '--name', 'ci'], 1, /^silo: .*already has a manage key named "ci"\n$/],
      [['keys', 'create', '--type', 'admin', '--name', 'x'], 2, /^silo keys create: --type must be manage or access, got "admin"\n$/],
      [['keys', 'create', '--name', 'x'], 2, /^silo keys create: --type is required \(manage or access\)\n$/],
      [['keys', 'create', '--type', 'manage'], 2, /^silo keys create: --name is required/],
      [['keys', 'create', '--type', 'manage', '--name', ''], 2, /^silo keys create: --name is required/],
      [['keys', 'create', '--type', 'manage', '--name', 'x', '--duration', '2d'], 2, /--duration must be one of 7d, 30d, 90d, 365d, never, got "2d"/],
      [['keys', 'create', '--type', 'access', '--name', 'x', '--duration', '7d'], 2, /--duration applies to manage keys only/],
      [['keys', 'create', '--type', 'manage', '--name', 'x', '--frobnicate'], 2, /^silo keys create: unknown option '--frobnicate' \(see silo keys create --help\)\n$/],
      [['keys', 'create', '--type', 'manage', '--name'], 2, /^silo keys create: option '--name <value>' argument missing/],
      [['keys', 'create', '--type', 'manage', '--name', 'x', 'extra'], 2, /^silo keys create: unexpected argument "extra"/],
      [['keys', 'create', '--type', 'manage', '--name', 'x', '--account', 'ghost'], 1, /^silo: account "ghost" does not exist \(create it with: silo accounts create ghost\)\n$/],
      [['keys', 'create', '--type', 'manage', '--name', '   '], 1, /^silo: A key name is 1 to 100 characters/],
      [['keys', 'revoke', '--type', 'manage', '--name', 'ci'], 2, /^silo keys revoke: --confirm is required/],
      [['keys', 'revoke', '--type', 'manage', '--name', 'ci', '--confirm', 'CI'], 2, /does not match --name "ci"; nothing was revoked/],
      [['keys', 'revoke', '--type', 'access', '--name', 'nobody', '--confirm', 'nobody'], 1, /^silo: No access key named "nobody" in account "default"\n$/],
      [['keys', 'revoke', '--name', 'ci', '--confirm', 'ci'], 2, /--type is required/],
      [['keys', 'list', '--account', 'ghost'], 1, /^silo: account "ghost" does not exist/],
      [['keys', 'frob'], 2, /^silo keys: unknown command "frob"/],
      [['accounts', 'create', 'acme'], 1, /^silo: An account named "acme" exists\n$/],
      [['accounts', 'create', 'bad name'], 1, /^silo: An account name is 1 to 64 characters/],
      [['accounts', 'create'], 2, /^silo accounts create: missing NAME/],
      [['accounts', 'create', 'a', 'b'], 2, /^silo accounts create: unexpected argument "b"/],
      [['frobnicate'], 2, /^silo: unknown command "frobnicate" \(see silo --help\)\n$/],
      [['help', 'frobnicate'], 2, /^silo: unknown command "frobnicate"/],
      [['keys', 'list', '--store-url', 'postgres://x'], 1, /^silo: --store-url: unsupported store URL "postgres:\/\/x"/],
      [['keys', 'list', '--sqlite-sync', 'off'], 1, /^silo: --sqlite-sync must be normal or full/],
      [['serve', '--port', 'eighty'], 1, /^silo: --port must be a port number from 0 to 65535, got "eighty"\n$/],
      [['serve', '--bogus'], 2, /^silo serve: unknown option '--bogus'/],
      [['keys', 'list', '--port', '80'], 2, /^silo keys list: unknown option '--port'/],
    ];
    for (const [argv, code, pattern] of cases) fails(await silo(...argv), code, pattern);
    // The refused revocations revoked nothing.
    expect(JSON.parse((await silo('keys', 'list', '--json')).stdout).map((k: { name: string }) => k.name)).toContain('ci');
  });

  it('storage settings work as flags on every command', async () => {
    const other = path.join(dir, 'other');
    expect((await silo('keys', 'create', '--type', 'access', '--name', 'elsewhere', '--data-dir', other)).code).toBe(0);
    expect(fs.existsSync(path.join(other, 'silo.sqlite'))).toBe(true);
    expect((await silo('keys', 'list', '--json', '--store-url', `sqlite://${path.join(other, 'silo.sqlite')}`)).stdout).toContain('elsewhere');
    expect((await silo('keys', 'list', '--json')).stdout).not.toContain('elsewhere');
  });
});
