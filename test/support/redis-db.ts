/**
 * The databases of the shared test Redis that reliability tests may own, one per test file,
 * emptied (FLUSHDB of that database only) before and after use: 5 audit-crash, 10 webhooks, 12 conditional-writes, 13
 * rate-limit, 14 crash-writes, 15 concurrent-patches. Nothing else of the shared Redis is touched.
 */
import { createClient } from '@keyv/redis';
import { TEST_REDIS_URL } from './redis.js';

export const RELIABILITY_DBS = [5, 10, 12, 13, 14, 15] as const;
export type ReliabilityDb = (typeof RELIABILITY_DBS)[number];

/** The URL of database `db` of the test Redis. */
export function redisDbUrl(db: ReliabilityDb): string {
  const url = new URL(TEST_REDIS_URL);
  url.pathname = `/${db}`;
  return url.toString();
}

/** FLUSHDB on database `db` (one of RELIABILITY_DBS only). */
export async function flushDb(db: ReliabilityDb): Promise<void> {
  if (!RELIABILITY_DBS.includes(db)) throw new Error(`database ${db} is not a reliability test database`);
  const client = createClient({ url: redisDbUrl(db), socket: { connectTimeout: 2000, reconnectStrategy: false } });
  await client.connect();
  try {
    await client.sendCommand(['FLUSHDB']);
  } finally {
    await client.close();
  }
}
