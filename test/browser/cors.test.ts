/**
 * CORS in a real browser (headless Chromium, driven by playwright-core): a page served from one
 * origin fetches from `silo serve` on another. Public data is readable from any origin, with
 * `Content-Type: application/json` sent as the hosted service's own example does; keyed requests
 * work from an origin listed in SILO_CORS_ORIGINS, and the browser blocks them from any other.
 *
 * Needs /usr/bin/chromium (.ci/run installs it): missing, this file fails under CI=true and is
 * skipped, loudly, elsewhere.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSiloServer, type SiloServer } from '../support/silo-server.js';

const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'];
const haveChromium = fs.existsSync(CHROMIUM);
if (!haveChromium) {
  if (process.env.CI === 'true') throw new Error(`${CHROMIUM} is missing: the browser tests need it (apt-get install -y chromium; .ci/run installs it)`);
  console.warn(`\n*** SKIPPING the browser CORS tests: ${CHROMIUM} is missing (apt-get install -y chromium) ***\n`);
}

/** A tiny page server: an empty HTML page at every path, so that a page has this origin. */
async function pageServer(): Promise<{ origin: string; close(): Promise<void> }> {
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
    res.end('<!doctype html><title>page</title>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

interface PageFetch {
  status?: number;
  body?: unknown;
  etag?: string | null;
  rateLimit?: string | null;
  /** What the page's fetch threw (a browser reports a CORS refusal as a TypeError). */
  error?: string;
}

/** `fetch` run by the page itself, so the browser applies CORS as it would for a real app. */
function fetchFromPage(page: Page, url: string, init: { method?: string; headers?: Record<string, string>; body?: string }): Promise<PageFetch> {
  return page.evaluate(async ({ url, init }) => {
    try {
      const r = await fetch(url, init);
      const text = await r.text();
      return { status: r.status, body: text === '' ? undefined : JSON.parse(text), etag: r.headers.get('ETag'), rateLimit: r.headers.get('RateLimit-Limit') };
    } catch (e) {
      return { error: String(e) };
    }
  }, { url, init });
}

describe.skipIf(!haveChromium)('CORS in Chromium', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'silo-browser-'));
  let allowed: Awaited<ReturnType<typeof pageServer>>;
  let other: Awaited<ReturnType<typeof pageServer>>;
  let silo: SiloServer;
  let browser: Browser;
  let base: string;
  let keys: { manage: string; access: string };
  let publicUuid: string;
  let privateUuid: string;

  beforeAll(async () => {
    [allowed, other] = await Promise.all([pageServer(), pageServer()]);
    silo = await startSiloServer({ SILO_DATA_DIR: dataDir, SILO_CORS_ORIGINS: allowed.origin });
    keys = silo.banner!;
    base = `http://127.0.0.1:${silo.port}`;
    const create = async (body: Record<string, unknown>) => {
      const r = await fetch(`${base}/api/v1/manage/`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-MAN-API': keys.manage },
        body: JSON.stringify(body),
      });
      expect(r.status).toBe(201);
      return ((await r.json()) as { file_uuid: string }).file_uuid;
    };
    publicUuid = await create({ file_name: 'pub', file_data: { shown: 'to all' }, is_public: true });
    privateUuid = await create({ file_name: 'priv', file_data: { secret: 1 } });
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await silo?.stop();
    await Promise.all([allowed?.close(), other?.close()]);
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  async function pageAt(origin: string): Promise<Page> {
    const page = await browser.newPage();
    await page.goto(`${origin}/`);
    return page;
  }

  it('a page of any origin reads public data while sending Content-Type: application/json, and sees the ETag', async () => {
    const page = await pageAt(other.origin);
    try {
      const r = await fetchFromPage(page, `${base}/public/${publicUuid}`, { headers: { 'Content-Type': 'application/json' } });
      expect(r).toMatchObject({ status: 200, body: { shown: 'to all' } });
      expect(r.etag).toMatch(/^"/);
    } finally {
      await page.close();
    }
  });

  it('a page of the allowed origin reads private data with X-SILO-KEY and sees ETag and RateLimit-Limit', async () => {
    const page = await pageAt(allowed.origin);
    try {
      const r = await fetchFromPage(page, `${base}/${privateUuid}`, { headers: { 'X-SILO-KEY': keys.access, 'Content-Type': 'application/json' } });
      expect(r).toMatchObject({ status: 200, body: { secret: 1 } });
      expect(r.etag).toMatch(/^"/);
      expect(r.rateLimit).toMatch(/^\d+$/);
    } finally {
      await page.close();
    }
  });

  it('a page of the allowed origin manages a silo with X-MAN-API and If-Match', async () => {
    const page = await pageAt(allowed.origin);
    try {
      const got = await fetchFromPage(page, `${base}/api/v1/manage/${privateUuid}`, { headers: { 'X-MAN-API': keys.manage } });
      expect(got.status).toBe(200);
      const patched = await fetchFromPage(page, `${base}/api/v1/manage/${privateUuid}`, {
        method: 'PATCH',
        headers: { 'X-MAN-API': keys.manage, 'Content-Type': 'application/json', 'If-Match': got.etag! },
        body: JSON.stringify({ file_name: 'renamed' }),
      });
      expect(patched.status).toBe(200);
      expect(patched.body).toMatchObject({ file_name: 'renamed' });
    } finally {
      await page.close();
    }
  });

  it('the browser blocks a page of another origin from using a key', async () => {
    const page = await pageAt(other.origin);
    try {
      const read = await fetchFromPage(page, `${base}/${privateUuid}`, { headers: { 'X-SILO-KEY': keys.access } });
      expect(read.status).toBeUndefined();
      expect(read.error).toMatch(/TypeError: Failed to fetch/);
      const manage = await fetchFromPage(page, `${base}/api/v1/manage/silos`, { headers: { 'X-MAN-API': keys.manage } });
      expect(manage.error).toMatch(/TypeError: Failed to fetch/);
    } finally {
      await page.close();
    }
  });
});
