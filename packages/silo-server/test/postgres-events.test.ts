/**
 * The change feed's bus on PostgreSQL: instances on one schema hear each other; a deployment in
 * another schema of the same database hears nothing of them (NOTIFY reaches every session of a
 * database, so the channel is the schema's).
 */
import type { SiloEvent } from 'koa-silo';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresAvailable, testSchema, type TestSchema } from '../../../test/support/postgres.js';
import { channelOf, postgresBus } from '../src/postgres-events.js';

const havePostgres = await postgresAvailable();

const event = (name: string): SiloEvent => ({
  type: 'update',
  account: 'default',
  silo: { file_uuid: '0b000fb4-d5f4-4616-b584-c0deef5ef1d9', file_name: name, region_name: 'api', is_public: false, created_at: '2026-01-01T00:00:00.000Z', updated_at: '2026-01-01T00:00:00.000Z', version: 2 },
});

describe('channelOf', () => {
  it('is a plain identifier of one schema, whatever its name', () => {
    for (const schema of ['public', 'Mixed "Case" schema', 'x'.repeat(63)]) expect(channelOf(schema)).toMatch(/^silo_events_[0-9a-f]{16}$/);
    expect(channelOf('a')).not.toBe(channelOf('b'));
  });
});

describe.skipIf(!havePostgres)('postgresBus', () => {
  let one: TestSchema;
  let other: TestSchema;
  beforeAll(async () => {
    [one, other] = await Promise.all([testSchema('bus_one'), testSchema('bus_other')]);
  });
  afterAll(async () => {
    await Promise.all([one?.drop(), other?.drop()]);
  });

  it('carries events between instances of one schema, and none to another schema of the database', async () => {
    const log = () => undefined;
    const [writer, peer, stranger] = [postgresBus(one.pool, log), postgresBus(one.pool, log), postgresBus(other.pool, log)];
    try {
      const heard = { peer: [] as string[], stranger: [] as string[] };
      peer.subscribe((e) => heard.peer.push(e.silo.file_name));
      stranger.subscribe((e) => heard.stranger.push(e.silo.file_name));
      await new Promise((resolve) => setTimeout(resolve, 300)); // both listening
      writer.publish(event('first'));
      for (let i = 0; i < 50 && heard.peer.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 20));
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(heard).toEqual({ peer: ['first'], stranger: [] });
    } finally {
      await Promise.all([writer.close(), peer.close(), stranger.close()]);
    }
  });

  it('sends the events of one turn in one statement, in order; one too large for NOTIFY fails alone', async () => {
    const errors: string[] = [];
    const writer = postgresBus(one.pool, (message) => errors.push(message));
    const peer = postgresBus(one.pool, () => undefined);
    const query = one.pool.query.bind(one.pool);
    let notifies = 0;
    one.pool.query = ((...args: Parameters<typeof query>) => {
      if (String(typeof args[0] === 'string' ? args[0] : (args[0] as { text: string }).text).includes('pg_notify')) notifies++;
      return query(...args);
    }) as typeof one.pool.query;
    try {
      const heard: string[] = [];
      peer.subscribe((e) => heard.push(e.silo.file_name.slice(0, 10)));
      await new Promise((resolve) => setTimeout(resolve, 300)); // listening
      for (const name of ['a', 'b', 'x'.repeat(9000), 'c', 'd']) writer.publish(event(name));
      for (let i = 0; i < 50 && heard.length < 4; i++) await new Promise((resolve) => setTimeout(resolve, 20));
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(heard).toEqual(['a', 'b', 'c', 'd']);
      expect(notifies).toBe(2);
      expect(errors).toEqual(['silo: an event could not be published to the other instances']);
    } finally {
      one.pool.query = query;
      await Promise.all([writer.close(), peer.close()]);
    }
  });
});
