/**
 * The scenarios: what each one requests, and how its answer is validated before it is measured.
 */
import { isDeepStrictEqual, inspect } from 'node:util';
import { IDX, IDX_PATH, SEARCH_CATEGORY, type StandardData } from './data.js';
import type { BaselineKind } from './baselines.js';
import type { LoadRequest } from './load.js';
import type { SiloKind } from './kinds.js';
import type { ReadyLine } from './server.js';

export type Target = SiloKind | BaselineKind;

/** Scenario groups: the six of the issue, the extra 5b and 5br, and the baselines. */
export type Group = '1' | '2' | '3' | '4' | '5' | '5b' | '5br' | '6' | 'baseline';

export interface Scenario {
  id: string;
  group: Group;
  target: Target;
  title: string;
  /** What the table shows as the request. */
  shown: string;
  request: LoadRequest;
  /** The server process (for its CPU time). */
  pid: number;
  /** One request like the load's, checked: status and body. Throws with the reason when wrong. */
  validate(): Promise<string>;
}

export const GROUP_TITLES: Record<Group, string> = {
  '1': 'public GET of a 1 KB silo',
  '2': 'public GET of a 1 MB silo',
  '3': 'private GET with idx and path (10 000-element silo)',
  '4': 'private search `eq` over a 10 000-element silo',
  '5': 'PATCH of a 1 KB silo (one silo per connection)',
  '5b': 'PATCH of one 1 KB silo by every connection (extra: lock contention)',
  '5br': 'PATCH of a 1 KB silo as a browser sends it (extra: `Accept-Encoding: gzip, deflate, br`, the answer compressed)',
  '6': 'create of a 1 KB silo',
  baseline: 'baselines',
};

export class ScenarioValidationError extends Error {
  override name = 'ScenarioValidationError';
}

function preview(value: unknown): string {
  return inspect(value, { depth: 2, maxArrayLength: 3, maxStringLength: 80, breakLength: Infinity });
}

interface Answer {
  status: number;
  /** The body, decoded (fetch undoes a Content-Encoding). */
  text: string;
  contentType: string;
  contentEncoding: string;
}

async function call(url: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<Answer> {
  const res = await fetch(url, init);
  const header = (name: string) => res.headers.get(name) ?? '';
  return { status: res.status, text: await res.text(), contentType: header('content-type'), contentEncoding: header('content-encoding') };
}

function expectStatus(id: string, got: Answer, status: number): void {
  if (got.status !== status) {
    throw new ScenarioValidationError(`${id}: expected status ${status}, got ${got.status}: ${got.text.slice(0, 300)}`);
  }
  if (!got.contentType.startsWith('application/json')) {
    throw new ScenarioValidationError(`${id}: expected application/json, got ${JSON.stringify(got.contentType)}`);
  }
}

function expectJson(id: string, got: Answer, expected: unknown): void {
  let parsed: unknown;
  try {
    parsed = JSON.parse(got.text);
  } catch {
    throw new ScenarioValidationError(`${id}: the body is not JSON: ${got.text.slice(0, 200)}`);
  }
  if (!isDeepStrictEqual(parsed, expected)) {
    throw new ScenarioValidationError(`${id}: wrong body: expected ${preview(expected)}, got ${preview(parsed)}`);
  }
}

function expectText(id: string, got: Answer, expected: string): void {
  if (got.text !== expected) {
    throw new ScenarioValidationError(
      `${id}: the body differs from the stored text (${got.text.length} vs ${expected.length} characters): ${got.text.slice(0, 120)}`,
    );
  }
}

function bytes(text: string): string {
  const n = Buffer.byteLength(text);
  return n >= 1024 * 1024 ? `${(n / 1024 / 1024).toFixed(2)} MiB` : n >= 1024 ? `${(n / 1024).toFixed(1)} KiB` : `${n} B`;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The issue's six scenarios (and 5b) on one Silo server. */
export function siloScenarios(ready: ReadyLine, data: StandardData): Scenario[] {
  const base = `http://127.0.0.1:${ready.port}`;
  const store = ready.store;
  const access = { 'X-SILO-KEY': ready.keys.access };
  const manage = { 'X-MAN-API': ready.keys.manage, 'Content-Type': 'application/json' };
  const s = ready.silos;
  const docText = JSON.stringify(data.doc1k);
  const largeText = JSON.stringify(data.array1m);
  const matches = data.items10k.filter((i) => i.category === SEARCH_CATEGORY);
  const patchBody = JSON.stringify({ file_data: data.doc1kPatched });
  const createBody = JSON.stringify({ file_name: 'bench-create', file_data: data.doc1k });
  const search = `q=category&value=${SEARCH_CATEGORY}&op=eq`;
  const idxQuery = `idx=${IDX}&path=${IDX_PATH}`;

  const readBack = async (id: string, uuid: string, expected: unknown) => {
    const got = await call(`${base}/${uuid}`, { headers: access });
    expectStatus(`${id} (read back)`, got, 200);
    expectJson(`${id} (read back)`, got, expected);
  };

  const browser = { ...manage, 'Accept-Encoding': 'gzip, deflate, br' };
  const patch = (id: string, group: '5' | '5b' | '5br', uuids: string[]): Scenario => ({
    id,
    group,
    target: store,
    pid: ready.pid,
    title: GROUP_TITLES[group],
    shown: `PATCH /api/v1/manage/<uuid> {"file_data": 1 KB}${group === '5b' ? '' : ` (${uuids.length} silos)`}${group === '5br' ? ', Accept-Encoding: gzip, deflate, br' : ''}`,
    request: { url: uuids.map((u) => `${base}/api/v1/manage/${u}`), method: 'PATCH', headers: group === '5br' ? browser : manage, body: patchBody },
    async validate() {
      for (const uuid of group === '5b' ? uuids : uuids.slice(0, 2)) {
        const got = await call(`${base}/api/v1/manage/${uuid}`, { method: 'PATCH', headers: group === '5br' ? browser : manage, body: patchBody });
        expectStatus(id, got, 200);
        if (group === '5br' && got.contentEncoding !== 'br') {
          throw new ScenarioValidationError(`${id}: expected a br answer, got Content-Encoding "${got.contentEncoding}"`);
        }
        const body = JSON.parse(got.text) as Record<string, unknown>;
        const fields = ['file_name', 'file_uuid', 'created_at', 'updated_at', 'is_public', 'region_name'];
        const missing = fields.filter((f) => !(f in body));
        if (missing.length > 0 || body.file_uuid !== uuid) {
          throw new ScenarioValidationError(`${id}: unexpected update answer ${got.text.slice(0, 300)}`);
        }
        await readBack(id, uuid, data.doc1kPatched);
      }
      return `200${group === '5br' ? ' (br)' : ''}, the seven fields; the silo then reads back as the new 1 KB document`;
    },
  });

  return [
    {
      id: `s1-${store}`,
      group: '1',
      target: store,
      pid: ready.pid,
      title: GROUP_TITLES['1'],
      shown: 'GET /public/<uuid>',
      request: { url: `${base}/public/${s.small}` },
      async validate() {
        const got = await call(`${base}/public/${s.small}`);
        expectStatus(this.id, got, 200);
        expectText(this.id, got, docText);
        return `200, the stored document (${bytes(got.text)})`;
      },
    },
    {
      id: `s2-${store}`,
      group: '2',
      target: store,
      pid: ready.pid,
      title: GROUP_TITLES['2'],
      shown: 'GET /public/<uuid>',
      request: { url: `${base}/public/${s.large}` },
      async validate() {
        const got = await call(`${base}/public/${s.large}`);
        expectStatus(this.id, got, 200);
        expectText(this.id, got, largeText);
        return `200, the stored array (${bytes(got.text)}, ${data.array1m.length} elements)`;
      },
    },
    {
      id: `s3-${store}`,
      group: '3',
      target: store,
      pid: ready.pid,
      title: GROUP_TITLES['3'],
      shown: `GET /<uuid>?${idxQuery}`,
      request: { url: `${base}/${s.items}?${idxQuery}`, headers: access },
      async validate() {
        const got = await call(`${base}/${s.items}?${idxQuery}`, { headers: access });
        expectStatus(this.id, got, 200);
        const expected = data.items10k[IDX]![IDX_PATH];
        expectJson(this.id, got, expected);
        return `200, ${JSON.stringify(expected)}`;
      },
    },
    {
      id: `s4-${store}`,
      group: '4',
      target: store,
      pid: ready.pid,
      title: GROUP_TITLES['4'],
      shown: `GET /<uuid>?${search}`,
      request: { url: `${base}/${s.items}?${search}`, headers: access },
      async validate() {
        const got = await call(`${base}/${s.items}?${search}`, { headers: access });
        expectStatus(this.id, got, 200);
        expectJson(this.id, got, matches);
        return `200, ${matches.length} matching elements (${bytes(got.text)})`;
      },
    },
    patch(`s5-${store}`, '5', ready.patchSilos),
    patch(`s5b-${store}`, '5b', [s.contended!]),
    patch(`s5br-${store}`, '5br', ready.patchSilos),
    {
      id: `s6-${store}`,
      group: '6',
      target: store,
      pid: ready.pid,
      title: GROUP_TITLES['6'],
      shown: 'POST /api/v1/manage/ {"file_name", "file_data": 1 KB}',
      request: { url: `${base}/api/v1/manage/`, method: 'POST', headers: manage, body: createBody },
      async validate() {
        const got = await call(`${base}/api/v1/manage/`, { method: 'POST', headers: manage, body: createBody });
        expectStatus(this.id, got, 201);
        const body = JSON.parse(got.text) as Record<string, unknown>;
        if (typeof body.file_uuid !== 'string' || !UUID.test(body.file_uuid) || body.file_name !== 'bench-create' ||
          body.is_public !== false || body.region_name !== 'api') {
          throw new ScenarioValidationError(`${this.id}: unexpected create answer ${got.text.slice(0, 300)}`);
        }
        await readBack(this.id, body.file_uuid, data.doc1k);
        return '201 with file_uuid, file_name, is_public, region_name; the new silo reads back';
      },
    },
  ];
}

/** The json-server peers: scenario ids `base-<id>-doc` and `base-<id>-filter`. */
const JSON_SERVERS: ReadonlyArray<{ kind: BaselineKind; id: string; name: string; stringIds: boolean }> = [
  { kind: 'json-server', id: 'json-server', name: 'json-server 0.17.4', stringIds: false },
  // 1.0 turns numeric ids into strings when it starts (its Service's fixItemsIds): the same items otherwise.
  { kind: 'json-server-1', id: 'json-server1', name: 'json-server 1.0.0-beta.3', stringIds: true },
];

export function baselineScenarios(
  servers: Partial<Record<BaselineKind, { port: number; pid: number }>>,
  data: StandardData,
): Scenario[] {
  const docText = JSON.stringify(data.doc1k);
  const matches = data.items10k.filter((i) => i.category === SEARCH_CATEGORY);
  const out: Scenario[] = [];
  for (const target of ['node', 'koa'] as const) {
    const server = servers[target];
    if (server === undefined) continue;
    const url = `http://127.0.0.1:${server.port}/doc`;
    out.push({
      id: `base-${target}`,
      group: 'baseline',
      target,
      pid: server.pid,
      title: target === 'node' ? 'bare node:http, constant 1 KB JSON' : 'bare Koa + @koa/router, constant 1 KB JSON',
      shown: 'GET /doc',
      request: { url },
      async validate() {
        const got = await call(url);
        expectStatus(this.id, got, 200);
        expectText(this.id, got, docText);
        return `200, the 1 KB document (${bytes(got.text)})`;
      },
    });
  }
  for (const js of JSON_SERVERS) {
    const server = servers[js.kind];
    if (server === undefined) continue;
    const expectedMatches = js.stringIds ? matches.map((i) => ({ ...i, id: String(i.id) })) : matches;
    const docUrl = `http://127.0.0.1:${server.port}/doc`;
    const filterUrl = `http://127.0.0.1:${server.port}/items?category=${SEARCH_CATEGORY}`;
    out.push(
      {
        id: `base-${js.id}-doc`,
        group: 'baseline',
        target: js.kind,
        pid: server.pid,
        title: `${js.name}, the 1 KB document`,
        shown: 'GET /doc',
        request: { url: docUrl },
        async validate() {
          const got = await call(docUrl);
          expectStatus(this.id, got, 200);
          expectJson(this.id, got, data.doc1k);
          return `200, the 1 KB document (pretty-printed: ${bytes(got.text)})`;
        },
      },
      {
        id: `base-${js.id}-filter`,
        group: 'baseline',
        target: js.kind,
        pid: server.pid,
        title: `${js.name}, the 10 000 items filtered by category`,
        shown: `GET /items?category=${SEARCH_CATEGORY}`,
        request: { url: filterUrl },
        async validate() {
          const got = await call(filterUrl);
          expectStatus(this.id, got, 200);
          expectJson(this.id, got, expectedMatches);
          return `200, the same ${matches.length} elements${js.stringIds ? ', ids as strings' : ''} (pretty-printed: ${bytes(got.text)})`;
        },
      },
    );
  }
  return out;
}
