/**
 * The web console in a real browser (headless Chromium, driven by playwright-core) against
 * `silo serve`: sign-in, keys shown once and revoked, a silo made in the editor, edited, made
 * public and read over HTTP, a version restored, a search compared with the API's answer, the live
 * feed, sign-out; and the security of the pages (CSP, cookie flags, cross-site requests).
 *
 * With SILO_CONSOLE_SCREENSHOTS=<dir>, it also saves screenshots of the main pages there (the
 * README's come from `SILO_CONSOLE_SCREENSHOTS=docs npx vitest run test/browser/console.test.ts`).
 *
 * Needs /usr/bin/chromium (.ci/run installs it): missing, this file fails under CI=true and is
 * skipped, loudly, elsewhere.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSiloServer, type SiloServer } from '../support/silo-server.js';

const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'];
const haveChromium = fs.existsSync(CHROMIUM);
if (!haveChromium) {
  if (process.env.CI === 'true') throw new Error(`${CHROMIUM} is missing: the browser tests need it (apt-get install -y chromium; .ci/run installs it)`);
  console.warn(`\n*** SKIPPING the browser console tests: ${CHROMIUM} is missing (apt-get install -y chromium) ***\n`);
}
const SHOTS = process.env.SILO_CONSOLE_SCREENSHOTS;

describe.skipIf(!haveChromium)('the web console in Chromium', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'silo-console-'));
  let silo: SiloServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let base: string;
  let keys: { manage: string; access: string; adminPassword: string };
  /** What the page logged as a Content-Security-Policy violation (must stay empty). */
  const violations: string[] = [];

  const shot = async (name: string) => {
    if (SHOTS) await page.screenshot({ path: path.join(SHOTS, `console-${name}.png`) });
  };
  const api = (p: string, init: RequestInit = {}) =>
    fetch(`${base}${p}`, { ...init, headers: { 'Content-Type': 'application/json', 'X-MAN-API': keys.manage, ...init.headers } });
  const nav = () => page.getByRole('navigation', { name: 'Main' });
  /** Replaces the editor's whole text, as a person pasting would. */
  const typeInEditor = async (text: string) => {
    const editor = page.getByLabel('Silo data (JSON)', { exact: true });
    await editor.click();
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.insertText(text);
  };

  beforeAll(async () => {
    silo = await startSiloServer({ SILO_DATA_DIR: dataDir, SILO_RATE_LIMIT_PER_MINUTE: '0' });
    keys = silo.banner!;
    base = `http://127.0.0.1:${silo.port}`;
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    context = await browser.newContext({ viewport: { width: 1200, height: 820 } });
    page = await context.newPage();
    page.on('console', (m) => {
      if (/Content.Security.Policy/i.test(m.text())) violations.push(m.text());
    });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await silo?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }, 20_000);

  it('serves the pages with a CSP that allows no inline script and no other origin', async () => {
    const reply = await fetch(`${base}/console`);
    expect(reply.status).toBe(200);
    const csp = reply.headers.get('content-security-policy')!;
    expect(csp).toMatch(/default-src 'none'/);
    expect(csp).toMatch(/script-src 'self'(;|$)/);
    expect(csp).not.toMatch(/unsafe-inline|unsafe-eval|https?:/);
    expect(reply.headers.get('x-frame-options')).toBe('DENY');
    expect(await reply.text()).not.toMatch(/<script>(?!<\/script>)|<script[^>]*>[^<]+<\/script>/);
  }, 20_000);

  it('refuses a wrong password with the error in words, then signs in to the silos', async () => {
    await page.goto(`${base}/console`);
    await page.getByLabel('User').fill('admin');
    await page.getByLabel('Password').fill('not the password');
    await shot('sign-in');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toMatch(/wrong user name or password/i);
    await page.getByLabel('Password').fill(keys.adminPassword);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Silos' }).waitFor();
    const cookie = (await context.cookies()).find((c) => c.name === 'silo_session')!;
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict', secure: false, path: '/' });
  }, 20_000);

  it('creates a silo in the editor (invalid JSON refused with the error shown), edits it, makes it public', async () => {
    await page.getByRole('link', { name: 'New silo' }).click();
    await page.getByLabel('Name', { exact: true }).fill('settings');
    await typeInEditor('{"theme": "dark", "size": 12,}');
    await page.getByRole('button', { name: 'Create silo' }).click();
    await expect.poll(() => page.getByRole('alert').first().textContent()).toMatch(/JSON/);
    await typeInEditor('{"theme": "dark", "size": 12}');
    await shot('new-silo');
    await page.getByRole('button', { name: 'Create silo' }).click();
    await page.getByRole('heading', { name: /settings/ }).waitFor();
    const uuid = /#\/silos\/([0-9a-f-]{36})/.exec(page.url())![1]!;

    await typeInEditor('{"theme": "light", "size": 14}');
    await page.getByRole('button', { name: 'Save data' }).click();
    await expect.poll(async () => (await (await api(`/api/v1/manage/${uuid}`)).json()) as unknown).toEqual({ data: { theme: 'light', size: 14 } });
    await page.getByRole('button', { name: 'Make public' }).click();
    await page.getByRole('button', { name: 'Make private' }).waitFor();
    await shot('silo');
    const read = await fetch(`${base}/public/${uuid}`);
    expect(read.status).toBe(200);
    expect(await read.json()).toEqual({ theme: 'light', size: 14 });
  }, 20_000);

  it('restores an earlier version from the history', async () => {
    await page.getByRole('link', { name: 'History and restore' }).click();
    await page.getByRole('link', { name: 'View version 1' }).click();
    await page.getByRole('button', { name: 'Restore version 1' }).waitFor();
    // The version's own data, read only, beside the diff.
    await expect.poll(() => page.getByLabel('Data of version 1 (read only)').textContent()).toContain('"dark"');
    await shot('history');
    await page.getByRole('button', { name: 'Restore version 1' }).click();
    const uuid = /#\/silos\/([0-9a-f-]{36})/.exec(page.url())![1]!;
    await expect.poll(async () => ((await (await api(`/api/v1/manage/${uuid}`)).json()) as { data: unknown }).data).toEqual({ theme: 'dark', size: 12 });
  }, 20_000);

  it('runs a search in the playground and shows what the API answers', async () => {
    const made = await api('/api/v1/manage/', {
      method: 'POST',
      body: JSON.stringify({ file_name: 'people', file_data: [{ name: 'ann', age: 31 }, { name: 'bob', age: 17 }, { name: 'cy', age: 45 }] }),
    });
    const { file_uuid: uuid } = (await made.json()) as { file_uuid: string };
    await page.goto(`${base}/console#/playground/${uuid}`);
    await page.getByLabel('Search: q, value, op, filter, sort, paging, then path or fields').check();
    await page.getByLabel('q (field to compare)').fill('age');
    await page.getByLabel('value', { exact: true }).fill('18');
    await page.getByLabel('op', { exact: true }).selectOption('gt');
    await page.getByLabel('path (of each match)').fill('name');
    await page.getByRole('button', { name: 'Run' }).click();
    const shown = JSON.parse((await page.getByLabel('Query result').textContent())!) as unknown;
    const answer = await fetch(`${base}/${uuid}?q=age&value=18&op=gt&path=name`, { headers: { 'X-SILO-KEY': keys.access } });
    expect(shown).toEqual(await answer.json());
    expect(shown).toEqual(['ann', 'cy']);
    expect(await page.getByLabel('curl command', { exact: true }).textContent()).toContain(`/${uuid}?q=age&value=18&op=gt&path=name`);

    // The query language: a filter, a sort, a page, a projection, and the count the API sends.
    await page.getByLabel('q (field to compare)').fill('');
    await page.getByLabel('path (of each match)').fill('');
    await page.getByLabel('filter', { exact: true }).fill('age gt 18 or name eq "bob"');
    await page.getByLabel('sort', { exact: true }).fill('-age');
    await page.getByLabel('limit', { exact: true }).fill('2');
    await page.getByLabel('fields', { exact: true }).fill('name');
    await page.getByRole('button', { name: 'Run' }).click();
    const listed = JSON.parse((await page.getByLabel('Query result').textContent())!) as unknown;
    const query = 'filter=age+gt+18+or+name+eq+%22bob%22&sort=-age&limit=2&fields=name';
    const served = await fetch(`${base}/${uuid}?${query}`, { headers: { 'X-SILO-KEY': keys.access } });
    expect(listed).toEqual(await served.json());
    expect(listed).toEqual([{ name: 'cy' }, { name: 'ann' }]);
    expect(await page.getByLabel('Match count').textContent()).toContain(`${served.headers.get('x-total-count')} matches`);
    expect(served.headers.get('x-total-count')).toBe('3');
    expect(await page.getByLabel('curl command', { exact: true }).textContent()).toContain(`/${uuid}?${query}`);
    await shot('playground');
  }, 20_000);

  it('shows a change made over the API in the live feed', async () => {
    await nav().getByRole('link', { name: 'Live feed' }).click();
    await expect.poll(() => page.getByRole('status').first().textContent()).toMatch(/connected|live|open/i);
    const made = await api('/api/v1/manage/', { method: 'POST', body: JSON.stringify({ file_name: 'from the api', file_data: {} }) });
    expect(made.status).toBe(201);
    const log = page.getByRole('log', { name: 'Changes to your silos, newest first' });
    await expect.poll(() => log.textContent(), { timeout: 5000 }).toMatch(/from the api/);
    await shot('feed');
  }, 20_000);

  it('creates keys whose value is shown once, and revokes one by typing its name', async () => {
    await nav().getByRole('link', { name: 'Keys' }).click();
    await page.getByLabel('Manage key name').fill('deploy');
    await page.getByRole('button', { name: 'Create manage key' }).click();
    const value = (await page.getByLabel('Key value', { exact: true }).textContent())!.trim();
    expect(value).toMatch(/^silo_man_/);
    expect((await fetch(`${base}/api/v1/manage/silos`, { headers: { 'X-MAN-API': value } })).status).toBe(200);
    await page.getByRole('button', { name: /I have stored it/ }).click();
    // The value hidden first: no key, even a dead one, in the README's pictures.
    await shot('keys');
    await page.getByLabel('Access key name').fill('reader');
    await page.getByRole('button', { name: 'Create access key' }).click();
    const access = (await page.getByLabel('Key value', { exact: true }).textContent())!.trim();
    expect(access).toMatch(/^silo_acc_/);

    // Never again: not after a reload, not anywhere in the page.
    await page.reload();
    await page.getByRole('heading', { name: 'Keys' }).waitFor();
    const html = await page.content();
    expect(html).not.toContain(value);
    expect(html).not.toContain(access);

    await page.getByRole('button', { name: 'Revoke manage key deploy' }).click();
    const confirm = page.getByRole('button', { name: 'Revoke key deploy' });
    await expect.poll(() => confirm.isDisabled()).toBe(true);
    await page.getByLabel(/to confirm/).fill('deploy');
    await confirm.click();
    await expect.poll(async () => (await fetch(`${base}/api/v1/manage/silos`, { headers: { 'X-MAN-API': value } })).status).toBe(401);
  }, 20_000);

  it('sends no session to another site, and a page of another origin cannot use it', async () => {
    // A page of another origin (127.0.0.1 vs localhost are two sites for the cookie).
    const evil = http.createServer((_req, res) => res.writeHead(200, { 'Content-Type': 'text/html' }).end('<!doctype html><title>evil</title>'));
    await new Promise<void>((resolve) => evil.listen(0, '127.0.0.1', resolve));
    try {
      const other = await context.newPage();
      await other.goto(`http://localhost:${(evil.address() as AddressInfo).port}/`);
      const status = await other.evaluate(async (url) => {
        try {
          const r = await fetch(url, { method: 'POST', credentials: 'include', headers: { 'Content-Type': 'text/plain' }, body: '{"file_name":"x","file_data":{}}' });
          return r.status;
        } catch {
          return 'blocked';
        }
      }, `${base}/api/v1/manage/`);
      // The browser sends no cookie (SameSite=Strict), or the server refuses the Origin: nothing made.
      expect(status === 'blocked' || status === 401 || status === 403).toBe(true);
      await other.close();
      const listed = (await (await api('/api/v1/manage/silos')).json()) as { silos: { file_name: string }[] };
      expect(listed.silos.map((s) => s.file_name)).not.toContain('x');
    } finally {
      await new Promise((resolve) => evil.close(resolve));
    }
  }, 20_000);

  it('signs out, and the session is dead', async () => {
    const cookie = (await context.cookies()).find((c) => c.name === 'silo_session')!;
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    const replay = await fetch(`${base}/api/v1/manage/silos`, { headers: { cookie: `silo_session=${cookie.value}` } });
    expect(replay.status).toBe(401);
    expect(violations).toEqual([]);
  });
});
