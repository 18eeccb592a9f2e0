import { describe, expect, it } from 'vitest';
import { textBytes } from '../src/limits/text-bytes.js';

describe('textBytes: the UTF-8 bytes of a body made of texts, written in slices', () => {
  it('equals the bytes of the joined text, for small and sliced parts', async () => {
    const big = JSON.stringify(Array.from({ length: 80_000 }, (_, i) => ({ id: i, name: `naïve ${i} ✓` })));
    expect(big.length).toBeGreaterThan(2 << 20);
    const bytes = await textBytes('{"data":', big, '}');
    expect(bytes.equals(Buffer.from(`{"data":${big}}`, 'utf8'))).toBe(true);
  });

  it('never splits a surrogate pair at a slice boundary', async () => {
    // An emoji (two UTF-16 units) straddling every 1 MiB boundary.
    const text = `${'a'.repeat((1 << 20) - 1)}😀`.repeat(3);
    const bytes = await textBytes(text);
    expect(bytes.toString('utf8')).toBe(text);
    expect(bytes.includes(Buffer.from('\uFFFD', 'utf8'))).toBe(false);
  });

  it('takes turns with every other encoding: one slice per turn of the loop, however many run at once', async () => {
    let turns = 0;
    let ticking = true;
    const tick = () => {
      turns += 1;
      if (ticking) setImmediate(tick);
    };
    setImmediate(tick);
    // 8 bodies of 4 MiB: 4 slices each to count, 4 to write; alone, each would take a slice a turn.
    const bodies = await Promise.all(Array.from({ length: 8 }, (_, i) => textBytes(String(i).repeat(4 << 20))));
    ticking = false;
    expect(bodies.map((b) => b.length)).toEqual(Array(8).fill(4 << 20));
    expect(turns).toBeGreaterThanOrEqual(60);
  });

  it('lets other work run between slices', async () => {
    let turns = 0;
    const ticker = setInterval(() => (turns += 1), 0);
    await textBytes('x'.repeat(8 << 20));
    clearInterval(ticker);
    expect(turns).toBeGreaterThan(0);
  });
});
