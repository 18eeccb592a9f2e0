/**
 * Contract §19's metrics: after a scripted workload over real HTTP, the exposition (parsed by a
 * strict Prometheus text-format parser) holds exactly the counts the workload implies, by route
 * template, method and status; storage calls, memory gates, worker pool, open event streams,
 * refusals and the default process metrics are there; reading 10 000 distinct silos adds no
 * series; no key, account, private silo's uuid or client address appears anywhere; Silo answers
 * nothing at /metrics itself; a Silo without the option has no metrics at all.
 */
import http from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parsePrometheusText, seriesCount, valueOf, type Family } from './support/prometheus-text.js';
import { access, manage, rawRequest, startSilo, type Account, type Harness } from './support/http.js';

async function scrape(h: Harness): Promise<{ text: string; families: Map<string, Family> }> {
  const text = await h.silo.metrics!.text();
  return { text, families: parsePrometheusText(text) };
}

const requests = (families: Map<string, Family>, route: string, method: string, status: number) =>
  valueOf(families, 'silo_http_requests_total', { route, method, status: String(status) }) ?? 0;

describe('metrics', () => {
  let h: Harness;
  let acme: Account;
  const uuids: string[] = [];

  beforeAll(async () => {
    h = await startSilo({ metrics: true, notFound: 'next', plans: { default: { maxDataBytes: 1_000_000, rateLimitPerMinute: 0 } } }, (app, silo) => {
      app.use(silo.middleware());
      // The app's own route, beside Silo's: not Silo's to count.
      app.use(async (ctx) => {
        ctx.body = 'app';
      });
    });
    acme = await h.account('acme');
  });

  afterAll(() => h.close());

  it('counts a scripted workload exactly, by route template, method and status', async () => {
    const before = await scrape(h);
    for (let i = 0; i < 5; i++) uuids.push(await h.create(acme, { file_name: `s${i}`, file_data: [{ i }] }));
    for (let i = 0; i < 10; i++) expect((await h.client.get(`/${uuids[i % 5]}`, { headers: access(acme) })).status).toBe(200);
    for (let i = 0; i < 3; i++) expect((await h.client.get(`/00000000-0000-4000-8000-00000000000${i}`, { headers: access(acme) })).status).toBe(404);
    for (let i = 0; i < 2; i++) expect((await h.client.get('/api/v1/manage/silos')).status).toBe(401);
    for (let i = 0; i < 4; i++) expect((await h.client.request(`/api/v1/manage/${uuids[0]}`, { method: 'PATCH', headers: manage(acme), body: { file_name: `p${i}` } })).status).toBe(200);
    expect((await h.client.request(`/api/v1/manage/${uuids[4]}`, { method: 'DELETE', headers: manage(acme) })).status).toBe(200);
    expect((await h.client.get('/api/v1/manage/audit', { headers: manage(acme) })).status).toBe(200);
    expect((await h.client.get('/api/v1/manage/no/such/route', { headers: manage(acme) })).status).toBe(404);
    expect((await rawRequest(h.server.port, '/app/page')).text).toBe('app');
    const { families } = await scrape(h);

    const delta = (route: string, method: string, status: number) => requests(families, route, method, status) - requests(before.families, route, method, status);
    expect(delta('/api/v1/manage/', 'POST', 201)).toBe(5);
    expect(delta('/{file_uuid}', 'GET', 200)).toBe(10);
    expect(delta('/{file_uuid}', 'GET', 404)).toBe(3);
    expect(delta('/api/v1/manage/silos', 'GET', 401)).toBe(2);
    expect(delta('/api/v1/manage/{file_uuid}', 'PATCH', 200)).toBe(4);
    expect(delta('/api/v1/manage/{file_uuid}', 'DELETE', 200)).toBe(1);
    expect(delta('/api/v1/manage/audit', 'GET', 200)).toBe(1);
    expect(delta('unmatched', 'GET', 404)).toBe(1);
    // Every request Silo answered, and nothing else (the app's own page is the app's).
    const total = (f: Map<string, Family>) => f.get('silo_http_requests_total')!.samples.reduce((n, s) => n + s.value, 0);
    expect(total(families) - total(before.families)).toBe(5 + 10 + 3 + 2 + 4 + 1 + 1 + 1);
    expect(JSON.stringify([...families.get('silo_http_requests_total')!.samples])).not.toContain('/app');
    // The latency histogram saw each request once.
    for (const s of families.get('silo_http_requests_total')!.samples) {
      expect(valueOf(families, 'silo_http_request_duration_seconds_count', s.labels)).toBe(s.value);
    }
    expect(families.get('silo_http_request_duration_seconds')!.type).toBe('histogram');

    // Storage calls, by operation; no failure.
    expect(valueOf(families, 'silo_storage_operation_duration_seconds_count', { operation: 'get' })).toBeGreaterThan(20);
    expect(families.get('silo_storage_errors_total')!.samples).toEqual([]);
    // The memory budget, the worker pool, streams, webhooks, refusals: there, at rest.
    for (const gate of ['texts', 'parses']) {
      expect(valueOf(families, 'silo_memory_budget_bytes', { gate })).toBeGreaterThan(0);
      expect(valueOf(families, 'silo_memory_in_use_bytes', { gate })).toBe(0);
      expect(valueOf(families, 'silo_memory_refusals_total', { gate })).toBe(0);
    }
    expect(valueOf(families, 'silo_work_queued')).toBe(0);
    expect(valueOf(families, 'silo_event_streams_open')).toBe(0);
    expect(valueOf(families, 'silo_webhook_outbox_backlog')).toBe(0);
    expect(valueOf(families, 'silo_webhook_deliveries_total', { outcome: 'delivered' })).toBe(0);
    expect(valueOf(families, 'silo_rate_limit_refusals_total', { limit: 'requests' })).toBe(0);
    // prom-client's default metrics, the event-loop delay among them.
    for (const name of ['process_cpu_seconds_total', 'nodejs_eventloop_lag_seconds', 'nodejs_eventloop_lag_p99_seconds', 'nodejs_heap_size_used_bytes']) {
      expect(families.has(name), name).toBe(true);
    }
  });

  it('counts open event streams while they are open', async () => {
    const agent = new http.Agent();
    const req = http.get({ host: '127.0.0.1', port: h.server.port, path: `/${uuids[0]}/events`, headers: { host: 'api.localhost', ...access(acme) }, agent });
    const res = await new Promise<http.IncomingMessage>((resolve) => req.once('response', resolve));
    expect(res.statusCode).toBe(200);
    expect(valueOf((await scrape(h)).families, 'silo_event_streams_open')).toBe(1);
    req.destroy();
    agent.destroy();
    for (let i = 0; i < 50 && valueOf((await scrape(h)).families, 'silo_event_streams_open') !== 0; i++) await sleep(20);
    const { families } = await scrape(h);
    expect(valueOf(families, 'silo_event_streams_open')).toBe(0);
    expect(valueOf(families, 'silo_http_requests_total', { route: '/{file_uuid}/events', method: 'GET', status: '200' })).toBe(1);
  });

  it('keeps the series count bounded while 10 000 distinct silos are read, and names none of them', async () => {
    const many: string[] = [];
    for (let i = 0; i < 10_000; i++) many.push((await h.silo.silos.create('acme', { file_name: `m${i}`, file_data: { i } })).file_uuid);
    const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });
    const read = (uuid: string) =>
      new Promise<number>((resolve, reject) => {
        http
          .get({ host: '127.0.0.1', port: h.server.port, path: `/${uuid}`, headers: { host: 'api.localhost', ...access(acme) }, agent }, (res) => {
            res.resume();
            res.on('end', () => resolve(res.statusCode!));
          })
          .on('error', reject);
      });
    await Promise.all(many.slice(0, 100).map(read));
    const first = await scrape(h);
    const seriesBefore = seriesCount(first.families);
    let next = 100;
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (next < many.length) expect(await read(many[next++]!)).toBe(200);
      }),
    );
    agent.destroy();
    const after = await scrape(h);
    // The same series (the default metrics' own labels aside: GC kinds, heap spaces may show up late).
    const silo = (f: Map<string, Family>) => [...f.values()].filter((x) => x.name.startsWith('silo_')).reduce((n, x) => n + x.samples.length, 0);
    expect(silo(after.families)).toBe(silo(first.families));
    expect(seriesCount(after.families)).toBeLessThan(seriesBefore + 50);
    expect(valueOf(after.families, 'silo_http_requests_total', { route: '/{file_uuid}', method: 'GET', status: '200' })).toBeGreaterThanOrEqual(10_000);
    for (const uuid of [...many, ...uuids]) expect(after.text.includes(uuid), uuid).toBe(false);
  }, 120_000);

  it('holds no key, account name, private uuid or client address', async () => {
    const { text } = await scrape(h);
    for (const secret of [acme.manage, acme.access, 'acme', '127.0.0.1', 'api.localhost', ...uuids]) expect(text.includes(secret), secret).toBe(false);
    expect(text).not.toMatch(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i);
  });

  it('answers nothing at /metrics on the API: that is a listener of its own', async () => {
    const reply = await rawRequest(h.server.port, '/metrics');
    expect(reply.text).toBe('app');
    const standalone = await startSilo({ metrics: true });
    try {
      expect((await rawRequest(standalone.server.port, '/metrics')).status).toBe(404);
    } finally {
      await standalone.close();
    }
  });

  it('counts rate-limit refusals; a Silo without the option has no metrics', async () => {
    const limited = await startSilo({ metrics: { defaultMetrics: false }, plans: { default: { maxDataBytes: 1000, rateLimitPerMinute: 2 } } });
    try {
      const account = await limited.account('tiny');
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++) statuses.push((await limited.client.get('/api/v1/manage/silos', { headers: manage(account) })).status);
      expect(statuses).toEqual([200, 200, 429, 429]);
      const families = parsePrometheusText(await limited.silo.metrics!.text());
      expect(valueOf(families, 'silo_rate_limit_refusals_total', { limit: 'requests' })).toBe(2);
      expect(valueOf(families, 'silo_http_requests_total', { route: '/api/v1/manage/silos', method: 'GET', status: '429' })).toBe(2);
      expect(families.has('process_cpu_seconds_total')).toBe(false);
    } finally {
      await limited.close();
    }
    const plain = await startSilo();
    try {
      expect(plain.silo.metrics).toBeUndefined();
    } finally {
      await plain.close();
    }
  });
});
