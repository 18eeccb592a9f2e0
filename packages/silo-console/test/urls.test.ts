import { describe, expect, it } from 'vitest';
import { compile } from 'silo-query';
import { hostsFromOpenApi, regionHosts } from '../app/src/lib/hosts.js';
import { curlLine, dataUrl, EMPTY_FORM, queryString, shellQuote } from '../app/src/lib/query-url.js';
import { href, parseRoute } from '../app/src/lib/routes.js';

const UUID = '08afdea5-ad6d-4009-b5ab-f6f86dc75000';

describe('queryString', () => {
  it('writes a query in the hosted order, leaving out empty fields and the default output', () => {
    expect(queryString({ ...EMPTY_FORM, idx: '1', path: 'name', output: 'text' })).toBe('idx=1&path=name&output=text');
    expect(queryString({ ...EMPTY_FORM, path: 'a.b', output: 'json' })).toBe('path=a.b');
    expect(queryString(EMPTY_FORM)).toBe('');
  });

  it('writes a search as q, value, op, path; an empty value stays; eq is the default', () => {
    expect(queryString({ ...EMPTY_FORM, mode: 'search', q: 'name', value: 'l%', op: 'il', path: 'age' })).toBe('q=name&value=l%25&op=il&path=age');
    expect(queryString({ ...EMPTY_FORM, mode: 'search', q: 'x', value: '' })).toBe('q=x&value=');
    // The query language's parameters after the seed's, and no q when none is given.
    expect(queryString({ ...EMPTY_FORM, mode: 'search', filter: 'price gt 1', sort: '-price', limit: '2', offset: '1', fields: 'name' })).toBe(
      'filter=price+gt+1&sort=-price&limit=2&offset=1&fields=name',
    );
  });

  it('gives silo-query (and so the server) exactly the parameters typed, special characters included', () => {
    const form = { ...EMPTY_FORM, mode: 'search' as const, q: 'n', value: 'a&b=c +%' };
    expect(compile(queryString(form))([{ n: 'a&b=c +%' }, { n: 'x' }])).toEqual([{ n: 'a&b=c +%' }]);
  });
});

describe('dataUrl and curlLine', () => {
  it('builds the private data address and a curl line with a placeholder key', () => {
    const url = dataUrl('http:', 'localhost:8080', UUID, 'q=age&value=30&op=gt');
    expect(url).toBe(`http://localhost:8080/${UUID}?q=age&value=30&op=gt`);
    expect(curlLine(url)).toBe(`curl -s 'http://localhost:8080/${UUID}?q=age&value=30&op=gt' -H 'X-SILO-KEY: <your access key>'`);
    expect(dataUrl('https:', 'api.example.com', UUID, '')).toBe(`https://api.example.com/${UUID}`);
  });

  it("quotes single quotes for the shell", () => {
    expect(shellQuote("it's")).toBe(`'it'\\''s'`);
    expect(curlLine("http://h/x?value=it's")).toContain(`'http://h/x?value=it'\\''s'`);
  });
});

describe('regionHosts', () => {
  it('takes the current host for api and derives the others from an api. host', () => {
    expect(regionHosts('api.example.com')).toEqual({ api: 'api.example.com', 'sg-01-api': 'sg-01-api.example.com', 'usc-01-api': 'usc-01-api.example.com' });
  });

  it('falls back to <region>.localhost, keeping the port', () => {
    expect(regionHosts('localhost:8080')).toEqual({ api: 'localhost:8080', 'sg-01-api': 'sg-01-api.localhost:8080', 'usc-01-api': 'usc-01-api.localhost:8080' });
  });

  it('prefers the hosts the server reports', () => {
    expect(regionHosts('127.0.0.1:8080', { 'sg-01-api': 'sg.example.net' })['sg-01-api']).toBe('sg.example.net:8080');
  });

  it("reads the hosts from koa-silo's OpenAPI server description", () => {
    const doc = { servers: [{ url: '/', description: 'The host you reach decides the region for data access (`api`: api.localhost, `sg-01-api`: sg.example.net, `usc-01-api`: usc-01-api.localhost).' }] };
    expect(hostsFromOpenApi(doc)).toEqual({ api: 'api.localhost', 'sg-01-api': 'sg.example.net', 'usc-01-api': 'usc-01-api.localhost' });
    expect(hostsFromOpenApi({})).toEqual({});
    expect(hostsFromOpenApi(null)).toEqual({});
  });
});

describe('routes', () => {
  it('parses every page and writes it back', () => {
    const cases = ['#/silos', '#/silos?page=3', '#/silos/new', `#/silos/${UUID}`, `#/silos/${UUID}/history`, `#/silos/${UUID}/history/4`, '#/keys', '#/playground', `#/playground/${UUID}`, '#/feed', '#/sign-in', '#/audit', '#/audit?page=2', `#/audit?page=2&silo=${UUID}&actor=admin&since=2026-11-26T09%3A18%3A00.000Z`];
    for (const hash of cases) expect(href(parseRoute(hash)), hash).toBe(hash);
  });

  it('sends the empty hash to the silos and anything else to not-found', () => {
    expect(parseRoute('')).toEqual({ page: 'silos', pageNo: 1 });
    expect(parseRoute('#/')).toEqual({ page: 'silos', pageNo: 1 });
    expect(parseRoute('#/silos?page=0')).toEqual({ page: 'silos', pageNo: 1 });
    expect(parseRoute('#/nope').page).toBe('not-found');
    expect(parseRoute(`#/silos/${UUID}/history/01`).page).toBe('not-found');
  });

  it('keeps the audit log\'s filters in the address, in one order, leaving out the empty ones', () => {
    expect(parseRoute(`#/audit?actor=admin&silo=${UUID}&page=x`)).toEqual({ page: 'audit', pageNo: 1, filter: { silo: UUID, actor: 'admin' } });
    expect(href({ page: 'audit', pageNo: 1, filter: { actor: 'admin', silo: '', since: undefined } })).toBe('#/audit?actor=admin');
    expect(href({ page: 'audit', pageNo: 3, filter: { silo: ` ${UUID} ` } })).toBe(`#/audit?page=3&silo=${UUID}`);
    expect(parseRoute('#/audit/x').page).toBe('not-found');
  });
});
