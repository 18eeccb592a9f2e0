/**
 * Deterministic data of the HTTP benchmarks. The server child seeds its store from these
 * generators and the harness builds the expected response bodies from the same ones, so both
 * sides agree on every byte without passing the data around.
 */
import { mulberry32 } from '../common.js';


const WORDS = [
  'amber', 'basalt', 'cedar', 'delta', 'ember', 'fjord', 'granite', 'harbor', 'indigo', 'juniper',
  'kelp', 'lagoon', 'meadow', 'nimbus', 'obsidian', 'prairie', 'quartz', 'ridge', 'sierra', 'tundra',
] as const;

function word(rand: () => number): string {
  return WORDS[Math.floor(rand() * WORDS.length)]!;
}

/** The number of categories of the item array: `c0` … `c19`. */
export const CATEGORIES = 20;
/** The category the search scenarios filter on. */
export const SEARCH_CATEGORY = 'c7';

export type Item = {
  id: number;
  name: string;
  category: string;
  price: number;
  stock: number;
  active: boolean;
  tags: string[];
};

/** `n` flat records with an `id` (json-server needs one) and a `category` to filter on. */
export function makeItems(n: number, seed = 0x5110): Item[] {
  const rand = mulberry32(seed);
  const out: Item[] = new Array<Item>(n);
  for (let i = 0; i < n; i++) {
    out[i] = {
      id: i + 1,
      name: `${word(rand)}-${word(rand)}-${i}`,
      category: `c${Math.floor(rand() * CATEGORIES)}`,
      price: Math.round(rand() * 100_000) / 100,
      stock: Math.floor(rand() * 500),
      active: rand() < 0.8,
      tags: [word(rand), word(rand)],
    };
  }
  return out;
}

/** The document of about `bytes` bytes of compact JSON (exact when `bytes` ≥ ~400). */
export function makeDocument(bytes = 1024, variant = 0): Record<string, unknown> {
  const rand = mulberry32(0xd0c + variant);
  const doc: Record<string, unknown> = {
    id: 'doc-0001',
    title: 'Benchmark document',
    revision: variant,
    owner: { name: 'Ada Almeida', email: 'ada@example.com', team: 'storage' },
    settings: { theme: 'dark', locale: 'en-GB', notifications: { email: true, push: false } },
    tags: [word(rand), word(rand), word(rand), word(rand)],
    metrics: Array.from({ length: 8 }, (_, i) => ({ day: i + 1, views: Math.floor(rand() * 10_000), ratio: Math.round(rand() * 1000) / 1000 })),
    notes: '',
  };
  const base = JSON.stringify(doc).length;
  const filler: string[] = [];
  let length = 0;
  while (length < bytes - base) {
    const w = word(rand);
    filler.push(w);
    length += w.length + 1;
  }
  doc.notes = filler.join(' ').slice(0, Math.max(0, bytes - base));
  return doc;
}

/** An array of items whose compact JSON is close to `bytes` (at most `bytes`). */
export function makeArrayOfSize(bytes: number, seed = 0xb16): Item[] {
  // Items are ~110 bytes; generate generously, then cut to size.
  const items = makeItems(Math.ceil(bytes / 80), seed);
  let total = 2; // []
  let n = 0;
  for (const item of items) {
    const len = JSON.stringify(item).length + (n > 0 ? 1 : 0);
    if (total + len > bytes) break;
    total += len;
    n++;
  }
  return items.slice(0, n);
}

/** Every data set of a standard seed, by name. */
export interface StandardData {
  /** Scenarios 1 (public GET), 5 and 6 (PATCH and create bodies): a 1 KB document. */
  doc1k: Record<string, unknown>;
  /** The replacement data of the PATCH scenarios: another 1 KB document. */
  doc1kPatched: Record<string, unknown>;
  /** Scenario 2: an array of ~1 MiB. */
  array1m: Item[];
  /** Scenarios 3 and 4, and json-server's filter: 10 000 items. */
  items10k: Item[];
}

export function standardData(): StandardData {
  return {
    doc1k: makeDocument(1024, 0),
    doc1kPatched: makeDocument(1024, 1),
    array1m: makeArrayOfSize(1024 * 1024),
    items10k: makeItems(10_000),
  };
}

/** The 10 MB silo of the memory scenario: the largest the default plan takes (10 000 000 bytes). */
export function make10mb(): Item[] {
  return makeArrayOfSize(10_000_000, 0x10);
}

/** Scenario 3's element and path. */
export const IDX = 7919;
export const IDX_PATH = 'name';

/** Makes one silo of a seed (role, data, public) and resolves with its file_uuid. */
export type MakeSilo = (role: string, data: Record<string, unknown> | Item[], isPublic: boolean) => Promise<string>;

/**
 * The silos of a seed, in order: `big` is the 10 MB silo; `standard` the 1 KB (public), 1 MB
 * (public), 10 000 items, contended and `patchCount` PATCH targets. Resolves with the PATCH targets.
 * One list for every way of seeding (in-process, over HTTP), so that every server holds the same.
 */
export async function seedSilos(seed: 'standard' | 'big', patchCount: number, make: MakeSilo): Promise<string[]> {
  if (seed === 'big') {
    await make('big', make10mb(), true);
    return [];
  }
  const d = standardData();
  await make('small', d.doc1k, true);
  await make('large', d.array1m, true);
  await make('items', d.items10k, false);
  await make('contended', d.doc1k, false);
  const patchSilos: string[] = [];
  for (let i = 0; i < patchCount; i++) patchSilos.push(await make(`patch${i}`, d.doc1k, false));
  return patchSilos;
}
