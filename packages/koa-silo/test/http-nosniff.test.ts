/**
 * Contract §17: every answer Silo's middleware writes carries `X-Content-Type-Options: nosniff`, so
 * that no browser sniffs a silo's text (or an error quoting it) into HTML or script. Over real
 * HTTP: a JSON success, errors (401, 422, 404 of an unknown path, 405), an empty 204, an event
 * stream, and the standalone 404 of jsonNotFound; and never on what Silo passes on to the app.
 */
import Koa from 'koa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSse } from '../../../test/support/sse.js';
import { jsonNotFound } from '../src/index.js';
import { access, HOSTS, listen, manage, rawRequest, startSilo, type Account, type Harness } from './support/http.js';

const nosniff = (reply: { headers: Record<string, string | string[] | undefined> }) => reply.headers['x-content-type-options'];

describe('X-Content-Type-Options: nosniff', () => {
  let h: Harness;
  let alice: Account;

  beforeAll(async () => {
    h = await startSilo();
    alice = await h.account('alice');
  });

  afterAll(() => h.close());

  it('is on a success, on errors and on the 404 of an unknown path', async () => {
    const uuid = await h.create(alice, { file_name: 'n', file_data: { html: '<script>alert(1)</script>' } });
    const answers = {
      success: await h.client.get(`/${uuid}`, { headers: access(alice) }),
      list: await h.client.get('/api/v1/manage/silos', { headers: manage(alice) }),
      unauthorized: await h.client.get('/api/v1/manage/silos'),
      invalid: await h.client.get('/api/v1/manage/not-a-uuid', { headers: manage(alice) }),
      unknownPath: await h.client.get('/no/such/path'),
      wrongMethod: await h.client.request('/api/v1/manage/silos', { method: 'PUT', headers: manage(alice) }),
    };
    expect(Object.fromEntries(Object.entries(answers).map(([name, reply]) => [name, reply.status]))).toEqual({
      success: 200,
      list: 200,
      unauthorized: 401,
      invalid: 422,
      unknownPath: 404,
      wrongMethod: 405,
    });
    for (const [name, reply] of Object.entries(answers)) expect(nosniff(reply), name).toBe('nosniff');
  });

  it('is on empty answers and on event streams', async () => {
    const uuid = await h.create(alice, { file_name: 'p', file_data: {}, is_public: true });
    const preflight = await rawRequest(h.server.port, `/public/${uuid}`, { method: 'OPTIONS', headers: { origin: 'https://elsewhere.example', 'access-control-request-method': 'GET' } });
    expect(preflight.status).toBe(204);
    expect(nosniff(preflight)).toBe('nosniff');
    const stream = await openSse(h.server.port, `/public/${uuid}/events`, { host: HOSTS.api });
    try {
      expect(stream.status).toBe(200);
      expect(nosniff(stream)).toBe('nosniff');
    } finally {
      stream.close();
    }
  });

  it('is on the standalone 404 of jsonNotFound, and not on what Silo passes on to the app', async () => {
    const app = new Koa();
    app.use(async (ctx, next) => {
      if (ctx.path === '/app') ctx.body = 'the app';
      else await next();
    });
    app.use(jsonNotFound());
    const server = await listen(app);
    try {
      const missing = await rawRequest(server.port, '/nothing');
      expect(missing.status).toBe(404);
      expect(nosniff(missing)).toBe('nosniff');
      expect(nosniff(await rawRequest(server.port, '/app'))).toBeUndefined();
    } finally {
      await server.close();
    }
    const passing = await startSilo({ notFound: 'next' }, (koa, silo) => {
      koa.use(silo.middleware());
      koa.use((ctx) => void (ctx.body = 'the app'));
    });
    try {
      const passed = await rawRequest(passing.server.port, '/somewhere/else');
      expect(passed.text).toBe('the app');
      expect(nosniff(passed)).toBeUndefined();
    } finally {
      await passing.close();
    }
  });
});
