/**
 * The query language of contract §16 through `silo serve`, as a new user asks a catalogue: "price
 * over 100 and category tools", "sorted by price", "the first 20", "only name and price", "how
 * many". Each parameter, X-Total-Count (and its CORS exposure), ETags over the whole query, the
 * 422 shapes with positions, public addresses refusing them unless public queries are on, and the
 * same answers for a silo large enough to be queried on a worker thread.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from './support/http-call.js';
import { startSiloServer, type SiloServer } from './support/silo-server.js';

interface Product {
  id: number;
  name: string;
  price: number;
  category: string;
  tags: string[];
  stock?: number;
}

const CATEGORIES = ['tools', 'garden', 'kitchen', 'toys'];
const catalogue = (n: number): Product[] =>
  Array.from({ length: n }, (_, i) => ({
    id: i,
    name: `product ${String(i).padStart(5, '0')}`,
    price: (i * 37) % 500,
    category: CATEGORIES[i % CATEGORIES.length]!,
    tags: i % 3 === 0 ? ['new', 'sale'] : ['sale'],
    ...(i % 5 === 0 ? {} : { stock: i % 7 }),
  }));

let dir: string;
let server: SiloServer;
let manage: string;
let access: string;
const uuids: Record<'small' | 'large', string> = { small: '', large: '' };
const data: Record<'small' | 'large', Product[]> = { small: catalogue(200), large: catalogue(20_000) };

const read = (uuid: string, query: string, headers: Record<string, string> = {}) =>
  call(server.port, `/${uuid}?${query}`, { headers: { 'X-SILO-KEY': access, ...headers } });

/** The catalogue questions, answered by hand over the data. */
const expected = {
  toolsOver100: (d: Product[]) => d.filter((p) => p.price > 100 && p.category === 'tools'),
  byPrice: (d: Product[]) => [...d].sort((a, b) => a.price - b.price),
};

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'silo-query-language-'));
  server = await startSiloServer({ SILO_DATA_DIR: dir, SILO_RATE_LIMIT_PER_MINUTE: '0', SILO_CORS_ORIGINS: 'https://app.example' });
  manage = server.banner!.manage;
  access = server.banner!.access;
  for (const size of ['small', 'large'] as const) {
    const made = await call(server.port, '/api/v1/manage/', {
      method: 'POST',
      headers: { 'X-MAN-API': manage },
      body: { file_name: `catalogue ${size}`, file_data: data[size], is_public: true },
    });
    expect(made.status, made.text).toBe(201);
    uuids[size] = made.json.file_uuid;
  }
}, 60_000);

afterAll(async () => {
  await server?.stop();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

describe.each(['small', 'large'] as const)('the catalogue questions on a %s silo', (size) => {
  it('"price over 100 and category tools", sorted by price, the first 20, only name and price, and how many', async () => {
    const d = data[size];
    const q = 'filter=' + encodeURIComponent('price gt 100 and category eq "tools"') + '&sort=price,id&limit=20&fields=name,price';
    const answer = await read(uuids[size], q);
    expect(answer.status, answer.text.slice(0, 300)).toBe(200);
    const matches = expected.toolsOver100(d).sort((a, b) => a.price - b.price || a.id - b.id);
    expect(answer.json).toEqual(matches.slice(0, 20).map((p) => ({ name: p.name, price: p.price })));
    expect(answer.headers['x-total-count']).toBe(String(matches.length));
  });

  it('pages with offset and limit over a descending sort, the count unchanged', async () => {
    const d = data[size];
    const sorted = [...d].sort((a, b) => b.price - a.price || a.id - b.id);
    const page = await read(uuids[size], 'sort=-price,id&offset=40&limit=10&fields=id');
    expect(page.json).toEqual(sorted.slice(40, 50).map((p) => ({ id: p.id })));
    expect(page.headers['x-total-count']).toBe(String(d.length));
  });

  it('has, in, exists, not and or, as the seed search means them', async () => {
    const d = data[size];
    const filter = '(tags has "new" or category in ("garden", "toys")) and not stock exists';
    const answer = await read(uuids[size], `filter=${encodeURIComponent(filter)}&fields=id`);
    const want = d.filter((p) => (p.tags.includes('new') || p.category === 'garden' || p.category === 'toys') && p.stock === undefined);
    expect(answer.json).toEqual(want.map((p) => ({ id: p.id })));
    expect(answer.headers['x-total-count']).toBe(String(want.length));
    // A single condition is exactly the seed search.
    const seed = await read(uuids[size], 'q=price&op=gt&value=450');
    const same = await read(uuids[size], `filter=${encodeURIComponent('price gt 450')}`);
    expect(same.json).toEqual(seed.json);
    expect(seed.headers['x-total-count']).toBe(String(d.filter((p) => p.price > 450).length));
  });

  it('limit=0 answers [] with the count', async () => {
    const answer = await read(uuids[size], `filter=${encodeURIComponent('category eq "kitchen"')}&limit=0`);
    expect(answer.json).toEqual([]);
    expect(answer.headers['x-total-count']).toBe(String(data[size].filter((p) => p.category === 'kitchen').length));
  });
});

describe('ETags, errors, CORS and public addresses', () => {
  it('gives each query its own ETag, and 304 for the same query', async () => {
    const a = await read(uuids.small, 'sort=price&limit=5');
    const b = await read(uuids.small, 'sort=-price&limit=5');
    expect(a.headers.etag).toBeDefined();
    expect(a.headers.etag).not.toBe(b.headers.etag);
    const again = await read(uuids.small, 'sort=price&limit=5', { 'If-None-Match': a.headers.etag as string });
    expect(again.status).toBe(304);
  });

  it('answers a syntax error with a 422 naming where it is', async () => {
    const answer = await read(uuids.small, `filter=${encodeURIComponent('price gt and category eq "tools"')}`);
    expect(answer.status).toBe(422);
    expect(answer.json.detail[0]).toMatchObject({ loc: ['query', 'filter'], ctx: { position: 9 } });
  });

  it('refuses the new parameters on a public address (public queries off), and exposes X-Total-Count to browsers', async () => {
    const pub = await call(server.port, `/public/${uuids.small}?sort=price`);
    expect(pub.status).toBe(400);
    const keyed = await read(uuids.small, 'limit=1', { Origin: 'https://app.example' });
    expect(keyed.headers['access-control-expose-headers']).toMatch(/X-Total-Count/);
  });
});
