/**
 * Contract §13's server side over real HTTP: sign-in (the same answer, and about the same time, for
 * an unknown user and a wrong password; limited per address and per user and address, slowed down
 * per user, never locked out), the session cookie's flags, the API used
 * with the session from this server's pages only (Origin), keys made and revoked in the console,
 * sign-out and a deleted user ending the session, the idle timeout.
 */
import Keyv from 'keyv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PasswordWork } from '../src/console/password-work.js';
import { createConsoleService, FAILED_ENTRY_EVERY_MS, SESSION_IDLE_MS, SESSION_MAX_MS } from '../src/console/service.js';
import { clientNetwork } from '../src/http/client.js';
import { failureDelayMs, FREE_FAILURES, MAX_FAILURE_DELAY_MS } from '../src/http/sign-in-guard.js';
import { createStorage } from '../src/storage/index.js';
import { rawRequest, startSilo, type Harness } from './support/http.js';

const ORIGIN = (port: number) => `http://api.localhost:${port}`;

describe('console sessions', () => {
  let h: Harness;
  let password: string;

  /** A request as the console's page makes it: same origin, the session cookie if any. */
  const page = (path: string, options: { method?: string; body?: unknown; cookie?: string; origin?: string | null; ip?: string } = {}) =>
    rawRequest(h.server.port, path, {
      method: options.method ?? 'GET',
      headers: {
        ...(options.origin === null ? {} : { origin: options.origin ?? ORIGIN(h.server.port) }),
        ...(options.cookie ? { cookie: options.cookie } : {}),
        ...(options.ip ? { 'x-forwarded-for': options.ip } : {}),
        ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(options.body !== undefined ? { body: options.body } : {}),
    });
  const signIn = async (user: string, pass: string, ip = '10.0.0.1') => page('/console/api/sign-in', { method: 'POST', body: { user, password: pass }, ip });
  const cookieOf = (reply: { headers: Record<string, string | string[] | undefined> }) => {
    const set = reply.headers['set-cookie'];
    return String(Array.isArray(set) ? set[0] : set).split(';')[0]!;
  };

  beforeAll(async () => {
    h = await startSilo({ console: true, trustProxy: true });
    await h.account('acme');
    ({ password } = await h.silo.console.createUser({ account: 'acme', name: 'ann' }));
  });

  afterAll(() => h.close());

  it('signs in with an HttpOnly, SameSite=Strict cookie; the same 401 for an unknown user and a wrong password', async () => {
    const wrong = await signIn('ann', 'not the password');
    const unknown = await signIn('nobody', 'not the password');
    expect([wrong.status, unknown.status]).toEqual([401, 401]);
    expect(wrong.text).toBe(unknown.text);
    const ok = await signIn('ann', password);
    expect(ok.status).toBe(200);
    expect(JSON.parse(ok.text)).toEqual({ user: 'ann', account: 'acme' });
    const cookie = String(ok.headers['set-cookie']);
    expect(cookie).toMatch(/^silo_session=[A-Za-z0-9_-]{43}; path=\/; samesite=strict; httponly$/);
    expect(cookie).not.toMatch(/secure/i);
    // Signing in from another site's page is refused.
    expect((await page('/console/api/sign-in', { method: 'POST', body: { user: 'ann', password }, origin: 'https://evil.example' })).status).toBe(403);
  });

  it('takes as long for an unknown user as for a wrong password', async () => {
    // One failure per user name: repeated failures of one name are slowed down on purpose (below).
    for (let i = 0; i < 7; i++) await h.silo.console.createUser({ account: 'acme', name: `timed-${i}` });
    const time = async (user: (i: number) => string, n: number) => {
      const took: number[] = [];
      for (let i = 0; i < n; i++) {
        const started = process.hrtime.bigint();
        await signIn(user(i), `guess ${i}`, `10.1.${user(i).length}.${i}`);
        took.push(Number(process.hrtime.bigint() - started) / 1e6);
      }
      return took.sort((a, b) => a - b)[Math.floor(n / 2)]!;
    };
    const unknown = await time((i) => `someone-else-${i}`, 7);
    const wrong = await time((i) => `timed-${i}`, 7);
    // scrypt dominates both (tens of ms); a store read more or less is noise beside it.
    expect(unknown / wrong).toBeGreaterThan(0.6);
    expect(unknown / wrong).toBeLessThan(1.6);
  }, 30_000); // 21 scrypt hashes: 2-3 s alone, past 5 s on a machine the rest of the suite keeps busy

  it('limits sign-in attempts per address, and per user and address (429)', async () => {
    // Per (user, address): 10 a minute. In parallel: each failure of one name is slowed down.
    const pair = await Promise.all(Array.from({ length: 10 }, () => signIn('carl', 'x', '10.9.9.9')));
    expect(pair.map((r) => r.status)).toEqual(Array(10).fill(401));
    expect((await signIn('carl', 'x', '10.9.9.9')).status).toBe(429);
    expect((await signIn('carl', 'x', '10.9.9.10')).status).toBe(401); // another address: its own count
    // Per address: 20 a minute, whatever user each names. An IPv6 client counts by its /64.
    const many = await Promise.all(Array.from({ length: 20 }, (_, i) => signIn(`guess-${i}`, 'x', `2001:db8:1:2::${i.toString(16)}`)));
    expect(many.map((r) => r.status)).toEqual(Array(20).fill(401));
    const over = await signIn('guess-20', 'x', '2001:db8:1:2:ffff::1');
    expect(over.status).toBe(429);
    expect(over.headers['retry-after']).toMatch(/^\d+$/);
    expect((await signIn('guess-20', 'x', '2001:db8:1:3::1')).status).toBe(401); // another network
  }, 30_000);

  it('never locks the user out: a guesser failing from many addresses only slows failed attempts down', async () => {
    const { password: erins } = await h.silo.console.createUser({ account: 'acme', name: 'erin' });
    // The guesser: one address until it is refused, then many, one wrong password each.
    const one = await Promise.all(Array.from({ length: 12 }, () => signIn('erin', 'guess', '10.6.6.6')));
    expect(one.map((r) => r.status).sort()).toEqual([...Array(10).fill(401), 429, 429]);
    const spread = await Promise.all(Array.from({ length: 5 }, (_, i) => signIn('erin', `guess ${i}`, `10.6.7.${i + 1}`)));
    expect(spread.map((r) => r.status)).toEqual(Array(5).fill(401));
    expect((await signIn('erin', erins, '10.6.6.6')).status).toBe(429); // that address and user: limited

    // The user, from their own address: signed in at once, no 429 and no wait.
    const started = performance.now();
    const real = await signIn('erin', erins, '10.7.7.7');
    const took = performance.now() - started;
    expect(real.status).toBe(200);
    expect(JSON.parse(real.text)).toEqual({ user: 'erin', account: 'acme' });
    expect(took).toBeLessThan(MAX_FAILURE_DELAY_MS / 2);

    // A wrong password from a fresh address is answered, but only after the slow-down.
    const slowStarted = performance.now();
    const slowed = await signIn('erin', 'one more guess', '10.7.7.8');
    expect(slowed.status).toBe(401);
    expect(performance.now() - slowStarted).toBeGreaterThanOrEqual(MAX_FAILURE_DELAY_MS - 50);
  }, 30_000);

  it('a flood of guesses from many networks stalls neither compressed answers nor a user who signed in there before', async () => {
    const { password: flos } = await h.silo.console.createUser({ account: 'acme', name: 'flo' });
    expect((await signIn('flo', flos, '10.30.0.1')).status).toBe(200); // flo's network is known from now on
    const owner = await h.account('flood');
    const uuid = await h.create(owner, { file_name: 'big', file_data: Array.from({ length: 800 }, (_, i) => ({ id: i, name: `item ${i}`, note: 'x'.repeat(20) })) });
    const compressedRead = async () => {
      const started = performance.now();
      const reply = await rawRequest(h.server.port, `/${uuid}`, { headers: { 'X-SILO-KEY': owner.access, 'Accept-Encoding': 'gzip' } });
      expect([reply.status, reply.headers['content-encoding']]).toEqual([200, 'gzip']);
      return performance.now() - started;
    };

    // 200 guesses at once, one from each of 200 addresses (each well within its own rate limit):
    // every one a scrypt, on the thread pool that gzip uses too.
    const flood = Promise.all(Array.from({ length: 200 }, (_, i) => signIn('nobody', 'guess', `10.31.${i >> 8}.${i & 255}`)));
    await new Promise((resolve) => setTimeout(resolve, 50));
    const readMs = await compressedRead();
    const started = performance.now();
    const known = await signIn('flo', flos, '10.30.0.1');
    const knownMs = performance.now() - started;
    const newcomer = await signIn('flo', flos, '10.30.9.9');
    const statuses = (await flood).map((r) => r.status);

    expect(readMs).toBeLessThan(1000);
    expect(known.status).toBe(200);
    expect(knownMs).toBeLessThan(1000);
    // The rest waited in a bounded line, or were refused at once with a Retry-After.
    expect(statuses.filter((status) => status === 503).length).toBeGreaterThan(100);
    expect(new Set(statuses)).toEqual(new Set([401, 503]));
    expect([200, 503]).toContain(newcomer.status);
    if (newcomer.status === 503) expect(newcomer.headers['retry-after']).toBe('2');
  }, 30_000);

  it('behind a proxy that terminated TLS (X-Forwarded-Proto: https), takes its https pages and sets a Secure cookie', async () => {
    const https = `https://api.localhost:${h.server.port}`;
    const behindProxy = (origin: string, proto?: string) =>
      rawRequest(h.server.port, '/console/api/sign-in', {
        method: 'POST',
        headers: { origin, 'content-type': 'application/json', 'x-forwarded-for': '10.0.0.9', ...(proto ? { 'x-forwarded-proto': proto } : {}) },
        body: { user: 'ann', password },
      });
    const ok = await behindProxy(https, 'https');
    expect(ok.status, ok.text).toBe(200);
    expect(String(ok.headers['set-cookie'])).toMatch(/^silo_session=[A-Za-z0-9_-]{43}; path=\/; samesite=strict; secure; httponly$/);
    const cookie = cookieOf(ok);
    const made = await rawRequest(h.server.port, '/api/v1/manage/', {
      method: 'POST',
      headers: { origin: https, cookie, 'content-type': 'application/json', 'x-forwarded-proto': 'https' },
      body: { file_name: 'through the proxy', file_data: {} },
    });
    expect(made.status).toBe(201);
    // The scheme the proxy states must match the page's: no https page over a plain proxy, nor the reverse.
    expect((await behindProxy(https)).status).toBe(403);
    expect((await behindProxy(ORIGIN(h.server.port), 'https')).status).toBe(403);
  });

  it('uses the API with the session from its own pages only, and manages keys', async () => {
    const cookie = cookieOf(await signIn('ann', password, '10.0.0.2'));
    expect((await page('/api/v1/manage/silos', { cookie })).status).toBe(200);
    const made = await page('/api/v1/manage/', { method: 'POST', cookie, body: { file_name: 'from console', file_data: { a: 1 } } });
    expect(made.status).toBe(201);
    for (const origin of [null, 'https://evil.example', `http://api.localhost:${h.server.port + 1}`]) {
      const refused = await page('/api/v1/manage/', { method: 'POST', cookie, origin, body: { file_name: 'x', file_data: {} } });
      expect(refused.status).toBe(403);
    }

    const key = await page('/console/api/keys', { method: 'POST', cookie, body: { type: 'manage', name: 'deploy', duration: '7d' } });
    expect(key.status).toBe(201);
    // A key's value is in this answer, once: no cache keeps it.
    expect(key.headers['cache-control']).toBe('no-store');
    const value = JSON.parse(key.text).key as string;
    expect(value).toMatch(/^silo_man_/);
    const listed = await page('/console/api/keys', { cookie });
    expect(JSON.parse(listed.text).keys.map((k: { name: string }) => k.name)).toContain('deploy');
    expect(listed.text).not.toContain(value);
    const withKey = () => rawRequest(h.server.port, '/api/v1/manage/silos', { headers: { 'X-MAN-API': value } });
    expect((await withKey()).status).toBe(200);
    expect((await page('/console/api/keys/manage/deploy', { method: 'DELETE', cookie })).status).toBe(204);
    expect((await withKey()).status).toBe(401);
    // Keys are made only with a session: a manage key cannot mint more.
    expect((await rawRequest(h.server.port, '/console/api/keys', { method: 'POST', headers: { 'X-MAN-API': value } })).status).toBe(401);
  });

  it('answers the console\'s first question, "who is signed in?", with 200 whether or not anyone is (no 401 in the browser\'s console)', async () => {
    const { password: fays } = await h.silo.console.createUser({ account: 'acme', name: 'fay' });
    const nobody = await page('/console/api/session');
    expect([nobody.status, JSON.parse(nobody.text)]).toEqual([200, { signed_in: false }]);
    expect(nobody.headers['cache-control']).toBe('no-store');
    expect(JSON.parse((await page('/console/api/session', { cookie: 'silo_session=forged' })).text)).toEqual({ signed_in: false });
    const cookie = cookieOf(await signIn('fay', fays, '10.0.0.6'));
    expect(JSON.parse((await page('/console/api/session', { cookie })).text)).toEqual({ signed_in: true, user: 'fay', account: 'acme' });
    await page('/console/api/sign-out', { method: 'POST', cookie });
    expect(JSON.parse((await page('/console/api/session', { cookie })).text)).toEqual({ signed_in: false });
  });

  it('ends the session on sign-out, and when the user is deleted', async () => {
    // A user of its own, with no failures that would slow its attempts down.
    const { password: dans } = await h.silo.console.createUser({ account: 'acme', name: 'dan' });
    const cookie = cookieOf(await signIn('dan', dans, '10.0.0.3'));
    expect((await page('/console/api/me', { cookie })).status).toBe(200);
    const out = await page('/console/api/sign-out', { method: 'POST', cookie });
    expect(out.status).toBe(204);
    expect(String(out.headers['set-cookie'])).toMatch(/^silo_session=;/);
    expect((await page('/console/api/me', { cookie })).status).toBe(401);
    expect((await page('/api/v1/manage/silos', { cookie })).status).toBe(401);

    const { password: bobs } = await h.silo.console.createUser({ account: 'acme', name: 'bob' });
    const bob = cookieOf(await signIn('bob', bobs, '10.0.0.4'));
    expect((await page('/api/v1/manage/silos', { cookie: bob })).status).toBe(200);
    await h.silo.console.deleteUser('bob', 'bob');
    const ended = await page('/api/v1/manage/silos', { cookie: bob });
    expect(ended.status).toBe(401);
    expect(JSON.parse(ended.text).detail).toBe('Your console session has ended: sign in again');
  });

  /** A console service on a clock of the test's, with `user` signed in. */
  async function signedInAt(user: string) {
    const clock = { now: Date.parse('2026-01-01T00:00:00Z') };
    const storage = createStorage({ main: new Keyv() });
    await storage.insertAccount({ name: 'acme', plan: 'default', created_at: new Date(clock.now).toISOString() });
    const service = createConsoleService(storage, { now: () => clock.now });
    const { password } = await service.createUser({ account: 'acme', name: user });
    return { clock, service, session: (await service.signIn(user, password))! };
  }

  it('ends a session idle for 12 hours', async () => {
    const { clock, service, session } = await signedInAt('idle');
    clock.now += SESSION_IDLE_MS - 60_000;
    expect(await service.resolve(session.token)).toEqual({ user: 'idle', account: 'acme' });
    clock.now += SESSION_IDLE_MS - 1;
    expect(await service.resolve(session.token)).toBeDefined();
    clock.now += SESSION_IDLE_MS;
    expect(await service.resolve(session.token)).toBeUndefined();
  });

  it('ends a session 7 days after its sign-in, however often it is used', async () => {
    const { clock, service, session } = await signedInAt('busy');
    for (let used = 0; used + 3_600_000 < SESSION_MAX_MS; used += 3_600_000) {
      expect(await service.resolve(session.token)).toBeDefined();
      clock.now += 3_600_000;
    }
    clock.now += 3_600_000;
    expect(await service.resolve(session.token)).toBeUndefined();
  });
});

describe('networks a user signed in from', () => {
  it('are kept in storage: every instance (a restart too) puts the user first there, not elsewhere, until the user is deleted', async () => {
    const storage = createStorage({ main: new Keyv() });
    await storage.insertAccount({ name: 'acme', plan: 'default', created_at: new Date().toISOString() });
    const lanes: boolean[] = [];
    class Watched extends PasswordWork {
      override signIn<T>(known: boolean, network: string, hash: () => Promise<T>): Promise<T> {
        lanes.push(known);
        return super.signIn(known, network, hash);
      }
    }
    const instance = () => createConsoleService(storage, { passwordWork: new Watched() });
    const { password } = await instance().createUser({ account: 'acme', name: 'hal' });
    const home = { address: '203.0.113.5', network: '203.0.113.5' };
    expect(await instance().signIn('hal', password, home)).toBeDefined();
    expect(await instance().signIn('hal', 'wrong password', home)).toBeUndefined();
    expect(await instance().signIn('hal', password, { address: '198.51.100.7', network: '198.51.100.7' })).toBeDefined();
    // An unknown name is read the same way, and never first.
    expect(await instance().signIn('nobody', password, home)).toBeUndefined();
    expect(lanes).toEqual([false, true, false, false]);
    expect((await storage.getSignedInFrom('hal')).map((n) => n.network)).toEqual(['198.51.100.7', '203.0.113.5']);

    await instance().deleteUser('hal', 'hal');
    const again = await instance().createUser({ account: 'acme', name: 'hal' });
    lanes.length = 0;
    expect(await instance().signIn('hal', again.password, home)).toBeDefined();
    expect(lanes).toEqual([false]);
  });
});

describe('failed sign-ins in the audit log', () => {
  it('make at most one entry per user every 10 s, the next one counting those left out', async () => {
    let clock = Date.parse('2026-01-01T00:00:00Z');
    const storage = createStorage({ main: new Keyv() });
    await storage.insertAccount({ name: 'acme', plan: 'default', created_at: new Date(clock).toISOString() });
    const service = createConsoleService(storage, { now: () => clock });
    await service.createUser({ account: 'acme', name: 'gil' });
    const guess = async (n: number) => {
      for (let i = 0; i < n; i++) expect(await service.signIn('gil', `guess ${i}`, { address: '203.0.113.9' })).toBeUndefined();
      await service.settled();
    };
    const failures = async () =>
      (await storage.listAudit('acme', { offset: 0, limit: 100 })).entries.filter((e) => e.action === 'console.sign_in_failed').map((e) => e.subject);
    await guess(5);
    expect(await failures()).toEqual([undefined]);
    clock += FAILED_ENTRY_EVERY_MS;
    await guess(3);
    // Newest first: the second entry says the four after the first went unrecorded.
    expect(await failures()).toEqual(['4 more failed since the previous entry', undefined]);
  });
});

describe('without the console', () => {
  it('claims no /console path and ignores session cookies', async () => {
    const h = await startSilo();
    try {
      expect((await rawRequest(h.server.port, '/console/api/me')).status).toBe(404);
      expect((await rawRequest(h.server.port, '/api/v1/manage/silos', { headers: { cookie: 'silo_session=abc' } })).status).toBe(401);
    } finally {
      await h.close();
    }
  });
});

describe('sign-in slow-down and client networks', () => {
  it('grows the delay of a failed attempt with recent failures, up to a cap', () => {
    const delays = Array.from({ length: 12 }, (_, i) => failureDelayMs(i + 1));
    expect(delays.slice(0, FREE_FAILURES)).toEqual(Array(FREE_FAILURES).fill(0));
    for (let i = 1; i < delays.length; i++) expect(delays[i]).toBeGreaterThanOrEqual(delays[i - 1]!);
    expect(delays.at(-1)).toBe(MAX_FAILURE_DELAY_MS);
    expect(failureDelayMs(1_000_000)).toBe(MAX_FAILURE_DELAY_MS);
  });

  it('counts an IPv4 client by its address and an IPv6 one by its /64', () => {
    expect(clientNetwork('192.0.2.7')).toBe('192.0.2.7');
    expect(clientNetwork('::ffff:192.0.2.7')).toBe('192.0.2.7');
    expect(clientNetwork('2001:db8:1:2::1')).toBe('2001:db8:1:2::/64');
    expect(clientNetwork('2001:0db8:0001:0002:ffff:ffff:ffff:ffff')).toBe('2001:db8:1:2::/64');
    expect(clientNetwork('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
    expect(clientNetwork('unknown')).toBe('unknown');
  });
});

describe("the console's own API and the rate limits", () => {
  let h: Harness;
  let password: string;
  const page = (path: string, ip: string, cookie?: string) =>
    rawRequest(h.server.port, path, {
      method: 'GET',
      headers: { origin: ORIGIN(h.server.port), 'x-forwarded-for': ip, ...(cookie ? { cookie } : {}) },
    });

  beforeAll(async () => {
    h = await startSilo({ console: true, trustProxy: true, plans: { default: { maxDataBytes: 1_000_000, rateLimitPerMinute: 3 } } });
    await h.account('acme');
    ({ password } = await h.silo.console.createUser({ account: 'acme', name: 'ann' }));
  });
  afterAll(() => h.close());

  it('counts made-up cookies against their address and a signed-in user against its session (neither was counted)', async () => {
    const guesses: number[] = [];
    for (let i = 0; i < 4; i++) guesses.push((await page('/console/api/me', '10.9.9.9', `silo_session=${'x'.repeat(43)}`)).status);
    expect(guesses).toEqual([401, 401, 401, 429]);
    const signedIn = await rawRequest(h.server.port, '/console/api/sign-in', {
      method: 'POST',
      headers: { origin: ORIGIN(h.server.port), 'x-forwarded-for': '10.9.9.8', 'content-type': 'application/json' },
      body: { user: 'ann', password },
    });
    expect(signedIn.status).toBe(200);
    const cookie = String(signedIn.headers['set-cookie']).split(';')[0]!;
    const listings: number[] = [];
    for (let i = 0; i < 4; i++) listings.push((await page('/console/api/keys', '10.9.9.7', cookie)).status);
    expect(listings).toEqual([200, 200, 200, 429]);
  });
});
