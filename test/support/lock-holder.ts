/**
 * A process that takes one of koa-silo's locks and holds it until it is killed: the dead owner of
 * the dead-owner lock test. Prints `held` once the lock is taken.
 *
 *   node --import tsx test/support/lock-holder.ts sqlite:<path>|redis:<url> <namespace> <lock name> <ttl ms>
 */
import KeyvRedis from '@keyv/redis';
import { Keyv } from 'keyv';
import { createStorage } from '../../packages/koa-silo/src/storage/index.js';
import { SqliteStore, sqliteKeyv } from '../../packages/silo-server/src/sqlite-store.js';

const [where, namespace, name, ttl] = process.argv.slice(2) as [string, string, string, string];
const main = where.startsWith('sqlite:')
  ? sqliteKeyv(new SqliteStore({ path: where.slice('sqlite:'.length), table: 'main' }))
  : new Keyv({ store: new KeyvRedis(where.slice('redis:'.length)), namespace });
const storage = createStorage({ main, prefix: namespace, lockTiming: { ttlMs: Number(ttl) } });
// Alive until killed, as a server is (the lock's renewal timer alone does not keep a process up).
setInterval(() => undefined, 60_000);
await storage.locks.withLock(name, async (lock) => {
  // As a writer whose commit lost to another process's: from then on it holds the shared lock.
  await lock.contended();
  process.stdout.write('held\n');
  await new Promise(() => undefined);
});
