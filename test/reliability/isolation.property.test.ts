/**
 * Cross-account isolation as a property, over HTTP (Silo in this process): random sequences of
 * operations by two accounts (create, read, meta, update with region moves, delete, private and
 * public data reads on every region host, listings) against a model. An account sees, changes and
 * deletes its own silos only; another account's silo answers exactly as a missing one does; public
 * reads show public silos only, on their region's host only.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, type Answer } from '../support/http-call.js';
import { startInProcess, type InProcessSilo, type TestAccount } from '../support/in-process.js';

const REGIONS = ['api', 'sg-01-api', 'usc-01-api'] as const;
type Region = (typeof REGIONS)[number];
const HOST: Record<Region, string> = { api: 'api.localhost', 'sg-01-api': 'sg-01-api.localhost', 'usc-01-api': 'usc-01-api.localhost' };

interface ModelSilo {
  uuid: string;
  owner: 0 | 1;
  file_name: string;
  file_data: unknown;
  is_public: boolean;
  region: Region;
  deleted: boolean;
}

const actor = fc.constantFrom<0 | 1>(0, 1);
const region = fc.constantFrom<Region>(...REGIONS);
const data = fc.oneof(
  fc.dictionary(fc.constantFrom('a', 'b', 'owner', 'secret'), fc.oneof(fc.integer(), fc.string({ maxLength: 6 })), { maxKeys: 3 }),
  fc.array(fc.record({ a: fc.integer({ min: 0, max: 3 }) }), { maxLength: 3 }),
);
const target = fc.nat({ max: 30 });

const opArb = fc.oneof(
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('create' as const), by: actor, name: fc.string({ minLength: 1, maxLength: 8 }), data, pub: fc.boolean(), region }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('read' as const), by: actor, target }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('meta' as const), by: actor, target }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('update' as const),
      by: actor,
      target,
      change: fc.record({ file_name: fc.string({ minLength: 1, maxLength: 8 }), file_data: data, is_public: fc.boolean(), region_name: region }, { requiredKeys: [] }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('delete' as const), by: actor, target }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('data' as const), by: actor, target, host: region, query: fc.constantFrom('', '?path=a', '?idx=0') }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('public' as const), target, host: region }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('list' as const), by: actor }) },
);

describe('cross-account isolation (model-based, over HTTP)', () => {
  let s: InProcessSilo;
  let run = 0;
  let requests = 0;
  let crossAccount = 0;
  let passed = false;
  /** The exact answer to a uuid nobody has: another account's silo must be indistinguishable. */
  let missing: { manage: string; data: string };

  beforeAll(async () => {
    s = await startInProcess();
    const probe = await s.account('probe');
    const nobody = '00000000-0000-4000-8000-000000000000';
    missing = {
      manage: (await call(s.port, `/api/v1/manage/${nobody}`, { headers: { 'X-MAN-API': probe.manage } })).text,
      data: (await call(s.port, `/${nobody}`, { headers: { 'X-SILO-KEY': probe.access } })).text,
    };
  });

  afterAll(async () => {
    await s?.close();
    if (passed) console.log(`[reliability] isolation: ${run} random sequences of two accounts, ${requests} requests (${crossAccount} across accounts), no leak`);
  });

  it('never lets an account see, change or delete another account\'s silos', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 5, maxLength: 30 }), async (ops) => {
        run++;
        const accounts: [TestAccount, TestAccount] = [await s.account(`a${run}`), await s.account(`b${run}`)];
        const model: ModelSilo[] = [];
        const req = async (path: string, options: Parameters<typeof call>[2] = {}): Promise<Answer> => {
          requests++;
          return call(s.port, path, { agent: s.agent, ...options });
        };
        const manage = (by: 0 | 1) => ({ 'X-MAN-API': accounts[by].manage });
        const pick = (n: number): ModelSilo | undefined => (model.length === 0 ? undefined : model[n % model.length]);
        const uuidOf = (silo: ModelSilo | undefined) => silo?.uuid ?? '11111111-1111-4111-8111-111111111111';
        /** Whether `by` may see `silo` through the management API. */
        const owns = (by: 0 | 1, silo: ModelSilo | undefined): silo is ModelSilo => silo !== undefined && !silo.deleted && silo.owner === by;
        const countCross = (by: 0 | 1, silo: ModelSilo | undefined) => {
          if (silo && silo.owner !== by) crossAccount++;
        };

        for (const op of ops) {
          switch (op.kind) {
            case 'create': {
              const r = await req('/api/v1/manage/', {
                method: 'POST',
                headers: manage(op.by),
                body: { file_name: op.name, file_data: op.data, is_public: op.pub, region_name: op.region },
              });
              expect(r.status).toBe(201);
              model.push({ uuid: r.json.file_uuid, owner: op.by, file_name: op.name, file_data: op.data, is_public: op.pub, region: op.region, deleted: false });
              break;
            }
            case 'read':
            case 'meta': {
              const silo = pick(op.target);
              countCross(op.by, silo);
              const path = op.kind === 'read' ? `/api/v1/manage/${uuidOf(silo)}` : `/api/v1/manage/meta/${uuidOf(silo)}`;
              const r = await req(path, { headers: manage(op.by) });
              if (owns(op.by, silo)) {
                expect(r.status).toBe(200);
                if (op.kind === 'read') expect(r.json.data).toEqual(silo.file_data);
                else expect(r.json).toMatchObject({ file_name: silo.file_name, is_public: silo.is_public, region_name: silo.region });
              } else {
                expect(r.status).toBe(404);
                expect(r.text).toBe(missing.manage);
                expect(r.headers.etag).toBeUndefined();
              }
              break;
            }
            case 'update': {
              const silo = pick(op.target);
              countCross(op.by, silo);
              const body = Object.keys(op.change).length > 0 ? op.change : { is_public: true };
              const r = await req(`/api/v1/manage/${uuidOf(silo)}`, { method: 'PATCH', headers: manage(op.by), body });
              if (owns(op.by, silo)) {
                expect(r.status).toBe(200);
                if (body.file_name !== undefined) silo.file_name = body.file_name;
                if ('file_data' in body && body.file_data !== undefined) silo.file_data = body.file_data;
                if (body.is_public !== undefined) silo.is_public = body.is_public;
                if ('region_name' in body && body.region_name !== undefined) silo.region = body.region_name;
              } else {
                expect(r.status).toBe(404);
                expect(r.text).toBe(missing.manage);
              }
              break;
            }
            case 'delete': {
              const silo = pick(op.target);
              countCross(op.by, silo);
              const r = await req(`/api/v1/manage/${uuidOf(silo)}`, { method: 'DELETE', headers: manage(op.by) });
              if (owns(op.by, silo)) {
                expect(r.status).toBe(200);
                silo.deleted = true;
              } else {
                expect(r.status).toBe(404);
                expect(r.text).toBe(missing.manage);
              }
              break;
            }
            case 'data': {
              const silo = pick(op.target);
              countCross(op.by, silo);
              const r = await req(`/${uuidOf(silo)}${op.query}`, { host: HOST[op.host], headers: { 'X-SILO-KEY': accounts[op.by].access } });
              if (owns(op.by, silo) && silo.region === op.host) {
                expect(r.status).toBe(200);
                if (op.query === '') expect(r.json).toEqual(silo.file_data);
              } else {
                expect(r.status).toBe(404);
                expect(r.text).toBe(missing.data);
              }
              break;
            }
            case 'public': {
              const silo = pick(op.target);
              const r = await req(`/public/${uuidOf(silo)}`, { host: HOST[op.host] });
              if (silo && !silo.deleted && silo.is_public && silo.region === op.host) {
                expect(r.status).toBe(200);
                expect(r.json).toEqual(silo.file_data);
              } else {
                expect(r.status).toBe(404);
                expect(r.text).toBe(missing.data);
              }
              break;
            }
            case 'list': {
              const r = await req('/api/v1/manage/silos?per_page=100', { headers: manage(op.by) });
              expect(r.status).toBe(200);
              const mine = model.filter((m) => owns(op.by, m));
              expect(r.json.metadata.total_items).toBe(mine.length);
              expect(new Set(r.json.silos.map((x: { file_uuid: string }) => x.file_uuid))).toEqual(new Set(mine.map((m) => m.uuid)));
              break;
            }
          }
        }
      }),
      { numRuns: 60 },
    );
    passed = true;
  }, 60_000);
});
