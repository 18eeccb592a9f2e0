/**
 * The change feed with a real EventSource (the `eventsource` package, the WHATWG client a browser
 * has) against `silo serve`: live updates on the public address, and a reconnect after the
 * server restarted, which sends Last-Event-ID and gets the versions written meanwhile replayed.
 */
import { EventSource } from 'eventsource';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from './support/ports.js';
import { cleanup, ensureBuilt, startSilo, tempDir } from './support/silo-process.js';

afterAll(cleanup);

describe('EventSource against silo serve', () => {
  it('receives updates, and after a server restart resumes where it left off', async () => {
    ensureBuilt();
    const dir = tempDir('eventsource');
    const port = await freePort();
    const env = { PORT: String(port), SILO_RATE_LIMIT_PER_MINUTE: '0' };
    let server = await startSilo({ env, cwd: dir });
    const manage = server.keys!.manage;
    const send = (path: string, method: string, body: unknown) =>
      server.fetch(path, { method, headers: { 'Content-Type': 'application/json', 'X-MAN-API': manage }, body: JSON.stringify(body) });

    const created = await send('/api/v1/manage/', 'POST', { file_name: 'live', file_data: { n: 1 }, is_public: true });
    const { file_uuid: uuid } = (await created.json()) as { file_uuid: string };
    const source = new EventSource(`http://127.0.0.1:${port}/public/${uuid}/events`);
    const seen: { id: string; version: number; n?: number }[] = [];
    const waiters: (() => void)[] = [];
    source.addEventListener('update', (event) => {
      const data = JSON.parse(event.data) as { version: number };
      seen.push({ id: event.lastEventId, version: data.version });
      for (const wake of waiters.splice(0)) wake();
    });
    const until = async (count: number, ms: number) => {
      const deadline = Date.now() + ms;
      while (seen.length < count) {
        if (Date.now() > deadline) throw new Error(`${seen.length} of ${count} events within ${ms} ms`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 100);
        });
      }
    };
    try {
      await new Promise<void>((resolve, reject) => {
        source.onopen = () => resolve();
        source.onerror = () => reject(new Error('the stream did not open'));
      });
      source.onerror = null;
      expect((await send(`/api/v1/manage/${uuid}`, 'PATCH', { file_data: { n: 2 } })).status).toBe(200);
      await until(1, 3000);
      expect(seen[0]).toEqual({ id: '2', version: 2 });

      // The server goes away; two writes land before the client is back.
      expect((await server.stop()).code).toBe(0);
      server = await startSilo({ env, cwd: dir });
      for (const n of [3, 4]) expect((await send(`/api/v1/manage/${uuid}`, 'PATCH', { file_data: { n } })).status).toBe(200);
      // EventSource reconnects by itself (a few seconds), with Last-Event-ID: 2.
      await until(3, 15_000);
      expect(seen.map((e) => e.version)).toEqual([2, 3, 4]);
      expect(seen.map((e) => e.id)).toEqual(['2', '3', '4']);
    } finally {
      source.close();
      await server.stop();
    }
  }, 40_000);
});
