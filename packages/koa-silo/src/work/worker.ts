/**
 * A worker thread of the pool (pool.ts): runs one task at a time and answers with its result or
 * its failure. Query answers' bytes are moved, not copied, to the main thread.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { toFailure } from './failure.js';
import { TaskRunner, type Task } from './tasks.js';

export interface WorkerSettings {
  cacheBytes: number;
  taskBytes: number;
}

export interface TaskMessage {
  id: number;
  task: Task;
}

export type ReplyMessage = { id: number; result: unknown } | { id: number; failure: ReturnType<typeof toFailure> };

const settings = workerData as WorkerSettings;
const runner = new TaskRunner(settings.cacheBytes, settings.taskBytes);
const port = parentPort!;

port.on('message', ({ id, task }: TaskMessage) => {
  runner.run(task).then(
    (result) => {
      const bytes = (result as { bytes?: Uint8Array }).bytes;
      port.postMessage({ id, result } satisfies ReplyMessage, bytes ? [bytes.buffer as ArrayBuffer] : []);
    },
    (error: unknown) => port.postMessage({ id, failure: toFailure(error) } satisfies ReplyMessage),
  );
});
