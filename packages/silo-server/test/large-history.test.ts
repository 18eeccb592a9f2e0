/**
 * A silo's history of large versions, moved and deleted on the embedded store. A region move copies
 * the data of every kept version; a delete (and a move, and pruning) frees it. Both were work in
 * proportion to the whole history on the event loop: a silo of 20 versions of 9 MB held it 1.8 s
 * to move (every other request waited, and the move ended in a 503: the puts, all queued at once
 * on SQLite's large-row thread, outlived their time limit) and 420 ms to delete. A move now copies
 * one version at a time, read off the event loop and put before the next is read; large blobs are
 * freed after the commit that lets them go, one at a time, off the event loop.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import type { Silo } from 'koa-silo';
import { afterAll, afterEach, expect, it } from 'vitest';
import { loadStorageConfig } from '../src/config.js';
import { silentLogger } from '../src/log.js';
import { openConfiguredStores, openSilo } from '../src/serve.js';
import type { Stores } from '../src/stores.js';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'silo-history-'));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

/** Over the size (256 K characters) whose blobs are put before a commit rather than in it. */
const dataOf = (v: number) => ({ v, s: 'x'.repeat(300_000) });

let opened: { silo: Silo; stores: Stores; file: string } | undefined;
afterEach(async () => {
  await opened?.silo.close();
  await opened?.stores.close();
  opened = undefined;
});

/** A server's Silo on a fresh SQLite file, with a silo of six large versions in region api. */
async function siloWithHistory() {
  const dir = fs.mkdtempSync(path.join(root, 'case-'));
  const config = loadStorageConfig({ SILO_DATA_DIR: dir }, {}, dir);
  const stores = await openConfiguredStores(config, silentLogger);
  const { silo } = await openSilo(config, silentLogger, undefined, stores);
  opened = { silo, stores, file: path.join(dir, 'silo.sqlite') };
  await silo.accounts.createAccount('a');
  const { file_uuid: uuid } = await silo.silos.create('a', { file_name: 'long', file_data: dataOf(1) });
  for (let v = 2; v <= 6; v++) await silo.silos.update('a', uuid, { file_data: dataOf(v) });
  return { silo, stores, uuid };
}

type Methods = Record<string, (...args: unknown[]) => Promise<unknown>>;
const isBlob = (key: string) => key.includes(':blob:');

/** Records, in order, what `store`'s methods do with blobs, each under the name given. */
function record(calls: string[], store: unknown, methods: Record<string, string>): void {
  const adapter = store as Methods;
  for (const [method, said] of Object.entries(methods)) {
    const original = adapter[method]!.bind(adapter);
    adapter[method] = async (...args: unknown[]) => {
      const keys = Array.isArray(args[0]) ? (args[0] as string[]) : [args[0] as string];
      if (keys.some(isBlob)) calls.push(said);
      return original(...args);
    };
  }
}

/** The blob rows of a region's table, as another connection to the file sees them. */
function blobRows(stores: Stores, region: 'api' | 'sg-01-api'): number {
  const { table } = (stores.regions[region].keyv.store as { opts: { table: string } }).opts;
  const db = new Database(opened!.file, { readonly: true });
  try {
    return (db.prepare(`SELECT count(*) AS n FROM "${table}" WHERE key LIKE '%:blob:%'`).get() as { n: number }).n;
  } finally {
    db.close();
  }
}

it('a move copies a long history of large versions one at a time, each read off the event loop, and keeps every version', async () => {
  const { silo, stores, uuid } = await siloWithHistory();
  const calls: string[] = [];
  record(calls, stores.regions.api.keyv.store, { get: 'read on the event loop', getMany: 'read on the event loop', getLarge: 'read', delete: 'freed on the event loop', deleteLarge: 'freed' });
  record(calls, stores.regions['sg-01-api'].keyv.store, { set: 'put' });

  const moved = await silo.silos.patch('a', uuid, { type: 'merge', patch: { region_name: 'sg-01-api' } });
  expect(moved.record.region_name).toBe('sg-01-api');
  expect(JSON.parse(moved.text)).toEqual(dataOf(6));
  // The answer's data is read first (after the commit the old region's copies are freed); the patch itself reads none.
  expect(calls).toEqual(['read', ...Array.from({ length: 6 }, () => ['read', 'put']).flat(), ...Array(6).fill('freed')]);
  for (let v = 1; v <= 6; v++) expect(JSON.parse((await silo.silos.version('a', uuid, v)).text)).toEqual(dataOf(v));
  expect(JSON.parse((await silo.silos.read('a', uuid)).text)).toEqual(dataOf(6));
  expect([blobRows(stores, 'api'), blobRows(stores, 'sg-01-api')]).toEqual([0, 6]);
});

it('a delete frees a long history of large versions after its commit, one at a time, off the event loop', async () => {
  const { silo, stores, uuid } = await siloWithHistory();
  const calls: string[] = [];
  record(calls, stores.regions.api.keyv.store, { delete: 'freed on the event loop', deleteMany: 'freed on the event loop', deleteLarge: 'freed' });
  await silo.silos.delete('a', uuid);
  expect(calls).toEqual(Array(6).fill('freed'));
  expect(blobRows(stores, 'api')).toBe(0);
  await expect(silo.silos.meta('a', uuid)).rejects.toThrow();
});
