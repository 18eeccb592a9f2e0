import { describe, expect, it } from 'vitest';
import { query } from '../src/index.js';
import { compileLike, like } from '../src/like.js';

describe('LIKE worst cases', () => {
  const text = 'a'.repeat(100_000);
  it('%a%a%a%a%b over 100 000 a is false (and does not backtrack exponentially)', () => {
    expect(like(text, '%a%a%a%a%b')).toBe(false);
    expect(like(text, '%a%a%a%a%b%')).toBe(false);
    expect(like(text, '%A%A%A%A%B%', true)).toBe(false);
    expect(like(text, '%a%a%a%a%')).toBe(true);
    expect(like(text, '%a_a%a_%')).toBe(true);
    expect(like(text, '%a_a%a_%b')).toBe(false);
    expect(like(`${text}b`, '%a%a%a%a%b')).toBe(true);
    expect(like(`${text}b`, '%A%A%_%A%B', true)).toBe(true);
    expect(query([{ s: text }], { q: 's', value: '%a%a%a%a%b', op: 'lk' })).toStrictEqual([]);
  });

  it('__…_ over a long emoji string counts code points', () => {
    const emoji = '\u{1F600}'.repeat(1000);
    expect(like(emoji, '_'.repeat(1000))).toBe(true);
    expect(like(emoji, '_'.repeat(999))).toBe(false);
    expect(like(emoji, `%${'_'.repeat(1000)}`)).toBe(true);
  });
});

describe('LIKE details', () => {
  it('a lone surrogate is one code point', () => {
    expect(like('\ud800', '_')).toBe(true);
    expect(like('\ud800\ud800', '_')).toBe(false);
    expect(like('\ud83d\ude00', '_')).toBe(true);
    expect(like('\ud83d\ude00', '\ud83d%')).toBe(false); // the text's first code point is U+1F600
    expect(like('\ud83dx', '\ud83d%')).toBe(true);
    expect(like('x\ude00', '%\ude00')).toBe(true);
    expect(like('\ud83d\ude00', '%\ude00')).toBe(false);
  });

  it('refuses a trailing escape and nothing else', () => {
    expect(compileLike('abc\\', false)).toStrictEqual({ ok: false, reason: 'trailing_escape' });
    expect(compileLike('\\', true)).toStrictEqual({ ok: false, reason: 'trailing_escape' });
    expect(compileLike('abc\\\\', false).ok).toBe(true);
    expect(compileLike('\\\\\\', false).ok).toBe(false);
  });

  it('escapes a whole code point', () => {
    expect(like('\u{1F600}', '\\\u{1F600}')).toBe(true);
  });

  it('il folds non-ASCII text and keeps ASCII fast path exact', () => {
    expect(like('STRASSE', 'strasse', true)).toBe(true);
    expect(like('Straße', 'STRASSE', true)).toBe(false);
    expect(like('ΣΊΣΥΦΟΣ', 'σίσυφος', true)).toBe(true);
    expect(like('ǅ', 'ǆ', true)).toBe(true);
    expect(like('İ', 'i', true)).toBe(false);
    expect(like('ı', 'I', true)).toBe(false);
    expect(like('K', '\u212a', true)).toBe(true);
    expect(like('x\u{10400}y', '%\u{10428}_', true)).toBe(true);
  });
});
