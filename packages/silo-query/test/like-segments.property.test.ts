/**
 * The segment matcher (split at `%`, literal cores by indexOf, `_` cores by Shift-And) against a
 * dynamic-programming reference over code points, on patterns with many `%` and `_` (which the
 * short patterns of like.property.test.ts rarely reach), surrogate pairs and lone surrogates in
 * text and pattern, escapes, and ILIKE. Texts are mostly built from the pattern itself, so
 * matches and near misses are frequent.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileLike, LIKE_MAX_SEARCHED_SPAN } from '../src/like.js';
import { iuEqual } from './arbitraries.js';

type Tok = { lit: string } | { one: true } | { run: true };

/** The pattern's tokens, code point by code point (`Array.from` keeps lone surrogates apart). */
function tokensOf(pattern: string): Tok[] {
  const cps = Array.from(pattern);
  const out: Tok[] = [];
  for (let i = 0; i < cps.length; i++) {
    const c = cps[i]!;
    if (c === '\\') out.push({ lit: cps[++i]! });
    else if (c === '%') out.push({ run: true });
    else if (c === '_') out.push({ one: true });
    else out.push({ lit: c });
  }
  return out;
}

/** Whole-text LIKE by dynamic programming over code points. */
function referenceLike(text: string, pattern: string, eq: (t: string, p: string) => boolean): boolean {
  const t = Array.from(text);
  let row = new Array<boolean>(t.length + 1).fill(false);
  row[0] = true;
  for (const tok of tokensOf(pattern)) {
    const next = new Array<boolean>(t.length + 1).fill(false);
    if ('run' in tok) {
      let seen = false;
      for (let j = 0; j <= t.length; j++) next[j] = seen = seen || row[j]!;
    } else {
      for (let j = 1; j <= t.length; j++) next[j] = row[j - 1]! && ('one' in tok || eq(t[j - 1]!, tok.lit));
    }
    row = next;
  }
  return row[t.length]!;
}

function like(text: string, pattern: string, ci: boolean): boolean {
  const r = compileLike(pattern, ci);
  if (!r.ok) throw new Error(`refused: ${r.reason}`);
  return r.match(text);
}

const exact = (a: string, b: string): boolean => a === b;

// Literals: ASCII, case pairs ILIKE folds together, a pair (U+1F600), both halves of that pair
// and of U+10400 alone (lone surrogates), and characters LIKE gives meaning to.
const letters = ['a', 'b', 'A', 'B', 'é', 'É', 's', 'ſ', 'k', '\u212a', '😀', '\u{10400}', '\u{10428}', '\ud83d', '\ude00', '\ud801', '\udc00'];
const special = ['%', '_', '\\'];
const escape = (c: string): string => (special.includes(c) ? `\\${c}` : c);

const letter = fc.constantFrom(...letters, ...special);
/** A pattern piece: a literal (escaped when needed), `_`, or `%`. */
const piece = fc.oneof(
  { weight: 6, arbitrary: letter.map(escape) },
  { weight: 3, arbitrary: fc.constant('_') },
  { weight: 2, arbitrary: fc.constant('%') },
  { weight: 1, arbitrary: fc.constantFrom('\\\ude00', '\\\udc00', '\\\ud83d') }, // escaped lone halves
);
const patternArb = fc.array(piece, { maxLength: 24 }).map((ps) => ps.join(''));
const fill = fc.array(letter, { maxLength: 4 }).map((cs) => cs.join(''));

/** A text the pattern could match: each `_` one letter, each `%` a few, literals as they are or in another case; then maybe one change. */
function textFor(pattern: string): fc.Arbitrary<string> {
  const parts = tokensOf(pattern).map((tok) =>
    'run' in tok ? fill : 'one' in tok ? letter : fc.constantFrom(tok.lit, tok.lit.toUpperCase(), tok.lit.toLowerCase()),
  );
  return fc
    .tuple(fc.tuple(...parts), fc.option(fc.tuple(fc.nat(), letter), { nil: undefined }))
    .map(([xs, change]) => {
      const cps = Array.from(xs.join(''));
      if (change !== undefined && cps.length > 0) cps[change[0] % cps.length] = change[1];
      return cps.join('');
    });
}

const patternAndTexts = patternArb.chain((p) =>
  fc.tuple(fc.constant(p), fc.array(fc.oneof(textFor(p), fc.array(letter, { maxLength: 20 }).map((cs) => cs.join(''))), { minLength: 1, maxLength: 6 })),
);

describe('LIKE segment matcher (property)', () => {
  it('lk agrees with the reference on patterns with many % and _', () => {
    fc.assert(
      fc.property(patternAndTexts, ([p, texts]) => {
        for (const t of texts) expect(like(t, p, false), `${JSON.stringify(t)} lk ${JSON.stringify(p)}`).toBe(referenceLike(t, p, exact));
      }),
      { numRuns: 3000 },
    );
  });

  it('il agrees with the reference comparing code points by the engine\'s /iu', () => {
    fc.assert(
      fc.property(patternAndTexts, ([p, texts]) => {
        for (const t of texts) expect(like(t, p, true), `${JSON.stringify(t)} il ${JSON.stringify(p)}`).toBe(referenceLike(t, p, iuEqual));
      }),
      { numRuns: 3000 },
    );
  });

  it('finds _ runs of every length up to the limit in longer texts, with pairs and lone surrogates around', () => {
    const unit = fc.constantFrom('a', 'a', 'a', 'b', '😀', '\ud83d', '\ude00');
    const text = fc.array(unit, { minLength: 0, maxLength: 120 }).map((cs) => cs.join(''));
    const core = fc
      .array(fc.constantFrom('a', 'b', '_', '😀'), { minLength: 1, maxLength: LIKE_MAX_SEARCHED_SPAN - 2 })
      .map((cs) => `a${cs.join('')}b`); // at most the limit, in code points
    fc.assert(
      fc.property(text, fc.array(core, { minLength: 1, maxLength: 3 }), fc.constantFrom('', '_', 'a', '😀'), (t, cores, end) => {
        const p = `%${cores.join('%')}%${end}`;
        expect(like(t, p, false), `${JSON.stringify(t)} lk ${JSON.stringify(p)}`).toBe(referenceLike(t, p, exact));
      }),
      { numRuns: 2000 },
    );
  });
});
