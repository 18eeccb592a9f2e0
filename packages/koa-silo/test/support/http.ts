/**
 * Real HTTP for the koa-silo tests: a Koa app on port 0, and a client built on node:http (fetch
 * may not set Host, which region routing needs). Every response is checked against the served
 * OpenAPI document (see http-openapi.ts).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { createSilo, type Silo, type SiloOptions } from '../../src/index.js';
import { accountWithKeys, type Account } from './accounts.js';
import { OpenApiChecker } from './http-openapi.js';

export const HOSTS = {
  api: 'api.localhost',
  sg: 'sg-01-api.localhost',
  usc: 'usc-01-api.localhost',
} as const;

export interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  /** The body parsed as JSON. */
  json: any;
}

export interface RequestOptions {
  method?: string;
  host?: string;
  headers?: Record<string, string>;
  /** An object is sent as JSON; a string or Buffer as is. */
  body?: unknown;
  /** Skip the OpenAPI check (for responses of the app's own routes). */
  unchecked?: boolean;
}

export interface Server {
  port: number;
  close(): Promise<void>;
}

export async function listen(app: Koa): Promise<Server> {
  const server = http.createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** One HTTP request with full control of headers (Host included) and raw bodies. */
export function rawRequest(port: number, path: string, options: RequestOptions = {}): Promise<Omit<Reply, 'json'>> {
  const headers: Record<string, string> = { host: options.host ?? `${HOSTS.api}:${port}`, ...options.headers };
  let payload: Buffer | undefined;
  if (options.body !== undefined) {
    payload = Buffer.isBuffer(options.body)
      ? options.body
      : Buffer.from(typeof options.body === 'string' ? options.body : JSON.stringify(options.body));
    headers['content-type'] ??= 'application/json';
    headers['content-length'] ??= String(payload.length);
  }
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path, method: options.method ?? 'GET', headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(payload);
  });
}

export class Client {
  constructor(
    readonly port: number,
    readonly checker: OpenApiChecker,
  ) {}

  async request(path: string, options: RequestOptions = {}): Promise<Reply> {
    const method = options.method ?? 'GET';
    const reply = await rawRequest(this.port, path, options);
    if (!options.unchecked) {
      const type = reply.headers['content-type'];
      this.checker.check(method, path, reply.status, Array.isArray(type) ? type[0] : type, reply.text, reply.headers);
      const body = options.body === undefined ? undefined : Buffer.isBuffer(options.body) ? options.body.toString('utf8') : typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
      const sent = { 'content-type': options.body === undefined ? undefined : 'application/json', ...options.headers };
      this.checker.checkRequest(method, path, reply.status, sent, body);
    }
    let json: unknown;
    try {
      json = reply.text === '' ? undefined : JSON.parse(reply.text);
    } catch {
      json = undefined;
    }
    return { ...reply, json };
  }

  get(path: string, options: Omit<RequestOptions, 'method'> = {}) {
    return this.request(path, { ...options, method: 'GET' });
  }
}

export type { Account } from './accounts.js';

export interface Harness {
  silo: Silo;
  app: Koa;
  client: Client;
  server: Server;
  /** Create an account with one manage and one access key. */
  account(name: string, plan?: string): Promise<Account>;
  /** Create a silo through the API and return its uuid. */
  create(account: Account, body: Record<string, unknown>, host?: string): Promise<string>;
  close(): Promise<void>;
}

/** A Koa app with the Silo middleware mounted (and whatever `setup` adds), listening on port 0. */
export async function startSilo(options: SiloOptions = {}, setup?: (app: Koa, silo: Silo) => void): Promise<Harness> {
  const silo = createSilo({ notFound: 'json', ...options });
  const app = new Koa();
  if (setup) setup(app, silo);
  else app.use(silo.middleware());
  const server = await listen(app);
  const doc = (await rawRequest(server.port, '/api/v1/openapi.json')).text;
  const client = new Client(server.port, new OpenApiChecker(JSON.parse(doc)));
  return {
    silo,
    app,
    client,
    server,
    account: (name, plan) => accountWithKeys(silo.accounts, name, plan),
    async create(account, body, host) {
      const reply = await client.request('/api/v1/manage/', {
        method: 'POST',
        headers: { 'X-MAN-API': account.manage },
        body,
        ...(host ? { host } : {}),
      });
      if (reply.status !== 201) throw new Error(`create failed: ${reply.status} ${reply.text}`);
      return reply.json.file_uuid as string;
    },
    async close() {
      await server.close();
      await silo.close();
    },
  };
}

export const manage = (account: Account, extra: Record<string, string> = {}) => ({ 'X-MAN-API': account.manage, ...extra });
export const access = (account: Account, extra: Record<string, string> = {}) => ({ 'X-SILO-KEY': account.access, ...extra });
