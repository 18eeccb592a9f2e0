/**
 * A worker thread of the pool (pool.ts): runs one task at a time and answers with its result or
 * its failure. Query answers' bytes are moved, not copied, to the main thread.
 */
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { codeDigest } from './code-changed.js';
import { toFailure } from './failure.js';
import { TaskRunner } from './tasks.js';
import { fromWire, type WireTask } from './wire.js';
import { withoutSpannedText, type CheckedBody } from './body-check.js';

export interface WorkerSettings {
  cacheBytes: number;
  taskBytes: number;
}

/** What a worker is started with: its settings, and its file's digest as the main thread read it at load. */
export type WorkerData = WorkerSettings & { code: string };

export interface TaskMessage {
  id: number;
  task: WireTask;
}

export type ReplyMessage = { id: number; result: unknown } | { id: number; failure: ReturnType<typeof toFailure> };

/**
 * Bulk work yields the processor to the event loop: this thread's nice value is raised (Linux
 * schedules threads by their own nice values; /proc/thread-self names this thread's id). On a
 * busy 2-core machine a worker at full speed otherwise takes the main thread's turns, and every
 * small request waits for the scheduler.
 */
function lowerPriority(): void {
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').at(-1));
    if (Number.isSafeInteger(tid)) setPriority(tid, WORKER_NICE);
  } catch {
    // Not Linux, or not allowed: the work runs at the process's priority.
  }
}

/** Nice 10: half-way to the lowest; the event loop's thread keeps 0. */
const WORKER_NICE = 10;

lowerPriority();
const settings = workerData as WorkerData;
const runner = new TaskRunner(settings.cacheBytes, settings.taskBytes);
const port = parentPort!;

/**
 * A worker reads its code from disk when it starts, which may be long after the main thread
 * read its own: files replaced under a running server (an upgrade in place) would give this
 * thread other code than the one that talks to it, and answers of another shape (a 500 for every
 * large body, once). Such a worker refuses every task, saying why, rather than answer wrongly.
 */
const codeChanged = settings.code !== codeDigest(import.meta.url);
const CODE_CHANGED = {
  status: 503,
  message: "The server's files changed while it ran (an upgrade in place): it must be restarted",
  headers: { 'Retry-After': '30' },
};

port.on('message', ({ id, task: wire }: TaskMessage) => {
  if (codeChanged) return port.postMessage({ id, failure: CODE_CHANGED } satisfies ReplyMessage);
  const task = fromWire(wire);
  runner.run(task).then(
    (done) => {
      // A checked body's data goes back as where it lies in the body, which the main thread has.
      const result = task.kind === 'body' ? withoutSpannedText(done as CheckedBody) : done;
      const bytes = (result as { bytes?: Uint8Array }).bytes;
      port.postMessage({ id, result } satisfies ReplyMessage, bytes ? [bytes.buffer as ArrayBuffer] : []);
    },
    (error: unknown) => port.postMessage({ id, failure: toFailure(error) } satisfies ReplyMessage),
  );
});
