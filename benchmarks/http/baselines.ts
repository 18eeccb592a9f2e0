/**
 * The baseline servers, each run in its own process like the server under test:
 *
 *   node --import tsx benchmarks/http/baselines.ts --kind=koa|node|json-server [--port=0] [--dir=DIR]
 *
 * - koa:  bare Koa 3 + @koa/router, `GET /doc` answers the constant 1 KB JSON document (the text
 *         is prepared once, as Silo's stored text is): the ceiling of any Koa middleware.
 * - node: bare `node:http` answering the same bytes on every request: the limit of the machine.
 * - json-server: json-server 0.17.4 through its programmatic API, `create()`, `defaults()` (CORS,
 *         static files, no-cache headers; the request logger off, as Silo's bench server has none)
 *         and `router(db)` over `{ doc: <the 1 KB document>, items: <the 10 000 items> }`:
 *         `GET /doc` and `GET /items?category=c7`. It pretty-prints its JSON (its `json spaces`
 *         is 2), so its bodies are longer; the harness compares them as parsed JSON.
 *
 * Prints one JSON line `{"ready": true, "pid", "port", "kind"}`; SIGTERM closes and exits 0.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { standardData } from './data.js';

export type BaselineKind = 'koa' | 'node' | 'json-server';

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
