/**
 * Real servers for the client's tests: `silo serve` as users run it (the built command, on SQLite
 * or on Redis database 1, which no other test uses), with a port of its own for each region, and
 * a tiny scripted HTTP server for the answers a healthy Silo rarely gives (429, 503).
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createClient } from '@keyv/redis';
import { ensureBuilt } from '../../../../test/support/silo-process.js';
import { freePort } from '../../../../test/support/ports.js';
import { TEST_REDIS_URL, redisAvailable } from '../../../../test/support/redis.js';
import type { SiloServer } from '../../../../test/support/silo-server.js';

/** The Redis database of these tests: no other test of the repository uses 1 (13, say, is the rate-limit test's). */
export const CLIENT_REDIS_DB = 1;

export function clientRedisUrl(): string {
  const url = new URL(TEST_REDIS_URL);
  url.pathname = `/${CLIENT_REDIS_DB}`;
  return url.toString();
}

/** FLUSHDB of database CLIENT_REDIS_DB only. */
export async function flushClientDb(): Promise<void> {
  const client = createClient({ url: clientRedisUrl(), socket: { connectTimeout: 2000, reconnectStrategy: false } });
  await client.connect();
  try {
    await client.sendCommand(['FLUSHDB']);
  } finally {
    await client.close();
  }
}

export { redisAvailable };

export type Store = 'sqlite' | 'redis';

export interface Running {
  server: SiloServer;
  /** http://127.0.0.1:<port>: the `api` region (and management for all). */
  baseUrl: string;
  /** The other regions' own ports. */
  regionUrls: { 'sg-01-api': string; 'usc-01-api': string };
  keys: { manage: string; access: string };
  env: Record<string, string>;
  /** Stops the server and starts it again on the same ports and storage. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

const dirs: string[] = [];

/** `silo serve` on `store`, with fixed ports (so that a restart keeps its addresses) and the first start's keys. */
export async function startSilo(store: Store, extraEnv: Record<string, string> = {}): Promise<Running> {
  ensureBuilt();
  const { startSiloServer } = await import('../../../../test/support/silo-server.js');
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'silo-client-'));
  dirs.push(dataDir);
  if (store === 'redis') await flushClientDb();
  const [port, sg, usc] = [await freePort(), await freePort(), await freePort()];
  const env: Record<string, string> = {
    PORT: String(port),
    SILO_DATA_DIR: dataDir,
    SILO_PORT_SG_01_API: String(sg),
    SILO_PORT_USC_01_API: String(usc),
    SILO_RATE_LIMIT_PER_MINUTE: '0',
    SILO_WEBHOOK_ALLOW_PRIVATE: 'true',
    ...(store === 'redis' ? { SILO_STORE_URL: clientRedisUrl() } : {}),
    ...extraEnv,
  };
  let server = await startSiloServer(env, 30_000);
  if (!server.banner) throw new Error(`no first-start banner:\n${server.output()}`);
  const keys = { manage: server.banner.manage, access: server.banner.access };
  const running: Running = {
    server,
    baseUrl: `http://127.0.0.1:${port}`,
    regionUrls: { 'sg-01-api': `http://127.0.0.1:${sg}`, 'usc-01-api': `http://127.0.0.1:${usc}` },
    keys,
    env,
    async restart() {
      await server.stop();
      server = await startSiloServer(env, 30_000);
      running.server = server;
    },
    async stop() {
      await server.stop();
      if (store === 'redis') await flushClientDb().catch(() => undefined);
    },
  };
  return running;
}

/** Removes the data directories of the servers started here. */
export function removeDataDirs(): void {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
}

export interface Scripted {
  url: string;
  /** Every request received: method, path and headers. */
  requests: { method: string; path: string; headers: http.IncomingHttpHeaders; at: number }[];
  close(): Promise<void>;
}

export type Answer = { status: number; headers?: Record<string, string>; body?: string };

/**
 * A tiny HTTP server answering each request with the next scripted answer (the last one repeats):
 * a Silo that is busy first, say `[{status: 429, headers: {'Retry-After': '1'}}, {status: 200, ...}]`.
 */
export async function scripted(answers: Answer[] | ((req: http.IncomingMessage, n: number) => Answer)): Promise<Scripted> {
  const requests: Scripted['requests'] = [];
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const n = requests.length;
      requests.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, at: Date.now() });
      const answer = typeof answers === 'function' ? answers(req, n) : answers[Math.min(n, answers.length - 1)]!;
      res.writeHead(answer.status, { 'Content-Type': 'application/json; charset=utf-8', ...answer.headers });
      res.end(answer.body ?? (answer.status >= 400 ? JSON.stringify({ detail: `scripted ${answer.status}` }) : '{}'));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
