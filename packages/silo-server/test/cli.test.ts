/**
 * The `silo` command in-process (`main(argv, io)`), over a temporary data directory: every error
 * case and output format, quickly. cli.e2e.test.ts spawns the real command for a sample of them.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../src/cli.js';
import { SPECS } from '../src/cli/spec.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'silo-cli-unit-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

/** `silo ...argv` run in `where.cwd` with `where.env` (default: the test's data directory). */
async function siloIn(where: { cwd: string; env: Record<string, string> }, ...argv: string[]): Promise<Result> {
  let stdout = '';
  let stderr = '';
  const code = await main(argv, { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), env: where.env, cwd: where.cwd });
  return { code, stdout, stderr };
}
const silo = (...argv: string[]) => siloIn({ cwd: dir, env: { SILO_DATA_DIR: path.join(dir, 'data') } }, ...argv);

/** How every message of `silo ...argv` starts: `silo COMMAND: `, or `silo: ` when argv names no command. */
function prefixOf(argv: string[]): string {
  const [first, second] = argv;
  if (first !== undefined && ['serve', 'export', 'import', 'migrate'].includes(first)) return `silo ${first}: `;
  if (first !== undefined && ['keys', 'accounts', 'users', 'silos', 'webhooks'].includes(first)) {
    return second !== undefined && `${first} ${second}` in SPECS ? `silo ${first} ${second}: ` : `silo ${first}: `;
  }
  return 'silo: ';
}

/** The store line a command writes to stderr once it has opened the store. */
const STORE_LINE = /^silo (keys|accounts|users|silos|webhooks) [a-z]+: store sqlite:\/\/\/\S+( \(new and empty: created now\))?$/;

/**
 * A failure: nothing on stdout; on stderr the store line if the store was opened, then one line
 * that starts like every message of that command.
 */
function fails(argv: string[], r: Result, code: number, pattern: RegExp): void {
  const context = JSON.stringify({ argv, ...r });
  expect(r.code, context).toBe(code);
  expect(r.stdout, context).toBe('');
  expect(r.stderr.endsWith('\n'), context).toBe(true);
  const lines = r.stderr.trimEnd().split('\n');
  expect(lines.length, context).toBeLessThanOrEqual(2);
  if (lines.length === 2) expect(lines[0], context).toMatch(STORE_LINE);
  expect(lines.at(-1)!.startsWith(prefixOf(argv)), context).toBe(true);
  expect(`${lines.at(-1)}\n`, context).toMatch(pattern);
}

describe('silo (in-process)', () => {
  it('help for every command', async () => {
    for (const argv of [['--help'], ['help'], [], ['serve', '--help'], ['keys', 'create', '--help'], ['keys', 'list', '-h'], ['keys', 'revoke', '--help'], ['accounts', 'create', '--help'], ['help', 'keys', 'revoke'], ['keys', '--help'], ['help', 'keys'], ['help', 'accounts'], ['help', 'serve']]) {
      const r = await silo(...argv);
      expect(r.code, argv.join(' ')).toBe(0);
      expect(r.stdout, argv.join(' ')).toMatch(/Usage/);
    }
    expect((await silo('serve', '--help')).stdout).toContain('SILO_TLS_CERT');
    expect((await silo('keys', 'create', '--help')).stdout).toContain('SILO_STORE_URL');
    fails(['keys'], await silo('keys'), 2, /^silo keys: which command\?/);
  });

  it('silo help GROUP, as --help advertises `silo help [COMMAND]`, is the same as silo GROUP --help', async () => {
    expect((await silo('--help')).stdout).toContain('silo help [COMMAND]');
    for (const group of ['keys', 'accounts']) {
      const viaHelp = await silo('help', group);
      expect(viaHelp).toEqual(await silo(group, '--help'));
      expect(viaHelp.stdout).toMatch(new RegExp(`^Usage: silo ${group} create`));
    }
    expect((await silo('help', 'accounts')).stdout).toContain('Usage: silo accounts list');
    expect((await silo('help', 'keys')).stdout).toContain('Usage: silo keys revoke');
  });

  it('the main help lists silo audit list, and silo help audit is silo audit --help', async () => {
    expect((await silo('--help')).stdout).toContain('silo audit list [--account NAME]');
    const viaHelp = await silo('help', 'audit');
    expect(viaHelp.code).toBe(0);
    expect(viaHelp.stdout).toContain((await silo('audit', '--help')).stdout.trim());
  });

  it('keys: create, list (text and JSON), revoke', async () => {
    const created = await silo('keys', 'create', '--type', 'manage', '--name', 'ci', '--duration', '7d', '--create');
    expect(created.code).toBe(0);
    expect(created.stdout).toMatch(/^Created manage key "ci" for account "default", expires \S+Z\.\nsilo_man_\S+\nThis value is shown once/);
    const access = JSON.parse((await silo('keys', 'create', '--type', 'access', '--name', 'reader', '--json')).stdout) as Record<string, unknown>;
    expect(Object.keys(access).sort()).toEqual(['account', 'created_at', 'key', 'name', 'type']);

    const text = await silo('keys', 'list');
    // A key that expires within 7 days is called out under the table, with what to do about it.
    expect(text.stdout).toMatch(/^TYPE\s+NAME\s+CREATED\s+EXPIRES\s+SILOS\nmanage\s+ci\s+\S+\s+\S+Z \(in 7 days\)\s+all\naccess\s+reader\s+\S+\s+never\s+all\n\nWarning: manage key "ci" expires in 7 days \(\S+Z\): replace it with silo keys create --account default --type manage --name NAME --duration 90d, then revoke it\.\n$/);
    const list = JSON.parse((await silo('keys', 'list', '--json')).stdout) as Array<Record<string, unknown>>;
    expect(list).toEqual([
      { type: 'manage', name: 'ci', account: 'default', created_at: expect.any(String), duration: '7d', expires_at: expect.any(String) },
      { type: 'access', name: 'reader', account: 'default', created_at: expect.any(String) },
    ]);

    const revoked = await silo('keys', 'revoke', '--type', 'access', '--name', 'reader', '--confirm', 'reader');
    expect(revoked).toEqual({ code: 0, stdout: 'Revoked access key "reader" of account "default".\n', stderr: `silo keys revoke: store sqlite://${path.join(dir, 'data', 'silo.sqlite')}\n` });
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

  it('every error is one line (after the store line, once a store is open) starting "silo COMMAND: "; exit 1 when the command failed, 2 when it was misused', async () => {
    const cases: Array<[string[], number, RegExp]> = [
      [['keys', 'create', '--type', 'manage', '--name', 'ci'], 1, /^silo keys create: the account already has a manage key named "ci"\n$/],
      [['keys', 'create', '--type', 'admin', '--name', 'x'], 2, /^silo keys create: --type must be manage or access, got "admin"\n$/],
      [['keys', 'create', '--name', 'x'], 2, /^silo keys create: --type is required \(manage or access\)\n$/],
      [['keys', 'create', '--type', 'manage'], 2, /^silo keys create: --name is required/],
      [['keys', 'create', '--type', 'manage', '--name', ''], 2, /^silo keys create: --name is required/],
      [['keys', 'create', '--type', 'manage', '--name', 'x', '--duration', '2d'], 2, /--duration must be one of 7d, 30d, 90d, 365d, never, got "2d"/],
      [['keys', 'create', '--type', 'manage', '--name', 'x', '--frobnicate'], 2, /^silo keys create: unknown option '--frobnicate' \(see silo keys create --help\)\n$/],
      [['keys', 'create', '--type', 'manage', '--name'], 2, /^silo keys create: option '--name <value>' argument missing/],
      [['keys', 'create', '--type', 'manage', '--name', 'x', 'extra'], 2, /^silo keys create: unexpected argument "extra"/],
      [['keys', 'create', '--type', 'manage', '--name', 'x', '--account', 'ghost'], 1, /^silo keys create: account "ghost" does not exist \(create it with: silo accounts create ghost\)\n$/],
      [['keys', 'create', '--type', 'manage', '--name', '   '], 2, /^silo keys create: a key name is 1 to 100 characters.* \(see silo keys create --help\)\n$/],
      [['keys', 'create', '--type', 'manage', '--name', 'k'.repeat(101)], 2, /^silo keys create: a key name is 1 to 100 characters/],
      [['keys', 'revoke', '--type', 'manage', '--name', 'ci'], 2, /^silo keys revoke: --confirm is required/],
      [['keys', 'revoke', '--type', 'manage', '--name', 'ci', '--confirm', 'CI'], 2, /does not match --name "ci"; nothing was revoked/],
      [['keys', 'revoke', '--type', 'access', '--name', 'nobody', '--confirm', 'nobody'], 1, /^silo keys revoke: no access key named "nobody" in account "default"\n$/],
      [['keys', 'revoke', '--name', 'ci', '--confirm', 'ci'], 2, /--type is required/],
      [['keys', 'list', '--account', 'ghost'], 1, /^silo keys list: account "ghost" does not exist/],
      [['keys', 'frob'], 2, /^silo keys: unknown command "frob"/],
      [['accounts', 'create', 'acme'], 1, /^silo accounts create: an account named "acme" exists\n$/],
      [['accounts', 'create', 'bad name'], 2, /^silo accounts create: an account name is 1 to 64 characters/],
      [['accounts', 'create', 'a'.repeat(65)], 2, /^silo accounts create: an account name is 1 to 64 characters/],
      [['accounts', 'create'], 2, /^silo accounts create: missing NAME/],
      [['accounts', 'create', 'a', 'b'], 2, /^silo accounts create: unexpected argument "b"/],
      [['accounts', 'delete', 'acme'], 2, /^silo accounts delete: --confirm is required \(repeat the account name to confirm\)\n$/],
      [['keys', 'create', '--type', 'access', '--name', 'x', '--silos', `${'0'.repeat(8)}-0000-4000-8000-${'0'.repeat(12)},nope`], 2, /silos\.1 \(counting from 0\) is not one/],
      [['frobnicate'], 2, /^silo: unknown command "frobnicate" \(see silo --help\)\n$/],
      [['help', 'frobnicate'], 2, /^silo: unknown command "frobnicate"/],
      [['keys', 'list', '--store-url', 'mysql://x'], 2, /^silo keys list: --store-url: unsupported store URL "mysql:\/\/x"/],
      [['migrate', '--to', 'mysql://x'], 2, /^silo migrate: --to: unsupported store URL "mysql:\/\/x"/],
      [['keys', 'list', '--sqlite-sync', 'off'], 2, /^silo keys list: --sqlite-sync must be normal or full/],
      [['serve', '--port', 'eighty'], 2, /^silo serve: --port must be a port number from 0 to 65535, got "eighty"\n$/],
      [['serve', '--bogus'], 2, /^silo serve: unknown option '--bogus'/],
      [['keys', 'list', '--port', '80'], 2, /^silo keys list: unknown option '--port'/],
    ];
    for (const [argv, code, pattern] of cases) fails(argv, await silo(...argv), code, pattern);
    // The refused revocations revoked nothing.
    expect(JSON.parse((await silo('keys', 'list', '--json')).stdout).map((k: { name: string }) => k.name)).toContain('ci');
  });

  it('storage settings work as flags on every command', async () => {
    const other = path.join(dir, 'other');
    expect((await silo('keys', 'create', '--type', 'access', '--name', 'elsewhere', '--data-dir', other, '--create')).code).toBe(0);
    expect(fs.existsSync(path.join(other, 'silo.sqlite'))).toBe(true);
    expect((await silo('keys', 'list', '--json', '--store-url', `sqlite://${path.join(other, 'silo.sqlite')}`)).stdout).toContain('elsewhere');
    expect((await silo('keys', 'list', '--json')).stdout).not.toContain('elsewhere');
  });
});

describe('silo: which store a command opens', () => {
  // A project directory where the server ran (its default store, ./.silo-data), and a directory below it.
  const project = path.join(dir, 'project');
  const below = path.join(project, 'docs', 'notes');
  const projectStore = path.join(project, '.silo-data');
  const inProject = { cwd: project, env: {} };
  const inBelow = { cwd: below, env: {} };

  it('a command that creates the store says so; every command names the store it opened, on stderr', async () => {
    fs.mkdirSync(below, { recursive: true });
    const created = await siloIn(inProject, 'accounts', 'create', 'acme', '--create');
    expect(created.code).toBe(0);
    expect(created.stderr).toBe(`silo accounts create: store sqlite://${projectStore}/silo.sqlite (new and empty: created now)\n`);
    const runs: string[][] = [
      ['keys', 'create', '--type', 'access', '--name', 'reader', '--json'],
      ['keys', 'list', '--json'],
      ['accounts', 'list', '--json'],
      ['keys', 'revoke', '--type', 'access', '--name', 'reader', '--confirm', 'reader', '--json'],
    ];
    for (const argv of runs) {
      const r = await siloIn(inProject, ...argv);
      expect(r.code, argv.join(' ')).toBe(0);
      expect(r.stderr).toBe(`silo ${argv[0]} ${argv[1]}: store sqlite://${projectStore}/silo.sqlite\n`);
      expect(() => JSON.parse(r.stdout), r.stdout).not.toThrow();
    }
  });

  it('from another directory, every command refuses to create a store (unless told --create) and says where the one in use is', async () => {
    const looked = path.join(below, '.silo-data', 'silo.sqlite');
    const reads = [['keys', 'list'], ['keys', 'list', '--json'], ['accounts', 'list'], ['users', 'list'], ['silos', 'list'], ['webhooks', 'list']];
    const writes = [['keys', 'revoke', '--type', 'manage', '--name', 'x', '--confirm', 'x'], ['users', 'delete', '--name', 'x', '--confirm', 'x']];
    // Those that make something: the trap of issue 27 (a key printed for a store no server uses).
    const creates = [
      ['keys', 'create', '--type', 'manage', '--name', 'ci'],
      ['users', 'create', '--name', 'ann'],
      ['accounts', 'create', 'acme'],
      ['silos', 'create', '--name', 'x', '--data', '{}'],
      ['webhooks', 'create', '--url', 'https://example.org/hook'],
    ];
    for (const [argv, stop, orCreate] of [...reads.map((a) => [a, 'nothing to read', '']), ...writes.map((a) => [a, 'nothing written', '']), ...creates.map((a) => [a, 'nothing written', ' \\(or pass --create to make a new, empty store there\\)'])] as Array<[string[], string, string]>) {
      const r = await siloIn(inBelow, ...argv);
      fails(argv, r, 1, new RegExp(`^${prefixOf(argv)}no store at ${looked} \\(SILO_DATA_DIR unset: \\./\\.silo-data of the current directory\\), ${stop}: there is one in ${projectStore}: run the command from ${project}, or set SILO_DATA_DIR=${projectStore} \\(or --data-dir\\)${orCreate}\n$`));
      expect(r.stderr.split('\n')).toHaveLength(2); // the refusal only: no store was opened
    }
    expect(fs.existsSync(path.join(below, '.silo-data'))).toBe(false);

    // Following the advice reaches the project's store.
    const listed = await siloIn({ cwd: below, env: { SILO_DATA_DIR: projectStore } }, 'accounts', 'list', '--json');
    expect(listed.code).toBe(0);
    expect((JSON.parse(listed.stdout) as Array<{ name: string }>).map((a) => a.name)).toContain('acme');
    expect(listed.stderr).toBe(`silo accounts list: store sqlite://${projectStore}/silo.sqlite\n`);
  });

  it('a store named by a setting that is not there: the message names the setting', async () => {
    const nowhere = path.join(dir, 'nowhere');
    const byEnv = await siloIn({ cwd: dir, env: { SILO_DATA_DIR: nowhere } }, 'keys', 'list');
    fails(['keys', 'list'], byEnv, 1, /^silo keys list: no store at \S+nowhere\/silo\.sqlite \(set by SILO_DATA_DIR\), nothing to read: point SILO_DATA_DIR at the store the server uses\n$/);
    const byFlag = await siloIn({ cwd: dir, env: { SILO_DATA_DIR: nowhere } }, 'accounts', 'list', '--store-url', `sqlite://${nowhere}/x.sqlite`);
    fails(['accounts', 'list'], byFlag, 1, /\(set by --store-url\)/);
    expect(fs.existsSync(nowhere)).toBe(false);
  });

  it('users create, list and delete console users; a password is shown once or read from stdin', async () => {
    const env = { SILO_DATA_DIR: path.join(dir, 'users') };
    const made = await siloIn({ cwd: dir, env }, 'users', 'create', '--name', 'ann', '--create');
    expect(made.code, made.stderr).toBe(0);
    expect(made.stdout).toMatch(/^Created console user "ann" of account "default"\. Password \(shown once\):\n[A-Za-z0-9_-]{20}\nSign in at \/console of the server\.\n$/);
    let stdout = '';
    const piped = await main(['users', 'create', '--name', 'bob', '--password-stdin', '--json'], {
      stdout: (t) => (stdout += t),
      stderr: () => undefined,
      env,
      cwd: dir,
      stdin: Readable.from(['correct horse battery\n']),
    });
    expect(piped).toBe(0);
    expect(JSON.parse(stdout)).toEqual({ name: 'bob', account: 'default', created_at: expect.any(String) });
    const list = await siloIn({ cwd: dir, env }, 'users', 'list');
    expect(list.stdout).toMatch(/^NAME\s+ACCOUNT\s+CREATED\nann\s+default\s+\S+\nbob\s+default\s+\S+\n$/);
    expect(list.stdout).not.toContain('scrypt');
    expect((await siloIn({ cwd: dir, env }, 'users', 'create', '--name', 'ann')).code).toBe(1);
    expect((await siloIn({ cwd: dir, env }, 'users', 'delete', '--name', 'ann', '--confirm', 'bob')).code).toBe(2);
    expect((await siloIn({ cwd: dir, env }, 'users', 'delete', '--name', 'ann', '--confirm', 'ann')).code).toBe(0);
    expect((await siloIn({ cwd: dir, env }, 'users', 'list', '--json')).stdout).toMatch(/^\[\{"name":"bob"/);
  });
});
