/**
 * Upgrading in place: a storage file written by Silo before versions existed (main at 012eef4,
 * made by fixtures/main-012eef4: three silos in three regions, one updated twice and moved, one
 * deleted) is opened by this version. Every silo and key is still there, each silo becomes version
 * 1 of a versioned silo on its first read, and the old records are gone once read.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NotFoundError, type Silo } from 'koa-silo';
import { loadStorageConfig } from '../src/config.js';
import { silentLogger } from '../src/log.js';
import { openSilo } from '../src/serve.js';
import type { SqliteStore } from '../src/sqlite-store.js';
import type { Stores } from '../src/stores.js';

interface Expected {
  accessKey: string;
  silos: { uuid: string; file_name: string; region_name: 'api' | 'sg-01-api' | 'usc-01-api'; is_public: boolean; data: unknown }[];
  deleted: string;
}

const fixture = new URL('./fixtures/main-012eef4/', import.meta.url);
const expected = JSON.parse(fs.readFileSync(new URL('expected.json', fixture), 'utf8')) as Expected;

describe('a storage file written before versions existed', () => {
  let dir: string;
  let silo: Silo;
  let stores: Stores;

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'silo-upgrade-'));
    fs.copyFileSync(new URL('silo.sqlite', fixture), path.join(dir, 'silo.sqlite'));
    const { store } = loadStorageConfig({ SILO_DATA_DIR: dir }, {}, dir);
    ({ silo, stores } = await openSilo({ store, sqliteSynchronous: 'normal' }, silentLogger));
  });

  afterAll(async () => {
    await silo?.close();
    await stores?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const legacyKeys = () =>
    (stores.main.keyv.store as SqliteStore).database.prepare("SELECT key FROM main WHERE key LIKE 'silo:meta:%'").pluck().all();

  it('keeps the account, its keys, and the listing', async () => {
    expect((await silo.accounts.listAccounts()).map((a) => a.name)).toEqual(['default']);
    expect((await silo.accounts.listKeys('default')).map((k) => `${k.type} ${k.name}`).sort()).toEqual(['access default', 'manage default']);
    expect((await silo.accounts.authenticate(expected.accessKey, 'access')).account).toBe('default');
    const page = await silo.silos.list('default', 1, 25);
    expect(page.metadata.total_items).toBe(3);
    expect(new Set(page.silos.map((s) => s.file_uuid))).toEqual(new Set(expected.silos.map((s) => s.uuid)));
    expect(page.silos.every((s) => s.version === 1)).toBe(true);
  });

  it('serves every silo as version 1, with its data, name, region and visibility', async () => {
    expect(legacyKeys()).toHaveLength(0); // the listing above read (and upgraded) them all
    for (const s of expected.silos) {
      const meta = await silo.silos.meta('default', s.uuid);
      expect(meta).toMatchObject({ file_name: s.file_name, region_name: s.region_name, is_public: s.is_public, version: 1 });
      expect(JSON.parse((await silo.silos.readData(s.region_name, s.uuid, 'default')).text)).toEqual(s.data);
      expect((await silo.silos.versions('default', s.uuid, 1, 10)).versions.map((v) => v.version)).toEqual([1]);
    }
    const pub = expected.silos.find((s) => s.is_public)!;
    expect(JSON.parse((await silo.silos.readData(pub.region_name, pub.uuid, undefined)).text)).toEqual(pub.data);
    await expect(silo.silos.meta('default', expected.deleted)).rejects.toBeInstanceOf(NotFoundError);
  });

  it('writes version 2 on the next update, and leaves no old record or orphan behind', async () => {
    const s = expected.silos[0]!;
    const updated = await silo.silos.update('default', s.uuid, { file_data: { upgraded: true } });
    expect(updated.record.version).toBe(2);
    expect((await silo.silos.version('default', s.uuid, 1)).text).toBe(JSON.stringify(s.data));
    const db = (stores.main.keyv.store as SqliteStore).database;
    for (const table of ['region_api', 'region_sg_01_api', 'region_usc_01_api']) {
      expect(db.prepare(`SELECT count(*) FROM ${table} WHERE key LIKE 'silo:data:%'`).pluck().get()).toBe(0);
    }
    expect(await silo.sweep()).toMatchObject({ removed: 0 });
  });
});
