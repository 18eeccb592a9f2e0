/**
 * The built client in a real browser (headless Chromium, driven by playwright-core): a page of
 * an origin listed in SILO_CORS_ORIGINS imports packages/silo-client/dist (and silo-query's) through
 * an import map, as an app's bundle would, and uses `silo serve` on another origin: keyed calls,
 * exact numbers, a conditional write, the change feed over fetch (a key in a header) and over the
 * browser's EventSource (a public feed), and SiloError.
 *
 * Needs /usr/bin/chromium: missing, this file fails under CI=true and is skipped, loudly, elsewhere.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeDataDirs, startSilo, type Running } from './support/servers.js';

const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'];
const haveChromium = fs.existsSync(CHROMIUM);
if (!haveChromium) {
  if (process.env.CI === 'true') throw new Error(`${CHROMIUM} is missing: the browser tests need it (apt-get install -y chromium)`);
  console.warn(`\n*** SKIPPING the silo-client browser tests: ${CHROMIUM} is missing (apt-get install -y chromium) ***\n`);
}

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const DIST = { 'silo-client': path.join(ROOT, 'packages/silo-client/dist'), 'silo-query': path.join(ROOT, 'packages/silo-query/dist') };

const PAGE = `<!doctype html>
<meta charset="utf-8">
<title>silo-client in a page</title>
<script type="importmap">{"imports": {"silo-client": "/pkg/silo-client/index.js", "silo-query": "/pkg/silo-query/index.js"}}</script>
<script type="module">import * as silo from 'silo-client'; window.silo = silo; document.title = 'ready';</script>`;

/** What the page holds: the client module (this file's types know no DOM, hence the shapes spelled out). */
type PageGlobals = { silo: typeof import('../src/index.js'); document: { title: string } };

/** The page's origin: the page, and the two built packages as ES modules. */
async function pageServer(): Promise<{ origin: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const m = /^\/pkg\/(silo-client|silo-query)\/(.+\.js)$/.exec(url.pathname);
    if (m) {
      const file = path.join(DIST[m[1] as keyof typeof DIST], m[2]!);
      if (!file.startsWith(DIST[m[1] as keyof typeof DIST]) || !fs.existsSync(file)) {
        res.writeHead(404).end();
        return;
      }
      res.writeHead(200, { 'Content-Type': 'text/javascript; charset=utf-8' });
      res.end(fs.readFileSync(file));
      return;
    }
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
    res.end(PAGE);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe.skipIf(!haveChromium)('silo-client in Chromium', () => {
  let pages: Awaited<ReturnType<typeof pageServer>>;
  let silo: Running;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    // The client as it is published: its build (and silo-query's), fresh.
    execFileSync(process.execPath, [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '-b', 'packages/silo-client'], { cwd: ROOT, stdio: 'inherit', timeout: 120_000 });
    pages = await pageServer();
    silo = await startSilo('sqlite', { SILO_CORS_ORIGINS: pages.origin });
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
    page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto(`${pages.origin}/`);
    await page.waitForFunction(() => (globalThis as unknown as PageGlobals).document.title === 'ready', undefined, { timeout: 10_000 }).catch(() => {
      throw new Error(`the page did not load the client: ${errors.join('; ')}`);
    });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await silo?.stop();
    await pages?.close();
    removeDataDirs();
  });

  it('creates, reads with a built filter, writes conditionally, and keeps numbers exact, across origins', async () => {
    const result = await page.evaluate(
      async ({ baseUrl, manageKey, accessKey }) => {
        const { SiloClient, JsonNumber, where } = (globalThis as unknown as PageGlobals).silo;
        const client = new SiloClient({ baseUrl, manageKey, accessKey });
        const created = await client.create({ file_name: 'in a page', file_data: [{ n: new JsonNumber('12345678901234567890'), one: new JsonNumber('1.0'), tag: 'a' }, { n: 2, one: 1, tag: 'b' }] });
        const read = await client.read(created.file_uuid, { filter: where('tag').eq('a'), fields: ['n', 'one'] });
        const first = (read.data as Record<string, unknown>[])[0]!;
        const updated = await client.update(created.file_uuid, { file_name: 'renamed' }, { ifMatch: created.etag });
        let stale = '';
        try {
          await client.update(created.file_uuid, { file_name: 'late' }, { ifMatch: created.etag });
        } catch (e) {
          stale = `${(e as Error).name} ${(e as { status: number }).status}`;
        }
        return {
          etag: created.etag.startsWith('"'),
          n: String(first.n),
          one: String(first.one),
          isExact: first.n instanceof JsonNumber,
          total: read.total,
          version: updated.version,
          stale,
        };
      },
      { baseUrl: silo.baseUrl, manageKey: silo.keys.manage, accessKey: silo.keys.access },
    );
    expect(result).toEqual({ etag: true, n: '12345678901234567890', one: '1.0', isExact: true, total: 1, version: 2, stale: 'SiloError 412' });
  });

  it('follows a private feed over fetch (the key in a header) and a public one with EventSource, resuming from since', async () => {
    const result = await page.evaluate(
      async ({ baseUrl, manageKey, accessKey }) => {
        const { SiloClient } = (globalThis as unknown as PageGlobals).silo;
        const client = new SiloClient({ baseUrl, manageKey, accessKey });
        const anonymous = new SiloClient({ baseUrl });
        const { file_uuid: uuid } = await client.create({ file_name: 'feed', file_data: { n: 1 }, is_public: true });
        await client.update(uuid, { file_data: { n: 2 } });
        const collect = async (feed: AsyncGenerator<{ type: string; id: number | undefined }>, count: number) => {
          const seen: string[] = [];
          for await (const event of feed) {
            seen.push(`${event.type} ${event.id}`);
            if (seen.length === count) break;
          }
          return seen;
        };
        const keyed = collect(client.events(uuid, { since: 1 }), 2);
        const open = collect(anonymous.events(uuid, { since: 1, transport: 'eventsource' }), 2);
        await new Promise((resolve) => setTimeout(resolve, 500));
        await client.update(uuid, { file_data: { n: 3 } });
        return { keyed: await keyed, open: await open, hasEventSource: typeof EventSource === 'function' };
      },
      { baseUrl: silo.baseUrl, manageKey: silo.keys.manage, accessKey: silo.keys.access },
    );
    expect(result).toEqual({ keyed: ['update 2', 'update 3'], open: ['update 2', 'update 3'], hasEventSource: true });
  });

  it('throws SiloError for a refused call, and a missing silo', async () => {
    const result = await page.evaluate(
      async ({ baseUrl }) => {
        const { SiloClient, SiloError } = (globalThis as unknown as PageGlobals).silo;
        const out: string[] = [];
        for (const call of [
          () => new SiloClient({ baseUrl, manageKey: 'silo_man_wrong' }).list(),
          () => new SiloClient({ baseUrl }).read('00000000-0000-4000-8000-000000000000'),
        ]) {
          try {
            await call();
          } catch (e) {
            out.push(`${e instanceof SiloError} ${(e as { status: number }).status} ${(e as { detail: string }).detail}`);
          }
        }
        return out;
      },
      { baseUrl: silo.baseUrl },
    );
    expect(result).toEqual([expect.stringMatching(/^true 401 /), 'true 404 Silo not found']);
  });
});
