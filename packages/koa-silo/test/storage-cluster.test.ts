/**
 * The storage contract on a real Redis Cluster of the test's own (three masters on spare ports):
 * every commit's keys must share a hash slot, or Redis refuses the script with CROSSSLOT.
 */
import { randomBytes } from 'node:crypto';
import Keyv from 'keyv';
import KeyvRedis, { createCluster } from '@keyv/redis';
import { afterAll, describe, expect, it } from 'vitest';
import { startOwnCluster, type OwnCluster } from '../../../test/support/redis-cluster.js';
import { haveRedisServer } from '../../../test/support/redis-server.js';
import { createServices } from '../src/service/index.js';
import { createStorage, storageKeys } from '../src/storage/index.js';
import { storageContract } from '../src/testing/index.js';

const ready = haveRedisServer();
if (!ready) {
  if (process.env.CI === 'true') throw new Error('redis-server is required in CI for the Redis Cluster tests');
  console.warn('\n!!! SKIPPING Redis Cluster tests: redis-server is not on PATH. !!!\n');
}
const cluster: OwnCluster | undefined = ready ? await startOwnCluster() : undefined;
const namespace = `silo-cluster-${randomBytes(4).toString('hex')}`;
const keyvs: Keyv[] = [];

async function makeClusterKeyv(): Promise<Keyv> {
  const client = createCluster({ rootNodes: [{ url: cluster!.url }] });
  // Connected before use: a cluster client sends nothing until it has learnt the slots.
  await client.connect();
  const keyv = new Keyv({ store: new KeyvRedis(client), namespace });
  keyvs.push(keyv);
  return keyv;
}

afterAll(async () => {
  await Promise.all(keyvs.splice(0).map((keyv) => keyv.disconnect().catch(() => undefined)));
  await cluster?.dispose();
});

storageContract('Redis Cluster (@keyv/redis)', makeClusterKeyv, { skip: !ready, multiInstance: true, clustered: true });

describe.skipIf(!ready)('storage on a Redis Cluster', () => {
  it('spreads accounts over the masters and keeps each account in one slot', async () => {
    const prefix = `spread-${randomBytes(3).toString('hex')}`;
    const storage = createStorage({ main: await makeClusterKeyv(), prefix });
    const { accounts, silos } = createServices(storage);
    const names = Array.from({ length: 12 }, (_, i) => `account-${i}`);
    for (const name of names) {
      await accounts.createAccount(name);
      await silos.create(name, { file_name: 'a', file_data: [{ n: 1 }] });
    }
    const keys = storageKeys('x', true);
    // Every silo key of an account carries the account's tag; the directory has its own.
    expect(keys.silo('account-1', 'u').head).toMatch(/^x:\{a:account-1\}:head:u$/);
    expect(keys.index('account-1')).toBe('x:{a:account-1}:index');
    expect(keys.key('h')).toBe('x:{d}:key:h');
    // Each master holds some silo heads: the cluster spreads accounts.
    const perNode = await Promise.all(
      cluster!.ports.map(async (port) => {
        const node = new KeyvRedis(`redis://127.0.0.1:${port}`);
        const client = (await node.getClient()) as unknown as { sendCommand(args: string[]): Promise<unknown> };
        const reply = (await client.sendCommand(['KEYS', `*${prefix}:*:head:*`])) as string[];
        await node.disconnect();
        return reply.length;
      }),
    );
    expect(perNode.reduce((a, b) => a + b, 0)).toBe(names.length);
    expect(perNode.filter((n) => n > 0).length).toBeGreaterThan(1);
    await storage.close();
  });

  it('reads a silo by its uuid alone (public reads) through its owner record, on every instance', async () => {
    const prefix = `owner-${randomBytes(3).toString('hex')}`;
    const storage = createStorage({ main: await makeClusterKeyv(), prefix });
    const { accounts, silos } = createServices(storage);
    await accounts.createAccount('carol');
    const made = await silos.create('carol', { file_name: 'p', file_data: { open: true }, is_public: true });
    // Another instance has never seen this silo: it finds the owner in the store.
    const elsewhere = createStorage({ main: await makeClusterKeyv(), prefix });
    const other = createServices(elsewhere).silos;
    expect((await other.readData('api', made.file_uuid, undefined)).text).toBe('{"open":true}');
    expect((await other.readData('api', made.file_uuid, 'carol')).text).toBe('{"open":true}');
    await expect(other.readData('api', made.file_uuid, 'dave')).rejects.toThrow(/not found/i);
    await silos.delete('carol', made.file_uuid);
    await expect(other.readData('api', made.file_uuid, undefined)).rejects.toThrow(/not found/i);
    expect(await elsewhere.getHead(made.file_uuid)).toBeUndefined();
    await Promise.all([storage.close(), elsewhere.close()]);
  });

  it('sweeps the orphan blobs of every account, whichever master holds them', async () => {
    const prefix = `sweep-${randomBytes(3).toString('hex')}`;
    const main = await makeClusterKeyv();
    const storage = createStorage({ main, prefix });
    const { accounts, silos } = createServices(storage);
    const names = Array.from({ length: 8 }, (_, i) => `owner-${i}`);
    const old = (Date.now() - 3_600_000).toString(36);
    for (const name of names) {
      await accounts.createAccount(name);
      const made = await silos.create(name, { file_name: 'kept', file_data: { kept: name } });
      await main.set(storageKeys(prefix, true).silo(name, made.file_uuid).blob('api', `2-${old}-crashed`), '{}');
    }
    expect(await storage.sweep(60_000)).toEqual({ removed: names.length, scanned: 2 * names.length });
    expect(await storage.sweep(60_000)).toEqual({ removed: 0, scanned: names.length });
    await storage.close();
  });
});
