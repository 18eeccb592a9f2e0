/**
 * The edge of webhook delivery, over real sockets on 127.0.0.1: the SSRF guard (literal addresses
 * in every spelling, every special-purpose range and IPv6 form of an IPv4 address, this host's own
 * addresses, names that resolve to loopback, DNS rebinding between check and connect),
 * Standard Webhooks signatures checked by the spec's reference library, and a POST that stays
 * bounded against endpoints that hang, flood, fail, redirect or refuse.
 */
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { networkInterfaces } from 'node:os';
import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it } from 'vitest';
import {
  addressRefusal,
  BlockedAddressError,
  isBlockedAddress,
  resolveDeliveryAddress,
  webhookUrlProblem,
  type LookupFn,
} from '../src/webhooks/address-guard.js';
import Keyv from 'keyv';
import { createStorage } from '../src/storage/index.js';
import { createWebhookService } from '../src/webhooks/service.js';
import { postWebhook } from '../src/webhooks/post.js';
import { newMessageId, newWebhookSecret, signatureHeaders } from '../src/webhooks/signature.js';

interface Received {
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

interface Receiver {
  port: number;
  received: Received[];
  /** Filled in by `respond` handlers that care how their answer ended. */
  notes: { finished?: boolean };
}

type Respond = (res: http.ServerResponse, notes: Receiver['notes']) => void;

const servers: http.Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    server.close();
    await once(server, 'close');
  }
});

/** A local HTTP endpoint that records what reaches it, then answers as `respond` says. */
async function receiver(respond: Respond = (res) => res.end('thanks')): Promise<Receiver> {
  const received: Received[] = [];
  const notes: Receiver['notes'] = {};
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({ url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      respond(res, notes);
    });
  });
  servers.push(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { port: (server.address() as AddressInfo).port, received, notes };
}

/** A port nothing listens on (it was just released). */
async function closedPort(): Promise<number> {
  const server = http.createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  server.close();
  await once(server, 'close');
  return port;
}

const local = { allowPrivate: true };
const guarded = { allowPrivate: false };

/** Every address of every interface of this host, as the guard must know them. */
const ownAddresses = Object.values(networkInterfaces()).flatMap((list) => (list ?? []).map((i) => i.address));
/** A URL of `address` (bracketed when IPv6). */
const urlOf = (address: string, rest = '/') => `http://${address.includes(':') ? `[${address}]` : address}${rest}`;

/**
 * Forms the review found accepted: TEST-NET addresses (this host's eth0 may be one) and the 6to4
 * form of 127.0.0.1.
 */
const REVIEWED = ['http://192.0.2.2:19051/a', 'http://198.51.100.1/a', 'http://[2002:7f00:1::]:19051/a'];

/** Special-purpose ranges that are not loopback, private, link-local or multicast, IPv4 and IPv6. */
const SPECIAL = [
  '192.0.2.2', '198.51.100.1', '203.0.113.7', // TEST-NETs (documentation)
  '192.0.0.8', '192.0.0.170', // IETF protocol assignments
  '198.18.0.1', '198.19.255.254', // benchmarking
  '192.88.99.1', // 6to4 relay anycast
  '192.31.196.1', '192.175.48.1', '192.52.193.1', // AS112, AMT
  '2001:db8::1', '3fff::1', // IPv6 documentation
  '2001:2::1', '2001:20::1', '2620:4f:8000::1', // benchmarking, ORCHIDv2, AS112v6
  '100::1', // discard-only
  'fbff::1', 'fe7f::1', '4000::1', '::2', // outside global unicast 2000::/3
];

/** IPv6 forms that carry an IPv4 address, public or not: refused whatever they carry. */
const IPV4_IN_IPV6 = [
  '::ffff:8.8.8.8', '::ffff:808:808', // IPv4-mapped
  '::8.8.8.8', // IPv4-compatible
  '::ffff:0:8.8.8.8', // IPv4-translated (SIIT)
  '64:ff9b::8.8.8.8', '64:ff9b::c000:202', '64:ff9b:1::8.8.8.8', // NAT64, well-known and local-use
  '2002:7f00:1::', '2002:808:808::1', // 6to4 of 127.0.0.1 and of 8.8.8.8
  '2001:0:4136:e378:8000:63bf:3fff:fdd2', '2001::1', // Teredo
];
const resolvesTo =
  (...addresses: string[]): LookupFn =>
  async () =>
    addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));

describe('webhookUrlProblem', () => {
  it('accepts public http and https URLs', () => {
    for (const url of ['https://example.com/hook', 'http://example.com:8080/a/b?c=d', 'https://93.184.216.34/', 'http://[2606:4700::1111]/x']) {
      expect(webhookUrlProblem(url, guarded), url).toBeUndefined();
    }
  });

  it('refuses what cannot be an endpoint, whatever the network policy', () => {
    const cases: Array<[string, RegExp]> = [
      ['not a url', /not a valid URL/],
      ['/relative/path', /not a valid URL/],
      ['ftp://example.com/', /http or https/],
      ['file:///etc/passwd', /http or https/],
      ['javascript:alert(1)', /http or https/],
      ['http://user:secret@example.com/', /username or password/],
      ['http://user@example.com/', /username or password/],
      [`https://example.com/${'a'.repeat(2048)}`, /longer than 2048/],
    ];
    for (const [url, problem] of cases) {
      expect(webhookUrlProblem(url, guarded), url).toMatch(problem);
      expect(webhookUrlProblem(url, local), url).toMatch(problem);
    }
    const longest = `https://example.com/${'a'.repeat(2048 - 'https://example.com/'.length)}`;
    expect(longest).toHaveLength(2048);
    expect(webhookUrlProblem(longest, guarded)).toBeUndefined();
  });

  it('refuses literal blocked addresses in every spelling before any DNS, unless private is allowed', () => {
    const cases: Array<[string, string]> = [
      ['http://127.0.0.1/', '127.0.0.1'],
      ['http://10.0.0.1/', '10.0.0.1'],
      ['http://[::1]/', '::1'],
      ['http://169.254.169.254/latest/meta-data/', '169.254.169.254'],
      ['http://[::ffff:127.0.0.1]/', '::ffff:7f00:1'],
      ['http://2130706433/', '127.0.0.1'], // decimal spelling
      ['http://0x7f.1/', '127.0.0.1'], // hex and short spelling
      ['http://0.0.0.0:8080/', '0.0.0.0'],
      ['http://[64:ff9b::169.254.169.254]/', '64:ff9b::a9fe:a9fe'],
      ['http://localhost:3000/', 'localhost'],
      ['http://api.localhost./', 'api.localhost'],
    ];
    for (const [url, address] of cases) {
      expect(webhookUrlProblem(url, guarded), url).toContain(`blocked address ${address}`);
      expect(webhookUrlProblem(url, local), url).toBeUndefined();
    }
    expect(webhookUrlProblem('http://127.0.0.1/')).toMatch(/blocked/); // refusing is the default
  });

  it('refuses every special-purpose range and IPv4-carrying IPv6 form, naming the setting that allows them', () => {
    for (const url of [...REVIEWED, ...[...SPECIAL, ...IPV4_IN_IPV6].map((a) => urlOf(a))]) {
      const problem = webhookUrlProblem(url, guarded);
      expect(problem, url).toMatch(/^blocked address \S+: .+; an operator may allow other addresses with SILO_WEBHOOK_ALLOW_PRIVATE=true/);
      expect(webhookUrlProblem(url, local), url).toBeUndefined();
    }
    expect(webhookUrlProblem('http://192.0.2.2:19051/a', guarded)).toMatch(/^blocked address 192\.0\.2\.2: reserved/);
    expect(webhookUrlProblem('http://[2002:7f00:1::]:19051/a', guarded)).toMatch(/^blocked address 2002:7f00:1::: an IPv6 form of an IPv4 address \(6to4\)/);
  });

  it("refuses every address of this host's interfaces, even a globally routable one", () => {
    expect(ownAddresses.length).toBeGreaterThan(0);
    for (const address of ownAddresses) {
      expect(webhookUrlProblem(urlOf(address, ':8080/hook'), guarded), address).toMatch(/^blocked address /);
      expect(isBlockedAddress(address), address).toBe(true);
    }
    // A public address is refused once it is the server's own (injected: this host may have none).
    const own = () => ['10.0.0.5', '2606:4700:4700:0:0:0:0:1111', '93.184.216.34'];
    expect(webhookUrlProblem('https://93.184.216.34/', guarded)).toBeUndefined();
    expect(webhookUrlProblem('https://93.184.216.34/', { ...guarded, ownAddresses: own })).toMatch(/^blocked address 93\.184\.216\.34: this server's own address/);
    expect(webhookUrlProblem('http://[2606:4700:4700::1111]/', { ...guarded, ownAddresses: own })).toMatch(/this server's own address/);
    expect(webhookUrlProblem('https://93.184.216.35/', { ...guarded, ownAddresses: own })).toBeUndefined();
    expect(webhookUrlProblem('https://93.184.216.34/', { ...local, ownAddresses: own })).toBeUndefined();
  });
});

describe('isBlockedAddress', () => {
  it('blocks loopback, private, link-local, unspecified, multicast and other non-public ranges', () => {
    const blocked = [
      '127.0.0.1', '127.255.255.254', '10.0.0.1', '10.255.255.255', '172.16.0.1', '172.31.255.255',
      '192.168.0.1', '169.254.169.254', '0.0.0.0', '0.1.2.3', '100.64.0.1', '100.127.255.255',
      '198.18.0.1', '198.19.255.255', '224.0.0.1', '239.255.255.250', '240.0.0.1', '255.255.255.255',
      '::1', '::', 'fc00::1', 'fd12:3456:789a::1', 'fe80::1', 'fe80::1%eth0', 'febf:ffff::1', 'fec0::1',
      'ff02::1', '[::1]',
    ];
    for (const ip of blocked) expect(isBlockedAddress(ip), ip).toBe(true);
  });

  it('blocks every IPv6 form of a blocked IPv4 address', () => {
    const forms = [
      '::ffff:127.0.0.1', '::ffff:7f00:1', '0:0:0:0:0:ffff:c0a8:101', '::ffff:10.0.0.1', '::ffff:a9fe:a9fe',
      '::127.0.0.1', '::a9fe:a9fe', '::ffff:0:127.0.0.1', '64:ff9b::127.0.0.1', '64:ff9b::a00:1',
      '64:ff9b::169.254.169.254', '64:ff9b:1::8.8.8.8', ...IPV4_IN_IPV6,
    ];
    for (const ip of forms) expect(isBlockedAddress(ip), ip).toBe(true);
    for (const ip of IPV4_IN_IPV6) expect(addressRefusal(ip), ip).toMatch(/^(an IPv6 form of an IPv4 address|not a global unicast IPv6 address)/);
  });

  it('blocks every special-purpose range, by classification rather than a list of its own', () => {
    for (const ip of SPECIAL) expect(isBlockedAddress(ip), ip).toBe(true);
  });

  it('lets public addresses through, including public IPv4 in IPv6 form', () => {
    const open = [
      '8.8.8.8', '1.1.1.1', '93.184.216.34', '172.15.255.255', '172.32.0.1', '100.63.255.255', '100.128.0.1',
      '198.17.255.255', '198.20.0.1', '223.255.255.255', '11.0.0.1', '192.0.1.255', '192.0.3.0', '203.0.112.255',
      '2606:4700:4700::1111', '2a00:1450::1', '2001:4860:4860::8888', '3ffe:ffff::1',
    ];
    for (const ip of open) expect(isBlockedAddress(ip), ip).toBe(false);
  });

  it('fails closed on anything that is not an IP address', () => {
    for (const text of ['', 'localhost', 'example.com', '127.0.0.1.nip.io', '1.2.3', '::g']) expect(isBlockedAddress(text), text).toBe(true);
  });
});

describe('a create whose URL names a host that resolves to a refused address', () => {
  it('is refused without saying what the name resolves to (inside the network, news to a client)', async () => {
    const storage = createStorage({ main: new Keyv() });
    try {
      const webhooks = createWebhookService(storage, { ...guarded, maxPerAccount: 3, lookup: resolvesTo('10.20.30.40') });
      const refused = await webhooks.create('a', { url: 'https://billing.corp.example/hook', events: ['silo.created'] }).catch((e: unknown) => e);
      expect(refused).toMatchObject({ status: 422 });
      const [issue] = (refused as { detail: { msg: string; type: string }[] }).detail;
      expect(issue).toMatchObject({ type: 'url_refused', msg: expect.stringMatching(/^billing\.corp\.example resolves to an address webhooks may not reach: .*SILO_WEBHOOK_ALLOW_PRIVATE=true/) });
      expect(issue!.msg).not.toMatch(/10\.20|private/);
    } finally {
      await storage.close();
    }
  });
});

describe('resolveDeliveryAddress', () => {
  it('takes literal addresses as they are, without DNS', async () => {
    const lookup: LookupFn = () => Promise.reject(new Error('no DNS for literals'));
    await expect(resolveDeliveryAddress('93.184.216.34', { ...guarded, lookup })).resolves.toEqual({ address: '93.184.216.34', family: 4 });
    await expect(resolveDeliveryAddress('[2606:4700::1111]', { ...guarded, lookup })).resolves.toEqual({ address: '2606:4700::1111', family: 6 });
    await expect(resolveDeliveryAddress('[::1]', { ...guarded, lookup })).rejects.toThrow(BlockedAddressError);
    await expect(resolveDeliveryAddress('[::1]', { ...local, lookup })).resolves.toEqual({ address: '::1', family: 6 });
  });

  it('refuses a name when any of its addresses is blocked, and returns the first otherwise', async () => {
    const mixed = resolveDeliveryAddress('mixed.example', { ...guarded, lookup: resolvesTo('93.184.216.34', '10.0.0.1') });
    await expect(mixed).rejects.toThrow('blocked address 10.0.0.1 (mixed.example resolves to it)');
    const open = resolveDeliveryAddress('open.example', { ...guarded, lookup: resolvesTo('2606:4700::1111', '93.184.216.34') });
    await expect(open).resolves.toEqual({ address: '2606:4700::1111', family: 6 });
    const allowed = resolveDeliveryAddress('mixed.example', { ...local, lookup: resolvesTo('10.0.0.1', '93.184.216.34') });
    await expect(allowed).resolves.toEqual({ address: '10.0.0.1', family: 4 });
  });

  it('refuses names that resolve to loopback: localhost, and an injected answer', async () => {
    let asked = 0;
    const counting: LookupFn = async () => {
      asked += 1;
      return [{ address: '::1', family: 6 }];
    };
    await expect(resolveDeliveryAddress('localhost', { ...guarded, lookup: counting })).rejects.toThrow(BlockedAddressError);
    expect(asked).toBe(0); // a loopback name by definition: refused without asking
    await expect(resolveDeliveryAddress('rebind.example', { ...guarded, lookup: resolvesTo('127.0.0.1') })).rejects.toThrow(
      'blocked address 127.0.0.1',
    );
  });

  it("refuses a name that resolves to a special-purpose or this host's own address", async () => {
    for (const address of [...SPECIAL, ...IPV4_IN_IPV6, ...ownAddresses]) {
      const resolved = resolveDeliveryAddress('name.example', { ...guarded, lookup: resolvesTo('93.184.216.34', address) });
      await expect(resolved, address).rejects.toThrow(`blocked address ${address} (name.example resolves to it): `);
    }
    const own = () => ['93.184.216.34'];
    await expect(resolveDeliveryAddress('self.example', { ...guarded, ownAddresses: own, lookup: resolvesTo('93.184.216.34') })).rejects.toThrow(
      "blocked address 93.184.216.34 (self.example resolves to it): this server's own address",
    );
    await expect(resolveDeliveryAddress('93.184.216.34', { ...guarded, ownAddresses: own })).rejects.toThrow(BlockedAddressError);
    await expect(resolveDeliveryAddress('self.example', { ...local, ownAddresses: own, lookup: resolvesTo('93.184.216.34') })).resolves.toEqual({
      address: '93.184.216.34',
      family: 4,
    });
  });

  it('fails on an empty or nonsensical answer', async () => {
    await expect(resolveDeliveryAddress('empty.example', { ...guarded, lookup: resolvesTo() })).rejects.toThrow('could not resolve');
    await expect(resolveDeliveryAddress('odd.example', { ...local, lookup: resolvesTo('not-an-ip') })).rejects.toThrow(BlockedAddressError);
  });
});

describe('signatures (Standard Webhooks)', () => {
  it('matches the known-answer vector of the reference library', () => {
    // From standard-webhooks/libraries/javascript/src/webhook.test.ts, "sign function works".
    const headers = signatureHeaders('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330, '{"test": 2432232314}');
    expect(headers).toEqual({
      'webhook-id': 'msg_p5jXN8AQM9LWM0D4loKWxJek',
      'webhook-timestamp': '1614265330',
      'webhook-signature': 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
    });
  });

  it('makes secrets of 32 random bytes and url-safe message ids without dots', () => {
    const secret = newWebhookSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(secret.slice('whsec_'.length), 'base64')).toHaveLength(32);
    expect(newWebhookSecret()).not.toBe(secret);
    const id = newMessageId();
    expect(id).toMatch(/^msg_[A-Za-z0-9_-]{24}$/);
    expect(newMessageId()).not.toBe(id);
  });

  it('verifies with the reference library, and fails it when anything signed changes', () => {
    const secret = newWebhookSecret();
    const id = newMessageId();
    const now = Math.floor(Date.now() / 1000);
    const body = JSON.stringify({ type: 'silo.updated', timestamp: new Date().toISOString(), data: { name: 'café ☕ 名前' } });
    const headers = signatureHeaders(secret, id, now, body);
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
    expect(() => new Webhook(secret).verify(body.replace('café', 'cafe'), headers)).toThrow();
    expect(() => new Webhook(newWebhookSecret()).verify(body, headers)).toThrow();
    expect(() => new Webhook(secret).verify(body, { ...headers, 'webhook-id': newMessageId() })).toThrow();
    expect(() => new Webhook(secret).verify(body, { ...headers, 'webhook-timestamp': String(now + 1) })).toThrow();
  });

  it('refuses ids and timestamps that would make the signed content ambiguous', () => {
    const secret = newWebhookSecret();
    expect(() => signatureHeaders(secret, 'msg_a.b', 1, '{}')).toThrow();
    expect(() => signatureHeaders(secret, 'msg_a', 1.5, '{}')).toThrow();
    expect(() => signatureHeaders('whsec_', 'msg_a', 1, '{}')).toThrow();
  });
});

describe('postWebhook', () => {
  it('POSTs the signed JSON body to a local receiver when private addresses are allowed', async () => {
    const r = await receiver();
    const secret = newWebhookSecret();
    const body = JSON.stringify({ type: 'silo.created', timestamp: new Date().toISOString(), data: { name: 'ünïcode' } });
    const signed = signatureHeaders(secret, newMessageId(), Math.floor(Date.now() / 1000), body);
    const outcome = await postWebhook(`http://127.0.0.1:${r.port}/hooks/in?x=1`, signed, body, local);
    expect(outcome).toMatchObject({ ok: true, status: 200, responseBytes: 'thanks'.length });
    expect(outcome.error).toBeUndefined();
    expect(r.received).toHaveLength(1);
    const [got] = r.received;
    expect(got?.url).toBe('/hooks/in?x=1');
    expect(got?.body).toBe(body);
    expect(got?.headers['content-type']).toBe('application/json');
    expect(got?.headers['user-agent']).toBe('Silo-Webhooks/1');
    expect(got?.headers['content-length']).toBe(String(Buffer.byteLength(body)));
    const received = Object.fromEntries(Object.entries(got?.headers ?? {}).map(([k, v]) => [k, String(v)]));
    expect(new Webhook(secret).verify(got?.body ?? '', received)).toEqual(JSON.parse(body));
  });

  it('refuses blocked addresses at delivery, which the same URLs reach when private ones are allowed', async () => {
    const r = await receiver();
    const reachable = [
      `http://127.0.0.1:${r.port}/`,
      `http://[::ffff:127.0.0.1]:${r.port}/`,
      `http://2130706433:${r.port}/`,
      `http://0.0.0.0:${r.port}/`, // Linux connects the unspecified address to this host
    ];
    const unreachable = [
      `http://10.0.0.1:${r.port}/`,
      'http://[::1]/',
      'http://169.254.169.254/latest/meta-data/',
      `http://localhost:${r.port}/`,
      ...REVIEWED,
      ...ownAddresses.map((address) => urlOf(address, `:${r.port}/`)),
    ];
    for (const url of [...reachable, ...unreachable]) {
      const outcome = await postWebhook(url, {}, '{}', { ...guarded, timeoutMs: 2000 });
      expect(outcome.ok, url).toBe(false);
      expect(outcome.error, url).toMatch(/^blocked address /);
      expect(outcome.durationMs, url).toBeLessThan(1000);
    }
    expect(r.received).toHaveLength(0);
    // The control: the guard, not the network, stopped them.
    for (const url of reachable) expect((await postWebhook(url, {}, '{}', local)).status, url).toBe(200);
    expect(r.received).toHaveLength(reachable.length);
  });

  it('refuses a name that resolves to loopback, and connects to the vetted address when allowed', async () => {
    const r = await receiver();
    let asked = 0;
    const lookup: LookupFn = async () => {
      asked += 1;
      return [{ address: '127.0.0.1', family: 4 }];
    };
    const refused = await postWebhook(`http://rebind.example:${r.port}/`, {}, '{}', { ...guarded, lookup });
    expect(refused).toMatchObject({ ok: false, error: 'blocked address 127.0.0.1 (rebind.example resolves to it): loopback' });
    expect(r.received).toHaveLength(0);
    // rebind.example is in no real DNS: reaching the receiver proves the socket used the answer.
    const allowed = await postWebhook(`http://rebind.example:${r.port}/`, {}, '{}', { ...local, lookup });
    expect(allowed).toMatchObject({ ok: true, status: 200 });
    expect(r.received[0]?.headers.host).toBe(`rebind.example:${r.port}`);
    expect(asked).toBe(2); // once per delivery
  });

  it('connects to the address it checked, not to what the name resolves to a moment later', async () => {
    const r = await receiver();
    // A rebinding name: a public address for the check, loopback for anyone who asks again.
    const rebinding = (): { lookup: LookupFn; calls: () => number } => {
      let calls = 0;
      const lookup: LookupFn = async () => [{ address: calls++ === 0 ? '93.184.216.34' : '127.0.0.1', family: 4 }];
      return { lookup, calls: () => calls };
    };

    // The control: a client that checks, then lets the connection resolve again, is fooled.
    const naive = rebinding();
    await resolveDeliveryAddress('rebind.example', { ...guarded, lookup: naive.lookup });
    const fooled = http.request({
      host: 'rebind.example',
      port: r.port,
      method: 'POST',
      agent: false,
      lookup: (hostname, _options, callback) => {
        void naive.lookup(hostname).then((answers) => callback(null, answers.map(({ address }) => ({ address, family: 4 }))));
      },
    });
    fooled.end('{}');
    const [response] = (await once(fooled, 'response')) as [http.IncomingMessage];
    response.resume();
    expect(r.received).toHaveLength(1);

    const attack = rebinding();
    const outcome = await postWebhook(`http://rebind.example:${r.port}/`, {}, '{}', { ...guarded, lookup: attack.lookup, timeoutMs: 300 });
    expect(attack.calls()).toBe(1);
    expect(r.received).toHaveLength(1); // only the control's request
    expect(outcome.ok).toBe(false);
    // It tried the checked address (public, nothing listens on that port there): a connection
    // failure, not a refusal or a DNS error.
    expect(outcome.error).toMatch(/^(timeout after 300 ms|network unreachable|host unreachable|connection refused)$/);
  });

  it('gives up on a receiver that never answers, at timeoutMs', async () => {
    const r = await receiver(() => {});
    const outcome = await postWebhook(`http://127.0.0.1:${r.port}/`, {}, '{}', { ...local, timeoutMs: 300 });
    expect(outcome).toMatchObject({ ok: false, error: 'timeout after 300 ms', responseBytes: 0 });
    expect(outcome.status).toBeUndefined();
    expect(outcome.durationMs).toBeGreaterThanOrEqual(290);
    expect(outcome.durationMs).toBeLessThan(1500);
    expect(r.received).toHaveLength(1); // it was the answer that never came
  });

  it('counts a DNS lookup that hangs against the same timeout', async () => {
    const never: LookupFn = () => new Promise(() => {});
    const outcome = await postWebhook('http://slow-dns.example/', {}, '{}', { ...guarded, lookup: never, timeoutMs: 300 });
    expect(outcome).toMatchObject({ ok: false, error: 'timeout after 300 ms' });
  });

  it('reads at most 64 KB of a 10 MB answer, then hangs up', async () => {
    const size = 10 * 1024 * 1024;
    const r = await receiver((res, notes) => {
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': size });
      const chunk = Buffer.alloc(64 * 1024, 'x');
      let sent = 0;
      // Streamed with backpressure, so "finished" means the client really took all of it.
      const pump = (): void => {
        while (sent < size) {
          sent += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end();
      };
      res.on('close', () => (notes.finished = res.writableFinished));
      pump();
    });
    const started = performance.now();
    const outcome = await postWebhook(`http://127.0.0.1:${r.port}/`, {}, '{}', local);
    expect(performance.now() - started).toBeLessThan(2000);
    expect(outcome).toMatchObject({ ok: true, status: 200, responseBytes: 65_536 });
    await new Promise((resolve) => setTimeout(resolve, 100)); // for the receiver to see the hang-up
    expect(r.notes.finished).toBe(false);
  });

  it('honours a smaller maxResponseBytes', async () => {
    const r = await receiver((res) => res.end('y'.repeat(5000)));
    const outcome = await postWebhook(`http://127.0.0.1:${r.port}/`, {}, '{}', { ...local, maxResponseBytes: 1000 });
    expect(outcome).toMatchObject({ ok: true, status: 200, responseBytes: 1000 });
  });

  it('reports a 500 as a failure with its status', async () => {
    const r = await receiver((res) => {
      res.statusCode = 500;
      res.end('boom');
    });
    const outcome = await postWebhook(`http://127.0.0.1:${r.port}/`, {}, '{}', local);
    expect(outcome).toMatchObject({ ok: false, status: 500, responseBytes: 4 });
    expect(outcome.error).toBeUndefined();
  });

  it('does not follow a redirect', async () => {
    const target = await receiver();
    const r = await receiver((res) => {
      res.writeHead(302, { location: `http://127.0.0.1:${target.port}/elsewhere` });
      res.end();
    });
    const outcome = await postWebhook(`http://127.0.0.1:${r.port}/`, {}, '{}', local);
    expect(outcome).toMatchObject({ ok: false, status: 302, error: 'redirect not followed' });
    expect(r.received).toHaveLength(1);
    expect(target.received).toHaveLength(0);
  });

  it('reports a refused connection', async () => {
    const port = await closedPort();
    const outcome = await postWebhook(`http://127.0.0.1:${port}/`, {}, '{}', local);
    expect(outcome).toMatchObject({ ok: false, error: 'connection refused', responseBytes: 0 });
    expect(outcome.status).toBeUndefined();
  });

  it('describes bad URLs and unresolvable names instead of throwing', async () => {
    expect(await postWebhook('ftp://example.com/', {}, '{}', local)).toMatchObject({ ok: false, error: 'URL scheme must be http or https' });
    expect(await postWebhook('::nonsense', {}, '{}', local)).toMatchObject({ ok: false, error: 'not a valid URL' });
    const missing: LookupFn = () => Promise.reject(Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' }));
    const outcome = await postWebhook('https://nowhere.example/', {}, '{}', { ...guarded, lookup: missing });
    expect(outcome).toMatchObject({ ok: false, error: 'could not resolve nowhere.example' });
  });
});
