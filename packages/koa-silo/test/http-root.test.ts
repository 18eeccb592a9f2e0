/**
 * `GET /` where Silo answers every path (`notFound: 'json'`, as silo serve runs it): a pointer to
 * the console, the OpenAPI document and the README's API section, in JSON or, for a browser, HTML.
 * Mounted beside an app's routes (`notFound: 'next'`), `/` stays the app's.
 */
import Koa from 'koa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSilo } from '../src/index.js';
import { listen, rawRequest, startSilo, type Harness, type Server } from './support/http.js';

describe('GET / on a server that Silo answers alone', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startSilo({ console: true });
  });
  afterAll(() => h.close());

  it('answers JSON that points at the console, the OpenAPI document and the README', async () => {
    for (const accept of [undefined, '*/*', 'application/json']) {
      const reply = await h.client.request('/', { unchecked: true, ...(accept ? { headers: { accept } } : {}) });
      expect(reply.status, accept).toBe(200);
      expect(reply.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(reply.json).toMatchObject({ service: 'Silo', console: '/console', openapi: '/api/v1/openapi.json', docs: 'README.md#the-api' });
      expect(reply.json.detail).toMatch(/\/console/);
      expect(reply.headers['x-content-type-options']).toBe('nosniff');
    }
    // The addresses it names are there.
    expect((await h.client.request('/api/v1/openapi.json')).status).toBe(200);
  });

  it('answers a browser with a small HTML page of links, and no script', async () => {
    const reply = await rawRequest(h.server.port, '/', { headers: { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' } });
    expect(reply.status).toBe(200);
    expect(reply.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(reply.headers['vary']).toMatch(/Accept/);
    expect(reply.headers['content-security-policy']).toMatch(/default-src 'none'/);
    expect(reply.text).toContain('<a href="/console">');
    expect(reply.text).toContain('<a href="/api/v1/openapi.json">');
    expect(reply.text).toContain('README.md#the-api');
    expect(reply.text).not.toMatch(/<script/i);
  });

  it('leaves out the console where none is served; other methods are a 405', async () => {
    const bare = await startSilo({});
    try {
      const reply = await bare.client.request('/', { unchecked: true });
      expect(reply.status).toBe(200);
      expect(reply.json).not.toHaveProperty('console');
      expect(reply.json.detail).not.toMatch(/console/);
    } finally {
      await bare.close();
    }
    const post = await h.client.request('/', { method: 'POST', unchecked: true });
    expect(post.status).toBe(405);
    expect(post.headers['allow']).toMatch(/GET/);
  });
});

describe('GET / beside an app', () => {
  let server: Server;
  const silo = createSilo({ console: true });
  beforeAll(async () => {
    const app = new Koa();
    app.use(silo.middleware());
    app.use((ctx) => {
      ctx.body = 'the app';
    });
    server = await listen(app);
  });
  afterAll(async () => {
    await server.close();
    await silo.close();
  });

  it('is the app\'s', async () => {
    const reply = await rawRequest(server.port, '/');
    expect(reply.text).toBe('the app');
  });
});
