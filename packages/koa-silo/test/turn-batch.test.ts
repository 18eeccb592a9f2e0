import { describe, expect, it } from 'vitest';
import { TurnBatch } from '../src/limits/turn-batch.js';

describe('TurnBatch', () => {
  it('answers the calls of one turn with one run, each call its own output in its order', async () => {
    const runs: number[][] = [];
    const batch = new TurnBatch<number, number>(async (inputs) => {
      runs.push(inputs);
      return inputs.map((n) => n * 10);
    });
    // Calls from separate callbacks of one turn (as requests whose bytes arrived together) and from microtasks.
    const answers = await Promise.all([batch.call(1), Promise.resolve().then(() => batch.call(2)), batch.call(3)]);
    expect(answers).toEqual([10, 20, 30]);
    expect(runs).toEqual([[1, 3, 2]]);
    // The next turn's calls make a run of their own.
    expect(await batch.call(4)).toBe(40);
    expect(runs).toEqual([[1, 3, 2], [4]]);
  });

  it('splits a turn of more calls than one run takes, and fails every call of a failed run, not the other runs', async () => {
    const runs: number[][] = [];
    const batch = new TurnBatch<number, number>(async (inputs) => {
      runs.push(inputs);
      if (inputs.includes(3)) throw new Error('the database said no');
      return inputs;
    }, 2);
    const settled = await Promise.allSettled([1, 2, 3, 4, 5].map((n) => batch.call(n)));
    expect(runs).toEqual([[1, 2], [3, 4], [5]]);
    expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'rejected', 'fulfilled']);
    expect((settled[2] as PromiseRejectedResult).reason).toEqual(new Error('the database said no'));
  });

  it('fails the calls of a run that answers a different number of outputs, and of one that throws at once', async () => {
    const short = new TurnBatch<number, number>(async () => [1]);
    await expect(Promise.all([short.call(1), short.call(2)])).rejects.toThrow('a batch of 2 calls got 1 answers');
    const throwing = new TurnBatch<number, number>(() => {
      throw new Error('no connection');
    });
    await expect(throwing.call(1)).rejects.toThrow('no connection');
  });
});
