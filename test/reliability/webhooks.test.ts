/**
 * Webhooks through `silo serve` processes (contract §12), with receivers of the test's own on
 * 127.0.0.1 (SILO_WEBHOOK_ALLOW_PRIVATE=true):
 * - at least once across a kill -9: a write answered 201, the server killed before it could
 *   deliver (the receiver was not listening yet), started again: the delivery arrives, signed;
 * - two instances on one Redis (database 10 of the test Redis, emptied before and after): every
 *   delivery arrives exactly once, never two attempts of one delivery at the same time.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../support/ports.js';
import { flushDb, redisDbUrl } from '../support/redis-db.js';
import { redisAvailable } from '../support/redis.js';
import { cleanup, ensureBuilt, startSilo, tempDir, type SiloServer } from '../support/silo-process.js';

const haveRedis = await redisAvailable();
const DB = 10;

interface Delivery {
  id: string;
  headers: Record<string, string>;
  body: string;
}

/** A receiver on `port` that answers after `holdMs`, noting how many attempts of one id overlap. */
async function receiver(port: number, holdMs = 0) {
  const deliveries: Delivery[] = [];
  const inFlight = new Map<string, number>();
  let overlaps = 0;
  const server = http.createServer((req, res) => {
    const id = String(req.headers['webhook-id']);
    inFlight.set(id, (inFlight.get(id) ?? 0) + 1);
    if (inFlight.get(id)! > 1) overlaps++;
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => {
      setTimeout(() => {
        inFlight.set(id, inFlight.get(id)! - 1);
        const headers = Object.fromEntries(['webhook-id', 'webhook-timestamp', 'webhook-signature'].map((h) => [h, String(req.headers[h])]));
        deliveries.push({ id, headers, body });
        res.writeHead(200).end();
      }, holdMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    deliveries,
    overlaps: () => overlaps,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function waitFor(probe: () => boolean, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!probe()) {
    if (Date.now() > deadline) throw new Error(`${what} within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const json = (server: SiloServer, manage: string, path: string, body: unknown) =>
  server.fetch(path, { method: 'POST', headers: { 'Content-Type': 'application/json', 'X-MAN-API': manage }, body: JSON.stringify(body) });

afterAll(cleanup);

describe('webhooks through silo serve', () => {
  it('delivers a write acknowledged just before a kill -9, once the server is back (signed, same id)', async () => {
    ensureBuilt();
    const dir = tempDir('webhook-crash');
    const env = { SILO_WEBHOOK_ALLOW_PRIVATE: 'true', SILO_RATE_LIMIT_PER_MINUTE: '0' };
    const port = await freePort();
    const first = await startSilo({ env, cwd: dir });
    const manage = first.keys!.manage;
    const made = await json(first, manage, '/api/v1/manage/webhooks', { url: `http://127.0.0.1:${port}/hook`, events: ['silo.created'] });
    expect(made.status).toBe(201);
    const { secret } = (await made.json()) as { secret: string };
    const created = await json(first, manage, '/api/v1/manage/', { file_name: 'crash', file_data: { n: 1 } });
    expect(created.status).toBe(201);
    const { file_uuid: uuid } = (await created.json()) as { file_uuid: string };
    await first.stop('SIGKILL');

    const r = await receiver(port);
    try {
      const second = await startSilo({ env, cwd: dir });
      try {
        // A first attempt may have been refused before the kill: then the retry is due within ~6 s.
        await waitFor(() => r.deliveries.length >= 1, 15_000, 'no delivery after the restart');
        const [delivery] = r.deliveries;
        const payload = new Webhook(secret).verify(delivery!.body, delivery!.headers) as { type: string; data: { file_uuid: string } };
        expect(payload).toMatchObject({ type: 'silo.created', data: { file_uuid: uuid, version: 1 } });
        console.log(`[reliability] webhooks: a create acknowledged then kill -9 before delivery: delivered after the restart (${r.deliveries.length} attempt(s) received, id ${delivery!.id})`);
      } finally {
        await second.stop();
      }
    } finally {
      await r.close();
    }
  }, 40_000);

  describe.skipIf(!haveRedis)('two instances on one Redis', () => {
    afterAll(async () => {
      if (haveRedis) await flushDb(DB);
    });

    it('delivers each of 30 events exactly once, one attempt at a time', async () => {
      await flushDb(DB);
      const dir = tempDir('webhook-two');
      const env = { SILO_STORE_URL: redisDbUrl(DB), SILO_WEBHOOK_ALLOW_PRIVATE: 'true', SILO_RATE_LIMIT_PER_MINUTE: '0' };
      const a = await startSilo({ env, cwd: dir });
      const b = await startSilo({ env, cwd: dir });
      const r = await receiver(0, 300);
      try {
        const manage = a.keys!.manage;
        expect((await json(a, manage, '/api/v1/manage/webhooks', { url: r.url, events: ['silo.created'] })).status).toBe(201);
        const writes = await Promise.all(Array.from({ length: 30 }, (_, i) => json(i % 2 ? b : a, manage, '/api/v1/manage/', { file_name: `w${i}`, file_data: {} })));
        expect(writes.map((w) => w.status)).toEqual(Array(30).fill(201));
        await waitFor(() => r.deliveries.length >= 30, 20_000, `${r.deliveries.length} of 30 deliveries`);
        await new Promise((resolve) => setTimeout(resolve, 1500));
        const ids = r.deliveries.map((d) => d.id);
        expect(ids).toHaveLength(30);
        expect(new Set(ids).size).toBe(30);
        expect(r.overlaps()).toBe(0);
        console.log('[reliability] webhooks: 30 creates over 2 instances on one Redis, receiver holding each 300 ms: 30 deliveries, each once, 0 overlapping attempts');
      } finally {
        await Promise.all([a.stop(), b.stop()]);
        await r.close();
      }
    }, 60_000);
  });
});
