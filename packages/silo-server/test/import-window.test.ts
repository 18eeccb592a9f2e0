/**
 * How many silos `silo import` writes at once: at most eight, and at most WRITE_AHEAD_CHARS of their
 * histories in all (one silo alone may pass it). Eight silos of 20 versions of 10 MB were held at
 * once, 1.6 GB (an attacker's import of 120 versions of 9 MB peaked at 1.8 GB RSS).
 */
import { describe, expect, it } from 'vitest';
import { WriteWindow } from '../src/transfer/import.js';

/** A write that ends when `end` is called, and says when it started. */
function pending(started: string[], name: string) {
  let end!: () => void;
  const done = new Promise<void>((resolve) => (end = resolve));
  return { write: async () => (started.push(name), done), end };
}

describe('WriteWindow', () => {
  it('starts a write only when its size fits beside the ones under way, and always one alone', async () => {
    const window = new WriteWindow(8, 150);
    const started: string[] = [];
    const [a, b, c] = [pending(started, 'a'), pending(started, 'b'), pending(started, 'c')];
    await window.add(100, a.write);
    const adding = window.add(100, b.write); // 200 > 150: waits for a
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(started).toEqual(['a']);
    a.end();
    await adding;
    expect(started).toEqual(['a', 'b']);
    b.end();
    await window.add(1000, c.write); // larger than the bound, alone: goes
    expect(started).toEqual(['a', 'b', 'c']);
    c.end();
    await window.settle();
  });
});
