/**
 * What the transfer tests share: a store filled through Silo's own services (accounts, keys whose
 * values are kept to authenticate with later, silos with history: updates, JSON Patch appends so
 * that tails exist, region moves, pruning by a short history; webhooks, one with a silo filter;
 * console users whose passwords are known, to sign in with later), the `silo` command run in-process
 * with an input and captured output, and exports compared line by line.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable, Writable } from 'node:stream';
import { createClient } from '@keyv/redis';
import Database from 'better-sqlite3';
import { REGIONS, type KeyType } from 'koa-silo';
import { main } from '../src/cli.js';
import { openSilo } from '../src/serve.js';
import { silentLogger } from '../src/log.js';
import { parseStoreUrl } from '../src/stores.js';
import { oneStore, openStorage, type OpenedStorage } from '../src/transfer/open-storage.js';
import { TEST_REDIS_URL } from '../../../test/support/redis.js';

/** The one database of the test Redis that transfer tests own (flushed before and after). */
export const TRANSFER_REDIS_DB = 9;

export function transferRedisUrl(): string {
  const url = new URL(TEST_REDIS_URL);
  url.pathname = `/${TRANSFER_REDIS_DB}`;
  return url.toString();
}

/** FLUSHDB of database 9 only. */
export async function flushTransferRedis(): Promise<void> {
  const client = createClient({ url: transferRedisUrl(), socket: { connectTimeout: 2000, reconnectStrategy: false } });
  await client.connect();
  try {
    await client.sendCommand(['FLUSHDB']);
  } finally {
    await client.close();
  }
}

const dirs: string[] = [];

/** A sqlite:// URL of a new file in a fresh temporary directory (removed by removeTempDirs). */
export function sqliteUrl(label: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `silo-transfer-${label}-`));
  dirs.push(dir);
  return `sqlite://${path.join(dir, 'silo.sqlite')}`;
}

export function tempFile(label: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `silo-transfer-${label}-`));
  dirs.push(dir);
  return path.join(dir, 'export.jsonl');
}

export function removeTempDirs(): void {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
}

export interface KeyValue {
  account: string;
  type: KeyType;
  value: string;
}

export interface SeedShape {
  accounts: number;
  silos: number;
  /** Kept versions per silo (older ones pruned). */
  history?: number;
  /** Webhooks (default true): one for every silo of each account, and a second, filtered to one silo, on even accounts. */
  webhooks?: boolean;
  /** Console users (default false): one per account, made in reverse account order (see seededUsers). */
  users?: boolean;
}

export interface SeededUser {
  name: string;
  account: string;
  password: string;
}

/** The console users seed makes for `accounts` accounts when asked: `user-i` of account `team-i`. */
export const seededUsers = (accounts: number): SeededUser[] =>
  Array.from({ length: accounts }, (_, i) => ({ name: `user-${i}`, account: `team-${i}`, password: `the password of user ${i}` }));

/** The webhooks seed makes for `accounts` accounts. */
export const seededWebhooks = (accounts: number): number => accounts + Math.ceil(accounts / 2);

/**
 * Fills the (empty) store at `url` through Silo's services; returns the key values made. Silo i:
 * an object silo updated i % 4 times, or (every third) an array silo appended to by JSON Patch;
 * every fifth moves to another region; every seventh is public. Webhooks are made last (no
 * delivery is owed then): account i has one for every event of every silo, and, when i is even,
 * one for updates and deletes of its first silo only.
 */
export async function seed(url: string, shape: SeedShape): Promise<KeyValue[]> {
  const { silo, stores } = await openSilo(
    // Private addresses allowed: webhook URLs are not looked up in DNS then (none is called).
    { store: oneStore(parseStoreUrl(url)), sqliteSynchronous: 'normal', historyVersions: shape.history ?? 3, webhookAllowPrivate: true },
    silentLogger,
  );
  const keys: KeyValue[] = [];
  try {
    const accounts = Array.from({ length: shape.accounts }, (_, i) => `team-${i}`);
    for (const account of accounts) {
      await silo.accounts.createAccount(account);
      for (const type of ['manage', 'access'] as const) {
        const created = await silo.accounts.createKey({ account, type, name: `${type}-key`, ...(type === 'manage' ? { duration: 'never' as const } : {}) });
        keys.push({ account, type, value: created.key });
      }
    }
    const firstSilo = new Map<string, string>();
    const one = async (i: number) => {
      const account = accounts[i % accounts.length]!;
      const region = REGIONS[i % REGIONS.length]!;
      const array = i % 3 === 0;
      const created = await silo.silos.createText(
        account,
        { file_name: `silo ${i} “é”`, region_name: region, is_public: i % 7 === 0 },
        array ? `[{"n":${i}}]` : `{"n":${i},"text":"${'x'.repeat(i % 50)}","float":1.50}`,
      );
      const uuid = created.file_uuid;
      if (i < accounts.length) firstSilo.set(account, uuid);
      for (let v = 0; v < i % 4; v++) {
        if (array) await silo.silos.patch(account, uuid, { type: 'json-patch', operations: [{ op: 'add', path: '/file_data/-', value: { n: i, v } }] });
        else await silo.silos.updateText(account, uuid, { file_name: `silo ${i} v${v}` }, `{"n":${i},"v":${v}}`);
      }
      if (i % 5 === 0) await silo.silos.update(account, uuid, { region_name: REGIONS[(i + 1) % REGIONS.length]! });
    };
    // A few at a time: quicker, and created_at values that tie are listed by uuid, as on every engine.
    for (let i = 0; i < shape.silos; i += 8) await Promise.all(Array.from({ length: Math.min(8, shape.silos - i) }, (_, j) => one(i + j)));
    if (shape.webhooks ?? true) {
      for (const [i, account] of accounts.entries()) {
        await silo.webhooks.create(account, { url: `https://hooks.example.test/${account}`, events: ['silo.created', 'silo.updated', 'silo.deleted'] });
        const only = firstSilo.get(account);
        if (i % 2 === 0) {
          await silo.webhooks.create(account, { url: `https://hooks.example.test/${account}/one?x=1`, events: ['silo.updated', 'silo.deleted'], ...(only ? { silos: [only] } : {}) });
        }
      }
    }
    // Last account first: an export lists them by account, not in the order they were made.
    if (shape.users) for (const user of seededUsers(shape.accounts).reverse()) await silo.console.createUser(user);
  } finally {
    await silo.close();
    await stores.close();
  }
  return keys;
}

/** Whether every key value still authenticates, as its account and type, on the store at `url`. */
export async function authenticates(url: string, keys: KeyValue[]): Promise<boolean> {
  const { silo, stores } = await openSilo({ store: oneStore(parseStoreUrl(url)), sqliteSynchronous: 'normal' }, silentLogger);
  try {
    for (const key of keys) {
      const principal = await silo.accounts.authenticate(key.value, key.type);
      if (principal.account !== key.account) return false;
    }
    return true;
  } finally {
    await silo.close();
    await stores.close();
  }
}

/** Whether every user signs in with its password on the store at `url` (and not with another). */
export async function signsIn(url: string, users: SeededUser[]): Promise<boolean> {
  const { silo, stores } = await openSilo({ store: oneStore(parseStoreUrl(url)), sqliteSynchronous: 'normal' }, silentLogger);
  try {
    for (const user of users) {
      const signed = await silo.console.signIn(user.name, user.password);
      if (signed?.who.user !== user.name || signed.who.account !== user.account) return false;
      if (await silo.console.signIn(user.name, `${user.password}!`)) return false;
    }
    return true;
  } finally {
    await silo.close();
    await stores.close();
  }
}

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** `silo ARGS` in this process, with `stdin` as its input; SILO_STORE_URL is `store` when given, beside `env`. */
export async function silo(args: string[], opts: { store?: string; stdin?: string; env?: Record<string, string> } = {}): Promise<Run> {
  let stdout = '';
  let stderr = '';
  const code = await main(args, {
    stdout: (t) => void (stdout += t),
    stderr: (t) => void (stderr += t),
    env: { ...opts.env, ...(opts.store ? { SILO_STORE_URL: opts.store } : {}) },
    cwd: os.tmpdir(),
    stdin: Readable.from(opts.stdin === undefined ? [] : [Buffer.from(opts.stdin)]),
    stdoutStream: new Writable({ write: (chunk: Buffer, _enc, done) => ((stdout += chunk.toString()), done()) }),
  });
  return { code, stdout, stderr };
}

/** The export of the store at `url` (the command must succeed). */
export async function exportOf(url: string): Promise<string> {
  const run = await silo(['export'], { store: url });
  if (run.code !== 0) throw new Error(`export of ${url} failed: ${run.stderr}`);
  return run.stdout;
}

/**
 * An export without the audit entries that imports wrote (each import records one per account):
 * its other lines, and its counts line with those entries not counted.
 */
export function withoutImports(text: string): string {
  const lines = text.trimEnd().split('\n');
  const kept = lines.filter((l) => !(l.startsWith('{"record":"audit"') && l.includes('"action":"import"')));
  const removed = lines.length - kept.length;
  return `${kept.map((l) => (l.startsWith('{"record":"counts"') ? l.replace(/"audit":(\d+)/, (_, n: string) => `"audit":${Number(n) - removed}`) : l)).join('\n')}\n`;
}

/** An export's lines sorted, without the entries of imports: equal for the same logical store whatever engine held it. */
export const sorted = (text: string): string[] => withoutImports(text).trimEnd().split('\n').sort();

/** Every row of every table of a SQLite store (0: nothing of Silo is left in it). */
export function sqliteRows(url: string): number {
  const db = new Database(parseStoreUrl(url).url.slice('sqlite://'.length), { readonly: true });
  try {
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[];
    return tables.reduce((n, t) => n + (db.prepare(`SELECT count(*) AS c FROM "${t.name}"`).get() as { c: number }).c, 0);
  } finally {
    db.close();
  }
}

/** `use` with the storage of store URL `url`, closed afterwards. */
export async function withStorage<T>(url: string, use: (opened: OpenedStorage) => Promise<T>): Promise<T> {
  const opened = await openStorage(oneStore(parseStoreUrl(url)));
  try {
    return await use(opened);
  } finally {
    await opened.close();
  }
}
