/**
 * A log reader that stops reading (a paused `silo serve | less`, a stuck log driver) against the
 * real `silo serve`: the server keeps answering, holds a bounded number of lines for the reader
 * (lines beyond are dropped: packages/silo-server/test/log-sink.test.ts checks the bound), and once
 * the reader is back, every request is accounted for in the log, as its own line or in the count
 * of a "log lines dropped" line.
 */
import http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanup, ensureBuilt, eventually, startSilo, tempDir } from '../support/silo-process.js';

beforeAll(() => ensureBuilt(), 120_000);
afterAll(() => cleanup());

/** `count` GETs of `url` over `connections` keep-alive connections; the statuses seen. */
async function hammer(url: string, count: number, connections: number): Promise<Map<number, number>> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  const statuses = new Map<number, number>();
  let next = 0;
  const one = () =>
    new Promise<void>((resolve, reject) => {
      const req = http.get(url, { agent, timeout: 10_000 }, (res) => {
        statuses.set(res.statusCode!, (statuses.get(res.statusCode!) ?? 0) + 1);
        res.resume();
        res.on('end', resolve);
      });
      req.on('timeout', () => req.destroy(new Error(`no answer within 10 s (request ${next})`)));
      req.on('error', reject);
    });
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (next < count) {
        next++;
        await one();
      }
    }),
  );
  agent.destroy();
  return statuses;
}

describe('a log reader that stops reading', () => {
  it('does not freeze the server; every request is logged or counted once the reader is back', async () => {
    const dir = tempDir('log-reader');
    const server = await startSilo({ env: { SILO_DATA_DIR: path.join(dir, 'data') }, cwd: dir });
    try {
      const logged = () => server.logs().filter((l) => l.msg === 'request' && l.path === '/healthz').length;
      server.pauseStdout();
      // About 3 MB of request lines: beyond the pipe's 64 KiB and the server's 1 MiB of waiting lines.
      const requests = 20_000;
      const started = Date.now();
      const statuses = await hammer(`${server.url}/healthz`, requests, 16);
      const tookMs = Date.now() - started;
      expect([...statuses]).toEqual([[200, requests]]);

      server.resumeStdout();
      const dropped = () =>
        server
          .logs()
          .filter((l) => l.msg === 'log lines dropped: stdout was not read')
          .reduce((sum, l) => sum + Number(l.count), 0);
      await eventually(async () => logged() + dropped() === requests, 10_000);
      expect(dropped()).toBeGreaterThan(0);
      expect(logged()).toBeGreaterThan(1000);
      // Logging goes on as before once the reader is back.
      expect((await server.fetch('/healthz')).status).toBe(200);
      await eventually(async () => logged() + dropped() === requests + 1, 5_000);
      expect(tookMs).toBeLessThan(60_000);
    } finally {
      await server.stop('SIGTERM');
    }
  }, 120_000);
});
