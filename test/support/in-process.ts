/**
 * Silo in this process, from koa-silo's sources: a Koa app on port 127.0.0.1:0 with the middleware
 * as a standalone server mounts it (`notFound: 'json'`), in-memory storage, rate limiting off
 * unless a plan says otherwise. Everything the logger receives and every error Koa itself sees is
 * kept, so tests can assert on them (and on the server's globals, such as Object.prototype).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { createSilo, type Silo, type SiloOptions } from '../../packages/koa-silo/src/index.js';
import { accountWithKeys, type Account as TestAccount } from '../../packages/koa-silo/test/support/accounts.js';

export interface LoggedError {
  message: string;
  error: unknown;
}

export interface InProcessSilo {
  port: number;
  silo: Silo;
  /** What Silo's logger received (500s and 503s only, in normal operation none). */
  logged: LoggedError[];
  /** Errors that reached Koa's own error handler (none, since Silo answers every error itself). */
  koaErrors: unknown[];
  /** Keep-alive connections for many small requests. */
  agent: http.Agent;
  account(name: string, plan?: string): Promise<TestAccount>;
  close(): Promise<void>;
}

export type { Account as TestAccount } from '../../packages/koa-silo/test/support/accounts.js';

export const NO_RATE_LIMIT = { maxDataBytes: 10_000_000, rateLimitPerMinute: 0 };

export async function startInProcess(options: SiloOptions = {}): Promise<InProcessSilo> {
  const logged: LoggedError[] = [];
  const koaErrors: unknown[] = [];
  const silo = createSilo({
    notFound: 'json',
    plans: { default: NO_RATE_LIMIT },
    logger: { error: (message, error) => logged.push({ message, error }) },
    ...options,
  });
  const app = new Koa();
  app.silent = true;
  app.on('error', (error: unknown) => koaErrors.push(error));
  app.use(silo.middleware());
  const server = http.createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const agent = new http.Agent({ keepAlive: true, maxSockets: 32 });
  return {
    port: (server.address() as AddressInfo).port,
    silo,
    logged,
    koaErrors,
    agent,
    account: (name, plan) => accountWithKeys(silo.accounts, name, plan),
    async close() {
      agent.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await silo.close();
    },
  };
}

/** Object.prototype and friends as they are now, to compare after hostile input. */
export function prototypeSnapshot(): string {
  const describe = (o: object) =>
    Reflect.ownKeys(o)
      .map((k) => String(k))
      .sort()
      .join(',');
  return [Object.prototype, Array.prototype, Function.prototype, String.prototype].map(describe).join(' | ');
}
