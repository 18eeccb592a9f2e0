/**
 * The server's log warns about manage keys close to their expiry (at start, then daily): which
 * account and key, never the key's value.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Silo } from 'koa-silo';
import { loadStorageConfig } from '../src/config.js';
import { warnExpiringKeys, watchKeyExpiry } from '../src/key-expiry.js';
import { createLogger, silentLogger } from '../src/log.js';
import { openSilo } from '../src/serve.js';
import type { Stores } from '../src/stores.js';

const DAY_MS = 86_400_000;
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'silo-key-expiry-'));
let silo: Silo;
let stores: Stores;
const values: string[] = [];

beforeAll(async () => {
  ({ silo, stores } = await openSilo(loadStorageConfig({ SILO_DATA_DIR: tmp }, {}, tmp), silentLogger));
  const accounts = silo.accounts;
  await accounts.createAccount('default');
  await accounts.createAccount('acme');
  for (const key of [
    { account: 'default', type: 'manage', name: 'soon', duration: '7d' },
    { account: 'default', type: 'manage', name: 'later', duration: '30d' },
    { account: 'default', type: 'manage', name: 'forever', duration: 'never' },
    { account: 'default', type: 'access', name: 'reader' },
    { account: 'acme', type: 'manage', name: 'deploy', duration: '7d' },
  ] as const) {
    values.push((await accounts.createKey(key)).key);
  }
});
afterAll(async () => {
  await silo.close();
  await stores.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

/** The JSON log lines that `fn` writes. */
async function logged(fn: (logger: ReturnType<typeof createLogger>) => Promise<unknown>): Promise<Array<Record<string, unknown>>> {
  let text = '';
  await fn(createLogger((line) => (text += line)));
  for (const value of values) expect(text).not.toContain(value);
  expect(text).not.toMatch(/silo_(man|acc)_/);
  return text.trimEnd().split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe('warnings about manage keys close to expiry', () => {
  it('one warn line per manage key that expires within 7 days: account, name, when; never its value', async () => {
    const lines = await logged((logger) => warnExpiringKeys(silo.accounts, logger));
    expect(lines.map((l) => [l.level, l.msg, l.account, l.name])).toEqual([
      ['warn', 'manage key expires soon', 'default', 'soon'],
      ['warn', 'manage key expires soon', 'acme', 'deploy'],
    ]);
    expect(lines[0]).toMatchObject({ expires_at: expect.stringMatching(/Z$/), expires_in_hours: 167, action: expect.stringContaining('silo keys create --account default --type manage') });
  });

  it('a key that expired within the last 7 days is a warning too; older ones and far ones are not', async () => {
    const afterEight = await logged((logger) => warnExpiringKeys(silo.accounts, logger, Date.now() + 8 * DAY_MS));
    expect(afterEight.map((l) => [l.msg, l.account, l.name])).toEqual([
      ['manage key has expired', 'default', 'soon'],
      ['manage key has expired', 'acme', 'deploy'],
    ]);
    // 15 days on: the 7-day keys expired 8 days ago, the 30-day key has 15 days left.
    expect(await logged((logger) => warnExpiringKeys(silo.accounts, logger, Date.now() + 15 * DAY_MS))).toEqual([]);
    const near30 = await logged((logger) => warnExpiringKeys(silo.accounts, logger, Date.now() + 25 * DAY_MS));
    expect(near30.map((l) => l.name)).toEqual(['later']);
  });

  it('the watch checks at once, then at every interval, until stopped', async () => {
    let text = '';
    const watch = watchKeyExpiry(silo.accounts, createLogger((line) => (text += line)), 100);
    await new Promise((resolve) => setTimeout(resolve, 350));
    await watch.stop();
    const checks = () => text.split('\n').filter((l) => l.includes('"name":"soon"')).length;
    expect(checks()).toBeGreaterThanOrEqual(2);
    expect(checks()).toBeLessThanOrEqual(5);
    const stoppedAt = checks();
    await new Promise((resolve) => setTimeout(resolve, 250));
    expect(checks()).toBe(stoppedAt);
    for (const value of values) expect(text).not.toContain(value);
  });
});

describe('warnings about access keys given an expiry', () => {
  it('warns about an access key that expires within 7 days as about a manage key', async () => {
    const reader = await silo.accounts.createKey({ account: 'acme', type: 'access', name: 'weekly-reader', duration: '7d' });
    values.push(reader.key);
    try {
      const lines = await logged((logger) => warnExpiringKeys(silo.accounts, logger));
      expect(lines.filter((l) => l.name === 'weekly-reader')).toEqual([
        expect.objectContaining({ level: 'warn', msg: 'access key expires soon', account: 'acme', action: expect.stringContaining('--type access') }),
      ]);
    } finally {
      await silo.accounts.revokeKey({ account: 'acme', type: 'access', name: 'weekly-reader', confirm: 'weekly-reader' });
    }
  });
});
