/**
 * LIKE (`lk`) and ILIKE (`il`) searches over HTTP with generated patterns and texts: every answer
 * equals a reference matcher's (dynamic programming over code points, written here from the
 * contract), and comes back in bounded time, including patterns built to make a backtracking
 * matcher explode (`%a%a%a%a%b` against 100 000 `a`). The 2 s ceiling per request only detects a
 * hang; the correctness assertions are the test.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../support/http-call.js';
import { startInProcess, type InProcessSilo, type TestAccount } from '../support/in-process.js';

const HANG_MS = 2000;

/** Simple case folding for the alphabet used here (U+017F LONG S folds to s; toLowerCase keeps it). */
const fold = (c: string) => (c === 'ſ' ? 's' : c.toLowerCase());

type Token = { any: 'run' } | { any: 'one' } | { lit: string };

/** The contract's pattern: % any run, _ one code point, \ escapes the next; undefined for a trailing \. */
function tokens(pattern: string, ci: boolean): Token[] | undefined {
  const cps = [...pattern];
  const out: Token[] = [];
  for (let i = 0; i < cps.length; i++) {
    const c = cps[i]!;
    if (c === '\\') {
      if (i + 1 >= cps.length) return undefined;
      out.push({ lit: ci ? fold(cps[++i]!) : cps[++i]! });
    } else if (c === '%') out.push({ any: 'run' });
    else if (c === '_') out.push({ any: 'one' });
    else out.push({ lit: ci ? fold(c) : c });
  }
  return out;
}

/** Whole-string LIKE by dynamic programming over code points: O(text × pattern), no backtracking. */
function reference(text: string, pattern: Token[], ci: boolean): boolean {
  const t = [...text].map((c) => (ci ? fold(c) : c));
  let row = new Array<boolean>(t.length + 1).fill(false);
  row[0] = true;
  for (const tok of pattern) {
    const next = new Array<boolean>(t.length + 1).fill(false);
    if ('any' in tok && tok.any === 'run') {
      let seen = false;
      for (let j = 0; j <= t.length; j++) next[j] = seen = seen || row[j]!;
    } else {
      for (let j = 1; j <= t.length; j++) next[j] = row[j - 1]! && ('any' in tok || tok.lit === t[j - 1]);
    }
    row = next;
  }
  return row[t.length]!;
}

let s: InProcessSilo;
let owner: TestAccount;
let requests = 0;
let slowest = 0;
let passed = 0;

async function search(uuid: string, op: 'lk' | 'il', pattern: string) {
  requests++;
  const reply = await call(s.port, `/${uuid}?q=s&value=${encodeURIComponent(pattern)}&op=${op}`, {
    headers: { 'X-SILO-KEY': owner.access },
    agent: s.agent,
    timeoutMs: HANG_MS * 3,
  });
  slowest = Math.max(slowest, reply.ms);
  expect(reply.ms, `${op} ${JSON.stringify(pattern.slice(0, 60))} took ${Math.round(reply.ms)} ms`).toBeLessThan(HANG_MS);
  return reply;
}

async function createSilo(data: unknown[]): Promise<string> {
  const r = await call(s.port, '/api/v1/manage/', { method: 'POST', headers: { 'X-MAN-API': owner.manage }, body: { file_name: 'like', file_data: data }, agent: s.agent });
  expect(r.status).toBe(201);
  return r.json.file_uuid as string;
}

beforeAll(async () => {
  s = await startInProcess();
  owner = await s.account('owner');
});

afterAll(async () => {
  await s?.close();
  if (passed === 2) console.log(`[reliability] LIKE/ILIKE: ${requests} generated and adversarial patterns, all answers correct, slowest ${Math.round(slowest)} ms`);
});

describe('LIKE patterns', () => {
  const alphabet = ['a', 'b', 'A', 'B', 's', 'S', 'ſ', 'k', 'K', '\u212a', 'é', 'É', '😀', ' ', '.'];
  const text = fc.array(fc.constantFrom(...alphabet), { maxLength: 12 }).map((cs) => cs.join(''));
  const pattern = fc
    .array(fc.oneof({ weight: 5, arbitrary: fc.constantFrom(...alphabet) }, { weight: 3, arbitrary: fc.constantFrom('%', '_', '\\', '\\%', '\\_', '\\\\') }), { maxLength: 10 })
    .map((cs) => cs.join(''));

  /** Characters that ILIKE takes as one (simple case folding). */
  const same = [['s', 'S', 'ſ'], ['k', 'K', '\u212a'], ['a', 'A'], ['b', 'B'], ['é', 'É']];
  /** Texts that the pattern could match: each literal in any case, each wildcard filled at random. */
  const instances = (p: string) => {
    const toks = tokens(p, false);
    if (toks === undefined || toks.length === 0) return fc.constant<string[]>([]);
    const parts = toks.map((tok) =>
      'lit' in tok
        ? fc.constantFrom(...(same.find((g) => g.includes(tok.lit)) ?? [tok.lit]))
        : tok.any === 'one'
          ? fc.constantFrom(...alphabet)
          : fc.array(fc.constantFrom(...alphabet), { maxLength: 3 }).map((cs) => cs.join('')),
    );
    return fc.array(fc.tuple(...parts).map((xs) => xs.join('')), { maxLength: 6 });
  };

  it('answers generated patterns exactly as the reference matcher does', async () => {
    const texts = fc.array(text, { minLength: 1, maxLength: 20 });
    const patternAndTexts = pattern.chain((p) => fc.tuple(fc.constant(p), fc.tuple(texts, instances(p)).map(([a, b]) => [...a, ...b])));
    await fc.assert(
      fc.asyncProperty(patternAndTexts, async ([p, texts]) => {
        // Elements that are not objects with a string `s` never match.
        const data = [...texts.map((t) => ({ s: t })), { s: 1 }, { t: 'a' }, { s: null }, { s: ['a'] }];
        const uuid = await createSilo(data);
        for (const op of ['lk', 'il'] as const) {
          const reply = await search(uuid, op, p);
          const toks = tokens(p, op === 'il');
          if (toks === undefined) {
            expect(reply.status).toBe(422);
            continue;
          }
          expect(reply.status, reply.text).toBe(200);
          expect(reply.json, `${op} ${JSON.stringify(p)}`).toEqual(data.filter((e) => typeof e.s === 'string' && reference(e.s, toks, op === 'il')));
        }
      }),
      { numRuns: 150 },
    );
    passed++;
  }, 60_000);

  it('answers patterns made to make a backtracking matcher explode, in bounded time and correctly', async () => {
    const longA = 'a'.repeat(100_000);
    const mixed = 'ab'.repeat(50_000);
    const all = [longA, mixed, `${longA}b`, '😀'.repeat(50_000), 'a'.repeat(5000)];
    const uuid = await createSilo(all.map((text) => ({ s: text })));
    const cases: [string, 'lk' | 'il', number[]][] = [
      ['%a%a%a%a%b', 'lk', [1, 2]],
      ['%a%a%a%a%b', 'il', [1, 2]],
      ['%A%A%A%A%B', 'il', [1, 2]],
      ['%A%A%A%A%B', 'lk', []],
      ['_%_%_%_%_%b', 'lk', [1, 2]],
      [`${'%a'.repeat(500)}%c`, 'lk', []],
      [`${'%_'.repeat(2000)}%c`, 'il', []],
      [`${'a%'.repeat(300)}b`, 'lk', [1, 2]],
      ['%😀_😀%😀😀%x', 'lk', []],
      ['_'.repeat(5000), 'lk', [4]],
      [`${'_'.repeat(4000)}%`, 'il', [0, 1, 2, 3, 4]],
      [`%${'a'.repeat(5000)}b`, 'il', [2]],
      [`%${'a'.repeat(5000)}`, 'lk', [0, 4]],
      [`%${'ab'.repeat(3000)}`, 'lk', [1]],
    ];
    for (const [p, op, expected] of cases) {
      const reply = await search(uuid, op, p);
      expect(reply.status).toBe(200);
      expect(reply.json.map((e: { s: string }) => all.indexOf(e.s)), `${op} ${p.slice(0, 40)}`).toEqual(expected);
    }
    passed++;
  }, 60_000);
});
