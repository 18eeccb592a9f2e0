import net from 'node:net';

/** The Redis that storage tests run against; override with SILO_TEST_REDIS_URL. */
export const TEST_REDIS_URL = process.env.SILO_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

function reachable(url: string, timeoutMs = 1000): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = net.connect({ host: hostname, port: Number(port || 6379) });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/**
 * Whether Redis tests should run. In CI (CI=true) an unreachable Redis is a failure, never a
 * silent skip; on a laptop without Redis the tests skip with a loud message.
 */
export async function redisAvailable(): Promise<boolean> {
  if (await reachable(TEST_REDIS_URL)) return true;
  if (process.env.CI === 'true') {
    throw new Error(`Redis is required in CI but ${TEST_REDIS_URL} is unreachable`);
  }
  console.warn(`\n!!! SKIPPING Redis tests: ${TEST_REDIS_URL} is unreachable. Start redis-server to run them. !!!\n`);
  return false;
}
