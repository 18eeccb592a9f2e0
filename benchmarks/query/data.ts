/**
 * Deterministic benchmark data. Everything is generated from a seeded PRNG so that every run,
 * on every machine, queries exactly the same values (and the same number of matches).
 */
import { mulberry32 } from '../common.js';

export { mulberry32 } from '../common.js';

function pick<T>(rand: () => number, items: readonly T[]): T {
  const item = items[Math.floor(rand() * items.length)];
  if (item === undefined) throw new Error('pick from an empty list');
  return item;
}

function int(rand: () => number, min: number, max: number): number {
  return min + Math.floor(rand() * (max - min + 1));
}

const FIRST = [
  'Ada', 'Anabel', 'Bruno', 'Carmen', 'Dmitri', 'Elena', 'Farid', 'Grace', 'Hana', 'Ivan',
  'Joana', 'Kenji', 'Lucia', 'Mateo', 'Nadia', 'Omar', 'Priya', 'Quentin', 'Rosa', 'Stefan',
  'Tomas', 'Ulla', 'Victor', 'Wanda',
] as const;
const LAST = [
  'Almeida', 'Brandt', 'Castro', 'Duarte', 'Eriksen', 'Fontaine', 'Garcia', 'Hoffmann',
  'Ibrahim', 'Jansen', 'Kowalski', 'Lindqvist', 'Moreno', 'Novak', 'Okafor', 'Petrov',
  'Quinn', 'Rossi', 'Santos', 'Tanaka', 'Ulrich', 'Vargas', 'Weber', 'Yilmaz',
] as const;
export const CITIES = [
  'Amsterdam', 'Berlin', 'Copenhagen', 'Dublin', 'Edinburgh', 'Florence', 'Geneva', 'Helsinki',
  'Istanbul', 'Krakow', 'Lisbon', 'Madrid', 'Oslo', 'Prague', 'Riga', 'Vienna',
] as const;

export interface PersonRecord {
  id: number;
  name: string;
  age: number;
  city: string;
  active: boolean;
  score: number;
  address: { street: string; zip: string };
}

/** `n` flat-ish records, as a typical silo holding a table would. Same seed → same records. */
export function makeRecords(n: number, seed = 0x5110): PersonRecord[] {
  const rand = mulberry32(seed);
  const out: PersonRecord[] = new Array<PersonRecord>(n);
  for (let i = 0; i < n; i++) {
    out[i] = {
      id: i,
      name: `${pick(rand, FIRST)} ${pick(rand, LAST)}`,
      age: int(rand, 18, 90),
      city: pick(rand, CITIES),
      active: rand() < 0.5,
      score: Math.round(rand() * 10000) / 100,
      address: {
        street: `${int(rand, 1, 400)} ${pick(rand, LAST)} Street`,
        zip: String(int(rand, 10000, 99999)),
      },
    };
  }
  return out;
}

/**
 * A realistic ~1 KB JSON object (a user profile with nested address, orders and settings).
 * Depth-1, depth-3 and depth-6 paths into it are used by the path-lookup cases.
 */
export function makeDocument(): Record<string, unknown> {
  return {
    id: 'usr_7f3a9c21',
    name: 'Ada Lovelace',
    email: 'ada@analytical.example',
    active: true,
    age: 36,
    score: 98.5,
    tags: ['math', 'poetry', 'engines', 'notes'],
    createdAt: '1843-07-10T09:30:00Z',
    profile: {
      bio: 'Wrote the first published algorithm for the Analytical Engine.',
      website: 'https://example.org/ada',
      address: { street: '12 St James Square', city: 'London', zip: 'SW1Y 4JH', country: 'GB' },
      phones: [
        { kind: 'home', number: '+44 20 7946 0001' },
        { kind: 'work', number: '+44 20 7946 0002' },
      ],
    },
    orders: [
      {
        id: 'ord_1001',
        total: 42.5,
        items: [
          { qty: 1, product: { sku: 'BK-0001', name: 'Sketch of the Engine', price: 30 } },
          { qty: 3, product: { sku: 'PN-0042', name: 'Brass pen', price: 4.5 } },
        ],
      },
      {
        id: 'ord_1002',
        total: 19.99,
        items: [{ qty: 1, product: { sku: 'CG-1843', name: 'Cogwheel, small', price: 19.99 } }],
      },
    ],
    settings: {
      locale: 'en-GB',
      timezone: 'Europe/London',
      notifications: { email: true, sms: false, digest: 'weekly' },
      display: { theme: 'dark', density: 'compact', fontScale: 1.1 },
    },
  };
}

/** The LIKE worst case: one record whose string is `len` times the letter `a`. */
export function makeLikeWorstCase(len = 100_000): Array<{ s: string }> {
  return [{ s: 'a'.repeat(len) }];
}
