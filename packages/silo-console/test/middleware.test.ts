import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Koa from 'koa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consoleMiddleware } from '../src/index.js';

const INDEX = `<!doctype html><meta name="csp-nonce" content="__SILO_CSP_NONCE__"><script type="module" src="./assets/app-1a2b.js"></script><link rel="stylesheet" href="./assets/app-3c4d.css">`;

let dir: string;
let base: string;
let close: () => Promise<void>;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'silo-console-'));
  await mkdir(join(dir, 'assets'));
  await writeFile(join(dir, 'index.html'), INDEX);
  await writeFile(join(dir, 'assets', 'app-1a2b.js'), 'console.log(1)');
  await writeFile(join(dir, 'assets', 'app-3c4d.css'), 'body{}');
  const app = new Koa();
  app.use(consoleMiddleware({ appDir: dir }));
  app.use(consoleMiddleware({ appDir: dir, basePath: '/admin/ui/' }));
  app.use((ctx) => {
    ctx.body = { next: ctx.path };
  });
  const server = app.listen(0, '127.0.0.1');
  await new Promise<void>((r) => server.once('listening', () => r()));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  close = () => new Promise<void>((r) => server.close(() => r()));
});

afterAll(async () => {
  await close();
  await rm(dir, { recursive: true, force: true });
});

const get = (path: string, init?: RequestInit) => fetch(base + path, init);

describe('consoleMiddleware', () => {
  it('serves index.html at /console and /console/, asset URLs rewritten to the base, with the security headers', async () => {
    for (const path of ['/console', '/console/', '/console/index.html', '/console/some/client/route']) {
      const res = await get(path);
      expect(res.status, path).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(res.headers.get('cache-control')).toBe('no-cache');
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('referrer-policy')).toBe('no-referrer');
      expect(res.headers.get('x-frame-options')).toBe('DENY');
      const body = await res.text();
      expect(body).toContain('src="/console/assets/app-1a2b.js"');
      expect(body).toContain('href="/console/assets/app-3c4d.css"');
    }
  });

  it("gives each page a fresh style nonce, in the meta tag and in the CSP's style-src, and no inline scripts", async () => {
    const nonces = new Set<string>();
    for (let i = 0; i < 3; i++) {
      const res = await get('/console/');
      const csp = res.headers.get('content-security-policy') ?? '';
      const body = await res.text();
      const nonce = /content="([^"]+)"/.exec(body)?.[1] ?? '';
      expect(nonce).toMatch(/^[A-Za-z0-9+/]{24}$/);
      expect(csp).toBe(
        `default-src 'none'; script-src 'self'; style-src 'self' 'nonce-${nonce}'; connect-src 'self'; img-src 'self' data:; font-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'`,
      );
      expect(csp).not.toContain('unsafe-inline');
      nonces.add(nonce);
    }
    expect(nonces.size).toBe(3);
  });

  it('serves hashed assets with a year of cache and an ETag (304 on a match)', async () => {
    const res = await get('/console/assets/app-1a2b.js');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(await res.text()).toBe('console.log(1)');
    const again = await get('/console/assets/app-1a2b.js', { headers: { 'If-None-Match': res.headers.get('etag') ?? '' } });
    expect(again.status).toBe(304);
    expect((await get('/console/assets/app-3c4d.css')).headers.get('content-type')).toBe('text/css; charset=utf-8');
  });

  it('answers a missing asset with 404 rather than HTML, and only GET and HEAD', async () => {
    const missing = await get('/console/assets/old-9z9z.js');
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ detail: 'Not Found' });
    const post = await get('/console/', { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
    expect((await get('/console/', { method: 'HEAD' })).status).toBe(200);
  });

  it('leaves /console/api/*, other paths and look-alikes to the next middleware', async () => {
    for (const path of ['/console/api/me', '/console/api', '/consoles', '/api/v1/manage/silos', '/', '/admin/ui/api/keys']) {
      const res = await get(path);
      expect(await res.json(), path).toEqual({ next: path });
    }
    expect((await get('/console/api/sign-in', { method: 'POST' })).status).toBe(200);
  });

  it('never reads outside the build: traversal attempts get index.html or 404', async () => {
    for (const path of ['/console/../package.json', '/console/%2e%2e/%2e%2e/etc/passwd', '/console/assets/..%2f..%2findex.html']) {
      const res = await get(path);
      const body = await res.text();
      expect(body, path).not.toContain('root:');
      expect([200, 404], path).toContain(res.status);
    }
  });

  it('serves at another base path, rewriting asset URLs to it', async () => {
    const res = await get('/admin/ui');
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('src="/admin/ui/assets/app-1a2b.js"');
    expect((await get('/admin/ui/assets/app-1a2b.js')).status).toBe(200);
  });

  it('answers 503 in words when the app is not built, and refuses a base path that is not a path', async () => {
    const app = new Koa();
    app.use(consoleMiddleware({ appDir: join(dir, 'nope') }));
    const server = app.listen(0, '127.0.0.1');
    await new Promise<void>((r) => server.once('listening', () => r()));
    const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/console/`);
    expect(res.status).toBe(503);
    expect(((await res.json()) as { detail: string }).detail).toMatch(/not built/);
    await new Promise<void>((r) => server.close(() => r()));
    expect(() => consoleMiddleware({ basePath: 'console' })).toThrow(TypeError);
    expect(() => consoleMiddleware({ basePath: '/' })).toThrow(TypeError);
  });

  it('is a named middleware', () => {
    expect(consoleMiddleware().name).toBe('siloConsole');
  });
});
