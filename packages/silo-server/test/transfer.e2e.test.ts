/**
 * The transfer commands through the real `silo` binary (dist, spawned): `silo export | silo import`
 * as a shell would pipe them (stdout to stdin), the help texts, and a bad input's one line and exit
 * code. Exported data goes to stdout only; store lines and progress to stderr.
 */
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanup, ensureBuilt, SILO_BIN, siloEnv } from '../../../test/support/silo-process.js';
import { authenticates, exportOf, removeTempDirs, seed, sorted, sqliteUrl } from './transfer-fixtures.js';

beforeAll(() => ensureBuilt(), 120_000);
afterAll(async () => {
  await cleanup();
  removeTempDirs();
});

interface Done {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `silo ARGS` spawned on the store at `store`, with its stdin from `input` (a string or another command's stdout). */
function spawnSilo(args: string[], store: string, input?: string | NodeJS.ReadableStream) {
  const child = spawn(process.execPath, [SILO_BIN, ...args], { env: siloEnv({ SILO_STORE_URL: store }), stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
  if (typeof input === 'string') child.stdin.end(input);
  else if (input) input.pipe(child.stdin);
  else child.stdin.end();
  return {
    child,
    /** Collects stdout too (unless it is piped on). */
    done(collect = true): Promise<Done> {
      if (collect) child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
      return new Promise((resolve, reject) => {
        child.once('error', reject);
        child.once('close', (code) => {
          clearTimeout(timer);
          resolve({ code, stdout, stderr });
        });
      });
    },
  };
}

describe('silo export | silo import (spawned)', () => {
  it('pipes a store into a new one: the same export; the keys authenticate; data on stdout only', async () => {
    const source = sqliteUrl('e2e-src');
    const target = sqliteUrl('e2e-dst');
    const keys = await seed(source, { accounts: 2, silos: 40 });
    const exporting = spawnSilo(['export'], source);
    const importing = spawnSilo(['import'], target, exporting.child.stdout);
    const [exported, imported] = await Promise.all([exporting.done(false), importing.done()]);
    expect(exported.code, exported.stderr).toBe(0);
    expect(imported.code, imported.stderr).toBe(0);
    expect(exported.stderr).toMatch(/^silo export: store sqlite:\/\/.*\nsilo export: 40 silos to go\nsilo export: 40\/40 silos in .*: 2 accounts, 4 keys, 40 silos, \d+ versions, 3 webhooks, 0 users, \d+ audit entries\n$/);
    expect(imported.stderr).toMatch(/silo import: 40\/40 silos in .*: 2 accounts, 4 keys, 40 silos, \d+ versions, 3 webhooks/);
    expect(imported.stdout).toBe('');
    expect(sorted(await exportOf(target))).toEqual(sorted(await exportOf(source)));
    expect(await authenticates(target, keys)).toBe(true);
  }, 60_000);

  it('export to stdout is the whole export: header first, counts last', async () => {
    const source = sqliteUrl('e2e-stdout');
    await seed(source, { accounts: 1, silos: 5 });
    const run = await spawnSilo(['export'], source).done();
    expect(run.code, run.stderr).toBe(0);
    const lines = run.stdout.trimEnd().split('\n');
    expect(JSON.parse(lines[0]!)).toEqual({ record: 'silo-export', version: 1, silos: 5 });
    expect(JSON.parse(lines.at(-1)!)).toMatchObject({ record: 'counts', accounts: 1, keys: 2, silos: 5 });
  }, 30_000);

  it('a malformed line from stdin: one line with its number, exit 1, no stack', async () => {
    const target = sqliteUrl('e2e-bad');
    const run = await spawnSilo(['import'], target, '{"record":"silo-export","version":1}\n{"record":"account","name":"a",\n').done();
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr.trimEnd().split('\n').at(-1)).toBe('silo import: line 2: not JSON; nothing was imported (what this import wrote is removed again)');
    expect(run.stderr).not.toMatch(/\n\s+at /);
  }, 30_000);

  it('help for the three commands; migrate without --to is a usage error (exit 2)', async () => {
    const store = sqliteUrl('e2e-help');
    const [main, exp, imp, mig, bad] = await Promise.all([
      spawnSilo(['--help'], store).done(),
      spawnSilo(['help', 'export'], store).done(),
      spawnSilo(['import', '--help'], store).done(),
      spawnSilo(['help', 'migrate'], store).done(),
      spawnSilo(['migrate', '--from', store], store).done(),
    ]);
    for (const text of ['silo export [--out FILE]', 'silo import [--in FILE]', 'silo migrate [--from URL] --to URL']) expect(main.stdout).toContain(text);
    expect(exp.stdout).toMatch(/^Usage: silo export \[--out FILE\]/);
    expect(imp.stdout).toMatch(/^Usage: silo import \[--in FILE\][\s\S]*into empty storage/);
    expect(mig.stdout).toMatch(/^Usage: silo migrate \[--from URL\] --to URL/);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe('silo migrate: --to is required (the empty store URL to copy into)\n');
  }, 30_000);
});
