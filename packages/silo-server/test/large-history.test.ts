/**
 * A region move copies the data of every kept version to the new region. On the embedded store it
 * read them all at once, on the event loop, then put them all at once: a silo of 20 versions of
 * 9 MB held the event loop 1.8 s (every other request waited) and its move ended in a 503, the
 * puts queued on SQLite's large-row thread outliving their time limit. A move now copies one
 * version at a time, read off the event loop and put before the next is read.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { loadStorageConfig } from '../src/config.js';
import { silentLogger } from '../src/log.js';
import { openConfiguredStores, openSilo } from '../src/serve.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'silo-move-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** Over the size (256 K characters) whose blobs are put before a commit rather than in it. */
const dataOf = (v: number) => ({ v, s: 'x'.repeat(300_000) });

it('copies a long history of large versions one at a time, each read off the event loop, and keeps every version', async () => {
  const config = loadStorageConfig({ SILO_DATA_DIR: dir }, {}, dir);
  const stores = await openConfiguredStores(config, silentLogger);
  const { silo } = await openSilo(config, silentLogger, undefined, stores);
  try {
    await silo.accounts.createAccount('a');
    const { file_uuid: uuid } = await silo.silos.create('a', { file_name: 'long', file_data: dataOf(1) });
    for (let v = 2; v <= 6; v++) await silo.silos.update('a', uuid, { file_data: dataOf(v) });

    // What the move does with blobs: read from the old region's table, put into the new one's.
    const calls: string[] = [];
    const isBlob = (key: string) => key.includes(':blob:');
    const source = stores.regions.api.keyv.store as Record<string, (...args: never[]) => Promise<unknown>>;
    const target = stores.regions['sg-01-api'].keyv.store as Record<string, (...args: never[]) => Promise<unknown>>;
    for (const [store, method, said] of [
      [source, 'get', 'read on the event loop'],
      [source, 'getMany', 'read on the event loop'],
      [source, 'getLarge', 'read'],
      [target, 'set', 'put'],
    ] as const) {
      const original = store[method]!.bind(store) as (...args: unknown[]) => Promise<unknown>;
      (store as Record<string, unknown>)[method] = async (...args: unknown[]) => {
        const keys = Array.isArray(args[0]) ? (args[0] as string[]) : [args[0] as string];
        if (keys.some(isBlob)) calls.push(said);
        return original(...args);
      };
    }

    const moved = await silo.silos.patch('a', uuid, { type: 'merge', patch: { region_name: 'sg-01-api' } });
    expect(moved.record.region_name).toBe('sg-01-api');
    // The patch reads the current data first (a merge patch is applied to the whole document).
    expect(calls).toEqual(['read', ...Array.from({ length: 6 }, () => ['read', 'put']).flat()]);
    for (let v = 1; v <= 6; v++) expect(JSON.parse((await silo.silos.version('a', uuid, v)).text)).toEqual(dataOf(v));
    expect(JSON.parse((await silo.silos.read('a', uuid)).text)).toEqual(dataOf(6));
  } finally {
    await silo.close();
    await stores.close();
  }
});
