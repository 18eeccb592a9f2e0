/**
 * The two cost limits of LIKE patterns (like.ts), refused with a 422 item before any search, and
 * the shapes that stay allowed however long they are; plus the matcher's edge cases around
 * `%`-segments and surrogates, as examples a reader can check by eye.
 */
import { describe, expect, it } from 'vitest';
import { query, SiloQueryError } from '../src/index.js';
import { compileLike, like, LIKE_MAX_PATTERN_LENGTH, LIKE_MAX_SEARCHED_SPAN, likeRefusal } from '../src/like.js';

/** The `detail` of the error `query` throws for `value` with `op`, or `undefined` when it runs. */
function refusalOf(value: string, op: 'lk' | 'il' = 'lk'): unknown {
  try {
    query([{ s: 'x' }], { q: 's', value, op });
    return undefined;
  } catch (e) {
    expect(e).toBeInstanceOf(SiloQueryError);
    return (e as SiloQueryError).detail;
  }
}

describe('LIKE pattern length limit', () => {
  it('allows 10 000 code points and refuses 10 001, counting a surrogate pair as one', () => {
    expect(LIKE_MAX_PATTERN_LENGTH).toBe(10_000);
    expect(likeRefusal('a'.repeat(10_000))).toBeUndefined();
    expect(likeRefusal('😀'.repeat(10_000))).toBeUndefined();
    expect(likeRefusal('a'.repeat(10_001))).toStrictEqual({ reason: 'too_long', length: 10_001, max: 10_000 });
    expect(likeRefusal('%'.repeat(10_001))).toStrictEqual({ reason: 'too_long', length: 10_001, max: 10_000 });
  });

  it('is a 422 like_pattern_too_long at ["query","value"] with the limit in ctx, for lk and il', () => {
    for (const op of ['lk', 'il'] as const) {
      expect(refusalOf(`%${'a'.repeat(10_000)}`, op)).toStrictEqual([
        {
          loc: ['query', 'value'],
          msg: 'The LIKE pattern is too long: it has 10001 characters, at most 10000 are allowed',
          type: 'like_pattern_too_long',
          ctx: { max_length: 10_000 },
        },
      ]);
    }
  });

  it('is checked before the escape: a long pattern with a trailing backslash is too long', () => {
    expect(likeRefusal(`${'a'.repeat(10_000)}\\`)?.reason).toBe('too_long');
  });

  it('does not apply to eq, gt and the other operators', () => {
    expect(query([{ s: 'a'.repeat(20_000) }], { q: 's', value: 'a'.repeat(20_000) })).toHaveLength(1);
  });
});

describe('LIKE searched span limit (a stretch with _ between two %)', () => {
  const core = (n: number): string => `a${'_'.repeat(n - 2)}b`;

  it('allows 32 code points from the first to the last literal and refuses 33', () => {
    expect(LIKE_MAX_SEARCHED_SPAN).toBe(32);
    expect(likeRefusal(`%${core(32)}%`)).toBeUndefined();
    expect(likeRefusal(`%${core(33)}%`)).toStrictEqual({ reason: 'span_too_long', span: 33, max: 32 });
    expect(likeRefusal(`x%y%${core(40)}%z`)).toStrictEqual({ reason: 'span_too_long', span: 40, max: 32 });
  });

  it('is a 422 like_pattern_too_long with the limit in ctx', () => {
    expect(refusalOf(`%${core(33)}%`, 'il')).toStrictEqual([
      {
        loc: ['query', 'value'],
        msg: 'The LIKE pattern has a part between two % that contains _ and spans 33 characters from its first to its last character other than _; such a part may span at most 32',
        type: 'like_pattern_too_long',
        ctx: { max_span: 32 },
      },
    ]);
  });

  it('counts from the first to the last literal: leading and trailing _ only skip', () => {
    expect(likeRefusal(`%${'_'.repeat(500)}${core(32)}${'_'.repeat(500)}%`)).toBeUndefined();
    expect(likeRefusal(`%${'_'.repeat(9000)}%`)).toBeUndefined();
    expect(like('xxaXbyy', '%__a_b__%')).toBe(true);
    expect(like('xaXbyy', '%__a_b__%')).toBe(false);
    expect(like('xxaXby', '%__a_b__%')).toBe(false);
  });

  it('does not apply to literals without _, nor to the first and last segments (matched in place)', () => {
    expect(likeRefusal(`%${'a'.repeat(5000)}%`)).toBeUndefined();
    expect(likeRefusal(`${core(5000)}%`)).toBeUndefined();
    expect(likeRefusal(`%${core(5000)}`)).toBeUndefined();
    expect(likeRefusal(core(9000))).toBeUndefined();
    expect(like(`a${'z'.repeat(4998)}b`, core(5000))).toBe(true);
    expect(like(`${'z'.repeat(7)}a${'z'.repeat(4998)}b`, `%${core(5000)}`)).toBe(true);
  });

  it('applies to a literal part that starts with a lone low surrogate or ends with a lone high one (matched by code points)', () => {
    expect(likeRefusal(`%\udc00${'a'.repeat(32)}%`)).toStrictEqual({ reason: 'span_too_long', span: 33, max: 32 });
    expect(likeRefusal(`%${'a'.repeat(32)}\ud800%`)).toStrictEqual({ reason: 'span_too_long', span: 33, max: 32 });
    expect(likeRefusal(`%a\udc00${'a'.repeat(32)}%`)).toBeUndefined(); // inside, a lone half pairs up as in the text
  });

  it('reports a trailing escape before the span', () => {
    expect(likeRefusal(`%${core(33)}%\\`)).toStrictEqual({ reason: 'trailing_escape' });
  });
});

describe('LIKE segments', () => {
  it('anchors the first and last segments and finds the middle ones leftmost-first', () => {
    expect(like('abXcdYcdZef', 'ab%cd%ef')).toBe(true);
    expect(like('abcdef', 'ab%cd%ef')).toBe(true);
    expect(like('abcef', 'ab%cd%ef')).toBe(false);
    expect(like('abcdcd', 'abcd%cd')).toBe(true);
    expect(like('abcd', 'abcd%cd')).toBe(false); // the ends may not overlap
    expect(like('aXbXa', '%a_b%b_a%')).toBe(false); // the second part must start after the first ends
    expect(like('aXbXbXa', '%a_b%b_a%')).toBe(true);
  });

  it('counts _ in code points at the edges of every segment', () => {
    expect(like('😀', '_')).toBe(true);
    expect(like('😀x😀', '_%_')).toBe(true);
    expect(like('😀', '_%_')).toBe(false);
    expect(like('a😀b😀c', '%_b_%')).toBe(true);
    expect(like('😀b😀', '%_b_%')).toBe(true);
    expect(like('b😀', '%_b_%')).toBe(false);
    expect(like('xx😀', '%😀')).toBe(true);
    expect(like('😀a😀', '%😀_😀%')).toBe(true);
  });

  it('never matches half of a surrogate pair of the text', () => {
    expect(like('\ud83d\ude00x', '%\ude00x%')).toBe(false); // the text holds U+1F600, not a lone low half
    expect(like('a\ude00x', '%\ude00x%')).toBe(true);
    expect(like('x\ud83d\ude00', '%x\ud83d%')).toBe(false);
    expect(like('x\ud83dy', '%x\ud83d%')).toBe(true);
    expect(like('x\ud83d\ude00y', '%x\ud83d_%')).toBe(false);
  });

  it('never matches a lone high half written before an escaped lone low half (text pairs them into one code point)', () => {
    const pattern = '%\ud83d\\\ude00%';
    expect(compileLike(pattern, false).ok).toBe(true);
    expect(like('\ud83d\ude00', pattern)).toBe(false);
    expect(like('\ud83d\ude00', '%\ud83d\ude00%')).toBe(true);
    expect(like('\ud83d\ude00', '\ud83d\\\ude00')).toBe(false);
  });

  it('handles escapes and ILIKE in every segment', () => {
    expect(like('50% off_now', '%\\%%\\_%')).toBe(true);
    expect(like('50 off now', '%\\%%')).toBe(false);
    expect(like('x\\y', '%\\\\%')).toBe(true);
    expect(like('STRASSE straße', '%s_r%ße', true)).toBe(true);
    expect(like('Ab\u212aDe', 'a%K_e', true)).toBe(true);
    expect(like('ΣΊΣΥΦΟΣ', '%σ_σ%', true)).toBe(true);
  });
});
