/**
 * The baseline servers, each run in its own process like the server under test:
 *
 *   node --import tsx benchmarks/http/baselines.ts --kind=koa|node|json-server|json-server-1 [--port=0] [--dir=DIR]
 *
 * - koa:  bare Koa 3 + @koa/router, `GET /doc` answers the constant 1 KB JSON document (the text
 *         is prepared once, as Silo's stored text is): the ceiling of any Koa middleware.
 * - node: bare `node:http` answering the same bytes on every request: the limit of the machine.
 * - json-server: json-server 0.17.4 through its programmatic API, `create()`, `defaults()` (CORS,
 *         static files, no-cache headers; the request logger off, as Silo's bench server has none)
 *         and `router(db)` over `{ doc: <the 1 KB document>, items: <the 10 000 items> }`:
 *         `GET /doc` and `GET /items?category=c7`. It pretty-prints its JSON (its `json spaces`
 *         is 2), so its bodies are longer; the harness compares them as parsed JSON.
 * - json-server-1: json-server's 1.0 beta line (npm alias `json-server-1`), pinned at 1.0.0-beta.3:
 *         beta.4 and later require Node >= 22.12, and the benchmarks run on Node 20. Its
 *         programmatic API, `createApp(db)` (lib/app.js: tinyhttp, sirv, CORS, a JSON body parser;
 *         beta.3 has no request logger, so `logger: false` changes nothing), over an in-memory
 *         lowdb 7 (`Low` with a `Memory` adapter) holding the same `{ doc, items }`, in a temp dir
 *         with an empty `public/` (see listener()). `GET /doc` answers the object itself (1.0 serves a
 *         non-array key as a singular resource); `GET /items?category=c7` is a string equality
 *         filter. It too pretty-prints (2 spaces), and it turns numeric ids into strings when it
 *         starts (`"id": "8"`).
 *
 * Prints one JSON line `{"ready": true, "pid", "port", "kind"}`; SIGTERM closes and exits 0.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { standardData } from './data.js';

export type BaselineKind = 'koa' | 'node' | 'json-server' | 'json-server-1';

export interface BaselineReady {
  ready: true;
  pid: number;
  port: number;
  kind: BaselineKind;
}

function arg(name: string): string | undefined {
  const prefix = `--${name}=`;
  return process.argv.slice(2).find((a) => a.startsWith(prefix))?.slice(prefix.length);
}

const kind = (arg('kind') ?? 'node') as BaselineKind;
const port = Number(arg('port') ?? 0);
const JSON_TYPE = 'application/json; charset=utf-8';

type Listener = (req: http.IncomingMessage, res: http.ServerResponse) => void;

/** The minimal surface of json-server 0.17's programmatic API used here (it ships no types). */
interface JsonServerModule {
  create(): Listener & { use(...handlers: unknown[]): unknown };
  defaults(options?: { logger?: boolean; noCors?: boolean; noGzip?: boolean; static?: string }): unknown[];
  router(db: object): unknown;
}

/** The same of json-server 1.0 beta.3: `createApp` returns a tinyhttp App, whose `attach` is its request listener. */
interface JsonServer1Module {
  createApp(db: object, options?: { logger?: boolean; static?: string[] }): { attach: Listener };
}

/** lowdb 7's in-memory database (json-server 1.0 takes a `Low`; its own bin.js gives it a file adapter). */
interface Lowdb7Module {
  Low: new (adapter: object, defaultData: object) => object;
  Memory: new () => object;
}

async function listener(): Promise<Listener> {
  const data = standardData();
  const docText = JSON.stringify(data.doc1k);
  switch (kind) {
    case 'node': {
      const body = Buffer.from(docText);
      const length = String(body.length);
      return (_req, res) => {
        res.writeHead(200, { 'Content-Type': JSON_TYPE, 'Content-Length': length });
        res.end(body);
      };
    }
    case 'koa': {
      const { default: Koa } = await import('koa');
      const { default: Router } = await import('@koa/router');
      const app = new Koa();
      const router = new Router();
      router.get('/doc', (ctx) => {
        ctx.type = JSON_TYPE;
        ctx.body = docText;
      });
      app.use(router.routes());
      app.use(router.allowedMethods());
      return app.callback();
    }
    case 'json-server': {
      const jsonServer = createRequire(import.meta.url)('json-server') as JsonServerModule;
      const app = jsonServer.create();
      app.use(jsonServer.defaults({ logger: false }));
      app.use(jsonServer.router({ doc: data.doc1k, items: data.items10k }));
      return app;
    }
    case 'json-server-1': {
      const require = createRequire(import.meta.url);
      // The package has neither `main` nor `exports`: lib/app.js is what its own lib/bin.js imports.
      const appFile = require.resolve('json-server-1/lib/app.js');
      // lowdb 7 from json-server 1's own dependencies: the lowdb at the root is 0.17's lowdb 1.
      const lowdbFile = createRequire(appFile).resolve('lowdb');
      const { createApp } = (await import(pathToFileURL(appFile).href)) as JsonServer1Module;
      const { Low, Memory } = (await import(pathToFileURL(lowdbFile).href)) as Lowdb7Module;
      const db = new Low(new Memory(), { doc: data.doc1k, items: data.items10k });
      // createApp always serves ./public, and in production (NODE_ENV=production, as every server
      // here) sirv lists that directory once and throws when it is missing: run in a temp dir
      // holding an empty one, as a project would have.
      const dir = mkdtempSync(path.join(os.tmpdir(), 'silo-bench-json-server-1-'));
      mkdirSync(path.join(dir, 'public'));
      process.chdir(dir);
      process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
      return createApp(db, { logger: false }).attach;
    }
    default:
      throw new Error(`unknown baseline ${String(kind)}`);
  }
}

async function main(): Promise<void> {
  const server = http.createServer(await listener());
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const line: BaselineReady = { ready: true, pid: process.pid, port: (server.address() as AddressInfo).port, kind };
  process.stdout.write(`${JSON.stringify(line)}\n`);
  const stop = () => {
    server.closeAllConnections();
    server.close(() => process.exit(0));
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

main().catch((err: unknown) => {
  console.error(`baseline ${kind} failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  process.exit(1);
});
