/**
 * Contract §12 over real HTTP, one process, with a local receiver (private addresses allowed, short
 * retry timings): the management routes and their refusals, signed deliveries verified with the
 * Standard Webhooks library, retries with the same webhook-id, the silo filter, disabling.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { networkInterfaces } from 'node:os';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { manage, startSilo, type Account, type Harness } from './support/http.js';

interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A receiver on 127.0.0.1 answering each request with the next status of `statuses` (then 200). */
async function receiver(statuses: number[] = []) {
  const received: Received[] = [];
  const waiters: (() => void)[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      received.push({ headers: req.headers, body });
      res.writeHead(statuses.shift() ?? 200).end('ok');
      for (const wake of waiters.splice(0)) wake();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    received,
    /** Resolves once `count` requests have arrived (or rejects after `ms`). */
    async until(count: number, ms = 5000) {
      const deadline = Date.now() + ms;
      while (received.length < count) {
        if (Date.now() > deadline) throw new Error(`${received.length} of ${count} deliveries within ${ms} ms`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 50);
        });
      }
      return received;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const TIMING = { pollMs: 50, timeoutMs: 1000, retryBaseMs: 100, maxRetryMs: 400, giveUpAfterMs: 60_000, disableAfterMs: 600 };

describe('webhooks', () => {
  let h: Harness;
  let alice: Account;
  const receivers: { close(): Promise<void> }[] = [];

  const create = (account: Account, body: unknown) => h.client.request('/api/v1/manage/webhooks', { method: 'POST', headers: manage(account), body });
  const newReceiver = async (statuses?: number[]) => {
    const r = await receiver(statuses);
    receivers.push(r);
    return r;
  };

  beforeAll(async () => {
    h = await startSilo({ webhooks: { allowPrivate: true, maxPerAccount: 3, timing: TIMING } });
    alice = await h.account('alice');
  });

  afterEach(async () => {
    for (const hook of (await h.silo.webhooks.list('alice')).map((w) => w.id)) await h.silo.webhooks.remove('alice', hook);
  });

  afterAll(async () => {
    await h.close();
    await Promise.all(receivers.map((r) => r.close()));
  });

  it('creates (secret shown once), lists without secrets, deletes', async () => {
    const r = await newReceiver();
    const made = await create(alice, { url: r.url, events: ['silo.created', 'silo.deleted'] });
    expect(made.status).toBe(201);
    expect(made.json).toMatchObject({ url: r.url, events: ['silo.created', 'silo.deleted'], silos: null, disabled: false, failing_since: null });
    expect(made.json.id).toMatch(/^wh_/);
    expect(made.json.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(made.headers['cache-control']).toBe('no-store');
    const list = await h.client.request('/api/v1/manage/webhooks', { headers: manage(alice) });
    expect(list.status).toBe(200);
    expect(list.json.webhooks).toHaveLength(1);
    expect(list.text).not.toContain(made.json.secret);
    // Create's Location is an address: the webhook as listed, never its secret; 404 for another account.
    expect(made.headers.location).toBe(`/api/v1/manage/webhooks/${made.json.id}`);
    const one = await h.client.request(made.headers.location!, { headers: manage(alice) });
    expect(one.status).toBe(200);
    expect(one.json).toEqual(list.json.webhooks[0]);
    expect(one.text).not.toContain(made.json.secret);
    expect((await h.client.request(made.headers.location!, { headers: manage(await h.account('mallory-webhook-get')) })).status).toBe(404);
    // One rule for deletes, the hosted interface's (a silo's delete): 200 with what was deleted.
    const removed = await h.client.request(`/api/v1/manage/webhooks/${made.json.id}`, { method: 'DELETE', headers: manage(alice) });
    expect(removed.status).toBe(200);
    expect(removed.json).toEqual({ id: made.json.id, deleted: true });
    expect((await h.client.request(`/api/v1/manage/webhooks/${made.json.id}`, { method: 'DELETE', headers: manage(alice) })).status).toBe(404);
  });

  it('refuses bad URLs, unknown events and a fourth webhook with 422', async () => {
    for (const url of ['ftp://example.org/x', 'not a url', 'http://user:pw@example.org/', 'https://']) {
      const reply = await create(alice, { url, events: ['silo.updated'] });
      expect(reply.status, url).toBe(422);
    }
    const unknown = await create(alice, { url: 'https://example.org/', events: ['silo.exploded'] });
    expect(unknown.status).toBe(422);
    expect(unknown.json.detail[0].loc).toEqual(['body', 'events', 0]);
    // Each in the contract's words, not the validator's own (minItems, uniqueItems).
    const none = await create(alice, { url: 'https://example.org/', events: [] });
    expect([none.status, none.json.detail]).toEqual([422, [{ loc: ['body', 'events'], msg: 'List should have at least 1 item', type: 'too_short' }]]);
    const twice = await create(alice, { url: 'https://example.org/', events: ['silo.updated', 'silo.updated'] });
    expect([twice.status, twice.json.detail]).toEqual([422, [{ loc: ['body', 'events'], msg: 'List should not repeat an item: items 1 and 0 are the same', type: 'value_error' }]]);
    for (let i = 0; i < 3; i++) expect((await create(alice, { url: `https://example.org/${i}`, events: ['silo.updated'] })).status).toBe(201);
    const fourth = await create(alice, { url: 'https://example.org/4', events: ['silo.updated'] });
    expect(fourth.status).toBe(422);
    expect(fourth.json.detail[0]).toMatchObject({ type: 'too_many_webhooks' });
  });

  it('delivers every write, signed as Standard Webhooks says', async () => {
    const r = await newReceiver();
    const { json: hook } = await create(alice, { url: r.url, events: ['silo.created', 'silo.updated', 'silo.deleted'] });
    const uuid = await h.create(alice, { file_name: 'hooked', file_data: { n: 1 } });
    await h.client.request(`/api/v1/manage/${uuid}`, { method: 'PATCH', headers: manage(alice), body: { file_name: 'renamed' } });
    await h.client.request(`/api/v1/manage/${uuid}`, { method: 'DELETE', headers: manage(alice) });
    const got = await r.until(3);
    const verifier = new Webhook(hook.secret);
    const payloads = got.map(({ headers, body }) =>
      verifier.verify(body, {
        'webhook-id': String(headers['webhook-id']),
        'webhook-timestamp': String(headers['webhook-timestamp']),
        'webhook-signature': String(headers['webhook-signature']),
      }),
    ) as { type: string; timestamp: string; data: Record<string, unknown> }[];
    expect(payloads.map((p) => [p.type, p.data.file_uuid, p.data.version])).toEqual([
      ['silo.created', uuid, 1],
      ['silo.updated', uuid, 2],
      ['silo.deleted', uuid, 2],
    ]);
    expect(payloads[1]!.data).toMatchObject({ file_name: 'renamed', region_name: 'api', is_public: false });
    expect(new Set(got.map((g) => g.headers['webhook-id'])).size).toBe(3);
    // A body changed on the way fails verification: the check above can fail.
    expect(() => verifier.verify(got[0]!.body.replace('hooked', 'forged'), { ...(got[0]!.headers as Record<string, string>) })).toThrow();
  });

  it('retries after 500s and refused connections with the same webhook-id, and lists the attempts', async () => {
    const r = await newReceiver([500, 503]);
    const { json: hook } = await create(alice, { url: r.url, events: ['silo.created'] });
    await h.create(alice, { file_name: 'retried', file_data: {} });
    const got = await r.until(3);
    expect(new Set(got.map((g) => g.headers['webhook-id'])).size).toBe(1);
    const deliveries = await h.client.request(`/api/v1/manage/webhooks/${hook.id}/deliveries`, { headers: manage(alice) });
    await new Promise((resolve) => setTimeout(resolve, 100));
    const listed = (await h.client.request(`/api/v1/manage/webhooks/${hook.id}/deliveries`, { headers: manage(alice) })).json.deliveries;
    expect(deliveries.status).toBe(200);
    expect(listed.map((d: { attempt: number; status: number; outcome: string }) => [d.attempt, d.status, d.outcome])).toEqual([
      [3, 200, 'delivered'],
      [2, 503, 'retrying'],
      [1, 500, 'retrying'],
    ]);

    // A refused connection: retried too, with the reason listed.
    const closed = await newReceiver();
    await closed.close();
    const { json: refused } = await create(alice, { url: closed.url, events: ['silo.created'] });
    await h.create(alice, { file_name: 'refused', file_data: {} });
    await new Promise((resolve) => setTimeout(resolve, 500));
    const attempts = (await h.client.request(`/api/v1/manage/webhooks/${refused.id}/deliveries`, { headers: manage(alice) })).json.deliveries;
    expect(attempts.length).toBeGreaterThanOrEqual(2);
    expect(attempts[0]).toMatchObject({ status: null, outcome: 'retrying', error: expect.stringMatching(/refused/i) });
    expect(new Set(attempts.map((a: { id: string }) => a.id)).size).toBe(1);
  });

  it('delivers only the listed silos, and disables an endpoint that fails for the whole disable period', async () => {
    const r = await newReceiver();
    const watched = await h.create(alice, { file_name: 'watched', file_data: {} });
    const other = await h.create(alice, { file_name: 'other', file_data: {} });
    await create(alice, { url: r.url, events: ['silo.updated'], silos: [watched] });
    await h.client.request(`/api/v1/manage/${other}`, { method: 'PATCH', headers: manage(alice), body: { file_name: 'o2' } });
    await h.client.request(`/api/v1/manage/${watched}`, { method: 'PATCH', headers: manage(alice), body: { file_name: 'w2' } });
    const [only] = await r.until(1);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(r.received).toHaveLength(1);
    expect(JSON.parse(only!.body).data.file_uuid).toBe(watched);

    const failing = await newReceiver(Array(100).fill(500));
    const { json: hook } = await create(alice, { url: failing.url, events: ['silo.updated'] });
    for (let i = 0; i < 3; i++) await h.client.request(`/api/v1/manage/${other}`, { method: 'PATCH', headers: manage(alice), body: { file_name: `o${i}` } });
    const deadline = Date.now() + 5000;
    let listed: { id: string; disabled: boolean; failing_since: string | null } | undefined;
    do {
      await new Promise((resolve) => setTimeout(resolve, 100));
      listed = (await h.client.request('/api/v1/manage/webhooks', { headers: manage(alice) })).json.webhooks.find((w: { id: string }) => w.id === hook.id);
    } while (!listed?.disabled && Date.now() < deadline);
    expect(listed).toMatchObject({ disabled: true, failing_since: expect.any(String) });
    // Disabled: nothing more is attempted.
    const before = failing.received.length;
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(failing.received.length).toBe(before);
  });

  it('refuses webhooks to private addresses unless the operator allows them', async () => {
    const strict = await startSilo();
    try {
      const bob = await strict.account('bob');
      for (const url of ['http://127.0.0.1:9/x', 'http://10.0.0.1/', 'http://[::1]/', 'http://169.254.169.254/latest', 'http://localhost/']) {
        const reply = await strict.client.request('/api/v1/manage/webhooks', { method: 'POST', headers: manage(bob), body: { url, events: ['silo.created'] } });
        expect(reply.status, url).toBe(422);
      }

    } finally {
      await strict.close();
    }
  });

  it("refuses special-purpose ranges, IPv4 in IPv6 forms and this host's own addresses, naming the setting", async () => {
    const own = Object.values(networkInterfaces()).flatMap((list) => (list ?? []).map((i) => i.address));
    const urls = [
      'http://192.0.2.2:19051/a', // TEST-NET-1 (and maybe this host's eth0)
      'http://198.51.100.1/a', // TEST-NET-2
      'http://203.0.113.9/a', // TEST-NET-3
      'http://198.18.0.1/a', // benchmarking
      'http://192.0.0.8/a', // IETF protocol assignments
      'http://[2002:7f00:1::]:19051/a', // 6to4 of 127.0.0.1
      'http://[::ffff:8.8.8.8]/a', // IPv4-mapped, even of a public address
      'http://[64:ff9b::8.8.8.8]/a', // NAT64
      'http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/a', // Teredo
      'http://[2001:db8::1]/a', // documentation
      ...own.map((address) => `http://${address.includes(':') ? `[${address}]` : address}:8080/hook`),
    ];
    const strict = await startSilo();
    try {
      const bob = await strict.account('bob');
      for (const url of urls) {
        const reply = await strict.client.request('/api/v1/manage/webhooks', { method: 'POST', headers: manage(bob), body: { url, events: ['silo.created'] } });
        expect(reply.status, url).toBe(422);
        expect(reply.json.detail, url).toEqual([{ loc: ['body', 'url'], msg: expect.stringMatching(/^blocked address /), type: 'url_refused' }]);
        expect(reply.json.detail[0].msg, url).toContain('SILO_WEBHOOK_ALLOW_PRIVATE=true');
      }
      expect(await strict.silo.webhooks.list('bob')).toEqual([]);
    } finally {
      await strict.close();
    }
    // The operator's setting lets them through (a test set-up, an intranet).
    const open = await startSilo({ webhooks: { allowPrivate: true, deliver: false } });
    try {
      const bob = await open.account('bob');
      for (const url of urls) {
        const reply = await open.client.request('/api/v1/manage/webhooks', { method: 'POST', headers: manage(bob), body: { url, events: ['silo.created'] } });
        expect(reply.status, url).toBe(201);
        await open.silo.webhooks.remove('bob', reply.json.id);
      }
    } finally {
      await open.close();
    }
  });

  it("refuses a filter naming another account's silo (or none), with the same issue for both", async () => {
    const bob = await h.account('bob-filter');
    const mine = await h.create(alice, { file_name: 'mine', file_data: {} });
    const theirs = await h.create(bob, { file_name: 'theirs', file_data: {} });
    const missing = '00000000-0000-4000-8000-000000000000';
    const reply = await create(alice, { url: 'https://example.org/', events: ['silo.updated'], silos: [mine, theirs.toUpperCase(), missing] });
    expect(reply.status).toBe(422);
    expect(reply.json.detail).toEqual([
      { loc: ['body', 'silos', 1], msg: 'No silo of this account has this file_uuid', type: 'silo_not_found' },
      { loc: ['body', 'silos', 2], msg: 'No silo of this account has this file_uuid', type: 'silo_not_found' },
    ]);
    expect(await h.silo.webhooks.list('alice')).toEqual([]);
    // A refused URL and a foreign silo are listed together.
    const both = await create(bob, { url: 'ftp://example.org/', events: ['silo.updated'], silos: [mine] });
    expect(both.status).toBe(422);
    expect(both.json.detail.map((d: { loc: unknown[]; type: string }) => [d.loc, d.type])).toEqual([
      [['body', 'url'], 'url_refused'],
      [['body', 'silos', 0], 'silo_not_found'],
    ]);
    // A URL refused as written is listed beside the schema's problems too.
    const schemaToo = await create(bob, { url: 'ftp://example.com/hook', events: ['bogus'] });
    expect(schemaToo.status).toBe(422);
    expect(schemaToo.json.detail.map((d: { loc: unknown[]; type: string }) => [d.loc, d.type])).toEqual([
      [['body', 'events', 0], 'enum'],
      [['body', 'url'], 'url_refused'],
    ]);
    // The owner's own silos (in any letter case) are fine.
    const ok = await create(alice, { url: 'https://example.org/', events: ['silo.updated'], silos: [mine.toUpperCase()] });
    expect(ok.status).toBe(201);
    expect(ok.json.silos).toEqual([mine]);
  });
});

describe('webhooks: retry now', () => {
  // A first retry a minute away: only a retry-now brings it within the test's time.
  const SLOW = { ...TIMING, retryBaseMs: 60_000, maxRetryMs: 60_000 };
  let h: Harness;
  let alice: Account;
  let r: Awaited<ReturnType<typeof receiver>>;

  beforeAll(async () => {
    h = await startSilo({ webhooks: { allowPrivate: true, maxPerAccount: 3, timing: SLOW } });
    alice = await h.account('alice');
    r = await receiver([503]);
  });
  afterAll(async () => {
    await h.close();
    await r.close();
  });

  it('attempts a delivery waiting for its retry at once, with the same webhook-id; 404 for another account', async () => {
    const made = await h.client.request('/api/v1/manage/webhooks', { method: 'POST', headers: manage(alice), body: { url: r.url, events: ['silo.created'] } });
    expect(made.status).toBe(201);
    await h.create(alice, { file_name: 'a', file_data: {} });
    await r.until(1);
    // The failed attempt settled (recorded after its retry was scheduled).
    const deliveries = () => h.client.request(`/api/v1/manage/webhooks/${made.json.id}/deliveries`, { headers: manage(alice) });
    await expect.poll(async () => (await deliveries()).json.deliveries[0]?.outcome).toBe('retrying');
    const retried = await h.client.request(`/api/v1/manage/webhooks/${made.json.id}/retry`, { method: 'POST', headers: manage(alice) });
    expect(retried.status).toBe(200);
    expect(retried.json).toEqual({ id: made.json.id, rescheduled: 1 });
    const [first, second] = await r.until(2, 3000);
    expect(second!.headers['webhook-id']).toBe(first!.headers['webhook-id']);
    // Delivered: nothing waits any more.
    await expect.poll(async () => (await deliveries()).json.deliveries[0]?.outcome).toBe('delivered');
    expect((await h.client.request(`/api/v1/manage/webhooks/${made.json.id}/retry`, { method: 'POST', headers: manage(alice) })).json).toEqual({ id: made.json.id, rescheduled: 0 });
    const bob = await h.account('bob');
    expect((await h.client.request(`/api/v1/manage/webhooks/${made.json.id}/retry`, { method: 'POST', headers: manage(bob) })).status).toBe(404);
  });
});

describe('webhooks: shared fairly, at the receivers\' pace', () => {
  it("one account's hanging receiver keeps no other account's delivery waiting, and fast receivers are not held to rounds", async () => {
    const hanging: http.ServerResponse[] = [];
    const hang = http.createServer((_req, res) => void hanging.push(res));
    await new Promise<void>((resolve) => hang.listen(0, '127.0.0.1', resolve));
    const fast = await receiver();
    // A second of polling and a 3 s attempt limit: a round-based worker would hold every slot 3 s.
    const h = await startSilo({ webhooks: { allowPrivate: true, maxPerAccount: 10, timing: { ...TIMING, pollMs: 1000, timeoutMs: 3000 } } });
    try {
      const slow = await h.account('slow');
      const quick = await h.account('quick');
      const hook = (account: Account, url: string) =>
        h.client.request('/api/v1/manage/webhooks', { method: 'POST', headers: manage(account), body: { url, events: ['silo.created'] } });
      // The slow account is hooked first, with ten webhooks to a receiver that never answers.
      for (let i = 0; i < 10; i++) expect((await hook(slow, `http://127.0.0.1:${(hang.address() as AddressInfo).port}/hang${i}`)).status).toBe(201);
      expect((await hook(quick, fast.url)).status).toBe(201);
      for (let i = 0; i < 3; i++) await h.create(slow, { file_name: `s${i}`, file_data: {} }); // 30 deliveries due, all hanging
      await new Promise((resolve) => setTimeout(resolve, 1200)); // every slot it may take is taken
      for (let i = 0; i < 20; i++) await h.create(quick, { file_name: `q${i}`, file_data: {} });
      // Twenty deliveries within 2.5 s: a round-based worker held them behind rounds of 3 s each.
      await fast.until(20, 2500);
    } finally {
      for (const res of hanging) res.destroy();
      hang.closeAllConnections();
      hang.close();
      await fast.close();
      await h.close();
    }
  }, 20_000);
});
