/**
 * `GET /` of a server that Silo answers alone (`notFound: 'json'`): not a 404 but a pointer to
 * what is there: the console, the OpenAPI document, the API's addresses and where the README
 * describes them. JSON by default (curl, scripts); a small HTML page for a browser (by `Accept`).
 * An app that mounts Silo beside its own routes (`notFound: 'next'`) keeps `/` for itself.
 */
import type { Context } from 'koa';
import { sendJson } from './respond.js';

export interface RootOptions {
  /** The console is served at /console. */
  console: boolean;
}

/** Where the README (of the repository and of the koa-silo package) describes the API. */
const README_API = 'README.md#the-api';

export function rootPointer(opts: RootOptions) {
  return {
    service: 'Silo',
    detail: `Silo, self-hosted JSON hosting: this address is its API.${opts.console ? ' Sign in to the web console at /console.' : ''} The API is described in the OpenAPI document at /api/v1/openapi.json and in the section "The API" of the README (${README_API}).`,
    ...(opts.console ? { console: '/console' } : {}),
    openapi: '/api/v1/openapi.json',
    docs: README_API,
    api: {
      manage: '/api/v1/manage/ (header X-MAN-API: a manage key)',
      private_data: '/{file_uuid} (header X-SILO-KEY: an access key)',
      public_data: '/public/{file_uuid}',
    },
  };
}

const escapeHtml = (s: string) => s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);

function rootHtml(opts: RootOptions): string {
  const p = rootPointer(opts);
  const items = [
    ...(opts.console ? ['<li><a href="/console">The web console</a>: sign in to manage silos, keys and webhooks.</li>'] : []),
    '<li><a href="/api/v1/openapi.json">The OpenAPI document</a> (OpenAPI 3.1) of the API.</li>',
    `<li>The section “The API” of the README (<code>${escapeHtml(README_API)}</code>).</li>`,
    `<li>Management: <code>${escapeHtml(p.api.manage)}</code>; data: <code>${escapeHtml(p.api.private_data)}</code> and <code>${escapeHtml(p.api.public_data)}</code>.</li>`,
  ];
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Silo</title></head>',
    '<body>',
    '<main>',
    '<h1>Silo</h1>',
    '<p>Self-hosted JSON hosting: this address is its API.</p>',
    `<ul>${items.join('')}</ul>`,
    '</main>',
    '</body>',
    '</html>',
    '',
  ].join('\n');
}

/** The handler of `GET /` (and HEAD). */
export function rootHandler(opts: RootOptions) {
  const json = rootPointer(opts);
  const html = rootHtml(opts);
  return (ctx: Context): void => {
    ctx.vary('Accept');
    ctx.set('Cache-Control', 'no-cache');
    if (ctx.accepts('json', 'html') === 'html') {
      ctx.status = 200;
      ctx.set('Content-Type', 'text/html; charset=utf-8');
      // Nothing runs here and nothing loads from elsewhere.
      ctx.set('Content-Security-Policy', "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'");
      ctx.body = html;
      return;
    }
    sendJson(ctx, 200, json);
  };
}
