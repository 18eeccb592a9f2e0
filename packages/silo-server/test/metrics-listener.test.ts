/**
 * Contract §19's metrics listener: off unless SILO_METRICS_PORT is set; then /metrics on that port
 * only (bound to 127.0.0.1 by default), never on the API's port; with SILO_METRICS_TOKEN a scrape
 * without the bearer token (or with a wrong one) is a 401; a host beyond loopback needs the token;
 * the audit log's retention setting (SILO_AUDIT_DAYS) reaches the plan.
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';
import { plansOf } from '../src/plans.js';
import { silentLogger } from '../src/log.js';
import { startServer, type RunningServer } from '../src/serve.js';

function get(url: string, headers: Record<string, string> = {}): Promise<{ status: number; text: string; type: string | undefined }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers, agent: false }, (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString('utf8')));
        res.on('end', () => resolve({ status: res.statusCode!, text, type: res.headers['content-type'] }));
      })
      .on('error', reject);
  });
}

const TOKEN = 'scrape-token-0123456789abcdef';

describe('the metrics listener', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'silo-metrics-'));
  let server: RunningServer;

  beforeAll(async () => {
    const config = loadConfig({ PORT: '0', SILO_LISTEN_ADDRESS: '127.0.0.1', SILO_DATA_DIR: dir, SILO_METRICS_PORT: '0', SILO_METRICS_TOKEN: TOKEN }, {}, dir);
    server = await startServer(config, { logger: silentLogger, printBanner: () => undefined });
  });

  afterAll(async () => {
    await server?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('serves /metrics on its own port, on 127.0.0.1, only with the bearer token', async () => {
    expect(server.metricsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
    const port = Number(new URL(server.metricsUrl!).port);
    expect(port).not.toBe(server.port);
    expect((await get(server.metricsUrl!)).status).toBe(401);
    expect((await get(server.metricsUrl!, { authorization: `Bearer ${TOKEN}x` })).status).toBe(401);
    expect((await get(server.metricsUrl!, { authorization: `Basic ${TOKEN}` })).status).toBe(401);
    // The scheme in any case (RFC 9110 §11.1).
    expect((await get(server.metricsUrl!, { authorization: `bearer ${TOKEN}` })).status).toBe(200);
    expect((await get(server.metricsUrl!, { authorization: TOKEN })).status).toBe(401);
    await get(`${server.url}/healthz`);
    const ok = await get(server.metricsUrl!, { authorization: `Bearer ${TOKEN}` });
    expect(ok.status).toBe(200);
    expect(ok.type).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(ok.text).toContain('# TYPE silo_http_requests_total counter');
    expect(ok.text).toContain('silo_connections_refused_total{reason="total"} 0');
    expect(ok.text).toContain('nodejs_eventloop_lag_seconds');
    expect((await get(server.metricsUrl!.replace('/metrics', '/other'), { authorization: `Bearer ${TOKEN}` })).status).toBe(404);
  });

  it("the repository's Grafana dashboard (docs/grafana-dashboard.json) uses only metrics the server exposes", async () => {
    const dashboard = JSON.parse(fs.readFileSync(new URL('../../../docs/grafana-dashboard.json', import.meta.url), 'utf8')) as { panels: { targets?: { expr: string }[] }[] };
    const exprs = dashboard.panels.flatMap((p) => p.targets ?? []).map((t) => t.expr);
    const used = new Set(exprs.flatMap((e) => e.match(/\b(silo|nodejs|process)_[a-z0-9_]+/g) ?? []));
    expect(used.size).toBeGreaterThan(15);
    const text = (await get(server.metricsUrl!, { authorization: `Bearer ${TOKEN}` })).text;
    const families = new Set([...text.matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1]));
    for (const name of used) expect(families.has(name.replace(/_(bucket|count|sum)$/, '')), name).toBe(true);
  });

  it('answers nothing at /metrics on the API port', async () => {
    const reply = await get(`${server.url}/metrics`);
    expect(reply.status).toBe(404);
    expect(reply.text).not.toContain('silo_');
  });

  it('is off unless SILO_METRICS_PORT is set, and refuses settings that would expose it', () => {
    const load = (env: Record<string, string>) => loadConfig({ SILO_DATA_DIR: dir, ...env }, {}, dir);
    expect(load({}).metrics).toBeUndefined();
    expect(load({ SILO_METRICS_PORT: '9464' }).metrics).toEqual({ port: 9464, host: '127.0.0.1' });
    expect(load({ SILO_METRICS_PORT: '9464', SILO_METRICS_HOST: '0.0.0.0', SILO_METRICS_TOKEN: TOKEN }).metrics).toEqual({ port: 9464, host: '0.0.0.0', token: TOKEN });
    expect(() => load({ SILO_METRICS_PORT: '9464', SILO_METRICS_HOST: '0.0.0.0' })).toThrow(/SILO_METRICS_TOKEN/);
    expect(() => load({ SILO_METRICS_TOKEN: TOKEN })).toThrow(ConfigError);
    expect(() => load({ SILO_METRICS_PORT: '8080' })).toThrow(/API's port/);
    expect(() => load({ SILO_METRICS_PORT: '9464', SILO_METRICS_TOKEN: 'short' })).toThrow(/16 visible/);
  });

  it('gives the default plan SILO_AUDIT_DAYS', () => {
    expect(plansOf(loadConfig({ SILO_DATA_DIR: dir, SILO_AUDIT_DAYS: '30' }, {}, dir)).default!.auditDays).toBe(30);
    expect(plansOf(loadConfig({ SILO_DATA_DIR: dir }, {}, dir)).default!.auditDays).toBeUndefined();
    expect(() => loadConfig({ SILO_DATA_DIR: dir, SILO_AUDIT_DAYS: '0' }, {}, dir)).toThrow(/SILO_AUDIT_DAYS/);
  });
});
