/**
 * Properties of the silo service over random operation sequences of two accounts, checked
 * against a plain model: the listing equals the model (order included), every address answers as
 * the model says, and no operation of one account ever sees or changes the other's silos.
 */
import fc from 'fast-check';
import Keyv from 'keyv';
import { describe, expect, it } from 'vitest';
import { NotFoundError, type Region, REGIONS, type SiloData } from '../src/model/index.js';
import { createServices, type SiloService } from '../src/service/index.js';
import { createStorage } from '../src/storage/index.js';

const ACCOUNTS = ['alice', 'bob'] as const;
type AccountName = (typeof ACCOUNTS)[number];

interface ModelSilo {
  uuid: string;
  account: AccountName;
  name: string;
  region: Region;
  isPublic: boolean;
  text: string;
  createdMs: number;
  updatedAt: string;
}

type Op =
  | { kind: 'create'; account: AccountName; name: string; region: Region; isPublic: boolean; data: SiloData }
  | { kind: 'update'; account: AccountName; target: number; name?: string; region?: Region; isPublic?: boolean; data?: SiloData }
  | { kind: 'delete'; account: AccountName; target: number }
  | { kind: 'tick'; ms: number };

const account = fc.constantFrom(...ACCOUNTS);
const region = fc.constantFrom(...REGIONS);
const data: fc.Arbitrary<SiloData> = fc.oneof(
  fc.dictionary(fc.string({ maxLength: 4 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }),
  fc.array(fc.dictionary(fc.constantFrom('a', 'b', '__proto__'), fc.integer(), { maxKeys: 2 }), { maxLength: 3 }),
);
const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('create' as const), account, name: fc.string({ minLength: 1, maxLength: 8 }), region, isPublic: fc.boolean(), data }),
  fc.record(
    {
      kind: fc.constant('update' as const),
      account,
      target: fc.nat(),
      name: fc.string({ minLength: 1, maxLength: 8 }),
      region,
      isPublic: fc.boolean(),
      data,
    },
    { requiredKeys: ['kind', 'account', 'target'] },
  ),
  fc.record({ kind: fc.constant('delete' as const), account, target: fc.nat() }),
  // Mostly no time passes, so creates share milliseconds and the uuid tie-break matters.
  fc.record({ kind: fc.constant('tick' as const), ms: fc.constantFrom(0, 0, 1, 7) }),
);

function expectedListing(model: Map<string, ModelSilo>, who: AccountName): string[] {
  return [...model.values()]
    .filter((s) => s.account === who)
    .sort((a, b) => b.createdMs - a.createdMs || (a.uuid < b.uuid ? -1 : a.uuid > b.uuid ? 1 : 0))
    .map((s) => s.uuid);
}

async function notFound(promise: Promise<unknown>): Promise<boolean> {
  return promise.then(
    () => false,
    (e: unknown) => e instanceof NotFoundError,
  );
}

/** Checks every address of every silo ever created against the model. */
async function checkAgainstModel(silos: SiloService, model: Map<string, ModelSilo>, everCreated: string[]): Promise<void> {
  for (const who of ACCOUNTS) {
    const page = await silos.list(who, 1, 100);
    expect(page.silos.map((s) => s.file_uuid)).toEqual(expectedListing(model, who));
    expect(page.metadata.total_items).toBe(page.silos.length);
  }
  for (const uuid of everCreated) {
    const silo = model.get(uuid);
    for (const who of ACCOUNTS) {
      const visible = silo !== undefined && silo.account === who;
      if (visible) {
        const meta = await silos.meta(who, uuid);
        expect(meta).toMatchObject({ file_name: silo.name, region_name: silo.region, is_public: silo.isPublic });
        expect((await silos.read(who, uuid)).text).toBe(silo.text);
      } else {
        expect(await notFound(silos.meta(who, uuid))).toBe(true);
        expect(await notFound(silos.read(who, uuid))).toBe(true);
      }
      for (const r of REGIONS) {
        const privately = silos.readData(r, uuid, who);
        if (visible && silo.region === r) expect((await privately).text).toBe(silo.text);
        else expect(await notFound(privately)).toBe(true);
      }
    }
    for (const r of REGIONS) {
      const publicly = silos.readData(r, uuid, undefined);
      if (silo !== undefined && silo.isPublic && silo.region === r) expect((await publicly).text).toBe(silo.text);
      else expect(await notFound(publicly)).toBe(true);
    }
  }
}

describe('silo service properties', () => {
  it('keeps listings and every address equal to the model, and accounts isolated', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 30 }), async (ops) => {
        let clock = Date.parse('2026-01-01T00:00:00.000Z');
        const storage = createStorage({ main: new Keyv(), regions: { 'sg-01-api': new Keyv() } });
        const { accounts, silos } = createServices(storage, { now: () => clock });
        for (const name of ACCOUNTS) await accounts.createAccount(name);
        const model = new Map<string, ModelSilo>();
        const everCreated: string[] = [];

        for (const step of ops) {
          if (step.kind === 'tick') {
            clock += step.ms;
          } else if (step.kind === 'create') {
            const record = await silos.create(step.account, {
              file_name: step.name,
              file_data: step.data,
              region_name: step.region,
              is_public: step.isPublic,
            });
            everCreated.push(record.file_uuid);
            model.set(record.file_uuid, {
              uuid: record.file_uuid,
              account: step.account,
              name: step.name,
              region: step.region,
              isPublic: step.isPublic,
              text: JSON.stringify(step.data),
              createdMs: clock,
              updatedAt: record.updated_at,
            });
          } else if (everCreated.length > 0) {
            const uuid = everCreated[step.target % everCreated.length]!;
            const silo = model.get(uuid);
            const allowed = silo !== undefined && silo.account === step.account;
            if (step.kind === 'delete') {
              const outcome = silos.delete(step.account, uuid);
              if (allowed) {
                await outcome;
                model.delete(uuid);
              } else {
                expect(await notFound(outcome)).toBe(true);
              }
            } else {
              const outcome = silos.update(step.account, uuid, {
                file_name: step.name,
                region_name: step.region,
                is_public: step.isPublic,
                file_data: step.data,
              });
              // No field at all is a 422 (contract §4), checked before the silo is looked up.
              if ([step.name, step.region, step.isPublic, step.data].every((field) => field === undefined)) {
                await expect(outcome).rejects.toMatchObject({ status: 422 });
              } else if (allowed) {
                const { record, text } = await outcome;
                if (step.name !== undefined) silo.name = step.name;
                if (step.region !== undefined) silo.region = step.region;
                if (step.isPublic !== undefined) silo.isPublic = step.isPublic;
                if (step.data !== undefined) silo.text = JSON.stringify(step.data);
                expect(text).toBe(silo.text);
                // Every successful update changes updated_at (contract §4), fields as they were included.
                expect(record.updated_at > silo.updatedAt).toBe(true);
                silo.updatedAt = record.updated_at;
              } else {
                expect(await notFound(outcome)).toBe(true);
              }
            }
          }
        }
        await checkAgainstModel(silos, model, everCreated);
      }),
      { numRuns: 60 },
    );
  });

  it('keeps the listing equal to the model when operations run concurrently', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ account, create: fc.boolean(), target: fc.nat() }), { minLength: 1, maxLength: 40 }),
        async (steps) => {
          const storage = createStorage({ main: new Keyv() });
          const { accounts, silos } = createServices(storage);
          for (const name of ACCOUNTS) await accounts.createAccount(name);
          const seed = await Promise.all(
            Array.from({ length: 10 }, (_, i) => silos.create(ACCOUNTS[i % 2]!, { file_name: `s${i}`, file_data: {} })),
          );
          const alive = new Map(seed.map((r) => [r.file_uuid, r.account]));
          const deletes = new Set<string>();
          // All at once: creates, and deletes of seed silos by their owners (each at most once).
          const created = await Promise.all(
            steps.map(async (step) => {
              if (step.create) return silos.create(step.account, { file_name: 'c', file_data: [] });
              const target = seed[step.target % seed.length]!;
              if (target.account !== step.account || deletes.has(target.file_uuid)) return undefined;
              deletes.add(target.file_uuid);
              await silos.delete(step.account, target.file_uuid);
              return undefined;
            }),
          );
          for (const uuid of deletes) alive.delete(uuid);
          for (const record of created) if (record) alive.set(record.file_uuid, record.account);
          for (const who of ACCOUNTS) {
            const page = await silos.list(who, 1, 100);
            const expected = [...alive].filter(([, owner]) => owner === who).map(([uuid]) => uuid);
            expect(page.metadata.total_items).toBe(expected.length);
            expect(page.silos.map((s) => s.file_uuid).sort()).toEqual(expected.sort());
          }
        },
      ),
      { numRuns: 40 },
    );
  });
});
