/**
 * Seeding a running Silo server through its management API (`POST /api/v1/manage/`), for servers
 * without a programmatic hook (`silo serve`): the same silos, from the same generators (data.ts),
 * as server.ts makes through `silo.silos.create`.
 */
import { seedSilos } from './data.js';
import type { ReadyLine, SeedKind } from './server.js';

export type Seeded = Pick<ReadyLine, 'silos' | 'patchSilos' | 'bytes' | 'seedMs'>;

/** Creates one silo; resolves with its file_uuid. Throws on any answer but 201. */
export async function createSilo(base: string, manageKey: string, name: string, data: unknown, isPublic: boolean): Promise<string> {
  // Compact JSON: the server stores file_data's text as sent, so it holds the bytes server.ts stores.
  const body = JSON.stringify({ file_name: name, file_data: data, is_public: isPublic });
  const res = await fetch(`${base}/api/v1/manage/`, {
    method: 'POST',
    headers: { 'X-MAN-API': manageKey, 'Content-Type': 'application/json' },
    body,
  });
  const answer = await res.text();
  if (res.status !== 201) throw new Error(`seeding ${name}: POST /api/v1/manage/ answered ${res.status}: ${answer.slice(0, 300)}`);
  const uuid = (JSON.parse(answer) as { file_uuid?: unknown }).file_uuid;
  if (typeof uuid !== 'string') throw new Error(`seeding ${name}: no file_uuid in ${answer.slice(0, 300)}`);
  return uuid;
}

/** The silos of `seed` (standard: small, large, items, contended, patch0..; big: big), created in order. */
export async function seedOverHttp(base: string, manageKey: string, seed: SeedKind, patchCount: number): Promise<Seeded> {
  const started = performance.now();
  const silos: Record<string, string> = {};
  const bytes: Record<string, number> = {};
  const patchSilos = await seedSilos(seed, patchCount, async (role, data, isPublic) => {
    silos[role] = await createSilo(base, manageKey, `bench-${role}`, data, isPublic);
    bytes[role] = Buffer.byteLength(JSON.stringify(data));
    return silos[role];
  });
  return { silos, patchSilos, bytes, seedMs: performance.now() - started };
}
