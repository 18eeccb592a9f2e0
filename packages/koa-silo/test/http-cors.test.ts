/**
 * CORS as a browser sees it: preflights (OPTIONS with Origin and Access-Control-Request-*) and
 * the headers of the answers. Public data: any origin, `Content-Type` allowed. Keyed requests:
 * only the origins of `corsOrigins`, never with credentials.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSilo } from '../src/index.js';
import { access, manage, startSilo, type Account, type Harness } from './support/http.js';

const APP = 'http://app.example.test:3000';
const OTHER = 'https://evil.example.test';
const plans = { default: { maxDataBytes: 100_000, rateLimitPerMinute: 100 } };

function preflightHeaders(origin: string, method: string, headers: string): Record<string, string> {
  return { Origin: origin, 'Access-Control-Request-Method': method, 'Access-Control-Request-Headers': headers };
}

describe('CORS with corsOrigins listing one origin', () => {
  let h: Harness;
  let alice: Account;
  let publicUuid: string;
  let privateUuid: string;

  beforeAll(async () => {
    h = await startSilo({ plans, corsOrigins: ['http://App.Example.test:3000/'] });
    alice = await h.account('alice');
    publicUuid = await h.create(alice, { file_name: 'pub', file_data: { a: 1 }, is_public: true });
    privateUuid = await h.create(alice, { file_name: 'priv', file_data: { b: 2 } });
  });
  afterAll(() => h.close());

  it('public data: the preflight of a GET with Content-Type: application/json allows it from any origin', async () => {
    const r = await h.client.request(`/public/${publicUuid}`, { method: 'OPTIONS', headers: preflightHeaders(OTHER, 'GET', 'content-type') });
    expect(r.status).toBe(204);
    expect(r.headers['access-control-allow-origin']).toBe('*');
    expect(r.headers['access-control-allow-headers']!.toLowerCase().split(', ')).toEqual(expect.arrayContaining(['content-type', 'if-none-match']));
    const get = await h.client.get(`/public/${publicUuid}`, { headers: { Origin: OTHER, 'Content-Type': 'application/json' } });
    expect(get.status).toBe(200);
    expect(get.headers['access-control-allow-origin']).toBe('*');
    expect(get.headers['access-control-expose-headers']).toContain('ETag');
  });

  it('private read from the allowed origin: preflight allows X-SILO-KEY, the answer names the origin and exposes ETag and RateLimit-*', async () => {
    const pre = await h.client.request(`/${privateUuid}`, { method: 'OPTIONS', headers: preflightHeaders(APP, 'GET', 'x-silo-key,if-none-match') });
    expect(pre.status).toBe(204);
    expect(pre.headers['access-control-allow-origin']).toBe(APP);
    expect(pre.headers['access-control-allow-methods']).toBe('GET, HEAD, OPTIONS');
    expect(pre.headers['access-control-allow-headers']!.toLowerCase().split(', ')).toEqual(
      expect.arrayContaining(['x-silo-key', 'x-man-api', 'content-type', 'if-match', 'if-none-match', 'prefer']),
    );
    expect(pre.headers['access-control-allow-credentials']).toBeUndefined();
    expect(pre.headers.vary).toContain('Origin');

    const get = await h.client.get(`/${privateUuid}`, { headers: access(alice, { Origin: APP }) });
    expect(get.status).toBe(200);
    expect(get.json).toEqual({ b: 2 });
    expect(get.headers['access-control-allow-origin']).toBe(APP);
    expect(get.headers['access-control-allow-credentials']).toBeUndefined();
    expect(get.headers.vary).toContain('Origin');
    const exposed = get.headers['access-control-expose-headers']!.split(', ');
    expect(exposed).toEqual(expect.arrayContaining(['ETag', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'Retry-After', 'Location']));
    expect(get.headers['ratelimit-limit']).toBe('100');
  });

  it('errors of keyed requests from the allowed origin carry CORS headers too, so the page can read them', async () => {
    const r = await h.client.get(`/${privateUuid}`, { headers: { Origin: APP, 'X-SILO-KEY': 'silo_acc_wrong' } });
    expect(r.status).toBe(401);
    expect(r.headers['access-control-allow-origin']).toBe(APP);
  });

  it('management from the allowed origin: preflight of PATCH with X-MAN-API and If-Match, create answers with Location exposed', async () => {
    const pre = await h.client.request(`/api/v1/manage/${privateUuid}`, {
      method: 'OPTIONS',
      headers: preflightHeaders(APP, 'PATCH', 'x-man-api,content-type,if-match'),
    });
    expect(pre.status).toBe(204);
    expect(pre.headers['access-control-allow-origin']).toBe(APP);
    expect(pre.headers['access-control-allow-methods']).toBe('GET, HEAD, PATCH, DELETE, OPTIONS');
    const created = await h.client.request('/api/v1/manage/', { method: 'POST', headers: manage(alice, { Origin: APP }), body: { file_name: 'c', file_data: [{ c: 1 }] } });
    expect(created.status).toBe(201);
    expect(created.headers['access-control-allow-origin']).toBe(APP);
    expect(created.headers['access-control-expose-headers']).toContain('Location');
  });

  it('another origin gets no CORS headers on keyed addresses (the browser blocks it), but still a plain answer', async () => {
    const pre = await h.client.request(`/${privateUuid}`, { method: 'OPTIONS', headers: preflightHeaders(OTHER, 'GET', 'x-silo-key') });
    expect(pre.status).toBe(204);
    expect(pre.headers['access-control-allow-origin']).toBeUndefined();
    expect(pre.headers['access-control-allow-headers']).toBeUndefined();
    const get = await h.client.get(`/${privateUuid}`, { headers: access(alice, { Origin: OTHER }) });
    expect(get.status).toBe(200);
    expect(get.headers['access-control-allow-origin']).toBeUndefined();
    expect(get.headers.vary).toContain('Origin');
  });
});

describe('CORS defaults and corsOrigins "*"', () => {
  it('by default keyed addresses send no CORS headers at all', async () => {
    const h = await startSilo({ plans });
    try {
      const alice = await h.account('alice');
      const uuid = await h.create(alice, { file_name: 'priv', file_data: { c: 1 } });
      const pre = await h.client.request(`/${uuid}`, { method: 'OPTIONS', headers: preflightHeaders(APP, 'GET', 'x-silo-key') });
      expect(pre.headers['access-control-allow-origin']).toBeUndefined();
      const get = await h.client.get(`/${uuid}`, { headers: access(alice, { Origin: APP }) });
      expect(get.headers['access-control-allow-origin']).toBeUndefined();
      expect(get.headers.vary).toBeUndefined();
    } finally {
      await h.close();
    }
  });

  it("'*' allows every origin with Access-Control-Allow-Origin: * (no credentials, no Vary)", async () => {
    const h = await startSilo({ plans, corsOrigins: '*' });
    try {
      const alice = await h.account('alice');
      const uuid = await h.create(alice, { file_name: 'priv', file_data: { c: 1 } });
      const pre = await h.client.request(`/${uuid}`, { method: 'OPTIONS', headers: preflightHeaders(OTHER, 'GET', 'x-silo-key') });
      expect(pre.headers['access-control-allow-origin']).toBe('*');
      const get = await h.client.get(`/${uuid}`, { headers: access(alice, { Origin: OTHER }) });
      expect(get.headers['access-control-allow-origin']).toBe('*');
      expect(get.headers['access-control-allow-credentials']).toBeUndefined();
    } finally {
      await h.close();
    }
  });

  it('refuses a corsOrigins entry that is not a bare origin', () => {
    expect(() => createSilo({ corsOrigins: ['https://app.example.com/path'] })).toThrow(/corsOrigins/);
    expect(() => createSilo({ corsOrigins: ['app.example.com'] })).toThrow(/corsOrigins/);
  });
});
