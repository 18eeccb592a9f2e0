/**
 * The change feed's bus on Redis: instances on one database hear each other; a deployment on
 * another database of the same Redis hears nothing of them (pub/sub channels are the server's, not
 * a database's, so the channel names the database). Nothing is written to either database.
 */
import KeyvRedis from '@keyv/redis';
import { Keyv } from 'keyv';
import { describe, expect, it } from 'vitest';
import { redisAvailable, TEST_REDIS_URL } from '../../../test/support/redis.js';
import { SharedBus, type SiloEvent } from '../src/index.js';
import { eventTransportOf } from '../src/storage/index.js';

const haveRedis = await redisAvailable();

const onDb = (db: number) => {
  const url = new URL(TEST_REDIS_URL);
  url.pathname = `/${db}`;
  return new Keyv({ store: new KeyvRedis(url.toString()), namespace: 'silo-bus-test' });
};

const event = (name: string): SiloEvent => ({
  type: 'update',
  account: 'default',
  silo: { file_uuid: '0b000fb4-d5f4-4616-b584-c0deef5ef1d9', file_name: name, region_name: 'api', is_public: false, created_at: '2026-01-01T00:00:00.000Z', updated_at: '2026-01-01T00:00:00.000Z', version: 2 },
});

describe.skipIf(!haveRedis)('the bus on Redis', () => {
  it('carries events between instances of one database, and none to another database of the server', async () => {
    const stores = [onDb(1), onDb(1), onDb(2)];
    const [writer, peer, stranger] = stores.map((keyv) => new SharedBus(eventTransportOf(keyv, {})!, () => undefined));
    try {
      const heard = { peer: [] as string[], stranger: [] as string[] };
      peer!.subscribe((e) => heard.peer.push(e.silo.file_name));
      stranger!.subscribe((e) => heard.stranger.push(e.silo.file_name));
      await new Promise((resolve) => setTimeout(resolve, 300)); // both subscribed
      writer!.publish(event('first'));
      for (let i = 0; i < 50 && heard.peer.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 20));
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(heard).toEqual({ peer: ['first'], stranger: [] });
    } finally {
      await Promise.all([writer!.close(), peer!.close(), stranger!.close()]);
      await Promise.all(stores.map((keyv) => keyv.disconnect()));
    }
  });
});
