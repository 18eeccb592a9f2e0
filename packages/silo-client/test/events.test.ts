/**
 * The change feed's reader on its own: the event stream format as the HTML standard defines it,
 * and what the iterator does when a stream ends, fails or is refused, against a tiny local server.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { JsonNumber, SiloClient, type AuditEvent, type SiloEvent } from '../src/index.js';
import { readEvents } from '../src/sse.js';

const UUID = '3f2c1a9e-8b7d-4c6e-9f10-2a3b4c5d6e7f';

function streamOf(...chunks: string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
      controller.close();
    },
  });
}

async function all(stream: ReadableStream<Uint8Array>) {
  const out = [];
  for await (const event of readEvents(stream).events) out.push(event);
  return out;
}

describe('the event stream format', () => {
  it('reads fields, comments, multi-line data and every line ending, across chunk boundaries', async () => {
    const events = await all(
      streamOf(': keep-alive\n\n', 'event: update\r\nid: 2\r\ndata: {"a":', '1}\r\n\r', '\nevent: move\rdata: x\rdata: y\r\revent: a\nid\ndata\n\n', 'data: no end'),
    );
    expect(events).toEqual([
      { event: 'update', id: '2', data: '{"a":1}' },
      { event: 'move', id: undefined, data: 'x\ny' },
      { event: 'a', id: '', data: '' },
    ]);
  });

  it('keeps a character split across two chunks', async () => {
    const bytes = new TextEncoder().encode('data: é😀\n\n');
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const byte of bytes) controller.enqueue(new Uint8Array([byte]));
        controller.close();
      },
    });
    expect(await all(stream)).toEqual([{ event: 'message', id: undefined, data: 'é😀' }]);
  });

  it('reads retry:', async () => {
    const reading = readEvents(streamOf('retry: 1234\n\ndata: x\n\n'));
    for await (const _ of reading.events) void _;
    expect(reading.retryMs()).toBe(1234);
  });
});

type Handler = (req: http.IncomingMessage, res: http.ServerResponse, n: number) => void;
let server: http.Server | undefined;

async function serve(handler: Handler): Promise<{ url: string; requests: http.IncomingHttpHeaders[] }> {
  const requests: http.IncomingHttpHeaders[] = [];
  server = http.createServer((req, res) => {
    requests.push(req.headers);
    handler(req, res, requests.length - 1);
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests };
}

afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  server = undefined;
});

const sse = (res: http.ServerResponse, text: string, end = true) => {
  res.writeHead(200, { 'Content-Type': 'text/event-stream' });
  res.write(text);
  if (end) res.end();
};
const update = (version: number, extra = '') =>
  `event: update\nid: ${version}\ndata: {"file_uuid":"${UUID}","version":${version}${extra}}\n\n`;

async function collect(feed: AsyncGenerator<SiloEvent>, count: number): Promise<SiloEvent[]> {
  const out: SiloEvent[] = [];
  for await (const event of feed) {
    out.push(event);
    if (out.length === count) break;
  }
  return out;
}

describe('a feed over fetch', () => {
  it('starts from ?since=, resumes with Last-Event-ID when the stream ends, waiting as retry: says', async () => {
    const urls: (string | undefined)[] = [];
    const s = await serve((req, res, n) => {
      urls.push(req.url);
      if (n === 0) sse(res, `retry: 50\n\n${update(2)}${update(3)}`);
      else sse(res, `${update(4, ',"file_data":{"big":12345678901234567890}')}`, false);
    });
    const client = new SiloClient({ baseUrl: s.url, accessKey: 'silo_acc_a' });
    const events = await collect(client.events(UUID, { since: 1, data: true }), 3);
    expect(events.map((e) => e.id)).toEqual([2, 3, 4]);
    // The first asks by ?since= (a bad one is a 422 naming `since`), the next by the header too.
    expect(urls).toEqual([`/${UUID}/events?data=1&since=1`, `/${UUID}/events?data=1&since=1`]);
    expect(s.requests.map((h) => h['last-event-id'])).toEqual([undefined, '3']);
    expect(s.requests[0]!['x-silo-key']).toBe('silo_acc_a');
    const last = events[2]!;
    expect(last.type === 'update' && last.data.file_data).toEqual({ big: new JsonNumber('12345678901234567890') });
  });

  it('ends after delete or move, and throws the SiloError of a refused stream', async () => {
    const s = await serve((req, res) => {
      if (req.url?.endsWith('/events')) return sse(res, `${update(2)}event: move\nid: 3\ndata: {"file_uuid":"${UUID}","region_name":"sg-01-api","version":3}\n\n`, false);
      res.writeHead(404, { 'Content-Type': 'application/json' });
      res.end('{"detail":"Silo not found"}');
    });
    const client = new SiloClient({ baseUrl: s.url, accessKey: 'silo_acc_a' });
    const events: SiloEvent[] = [];
    for await (const event of client.events(UUID)) events.push(event);
    expect(events.map((e) => e.type)).toEqual(['update', 'move']);
    // The move taught the client the silo's region, which this baseUrl (an IP address) cannot be turned into.
    // A mistake in the call rejects at the first next(), as every call of the client rejects.
    await expect(client.events(UUID).next()).rejects.toMatchObject({ name: 'SiloRegionError', region: 'sg-01-api' });
    const refused = client.events(UUID, { data: true, region: 'api' });
    await expect(refused.next()).rejects.toMatchObject({ name: 'SiloError', status: 404, detail: 'Silo not found' });
  });

  it("goes on past a silo's delete or move in the account's feed", async () => {
    const other = '0b9d6c6e-53c1-4f43-9a0f-4d1d0c6f2b11';
    const s = await serve((_req, res) =>
      sse(
        res,
        `event: create\ndata: {"file_uuid":"${UUID}","version":1}\n\nevent: delete\ndata: {"file_uuid":"${UUID}","version":2}\n\n` +
          `event: move\ndata: {"file_uuid":"${other}","region_name":"sg-01-api","version":4}\n\nevent: update\ndata: {"file_uuid":"${other}","version":5}\n\n`,
        false,
      ),
    );
    const client = new SiloClient({ baseUrl: s.url, manageKey: 'silo_man_m' });
    const events = await collect(client.events('account'), 4);
    expect(events.map((e) => `${e.type} ${e.data.file_uuid}`)).toEqual([`create ${UUID}`, `delete ${UUID}`, `move ${other}`, `update ${other}`]);
  });

  it('retries a busy server (429, 503) and gives up after the reconnections allowed', async () => {
    const s = await serve((_req, res) => {
      res.writeHead(503, { 'Content-Type': 'application/json', 'Retry-After': '0' });
      res.end('{"detail":"Storage unavailable"}');
    });
    const client = new SiloClient({ baseUrl: s.url, manageKey: 'silo_man_m' });
    await expect(client.events('account', { reconnects: 3 }).next()).rejects.toMatchObject({ status: 503 });
    expect(s.requests).toHaveLength(4);
    expect(s.requests[0]!['x-man-api']).toBe('silo_man_m');
  });

  it('reconnects after a network failure and stops when its signal aborts', async () => {
    const s = await serve((req) => req.socket.destroy());
    const controller = new AbortController();
    const client = new SiloClient({ baseUrl: s.url });
    const feed = client.events(UUID, { signal: controller.signal });
    setTimeout(() => controller.abort(), 1500);
    expect(await feed.next()).toEqual({ done: true, value: undefined });
    expect(s.requests.length).toBeGreaterThanOrEqual(2);
  });
});

describe('the audit feed over fetch', () => {
  const T1 = '2026-05-01T10:00:00.000Z';
  const T2 = '2026-05-01T10:00:01.000Z';
  const entry = (time: string, action: string) =>
    `event: audit\nid: ${time}\ndata: {"time":"${time}","action":"${action}","actor":{"type":"manage","name":"default"},"address":"127.0.0.1","file_uuid":"${UUID}","version":1,"outcome":"success"}\n\n`;

  it('starts from since, resumes from the newest entry time, and leaves out the entries of that time it has seen', async () => {
    const urls: string[] = [];
    const s = await serve((req, res, n) => {
      urls.push(req.url ?? '');
      // The server replays the entries at or after Last-Event-ID, that millisecond's included.
      if (n === 0) sse(res, `retry: 50\n\n${entry(T1, 'silo.create')}${entry(T1, 'silo.update')}`);
      else sse(res, `${entry(T1, 'silo.create')}${entry(T1, 'silo.update')}event: reset\ndata: {"detail":"More than 1000 entries","since":"${T1}"}\n\n${entry(T2, 'silo.delete')}`, false);
    });
    const client = new SiloClient({ baseUrl: s.url, manageKey: 'silo_man_m' });
    const events: AuditEvent[] = [];
    for await (const event of client.audit.events({ since: new Date(T1) })) {
      events.push(event);
      if (events.length === 4) break;
    }
    expect(events.map((e) => [e.type, e.id, e.type === 'audit' ? e.data.action : e.data.since])).toEqual([
      ['audit', T1, 'silo.create'],
      ['audit', T1, 'silo.update'],
      ['reset', undefined, T1],
      ['audit', T2, 'silo.delete'],
    ]);
    expect(urls).toEqual([`/api/v1/manage/audit/events?since=${encodeURIComponent(T1)}`, `/api/v1/manage/audit/events?since=${encodeURIComponent(T1)}`]);
    expect(s.requests.map((h) => h['last-event-id'])).toEqual([undefined, T1]);
    expect(s.requests[0]!['x-man-api']).toBe('silo_man_m');
  });

  it('needs a manage key, and throws the SiloError of a refused stream', async () => {
    const s = await serve((_req, res) => {
      res.writeHead(422, { 'Content-Type': 'application/json' });
      res.end('{"detail":[{"loc":["query","since"],"msg":"Input should be a valid datetime","type":"datetime_parsing"}]}');
    });
    await expect(new SiloClient({ baseUrl: s.url }).audit.events().next()).rejects.toThrow(/manage key/);
    const refused = new SiloClient({ baseUrl: s.url, manageKey: 'silo_man_m' }).audit.events({ since: 'yesterday' });
    await expect(refused.next()).rejects.toMatchObject({ name: 'SiloError', status: 422, issues: [expect.objectContaining({ loc: ['query', 'since'] })] });
  });
});
