/**
 * The worker pool's line, with real worker threads: tasks whose turn takes a known time (their
 * `prepare` waits, as loading a large silo's text does), so that the line's pace is known.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import { FairQueue } from '../src/work/fair-queue.js';
import { WorkBusyError, WorkerPool } from '../src/work/pool.js';
import type { QueryTask } from '../src/work/tasks.js';

let n = 0;
/** A task that is ready `ms` after its turn comes, then runs in a moment on its worker. */
const slow = (ms: number) => async () => {
  await sleep(ms);
  const task: QueryTask = { kind: 'query', uuid: `silo-${n++}`, etag: '"e"', search: '', text: '[1]' };
  return { task, release: () => undefined };
};

describe('FairQueue.ahead', () => {
  it('counts what is served before a new item: its own line, and as many turns of each other line', () => {
    const queue = new FairQueue<number>();
    for (let i = 0; i < 10; i++) queue.push('alice', i);
    queue.push('carol', 0);
    expect(queue.ahead('bob')).toBe(2); // one of alice's, carol's one
    expect(queue.ahead('carol')).toBe(1 + 2); // its own, then two turns of alice's
    expect(queue.ahead('alice')).toBe(10 + 1);
  });

  it('puts an account that starts waiting before the account served last, which had its turn', () => {
    const queue = new FairQueue<string>();
    for (let i = 0; i < 3; i++) queue.push('alice', `a${i}`);
    expect(queue.shift()).toBe('a0'); // alice's task runs; bob comes next, not alice's second
    expect(queue.ahead('bob')).toBe(0);
    queue.push('bob', 'b0');
    queue.push('carol', 'c0');
    expect(queue.ahead('dave')).toBe(2); // bob's and carol's, not alice's
    expect(queue.ahead('alice')).toBe(2 + 2); // its own two, bob's and carol's
    queue.push('bob', 'b1');
    expect([1, 2, 3, 4, 5, 6].map(() => queue.shift())).toEqual(['b0', 'c0', 'a1', 'b1', 'a2', undefined]);
  });
});

describe('WorkerPool', () => {
  let pool: WorkerPool | undefined;
  afterEach(async () => {
    await pool?.close();
    pool = undefined;
  });

  it("refuses what would wait too long by its own turn: one account's full line does not keep another out", async () => {
    pool = new WorkerPool({ workers: 1, deadlineMs: 10_000, waitMs: 2_000, maxQueuedPerAccount: 16, settings: { cacheBytes: 1 << 20, taskBytes: 8 << 20 } });
    // The line's pace: one task of a second (and the worker's start).
    await pool.runPrepared(slow(1_000), 'alice');

    // Alice queues until the pool refuses her: her next task would wait past 2 s.
    const alice: Promise<unknown>[] = [];
    let refused = false;
    for (let i = 0; i < 16 && !refused; i++) {
      const reply = pool.runPrepared(slow(300), 'alice');
      alice.push(reply.catch((error: unknown) => error));
      refused = (await Promise.race([reply.then(() => false, (e: unknown) => e instanceof WorkBusyError), sleep(0).then(() => false)])) === true;
    }
    expect(refused).toBe(true);

    // Bob's one task waits for the running one and one of Alice's, not for all of hers.
    const started = performance.now();
    let aliceSettled = 0;
    for (const reply of alice) void reply.then(() => aliceSettled++);
    await expect(pool.runPrepared(slow(300), 'bob')).resolves.toHaveProperty('bytes');
    expect(performance.now() - started).toBeLessThan(1_500);
    expect(aliceSettled).toBeLessThan(alice.length - 1);
    await Promise.all(alice);
  }, 30_000);
});

describe('a worker started from other code than the main thread', () => {
  it('refuses every task with a 503 that says to restart, rather than answer in another shape', async () => {
    // As after an upgrade in place: the main thread saw the worker's file as it was at its start.
    const target = JSON.stringify(new URL('../src/work/worker.ts', import.meta.url).href);
    const boot = `import('tsx/esm/api').then(({ register }) => { register(); return import(${target}); })`;
    const worker = new Worker(boot, { eval: true, workerData: { cacheBytes: 1 << 20, taskBytes: 8 << 20, code: 'the digest of another build' } });
    try {
      const task: QueryTask = { kind: 'query', uuid: 'silo-x', etag: '"e"', search: '', text: '[1]' };
      const reply = new Promise((resolve) => worker.once('message', resolve));
      worker.postMessage({ id: 7, task });
      expect(await reply).toEqual({ id: 7, failure: expect.objectContaining({ status: 503, message: expect.stringMatching(/changed while it ran.*restarted/) }) });
    } finally {
      await worker.terminate();
    }
  }, 30_000);
});
