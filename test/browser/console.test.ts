/**
 * The web console in a real browser (headless Chromium, driven by playwright-core) against
 * `silo serve`: sign-in, keys shown once and revoked, a silo made in the editor, edited, made
 * public and read over HTTP at the addresses its page gives, a version restored, a search compared
 * with the API's answer, the live feed, webhooks with their deliveries, sign-out; the security of
 * the pages (CSP, cookie flags, cross-site requests); axe-core on every page (no serious or
 * critical violation), at desktop and phone widths (390 and 360 px, nothing wider than the
 * screen), and the keyboard alone.
 *
 * With SILO_CONSOLE_SCREENSHOTS=<dir>, it also saves screenshots of the main pages there, at
 * desktop and phone widths (the README's come from
 * `SILO_CONSOLE_SCREENSHOTS=docs npx vitest run test/browser/console.test.ts`).
 *
 * Needs /usr/bin/chromium (.ci/run installs it): missing, this file fails under CI=true and is
 * skipped, loudly, elsewhere.
 */
/// <reference lib="dom" />
// (The functions given to page.evaluate run in the page.)
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { AxeBuilder } from '@axe-core/playwright';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSilo, startSiloServer, type SiloServer } from '../support/silo-server.js';

const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'];
const haveChromium = fs.existsSync(CHROMIUM);
if (!haveChromium) {
  if (process.env.CI === 'true') throw new Error(`${CHROMIUM} is missing: the browser tests need it (apt-get install -y chromium; .ci/run installs it)`);
  console.warn(`\n*** SKIPPING the browser console tests: ${CHROMIUM} is missing (apt-get install -y chromium) ***\n`);
}
const SHOTS = process.env.SILO_CONSOLE_SCREENSHOTS;
const DESKTOP = { width: 1200, height: 820 };
const PHONE = { width: 390, height: 844 };

/** Every page of the console that a signed-in person reaches by the menu or a link. */
const PAGES = ['silos', 'new-silo', 'silo', 'history', 'playground', 'feed', 'keys', 'webhooks', 'audit'] as const;

/** A receiver of webhook deliveries on 127.0.0.1: answers each with the next of `statuses`, then 204. */
async function receiver(statuses: number[]) {
  const received: string[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      received.push(body);
      res.writeHead(statuses.shift() ?? 204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/silo-hook`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe.skipIf(!haveChromium)('the web console in Chromium', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'silo-console-'));
  const env = { SILO_DATA_DIR: dataDir, SILO_RATE_LIMIT_PER_MINUTE: '0', SILO_WEBHOOK_ALLOW_PRIVATE: 'true' };
  let silo: SiloServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let base: string;
  let keys: { manage: string; access: string; adminPassword: string };
  /** The silos made along the way, by page (for the phone pass). */
  const made: { settings?: string; people?: string } = {};
  /** What the page logged as a Content-Security-Policy violation (must stay empty). */
  const violations: string[] = [];
  /** Every error the page logged in its console, and where it was then. */
  const consoleErrors: string[] = [];

  const shot = async (name: string, p: Page = page) => {
    if (SHOTS) await p.screenshot({ path: path.join(SHOTS, `console-${name}.png`) });
  };
  const api = (p: string, init: RequestInit = {}) =>
    fetch(`${base}${p}`, { ...init, headers: { 'Content-Type': 'application/json', 'X-MAN-API': keys.manage, ...init.headers } });
  const nav = (p: Page = page) => p.getByRole('navigation', { name: 'Main' });
  /** Replaces the editor's whole text, as a person pasting would. */
  const typeInEditor = async (text: string) => {
    const editor = page.getByLabel('Silo data (JSON)', { exact: true });
    await editor.click();
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.insertText(text);
  };
  /** axe-core on the page as it is: no serious or critical violation (each named with its nodes when there is one). */
  const accessible = async (where: string, p: Page = page) => {
    const { violations: found, passes } = await new AxeBuilder({ page: p }).analyze();
    if (process.env.AXE_DEBUG) console.log(where, 'passes', passes.length, 'violations', found.map((v) => `${v.id}:${v.impact}`).join(' '));
    const bad = found
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${where}: ${v.id} (${v.impact}): ${v.help}: ${v.nodes.map((n) => n.target.join(' ')).join(' | ')}`);
    expect(bad).toEqual([]);
  };
  /** Nothing wider than the screen: no sideways scrolling, the header within it. */
  const fitsTheScreen = async (where: string, p: Page = page) => {
    const sizes = await p.evaluate(() => {
      const header = document.querySelector('header.top')?.getBoundingClientRect();
      return { scroll: document.documentElement.scrollWidth, width: window.innerWidth, header: header ? Math.ceil(header.right) : 0 };
    });
    expect(sizes.scroll, where).toBeLessThanOrEqual(sizes.width);
    expect(sizes.header, where).toBeLessThanOrEqual(sizes.width);
  };
  /** Signs `p` in as admin (a context of its own). */
  const signIn = async (p: Page) => {
    await p.goto(`${base}/console`);
    await p.getByLabel('User').fill('admin');
    await p.getByLabel('Password').fill(keys.adminPassword);
    await p.getByRole('button', { name: 'Sign in' }).click();
    await p.getByRole('heading', { name: 'Silos' }).waitFor();
  };

  beforeAll(async () => {
    silo = await startSiloServer(env);
    keys = silo.banner!;
    base = `http://127.0.0.1:${silo.port}`;
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    context = await browser.newContext({ viewport: DESKTOP });
    page = await context.newPage();
    page.on('console', (m) => {
      if (/Content.Security.Policy/i.test(m.text())) violations.push(m.text());
      if (m.type() === 'error') consoleErrors.push(`${page.url()}: ${m.text()}`);
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

  it('answers / on the API host with where to go: the console, the OpenAPI document, the README (HTML for a browser)', async () => {
    const asJson = (await (await fetch(`${base}/`)).json()) as Record<string, unknown>;
    expect(asJson).toMatchObject({ console: '/console', openapi: '/api/v1/openapi.json', docs: 'README.md#the-api' });
    await page.goto(`${base}/`);
    await page.getByRole('link', { name: 'The web console' }).waitFor();
    await accessible('GET /');
    await page.getByRole('link', { name: 'The web console' }).click();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
  }, 20_000);

  it('loads without an error in the browser\'s console (no 401 for the session check)', async () => {
    consoleErrors.length = 0;
    await page.goto(`${base}/console`);
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    await page.reload();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    expect(consoleErrors).toEqual([]);
    await accessible('sign-in');
  }, 20_000);

  it('refuses a wrong password with the error in words, then signs in to the silos', async () => {
    await page.goto(`${base}/console`);
    await page.getByLabel('User').fill('admin');
    await page.getByLabel('Password').fill('not the password');
    await shot('sign-in');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toMatch(/wrong user name or password/i);
    await page.getByLabel('Password').fill(keys.adminPassword);
    consoleErrors.length = 0;
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Silos' }).waitFor();
    const cookie = (await context.cookies()).find((c) => c.name === 'silo_session')!;
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict', secure: false, path: '/' });
    // Signed in, a reload asks who is signed in again: still no error.
    await page.reload();
    await page.getByRole('heading', { name: 'Silos' }).waitFor();
    expect(consoleErrors).toEqual([]);
    await accessible('silos (empty)');
  }, 20_000);

  it('creates a silo in the editor (invalid JSON refused with the error shown), edits it, makes it public', async () => {
    await page.getByRole('link', { name: 'New silo' }).click();
    await page.getByLabel('Name', { exact: true }).fill('settings');
    await typeInEditor('{"theme": "dark", "size": 12,}');
    await page.getByRole('button', { name: 'Create silo' }).click();
    await expect.poll(() => page.getByRole('alert').first().textContent()).toMatch(/JSON/);
    await typeInEditor('{"theme": "dark", "size": 12}');
    await shot('new-silo');
    await accessible('new silo');
    await page.getByRole('button', { name: 'Create silo' }).click();
    await page.getByRole('heading', { name: /settings/ }).waitFor();
    const uuid = /#\/silos\/([0-9a-f-]{36})/.exec(page.url())![1]!;
    made.settings = uuid;

    await typeInEditor('{"theme": "light", "size": 14}');
    await page.getByRole('button', { name: 'Save data' }).click();
    await expect.poll(async () => (await (await api(`/api/v1/manage/${uuid}`)).json()) as unknown).toEqual({ data: { theme: 'light', size: 14 } });
    // Its size, as stored ({"theme":"light","size":14}: 27 bytes), after the save.
    const sizeOnPage = page.locator('dl.meta dt:text-is("Size") + dd');
    await expect.poll(() => sizeOnPage.textContent()).toBe('27 B');
    await page.getByRole('button', { name: 'Make public' }).click();
    await page.getByRole('button', { name: 'Make private' }).waitFor();
    await page.evaluate(() => scrollTo(0, 0));
    await shot('silo');
    await accessible('silo');
    const read = await fetch(`${base}/public/${uuid}`);
    expect(read.status).toBe(200);
    expect(await read.json()).toEqual({ theme: 'light', size: 14 });
  }, 20_000);

  it('saves only a change, asks before an edit is lost, and before a move changes the addresses', async () => {
    const created = (await (await api('/api/v1/manage/', { method: 'POST', body: JSON.stringify({ file_name: 'mover', file_data: { a: 1 } }) })).json()) as { file_uuid: string };
    const uuid = created.file_uuid;
    await page.goto(`${base}/console/#/silos/${uuid}`);
    await page.getByRole('heading', { name: /mover/ }).waitFor();
    const save = page.getByRole('button', { name: 'Save data' });
    expect(await save.isDisabled()).toBe(true);
    await typeInEditor('{"a": 2}');
    expect(await save.isDisabled()).toBe(false);
    // Leaving by a link while the edit is unsaved asks first; declined, the page and the edit stay.
    const asked: string[] = [];
    page.once('dialog', (dialog) => {
      asked.push(dialog.message());
      void dialog.dismiss();
    });
    await page.getByRole('link', { name: 'All silos' }).click();
    expect(asked).toEqual(['Leave this silo? Your unsaved changes to its data will be lost.']);
    expect(page.url()).toContain(`#/silos/${uuid}`);
    await page.getByRole('button', { name: 'Discard changes' }).click();
    expect(await save.isDisabled()).toBe(true);

    // A move says what it changes and waits for a second click; Cancel moves nothing.
    await page.getByLabel('Region', { exact: true }).selectOption('sg-01-api');
    await page.getByRole('button', { name: 'Move to region…' }).click();
    await page.getByText(/Moving changes every address of this silo/).waitFor();
    await page.getByRole('heading', { name: 'Settings' }).evaluate((el) => el.scrollIntoView({ block: 'start' }));
    await shot('silo-move-confirm');
    await accessible('silo move confirmation');
    await page.getByRole('button', { name: 'Cancel' }).click();
    expect(((await (await api(`/api/v1/manage/meta/${uuid}`)).json()) as { region_name: string }).region_name).toBe('api');
    await page.getByRole('button', { name: 'Move to region…' }).click();
    await page.getByRole('button', { name: 'Move to sg-01-api' }).click();
    await page.getByText(/Moved to region sg-01-api/).waitFor();
    expect(((await (await api(`/api/v1/manage/meta/${uuid}`)).json()) as { region_name: string }).region_name).toBe('sg-01-api');
    await api(`/api/v1/manage/${uuid}`, { method: 'DELETE' });
    // Where the tests after this one start: the settings silo's page.
    await page.goto(`${base}/console/#/silos/${made.settings!}`);
    await page.getByRole('heading', { name: /settings/ }).waitFor();
  }, 20_000);

  it("gives the silo's read addresses and curl lines, which read it as shown", async () => {
    const uuid = made.settings!;
    const text = async (label: string) => (await page.getByLabel(label, { exact: true }).textContent())!;
    const privateUrl = await text('Private URL');
    expect(privateUrl).toBe(`${base}/${uuid}`);
    expect(await text('Private curl command')).toBe(`curl -s '${base}/${uuid}' -H 'X-SILO-KEY: <your access key>'`);
    const publicUrl = await text('Public URL');
    expect(publicUrl).toBe(`${base}/public/${uuid}`);
    expect(await text('Public curl command')).toBe(`curl -s '${base}/public/${uuid}'`);
    const [privately, publicly] = await Promise.all([fetch(privateUrl, { headers: { 'X-SILO-KEY': keys.access } }), fetch(publicUrl)]);
    expect([await privately.json(), await publicly.json()]).toEqual([{ theme: 'light', size: 14 }, { theme: 'light', size: 14 }]);
    for (const label of ['Copy private URL', 'Copy private curl command', 'Copy public URL', 'Copy public curl command']) {
      await page.getByRole('button', { name: label, exact: true }).waitFor();
    }
    await page.getByRole('heading', { name: 'Read it over HTTP' }).evaluate((el) => el.scrollIntoView({ block: 'start' }));
    await shot('silo-read');
    // The key header of a curl line never breaks across lines, even on a phone.
    await page.setViewportSize({ width: 360, height: 800 });
    const header = page.getByLabel('Private curl command', { exact: true }).locator('.word', { hasText: 'X-SILO-KEY' });
    expect(await header.evaluate((el) => el.getClientRects().length)).toBe(1);
    await fitsTheScreen('silo at 360 px');
    await page.setViewportSize(DESKTOP);
  }, 20_000);

  it('restores an earlier version from the history, then shows the version it wrote as the current one', async () => {
    await page.getByRole('link', { name: 'History and restore' }).click();
    await page.getByRole('link', { name: 'View version 1' }).click();
    await page.getByRole('button', { name: 'Restore version 1' }).waitFor();
    // The version's own data, read only, beside the diff.
    await expect.poll(() => page.getByLabel('Data of version 1 (read only)').textContent()).toContain('"dark"');
    await shot('history');
    await accessible('history');
    await page.getByRole('button', { name: 'Restore version 1' }).click();
    const uuid = /#\/silos\/([0-9a-f-]{36})/.exec(page.url())![1]!;
    await expect.poll(async () => ((await (await api(`/api/v1/manage/${uuid}`)).json()) as { data: unknown }).data).toEqual({ theme: 'dark', size: 12 });
    // Version 4 (1 create, 1 save, 1 made public, the restore) is now shown: the current one, with nothing to restore.
    await expect.poll(() => page.url()).toMatch(/\/history\/4$/);
    await page.getByText('This is the current version.').waitFor();
    expect(await page.getByRole('button', { name: /^Restore version/ }).count()).toBe(0);
    await expect.poll(() => page.getByRole('status').first().textContent()).toMatch(/Restored: version 4 now holds the data of version 1/);
    // Version 1 again: its data is the current data, so there is nothing to restore either.
    await page.getByRole('link', { name: 'View version 1' }).click();
    await page.getByText(/the same as the current version's/).waitFor();
    expect(await page.getByRole('button', { name: /^Restore version/ }).count()).toBe(0);
  }, 20_000);

  it('lists silos with their sizes', async () => {
    await nav().getByRole('link', { name: 'Silos' }).click();
    const row = page.getByRole('row').filter({ has: page.getByRole('link', { name: 'settings' }) });
    // {"theme":"dark","size":12}, restored: 26 bytes.
    await expect.poll(() => row.getByRole('cell').nth(2).textContent()).toBe('26 B');
    await accessible('silos');
  }, 20_000);

  it('runs a search in the playground and shows what the API answers', async () => {
    const created = await api('/api/v1/manage/', {
      method: 'POST',
      body: JSON.stringify({ file_name: 'people', file_data: [{ name: 'ann', age: 31 }, { name: 'bob', age: 17 }, { name: 'cy', age: 45 }] }),
    });
    const { file_uuid: uuid } = (await created.json()) as { file_uuid: string };
    made.people = uuid;
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

    // Inputs side by side sit at one height, a select's too.
    const tops = await Promise.all(['q (field to compare)', 'value', 'op'].map(async (label) => (await page.getByLabel(label, { exact: true }).boundingBox())!));
    expect(new Set(tops.map((b) => Math.round(b.y))).size).toBe(1);
    expect(new Set(tops.map((b) => Math.round(b.height))).size).toBe(1);

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
    const curl = page.getByLabel('curl command', { exact: true });
    expect(await curl.textContent()).toContain(`/${uuid}?${query}`);
    expect(await curl.locator('.word', { hasText: 'X-SILO-KEY' }).evaluate((el) => el.getClientRects().length)).toBe(1);
    // The picture: the search, its result and the same request as a curl line.
    await page.setViewportSize({ width: DESKTOP.width, height: 1040 });
    await page.getByLabel('q (field to compare)', { exact: true }).evaluate((el) => el.closest('.field')!.scrollIntoView({ block: 'start' }));
    await shot('playground');
    await page.setViewportSize(DESKTOP);
    await accessible('playground');
  }, 20_000);

  it('shows a change made over the API in the live feed; a deleted silo is no longer a link', async () => {
    await nav().getByRole('link', { name: 'Live feed' }).click();
    await expect.poll(() => page.getByRole('status').first().textContent()).toMatch(/connected|live|open/i);
    const created = await api('/api/v1/manage/', { method: 'POST', body: JSON.stringify({ file_name: 'from the api', file_data: {} }) });
    expect(created.status).toBe(201);
    const { file_uuid: uuid } = (await created.json()) as { file_uuid: string };
    const log = page.getByRole('log', { name: 'Changes to your silos, newest first' });
    await expect.poll(() => log.textContent(), { timeout: 5000 }).toMatch(/from the api/);
    expect(await log.getByRole('link', { name: 'from the api' }).count()).toBe(1);
    const temp = await api('/api/v1/manage/', { method: 'POST', body: JSON.stringify({ file_name: 'short-lived', file_data: {} }) });
    const { file_uuid: tempUuid } = (await temp.json()) as { file_uuid: string };
    await api(`/api/v1/manage/${tempUuid}`, { method: 'PATCH', body: JSON.stringify({ file_data: { a: 1 } }) });
    await expect.poll(() => log.getByRole('link', { name: 'short-lived' }).count(), { timeout: 5000 }).toBe(2);
    await api(`/api/v1/manage/${tempUuid}`, { method: 'DELETE' });
    await expect.poll(() => log.getByRole('link', { name: 'short-lived' }).count(), { timeout: 5000 }).toBe(0);
    await expect.poll(() => log.textContent()).toMatch(/short-lived \(deleted since\)/);
    expect(uuid).toBeTruthy();
    await shot('feed');
    await accessible('feed');
  }, 20_000);

  it('creates keys whose value is shown once, and revokes one by typing its name', async () => {
    await nav().getByRole('link', { name: 'Keys' }).click();
    await page.getByLabel('Manage key name').fill('deploy');
    await page.getByRole('button', { name: 'Create manage key' }).click();
    const value = (await page.getByLabel('Key value', { exact: true }).textContent())!.trim();
    expect(value).toMatch(/^silo_man_/);
    expect((await fetch(`${base}/api/v1/manage/silos`, { headers: { 'X-MAN-API': value } })).status).toBe(200);
    await accessible('keys, a new value shown');
    await page.getByRole('button', { name: /I have stored it/ }).click();
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

  it("keys: revoking opens below the row (the table keeps its shape), a scoped key reads silos by name, keys expiring soon stand out", async () => {
    // Opening "Revoke…" leaves the key's row as it was.
    const row = page.getByRole('row').filter({ has: page.getByRole('rowheader', { name: 'default', exact: true }) }).filter({ hasText: 'manage' });
    const before = (await row.boundingBox())!;
    await page.getByRole('button', { name: 'Revoke manage key default' }).click();
    await page.getByLabel(/to confirm/).waitFor();
    // The name field has the focus: a keyboard user types the name at once.
    const confirmId = await page.getByLabel(/to confirm/).getAttribute('id');
    await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute('id'))).toBe(confirmId);
    const after = (await row.boundingBox())!;
    expect([after.width, after.height]).toEqual([before.width, before.height]);
    await accessible('keys, revoking');
    await page.getByRole('button', { name: 'Cancel' }).click();

    // A key scoped to a silo says which, by name.
    await page.getByLabel('Access key name').fill('people-reader');
    await page.getByLabel('Only the silos chosen below').check();
    await page.getByLabel('people').check();
    await page.getByRole('button', { name: 'Create access key' }).click();
    await page.getByRole('button', { name: /I have stored it/ }).click();
    const scoped = page.getByRole('row').filter({ has: page.getByRole('rowheader', { name: 'people-reader' }) });
    await expect.poll(() => scoped.textContent()).toContain('only people');
    expect(await scoped.textContent()).not.toContain(made.people!);

    // A key that stops working within 7 days: marked in its row and said on every page.
    await page.getByLabel('Manage key name').fill('weekly');
    await page.getByLabel('Manage key expires after').selectOption('7d');
    await page.getByRole('button', { name: 'Create manage key' }).click();
    await page.getByRole('button', { name: /I have stored it/ }).click();
    const weekly = page.getByRole('row').filter({ has: page.getByRole('rowheader', { name: 'weekly' }) });
    await expect.poll(() => weekly.textContent()).toMatch(/in 7 days: replace it soon/);
    expect(await weekly.getAttribute('class')).toContain('expiring');
    await nav().getByRole('link', { name: 'Silos' }).click();
    await expect.poll(() => page.locator('.expiry-notice').textContent()).toMatch(/A key expires soon: manage key “weekly” expires in 7 days/);
    await nav().getByRole('link', { name: 'Keys' }).click();
    await page.getByRole('row').filter({ has: page.getByRole('rowheader', { name: 'weekly' }) }).waitFor();
    // An access key may expire too.
    await page.getByLabel('Access key name').fill('temp-reader');
    await page.getByLabel('Access key expires after').selectOption('30d');
    await page.getByRole('button', { name: 'Create access key' }).click();
    await page.getByRole('button', { name: /I have stored it/ }).click();
    await expect.poll(() => page.getByRole('row').filter({ has: page.getByRole('rowheader', { name: 'temp-reader' }) }).textContent()).toMatch(/UTC \(in 30 days\)/);
    await page.evaluate(() => scrollTo(0, 0));
    // The value hidden first: no key, even a dead one, in the README's pictures.
    await shot('keys');
    await accessible('keys');
  }, 30_000);

  it('webhooks: create (the secret shown once), deliveries with their status, retry now, delete', async () => {
    const hook = await receiver([500]);
    try {
      await nav().getByRole('link', { name: 'Webhooks' }).click();
      await page.getByText('No webhooks yet').waitFor();
      await accessible('webhooks (none)');
      // A URL the server refuses: said beside the field.
      await page.getByLabel('URL', { exact: true }).fill('ftp://example.org/hook');
      await page.getByRole('button', { name: 'Create webhook' }).click();
      await expect.poll(() => page.locator('#webhook-url-error').textContent()).toMatch(/http or https/);
      await page.getByLabel('URL', { exact: true }).fill(hook.url);
      await page.getByRole('button', { name: 'Create webhook' }).click();
      const secret = (await page.getByLabel('Signing secret', { exact: true }).textContent())!.trim();
      expect(secret).toMatch(/^whsec_/);
      await accessible('webhooks, the secret shown');
      await page.getByRole('button', { name: /I have stored it/ }).click();
      expect(await page.content()).not.toContain(secret);
      const row = page.getByRole('row').filter({ has: page.getByRole('rowheader', { name: hook.url }) });
      await expect.poll(() => row.textContent()).toMatch(/Active/);

      // A change, delivered and refused (500): the attempt is listed, then retried at once on request.
      await api('/api/v1/manage/', { method: 'POST', body: JSON.stringify({ file_name: 'hooked', file_data: {} }) });
      await expect.poll(() => hook.received.length, { timeout: 5000 }).toBe(1);
      await page.getByRole('button', { name: `Deliveries of the webhook to ${hook.url}` }).click();
      const deliveries = page.getByRole('region', { name: `Recent deliveries to ${hook.url}` });
      await expect
        .poll(async () => {
          await deliveries.getByRole('button', { name: 'Refresh' }).click();
          return deliveries.textContent();
        }, { timeout: 5000 })
        .toMatch(/HTTP 500.*retrying/);
      await accessible('webhooks, deliveries');
      await deliveries.getByRole('button', { name: 'Retry now' }).click();
      await expect.poll(() => deliveries.getByRole('status').last().textContent()).toMatch(/1 delivery waiting for a retry will be attempted within a second|Nothing was waiting/);
      await expect.poll(() => hook.received.length, { timeout: 8000 }).toBe(2);
      await expect
        .poll(async () => {
          await deliveries.getByRole('button', { name: 'Refresh' }).click();
          return deliveries.textContent();
        }, { timeout: 5000 })
        .toMatch(/HTTP 204.*delivered/);
      await page.evaluate(() => scrollTo(0, 0));
      await shot('webhooks');

      await page.getByRole('button', { name: `Delete the webhook to ${hook.url}` }).click();
      await page.getByRole('button', { name: 'Delete webhook', exact: true }).click();
      await page.getByText('No webhooks yet').waitFor();
      expect(((await (await api('/api/v1/manage/webhooks')).json()) as { webhooks: unknown[] }).webhooks).toEqual([]);
    } finally {
      await hook.close();
    }
  }, 30_000);

  it('audit log: lists what was done, by whom (a manage key, the console user), narrowed by silo, actor and time', async () => {
    // A silo made and patched with the manage key, its data saved in the console, a key made in the console.
    const created = await api('/api/v1/manage/', { method: 'POST', body: JSON.stringify({ file_name: 'audited', file_data: { n: 1 } }) });
    const { file_uuid: uuid } = (await created.json()) as { file_uuid: string };
    const patched = await api(`/api/v1/manage/${uuid}`, { method: 'PATCH', headers: { 'Content-Type': 'application/merge-patch+json' }, body: JSON.stringify({ file_data: { n: 2 } }) });
    expect(patched.status).toBe(200);
    await page.goto(`${base}/console#/silos/${uuid}`);
    await page.getByRole('heading', { name: /audited/ }).waitFor();
    await typeInEditor('{"n": 3}');
    // The console asks for a minimal answer (RFC 7240): it has the text it sent, the metadata is enough.
    const [saved] = await Promise.all([
      page.waitForResponse((r) => r.request().method() === 'PATCH' && r.url().endsWith(uuid)),
      page.getByRole('button', { name: 'Save data' }).click(),
    ]);
    expect(saved.request().headers()['prefer']).toBe('return=minimal');
    expect(saved.headers()['preference-applied']).toBe('return=minimal');
    expect(await saved.json()).not.toHaveProperty('file_data');
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'Saved as version 3.' }).count()).toBe(1);
    await nav().getByRole('link', { name: 'Keys' }).click();
    await page.getByLabel('Manage key name').fill('auditor');
    await page.getByRole('button', { name: 'Create manage key' }).click();
    await page.getByRole('button', { name: /I have stored it/ }).click();

    await nav().getByRole('link', { name: 'Audit log' }).click();
    await page.getByRole('heading', { name: 'Audit log', level: 1 }).waitFor();
    /** The entries shown: action, actor, address, silo, subject, outcome of each row (the time is its header). */
    const shown = async () => {
      const rows = await page.locator('table.cards > tbody > tr').all();
      return Promise.all(rows.map(async (r) => (await r.getByRole('cell').allTextContents()).map((t) => t.trim())));
    };
    await expect.poll(async () => (await shown())[0]?.[0]).toBe('key.create');
    const [key, update, patch, create] = (await shown()).slice(0, 4);
    expect(key).toEqual(['key.create', 'console:admin', expect.stringMatching(/127\.0\.0\.1/), 'none', 'manage:auditor', 'success']);
    expect(update).toEqual(['silo.update', 'console:admin', expect.stringMatching(/127\.0\.0\.1/), `${uuid} version 3`, 'none', 'success']);
    expect(patch).toEqual(['silo.patch', 'manage:default', expect.stringMatching(/127\.0\.0\.1/), `${uuid} version 2`, 'none', 'success']);
    expect(create).toEqual(['silo.create', 'manage:default', expect.stringMatching(/127\.0\.0\.1/), `${uuid} version 1`, 'none', 'success']);
    // The times are the rows' headers; a silo's uuid is a link to its page.
    await page.getByRole('rowheader').first().getByText(/UTC$/).waitFor();
    expect(await page.getByRole('link', { name: uuid, exact: true }).count()).toBe(3);
    await accessible('audit log');
    // Seven columns within the page's width, whatever the longest action, uuid or subject.
    const [table, main] = await page.evaluate(() => {
      const box = document.querySelector('main')!;
      const style = getComputedStyle(box);
      return [document.querySelector('table.cards')!.getBoundingClientRect().width, box.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight)];
    });
    expect(table).toBeLessThanOrEqual(main);
    await page.evaluate(() => scrollTo(0, 0));
    await shot('audit');

    // The silo filter: its three entries, and the address says so (back undoes it).
    await page.getByLabel('Silo', { exact: true }).fill(uuid);
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await expect.poll(() => page.url()).toContain(`#/audit?silo=${uuid}`);
    await expect.poll(async () => (await shown()).map((r) => r[0])).toEqual(['silo.update', 'silo.patch', 'silo.create']);
    expect(await page.locator('table.cards > caption').textContent()).toBe('3 entries matching the filters, newest first, page 1 of 1');
    await expect.poll(() => page.getByRole('status').filter({ hasText: '3 entries matching the filters' }).count()).toBe(1);
    await accessible('audit log, filtered by silo');
    // The silo and the actor together.
    await page.getByLabel('Actor name').fill('admin');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await expect.poll(async () => (await shown()).map((r) => r.slice(0, 2))).toEqual([['silo.update', 'console:admin']]);
    // Back, as the browser's button goes (the filters are in the address).
    await page.evaluate(() => history.back());
    await expect.poll(async () => (await shown()).length).toBe(3);
    await expect.poll(() => page.getByLabel('Actor name').inputValue()).toBe('');
    // A time after every entry: the empty state.
    await page.getByLabel('Since (UTC)').fill('2099-01-01T00:00');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.getByText('No entry matches these filters.').waitFor();
    await expect.poll(() => page.url()).toContain('since=2099-01-01T00%3A00%3A00.000Z');
    // What the API refuses (a silo that is no uuid) is said beside its field.
    await page.getByRole('link', { name: 'Clear filters' }).click();
    await expect.poll(() => page.getByRole('link', { name: 'Clear filters' }).count()).toBe(0);
    await page.getByLabel('Silo', { exact: true }).fill('not-a-uuid');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await expect.poll(() => page.locator('#audit-silo-error').textContent()).toBeTruthy();
    expect(await page.getByLabel('Silo', { exact: true }).getAttribute('aria-invalid')).toBe('true');
    await accessible('audit log, a refused filter');
    // The silo's page leads to its entries.
    await page.goto(`${base}/console#/silos/${uuid}`);
    await page.getByRole('link', { name: 'Its audit log' }).click();
    await expect.poll(async () => (await shown()).length).toBe(3);
    expect(await page.getByLabel('Silo', { exact: true }).inputValue()).toBe(uuid);
  }, 30_000);

  it('fits a phone (390 and 360 px) on every page, with no serious accessibility problem there either', async () => {
    const phone = await browser.newContext({ viewport: PHONE });
    const p = await phone.newPage();
    try {
      await p.goto(`${base}/console`);
      await p.getByRole('button', { name: 'Sign in' }).waitFor();
      await fitsTheScreen('sign-in (phone)', p);
      await signIn(p);
      // A webhook to show in its list.
      const hook = (await (await api('/api/v1/manage/webhooks', { method: 'POST', body: JSON.stringify({ url: 'https://example.org/silo-hook', events: ['silo.updated'] }) })).json()) as { id: string };
      const hashes: Record<(typeof PAGES)[number], string> = {
        silos: '#/silos',
        'new-silo': '#/silos/new',
        silo: `#/silos/${made.settings}`,
        history: `#/silos/${made.settings}/history/1`,
        playground: `#/playground/${made.people}`,
        feed: '#/feed',
        keys: '#/keys',
        webhooks: '#/webhooks',
        audit: '#/audit',
      };
      for (const width of [PHONE.width, 360]) {
        await p.setViewportSize({ width, height: PHONE.height });
        for (const name of PAGES) {
          await p.goto(`${base}/console${hashes[name]}`);
          await p.getByRole('heading', { level: 1 }).first().waitFor();
          // Pages that load their data: wait for it.
          if (name === 'silos') await p.getByRole('link', { name: 'settings', exact: true }).waitFor();
          if (name === 'silo') await p.getByLabel('Private curl command', { exact: true }).waitFor();
          if (name === 'history') await p.getByLabel('Data of version 1 (read only)').waitFor();
          if (name === 'keys') await p.getByRole('rowheader', { name: 'weekly' }).waitFor();
          if (name === 'audit') await p.getByRole('cell', { name: 'webhook.create' }).first().waitFor();
          await fitsTheScreen(`${name} at ${width} px`, p);
          if (width === PHONE.width) {
            await accessible(`${name} (phone)`, p);
            // The audit log's picture shows its entries as cards (its filters come first on the page).
            if (name === 'audit') await p.getByRole('button', { name: 'Apply filters' }).evaluate((el) => el.scrollIntoView({ block: 'start' }));
            if (['silos', 'silo', 'keys', 'webhooks', 'audit'].includes(name)) await shot(`${name}-phone`, p);
          }
        }
      }
      await api(`/api/v1/manage/webhooks/${hook.id}`, { method: 'DELETE' });
    } finally {
      await phone.close();
    }
  }, 90_000);

  it('works with the keyboard alone: sign in, go to a page, open and cancel a revocation, create a webhook', async () => {
    const own = await browser.newContext({ viewport: DESKTOP });
    const p = await own.newPage();
    /** Presses Tab (Shift+Tab: `back`) until the focused control's name matches `name` (at most `max` times). */
    const tabTo = async (name: RegExp, max = 60, back = false) => {
      for (let i = 0; i < max; i++) {
        await p.keyboard.press(back ? 'Shift+Tab' : 'Tab');
        const focused = await p.evaluate(() => {
          const el = document.activeElement as HTMLInputElement | null;
          if (!el) return '';
          return el.getAttribute('aria-label') ?? el.labels?.[0]?.textContent?.trim() ?? el.textContent?.trim() ?? '';
        });
        if (name.test(focused)) return;
      }
      throw new Error(`no control named ${name} within ${max} tabs (at ${await p.evaluate(() => document.activeElement?.outerHTML.slice(0, 120))})`);
    };
    try {
      await p.goto(`${base}/console`);
      await p.getByRole('button', { name: 'Sign in' }).waitFor();
      await p.keyboard.press('Tab');
      await p.keyboard.type('admin');
      await p.keyboard.press('Tab');
      await p.keyboard.type(keys.adminPassword);
      await p.keyboard.press('Enter');
      await p.getByRole('heading', { name: 'Silos' }).waitFor();

      // Back to the top of the page: the skip link comes first; then the menu.
      await tabTo(/^Skip to content$/, 20, true);
      await tabTo(/^Keys$/);
      await p.keyboard.press('Enter');
      await p.getByRole('heading', { name: 'Keys' }).waitFor();
      await tabTo(/^Revoke manage key default$/);
      await p.keyboard.press('Enter');
      // The name field has the focus; Tab reaches the confirm button (disabled until the name is typed) and Cancel.
      await p.keyboard.type('not it');
      await tabTo(/^Cancel$/, 5);
      await p.keyboard.press('Enter');
      expect(await p.getByLabel(/to confirm/).count()).toBe(0);
      // Focus is back on the button that opened it; Escape closes it too, and comes back there.
      const focused = () => p.evaluate(() => document.activeElement?.getAttribute('aria-label') ?? document.activeElement?.textContent);
      await expect.poll(focused).toBe('Revoke manage key default');
      await p.keyboard.press('Enter');
      await p.getByLabel(/to confirm/).waitFor();
      await p.keyboard.press('Escape');
      expect(await p.getByLabel(/to confirm/).count()).toBe(0);
      await expect.poll(focused).toBe('Revoke manage key default');

      await tabTo(/^Webhooks$/, 40, true);
      await p.keyboard.press('Enter');
      await p.getByRole('heading', { name: 'Webhooks' }).waitFor();
      await tabTo(/^URL$/);
      await p.keyboard.type('https://example.org/by-keyboard');
      await tabTo(/^Create webhook$/, 15);
      await p.keyboard.press('Enter');
      await p.getByLabel('Signing secret', { exact: true }).waitFor();
      // The new secret's box takes the focus: the next Tab is its copy button.
      await tabTo(/^Copy signing secret$/, 2);
      await tabTo(/I have stored it/, 5);
      await p.keyboard.press('Enter');
      await p.getByRole('rowheader', { name: 'https://example.org/by-keyboard' }).waitFor();
      await tabTo(/^Delete the webhook to https:\/\/example\.org\/by-keyboard$/);
      await p.keyboard.press('Enter');
      // Cancel has the focus: a second Enter deletes nothing.
      await expect.poll(() => p.evaluate(() => document.activeElement?.textContent)).toBe('Cancel');
      await p.keyboard.press('Enter');
      await expect.poll(focused).toBe('Delete the webhook to https://example.org/by-keyboard');
      await p.keyboard.press('Enter');
      await tabTo(/^Delete webhook$/, 3, true);
      await p.keyboard.press('Enter');
      await p.getByText('No webhooks yet').waitFor();
    } finally {
      await own.close();
    }
  }, 60_000);

  it('leaves the focus where someone already typing in the sign-in form put it', async () => {
    const own = await browser.newContext({ viewport: DESKTOP });
    const p = await own.newPage();
    try {
      // The person (or a password manager) is in the user field as soon as it exists: before the
      // page's effects have run, which is when a slow machine let the keyboard test's Tab land.
      await p.addInitScript(() => {
        new MutationObserver((_, observer) => {
          const field = document.getElementById('sign-in-user');
          if (!field) return;
          field.focus();
          observer.disconnect();
        }).observe(document, { childList: true, subtree: true });
      });
      await p.goto(`${base}/console`);
      await p.getByRole('button', { name: 'Sign in' }).waitFor();
      // A few frames later, after every effect of the page's first renders.
      await p.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(done, 50)))));
      expect(await p.evaluate(() => document.activeElement?.id)).toBe('sign-in-user');
    } finally {
      await own.close();
    }
  });

  it('the CLI and the console agree: a silo made with silo silos create shows up with its size', async () => {
    const r = await runSilo(['silos', 'create', '--name', 'from-the-cli', '--data', '{"via": "cli"}', '--json'], env);
    expect(r.code, r.stderr).toBe(0);
    await nav().getByRole('link', { name: 'Silos' }).click();
    const row = page.getByRole('row').filter({ has: page.getByRole('link', { name: 'from-the-cli' }) });
    await expect.poll(() => row.getByRole('cell').nth(2).textContent()).toBe('13 B');
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
