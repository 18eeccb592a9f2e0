/**
 * A large patch is parsed once: the worker that checks its body keeps the parse for the patch task
 * that follows (work/tasks.ts). Before, a 10 MB JSON Patch was parsed twice, once by the check
 * and once by the patch, which made the isolation test's first refusal of one take 1.9 s of its 2.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { SiloPatch } from '../src/model/index.js';
import { createWork, INLINE_CHARS, type Work } from '../src/work/index.js';
import { TaskRunner, type PatchDone, type PatchTask } from '../src/work/tasks.js';

const record = { file_name: 'f', region_name: 'api' as const, is_public: false, size: 10 };
const limits = { maxDataBytes: 50_000_000, maxDepth: 1000 };
const STORED = '{"a":1}';

const bodyTask = (text: string, keep: string) => ({ kind: 'body', shape: 'json-patch', text, maxDepth: 1000, maxOperations: 1000, keep }) as const;
const patchTask = (patch: PatchTask['patch']): PatchTask => ({ kind: 'patch', uuid: 'u', etag: '"1"', record, text: STORED, patch, limits });
const kept = (key: string): PatchTask['patch'] => ({ type: 'json-patch', kept: key });
const textOf = (done: PatchDone) => ('miss' in done ? 'miss' : done.text);

describe("a worker's kept parse of a checked patch body", () => {
  afterEach(() => vi.useRealTimers());

  it('is applied by the patch task that names it, once, with numbers as written', async () => {
    const runner = new TaskRunner(1 << 20, 1 << 20);
    const checked = await runner.run(bodyTask('[{"op":"add","path":"/file_data/b","value":1.0}]', 'k1'));
    expect(checked.issues).toEqual([]);
    expect(textOf(await runner.run(patchTask(kept('k1'))))).toBe('{"a":1,"b":1.0}');
    // Taken: the next task of that name is told to send the text.
    expect(await runner.run(patchTask(kept('k1')))).toEqual({ miss: true });
  });

  it('serves a merge patch as well', async () => {
    const runner = new TaskRunner(1 << 20, 1 << 20);
    await runner.run({ ...bodyTask('{"file_data":{"b":2.50}}', 'm'), shape: 'merge-patch' });
    expect(textOf(await runner.run(patchTask({ type: 'merge', kept: 'm' })))).toBe('{"a":1,"b":2.50}');
  });

  it('is not kept for a body with problems, and only the latest is kept', async () => {
    const runner = new TaskRunner(1 << 20, 1 << 20);
    expect((await runner.run(bodyTask('[{"op":"nope","path":"/x"}]', 'bad'))).issues).not.toEqual([]);
    expect(await runner.run(patchTask(kept('bad')))).toEqual({ miss: true });
    await runner.run(bodyTask('[{"op":"add","path":"/file_data/b","value":2}]', 'first'));
    await runner.run(bodyTask('[{"op":"add","path":"/file_data/c","value":3}]', 'second'));
    expect(await runner.run(patchTask(kept('first')))).toEqual({ miss: true });
    expect(textOf(await runner.run(patchTask(kept('second'))))).toBe('{"a":1,"c":3}');
  });

  it('is dropped when its patch does not come (a request that failed between the two)', async () => {
    vi.useFakeTimers();
    const runner = new TaskRunner(1 << 20, 1 << 20);
    await runner.run(bodyTask('[{"op":"add","path":"/file_data/b","value":2}]', 'late'));
    vi.advanceTimersByTime(10_001);
    expect(await runner.run(patchTask(kept('late')))).toEqual({ miss: true });
  });
});

describe('Work: a large patch checked on a worker', () => {
  let work: Work | undefined;
  afterEach(async () => {
    await work?.close();
    work = undefined;
  });

  const large = JSON.stringify([{ op: 'add', path: '/file_data/big', value: 'x'.repeat(INLINE_CHARS) }]);

  it('is applied from the kept parse, or from its text when the worker no longer has it', async () => {
    work = createWork({ workers: 1, deadlineMs: 10_000, waitMs: 10_000, maxQueuedPerAccount: 8, cacheBytes: 64 << 20, taskBytes: 64 << 20 });
    const checked = await work.checkBody('alice', 'json-patch', large, 1000, 1000, 'u');
    expect(checked.kept).toBeDefined();
    const patch: SiloPatch = { type: 'json-patch', text: large, kept: checked.kept! };
    const expected = `{"a":1,"big":"${'x'.repeat(INLINE_CHARS)}"}`;
    expect((await work.patch('alice', 'u', '"1"', record, STORED, patch, limits)).text).toBe(expected);
    // Taken by that patch: the same patch again goes with its text.
    expect((await work.patch('alice', 'u', '"1"', record, STORED, patch, limits)).text).toBe(expected);
    // A body of another shape, or checked without its silo, keeps nothing.
    expect((await work.checkBody('alice', 'json-patch', large, 1000, 1000)).kept).toBeUndefined();
    expect((await work.checkBody('alice', 'update', `{"file_data":${large}}`, 1000, 1000, 'u')).kept).toBeUndefined();
  });
});

describe("a worker's parses of silos", () => {
  afterEach(() => vi.useRealTimers());

  const query = (text?: string) => ({ kind: 'query', uuid: 'q', etag: '"1"', search: 'idx=0', ...(text === undefined ? {} : { text }) }) as const;

  it('are kept while queried, and let go 5 to 10 s after the last query (held, they cost every collection of the heap)', async () => {
    vi.useFakeTimers();
    const runner = new TaskRunner(1 << 20, 1 << 20);
    expect('bytes' in (await runner.run(query('[{"a":1}]')))).toBe(true);
    for (let i = 0; i < 5; i++) {
      vi.advanceTimersByTime(4_000);
      expect('bytes' in (await runner.run(query())), `queried again after ${4 * (i + 1)} s`).toBe(true);
    }
    vi.advanceTimersByTime(10_000);
    expect(await runner.run(query())).toEqual({ miss: true });
  });
});
