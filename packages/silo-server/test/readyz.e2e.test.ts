/**
 * /readyz follows the storage: a redis-server of this test's own (never the shared one) is killed
 * under a running `silo serve` and started again on the same port.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../../test/support/ports.js';
import { cleanup, ensureBuilt, eventually, startSilo, tempDir } from '../../../test/support/silo-process.js';

const haveRedisServer = (process.env.PATH ?? '').split(path.delimiter).some((d) => fs.existsSync(path.join(d, 'redis-server')));

function startRedis(port: number, dir: string): Promise<ChildProcess> {
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], { stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`redis-server did not start:\n${out}`)), 10_000);
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      if (out.includes('Ready to accept connections')) {
        clearTimeout(timer);
        resolve(child);
      }
    });
    child.once('exit', () => reject(new Error(`redis-server exited:\n${out}`)));
  });
}

function kill(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((r) => {
    child.once('exit', () => r());
    child.kill('SIGKILL');
  });
}

describe.skipIf(!haveRedisServer)('/readyz and a storage outage', () => {
  let redis: ChildProcess | undefined;
  beforeAll(() => ensureBuilt(), 120_000);
  afterAll(async () => {
    await kill(redis);
    await cleanup();
  });

  it('answers 503 while Redis is down, requests answer 503 (no hang), and both recover', async () => {
    const dir = tempDir('readyz');
    const port = await freePort();
    redis = await startRedis(port, dir);
    const server = await startSilo({ env: { SILO_STORE_URL: `redis://127.0.0.1:${port}/0` }, cwd: dir });
    try {
      const keys = server.keys!;
      expect((await server.fetch('/readyz')).status).toBe(200);

      await kill(redis);
      await eventually(async () => (await server.fetch('/readyz')).status === 503, 3000);
      const ready = await server.fetch('/readyz');
      expect(await ready.json()).toEqual({ status: 'unavailable', detail: 'Storage is unreachable' });
      expect((await server.fetch('/healthz')).status).toBe(200);
      const started = Date.now();
      const list = await server.fetch('/api/v1/manage/silos', { headers: { 'X-MAN-API': keys.manage } });
      expect(list.status).toBe(503);
      expect(await list.json()).toEqual({ detail: expect.any(String) });
      expect(Date.now() - started).toBeLessThan(6000);

      redis = await startRedis(port, dir);
      await eventually(async () => (await server.fetch('/readyz')).status === 200, 5000);
      // The restarted Redis is empty (no persistence): the old key is simply unknown now.
      expect((await server.fetch('/api/v1/manage/silos', { headers: { 'X-MAN-API': keys.manage } })).status).toBe(401);
      const logs = server.stdout();
      expect(logs).toContain('"msg":"storage unreachable"');
      expect(logs).toContain('"msg":"storage reachable again"');
    } finally {
      expect((await server.stop()).code).toBe(0);
    }
  }, 40_000);
});
