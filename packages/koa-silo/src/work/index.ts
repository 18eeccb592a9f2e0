/**
 * Work that grows with a silo's size, off the event loop (contract §17): the face the service and
 * the HTTP layer use. Small work runs inline, where a thread hop would cost more than the work
 * (below INLINE_CHARS: a parse of 64 KB takes about a third of a millisecond); large work runs on
 * the worker pool (pool.ts) in its account's turn, with deadlines and a capped heap.
 */
import { appendOnly, type Patched, type PatchLimits } from '../service/silo-patch.js';
import type { SiloPatch } from '../model/index.js';
import { withSpannedText, type BodyShape, type CheckedBody } from './body-check.js';
import { WorkerPool, type PoolOptions } from './pool.js';
export type { WorkObserver } from './pool.js';
import { TaskRunner, type PatchDone, type PatchTask } from './tasks.js';
import { INLINE_CHARS } from '../limits/inline-work.js';

export { checkBody, parseBodyJson, nestingDepth, type BodyShape, type CheckedBody } from './body-check.js';
export { WorkBusyError, WorkFailedError } from './pool.js';
export { WorkTooLargeError } from './tasks.js';

export { INLINE_CHARS } from '../limits/inline-work.js';

export interface WorkOptions {
  /** Worker threads. */
  workers: number;
  deadlineMs: number;
  waitMs: number;
  maxQueuedPerAccount: number;
  /** Parsed data the workers keep, in all (split between them). */
  cacheBytes: number;
  /** Heap one task may take to parse its data (estimated). */
  taskBytes: number;
  onWorkerLost?: PoolOptions['onWorkerLost'];
  /** Told of task times and refusals (metrics). */
  observer?: PoolOptions['observer'];
  /** Charges `bytes` of text held for a worker to the memory budget (it may wait, or refuse with a 503). */
  charge?: (bytes: number) => Promise<{ release(): void }>;
}

/** A query's answer: its JSON bytes, the version it is of, and (a list query) the matches before offset and limit. */
export interface QueryAnswer {
  bytes: Buffer;
  etag: string;
  total?: number;
}

/** A silo's text and the version it is of. */
export interface LoadedText {
  text: string;
  etag: string;
}

export interface Work {
  /** Whether work on a text of `chars` characters runs inline. */
  inline(chars: number): boolean;
  /**
   * A request body checked and taken apart (body-check.ts). A patch body of the silo `patchOf`
   * that is checked on a worker is kept parsed there: `kept` names it for the SiloPatch, so
   * that the patch that follows does not parse it again.
   */
  checkBody(account: string, shape: BodyShape, text: string, maxDepth: number, maxOperations: number, patchOf?: string): Promise<CheckedBody & { kept?: string }>;
  /**
   * The JSON bytes of the query `search` over a silo's data of `size` bytes at version `etag` (or
   * a newer one, named in the answer, when storage no longer had it); `load` gives the data's
   * text, called only when the silo's worker holds no parse of that version, and charged until
   * the worker has it.
   */
  query(account: string, uuid: string, etag: string, size: number, search: string, load: () => Promise<LoadedText>): Promise<QueryAnswer>;
  /** `patch` applied to the silo's document at version `etag` whose data is `text`. */
  patch(account: string, uuid: string, etag: string, record: PatchTask['record'], text: string, patch: SiloPatch, limits: PatchLimits): Promise<Patched>;
  /** Tasks waiting for a worker, and tasks running (metrics). */
  stats(): { queued: number; running: number };
  close(): Promise<void>;
}

export function createWork(options: WorkOptions): Work {
  const workers = Math.max(1, options.workers);
  const pool = new WorkerPool({
    workers,
    deadlineMs: options.deadlineMs,
    waitMs: options.waitMs,
    maxQueuedPerAccount: options.maxQueuedPerAccount,
    settings: { cacheBytes: Math.floor(options.cacheBytes / workers), taskBytes: options.taskBytes },
    ...(options.onWorkerLost ? { onWorkerLost: options.onWorkerLost } : {}),
    ...(options.observer ? { observer: options.observer } : {}),
  });
  // Inline work keeps no cache: small data parses in well under a millisecond.
  const inlineRunner = new TaskRunner(0, options.taskBytes);
  const inline = (chars: number) => chars < INLINE_CHARS;
  const charge = options.charge ?? (async () => ({ release: () => undefined }));
  /** `work` with `bytes` of text charged while it runs (the text held for, and copied to, its worker). */
  const charged = async <T>(bytes: number, work: () => Promise<T>): Promise<T> => {
    const reservation = await charge(bytes);
    try {
      return await work();
    } finally {
      reservation.release();
    }
  };
  // Keys of patch bodies' parses kept on workers (BodyTask.keep).
  let nextKept = 1;
  // Cold queries of one silo version share one load and one parse: the others wait for it.
  const warming = new Map<string, Promise<unknown>>();

  return {
    inline,

    async checkBody(account, shape, text, maxDepth, maxOperations, patchOf) {
      const task = { kind: 'body', shape, text, maxDepth, maxOperations } as const;
      if (inline(text.length)) return inlineRunner.run(task);
      if (patchOf === undefined || (shape !== 'json-patch' && shape !== 'merge-patch')) {
        return withSpannedText(await pool.run(task, account), text);
      }
      // On the worker the patch will run on (its silo's), which keeps the parse for it.
      const kept = String(nextKept++);
      const checked = await pool.run({ ...task, keep: kept }, account, pool.laneOf(patchOf));
      return checked.issues.length > 0 ? checked : { ...checked, kept };
    },

    async query(account, uuid, etag, size, search, load) {
      const lane = pool.laneOf(uuid);
      const key = `${uuid}\n${etag}`;
      const pending = warming.get(key);
      if (pending) await pending.catch(() => undefined);
      if (lane.holding.get(uuid) === etag) {
        const done = await pool.run({ kind: 'query', uuid, etag, search }, account, lane);
        if ('bytes' in done) return answerOf(done, etag);
      }
      // The text is loaded when the task's turn comes, charged (UTF-16 may take two bytes a
      // character, and the worker's copy is made while this one lives) until the worker is done.
      let loadedEtag = etag;
      const run = pool
        .runPrepared(
          async () => {
            const reservation = await charge(2 * size);
            try {
              const loaded = await load();
              loadedEtag = loaded.etag;
              lane.holding.set(uuid, loaded.etag);
              return { task: { kind: 'query', uuid, etag: loaded.etag, search, text: loaded.text } as const, release: () => reservation.release() };
            } catch (error) {
              reservation.release();
              throw error;
            }
          },
          account,
          lane,
        )
        .then((done) => ({ done, etag: loadedEtag }));
      if (!warming.has(key)) {
        warming.set(key, run);
        void run.catch(() => undefined).finally(() => warming.delete(key));
      }
      const { done, etag: version } = await run;
      if (!('bytes' in done)) throw new Error('a worker was given a silo text and asked for it again');
      return answerOf(done, version);
    },

    async patch(account, uuid, etag, record, text, patch, limits) {
      const patchChars = 'text' in patch ? patch.text.length : 0;
      if (!('text' in patch) || inline(text.length + patchChars)) {
        return patchedOf(await inlineRunner.patch({ kind: 'patch', uuid, etag, record, text, patch, limits }));
      }
      // An append to a large silo parses only its small patch, here, and splices the text.
      const appended = inline(patchChars) ? appendOnly(record, text, patch) : undefined;
      if (appended) return appended;
      const lane = pool.laneOf(uuid);
      const run = (sent: PatchTask['patch']) => pool.run({ kind: 'patch', uuid, etag, record, text, patch: sent, limits } as const, account, lane);
      return charged(2 * (text.length + patchChars), async () => {
        // The worker that checked the body may still hold its parse; if it does not, the text goes.
        const done = patch.kept === undefined ? undefined : await run({ type: patch.type, kept: patch.kept });
        return patchedOf(done === undefined || 'miss' in done ? await run({ type: patch.type, text: patch.text }) : done);
      });
    },

    stats: () => pool.stats(),
    close: () => pool.close(),
  };
}

/** A patch task's result, which is never a miss when the patch's text was sent. */
function patchedOf(done: PatchDone): Patched {
  if ('miss' in done) throw new Error('a worker was given a patch text and asked for it again');
  return done;
}

/** A worker's answer, its bytes as a Buffer over the same memory (no copy). */
function answerOf(done: { bytes: Uint8Array; total?: number }, etag: string): QueryAnswer {
  const bytes = Buffer.from(done.bytes.buffer, done.bytes.byteOffset, done.bytes.byteLength);
  return done.total === undefined ? { bytes, etag } : { bytes, etag, total: done.total };
}
