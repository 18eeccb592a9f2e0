/**
 * The worker pool: threads that run the tasks of tasks.ts, so that parsing, querying, patching
 * and validating large data never holds the event loop that serves every other request.
 *
 * Built on worker_threads rather than piscina for two things piscina's single queue does not do:
 * - affinity: a silo's work goes to one worker (by its uuid), which keeps its parsed data, so a
 *   second query of a 10 MB silo does not parse it again;
 * - fair shares: each worker's queue takes turns between accounts (fair-queue.ts), and an account
 *   may have only so many tasks waiting, so one account cannot hold the pool while others wait.
 *
 * Every task has two deadlines: it waits in line at most `waitMs` (then 503 with Retry-After,
 * nothing done), and runs at most `deadlineMs` (then its worker is terminated, the task answers
 * 503, and a new worker starts for the next task). A worker's heap is capped by V8
 * (`maxOldGenerationSizeMb`): should an estimate be wrong, the worker dies of it, not the server.
 * Workers start when first needed and do not keep the process alive.
 */
import { Worker } from 'node:worker_threads';
import { SiloError } from '../model/index.js';
import { FairQueue } from './fair-queue.js';
import { fromFailure } from './failure.js';
import type { Task, TaskResult } from './tasks.js';
import { codeDigest } from './code-changed.js';
import type { ReplyMessage, TaskMessage, WorkerData, WorkerSettings } from './worker.js';
import { toWire } from './wire.js';

export interface PoolOptions {
  workers: number;
  /** Longest a task may run. */
  deadlineMs: number;
  /** Longest a task may wait for its worker. */
  waitMs: number;
  /** Tasks one account may have waiting on one worker. */
  maxQueuedPerAccount: number;
  /** Each worker's parsed-data cache and per-task heap. */
  settings: WorkerSettings;
  /** Told of a worker that died or was stopped (never of a task's own failure). */
  onWorkerLost?: (reason: string, error?: unknown) => void;
  /** Told of each task's time on its worker and of each task refused for a full line (metrics). */
  observer?: WorkObserver;
}

/** What metrics hear of the pool. Must not throw. */
export interface WorkObserver {
  /** A task ran `seconds` on its worker; `ok`: it answered (its own failure included), else its worker was lost under it. */
  task(seconds: number, ok: boolean): void;
  /** A task was refused (503) for a line too long, or waited past its limit. */
  refused(): void;
}

/** 503: the pool's line was too long for this request (it waited, or its account has too many waiting). */
export class WorkBusyError extends SiloError {
  constructor(retryAfterSeconds: number) {
    super(503, `The server is busy with other large requests: retry in ${retryAfterSeconds} s`, { 'Retry-After': String(retryAfterSeconds) });
  }
}

/** 503: the task ran past its deadline (its worker was stopped) or its worker died under it. */
export class WorkFailedError extends SiloError {
  constructor(message: string) {
    super(503, message, { 'Retry-After': '5' });
  }
}

/**
 * A task made when its turn comes, with what it holds (a silo's text, charged to the memory
 * budget) given back once it has run: a task waiting in line holds nothing.
 */
export type Prepare<T extends Task> = () => Promise<{ task: T; release(): void }>;

interface Job {
  id: number;
  prepare: Prepare<Task>;
  account: string;
  resolve(value: unknown): void;
  reject(error: Error): void;
  timer?: NodeJS.Timeout;
}

const MB = 1024 * 1024;
/** Heap a worker needs beside its cache and task: code, ajv's compiled schemas, the result text. */
const WORKER_BASE_BYTES = 64 * MB;

let nextId = 1;

/** One worker and its line. */
class Lane {
  private worker: Worker | undefined;
  private running: Job | undefined;
  private readonly queue = new FairQueue<Job>();
  /** The silo versions this lane's worker was given to parse (it may have evicted some since). */
  readonly holding = new Map<string, string>();
  private closed = false;
  /** Recent time a task takes on this lane, in ms (a moving average). */
  private pace = 0;
  private startedAt = 0;

  constructor(private readonly options: PoolOptions) {}

  get load(): number {
    return this.queue.size + (this.running ? 1 : 0);
  }

  /** Tasks waiting in this lane's line. */
  get queued(): number {
    return this.queue.size;
  }

  submit(job: Job): void {
    if (this.closed) return job.reject(new WorkFailedError('The server is shutting down'));
    const refuse = (seconds: number) => {
      this.options.observer?.refused();
      job.reject(new WorkBusyError(seconds));
    };
    if (this.queue.sizeOf(job.account) >= this.options.maxQueuedPerAccount) return refuse(1);
    // A task that would wait past waitMs (at the recent pace) is refused now, not after waiting:
    // the line stays short, so whoever retries gets a fair chance at it. What it would wait for is
    // what is served before it in turn, not the whole line: another account's long line does not
    // keep this account out.
    const waitMs = (this.queue.ahead(job.account) + (this.running ? 1 : 0)) * this.pace;
    if (waitMs > this.options.waitMs) return refuse(Math.max(1, Math.ceil(waitMs / 1000)));
    job.timer = setTimeout(() => {
      if (this.queue.remove(job.account, job)) refuse(Math.max(1, Math.ceil(this.options.waitMs / 1000)));
    }, this.options.waitMs);
    this.queue.push(job.account, job);
    this.pump();
  }

  close(): Promise<void> {
    this.closed = true;
    for (let job = this.queue.shift(); job; job = this.queue.shift()) {
      clearTimeout(job.timer);
      job.reject(new WorkFailedError('The server is shutting down'));
    }
    const running = this.running;
    if (running) this.lose(new WorkFailedError('The server is shutting down'));
    const worker = this.worker;
    this.worker = undefined;
    return worker ? worker.terminate().then(() => undefined) : Promise.resolve();
  }

  private pump(): void {
    if (this.running || this.closed) return;
    const job = this.queue.shift();
    if (!job) return;
    clearTimeout(job.timer);
    this.running = job;
    this.startedAt = performance.now();
    job.prepare().then(
      async ({ task, release }) => {
        // Given back once the task has run (or failed): its worker has its own copy by then.
        const settle = { resolve: job.resolve, reject: job.reject };
        job.resolve = (value) => (release(), settle.resolve(value));
        job.reject = (error) => (release(), settle.reject(error));
        if (this.running !== job) return job.reject(new WorkFailedError('The server is shutting down'));
        const worker = this.ensureWorker();
        job.timer = setTimeout(() => {
          this.lose(new WorkFailedError(`The request's work took longer than ${this.options.deadlineMs} ms and was stopped`));
        }, this.options.deadlineMs);
        // Its text moved as bytes, encoded in turns: a string would be copied in one piece here.
        let wire: Awaited<ReturnType<typeof toWire>>;
        try {
          wire = await toWire(task);
        } catch (error) {
          if (this.running === job) this.lose(error instanceof Error ? error : new Error(String(error)));
          return;
        }
        if (this.running !== job || this.worker !== worker) return; // lost or closed meanwhile: settled there
        worker.postMessage({ id: job.id, task: wire.task } satisfies TaskMessage, wire.transfer);
      },
      (error: unknown) => {
        if (this.running === job) this.running = undefined;
        job.reject(error instanceof Error ? error : new Error(String(error)));
        this.pump();
      },
    );
  }

  private ensureWorker(): Worker {
    if (this.worker) return this.worker;
    const worker = spawn(this.options.settings);
    worker.unref();
    worker.on('message', (reply: ReplyMessage) => this.settle(worker, reply));
    worker.on('error', (error) => this.died(worker, error));
    worker.on('exit', (code) => this.died(worker, new Error(`exited with code ${code}`)));
    this.worker = worker;
    return worker;
  }

  private settle(worker: Worker, reply: ReplyMessage): void {
    const job = this.running;
    if (worker !== this.worker || !job || job.id !== reply.id) return;
    clearTimeout(job.timer);
    this.running = undefined;
    const took = performance.now() - this.startedAt;
    this.pace = 0.8 * this.pace + 0.2 * took;
    this.options.observer?.task(took / 1000, true);
    if ('failure' in reply) job.reject(fromFailure(reply.failure));
    else job.resolve(reply.result);
    this.pump();
  }

  /** The worker died by itself (out of memory, a crash): its task fails, the next one gets a new worker. */
  private died(worker: Worker, error: Error): void {
    if (worker !== this.worker) return;
    this.worker = undefined;
    this.holding.clear();
    this.options.onWorkerLost?.('died', error);
    const job = this.running;
    this.running = undefined;
    if (job) {
      clearTimeout(job.timer);
      this.options.observer?.task((performance.now() - this.startedAt) / 1000, false);
      job.reject(new WorkFailedError('The request needed more memory than the server allows one request'));
    }
    this.pump();
  }

  /** Stops the running task's worker (past its deadline, or closing): the task fails with `error`. */
  private lose(error: Error): void {
    const job = this.running;
    const worker = this.worker;
    this.running = undefined;
    this.worker = undefined;
    this.holding.clear();
    if (worker) {
      this.options.onWorkerLost?.('stopped', error);
      void worker.terminate();
    }
    if (job) {
      clearTimeout(job.timer);
      this.options.observer?.task((performance.now() - this.startedAt) / 1000, false);
      job.reject(error);
    }
    this.pump();
  }
}

/** A worker running worker.ts: compiled JavaScript, or the TypeScript sources through tsx (tests run the sources). */
/** The worker's module: compiled JavaScript, or the TypeScript source (tests run the sources). */
const WORKER_URL = new URL(import.meta.url.endsWith('.ts') ? './worker.ts' : './worker.js', import.meta.url);
/** Its digest as this thread loads: a worker started from other code refuses its tasks. */
const WORKER_CODE = codeDigest(WORKER_URL.href);

function spawn(settings: WorkerSettings): Worker {
  const heapMb = Math.ceil((settings.cacheBytes + settings.taskBytes + WORKER_BASE_BYTES) / MB);
  const workerData: WorkerData = { ...settings, code: WORKER_CODE };
  const options = { workerData, resourceLimits: { maxOldGenerationSizeMb: heapMb } };
  if (!import.meta.url.endsWith('.ts')) return new Worker(WORKER_URL, options);
  const target = JSON.stringify(WORKER_URL.href);
  const boot = `import('tsx/esm/api').then(({ register }) => { register(); return import(${target}); })`;
  return new Worker(boot, { ...options, eval: true });
}

/** FNV-1a of a silo's uuid: which worker keeps its parsed data. */
function hashOf(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

export class WorkerPool {
  private readonly lanes: Lane[];

  constructor(options: PoolOptions) {
    this.lanes = Array.from({ length: Math.max(1, options.workers) }, () => new Lane(options));
  }

  /** Tasks waiting in every line, and tasks running. */
  stats(): { queued: number; running: number } {
    let queued = 0;
    let running = 0;
    for (const lane of this.lanes) {
      queued += lane.queued;
      running += lane.load - lane.queued;
    }
    return { queued, running };
  }

  /** The lane of `affinity` (a silo's uuid), or the least loaded one. */
  laneOf(affinity?: string): Lane {
    if (affinity !== undefined) return this.lanes[hashOf(affinity) % this.lanes.length]!;
    return this.lanes.reduce((best, lane) => (lane.load < best.load ? lane : best));
  }

  /** Runs `task` on `lane` (default: the least loaded) in `account`'s turn. */
  run<T extends Task>(task: T, account: string, lane: Lane = this.laneOf()): Promise<TaskResult<T>> {
    return this.runPrepared(async () => ({ task, release: () => undefined }), account, lane);
  }

  /** Runs the task `prepare` makes when its turn comes on `lane`, in `account`'s turn. */
  runPrepared<T extends Task>(prepare: Prepare<T>, account: string, lane: Lane = this.laneOf()): Promise<TaskResult<T>> {
    return new Promise<TaskResult<T>>((resolve, reject) => {
      lane.submit({ id: nextId++, prepare, account, resolve: resolve as (value: unknown) => void, reject });
    });
  }

  async close(): Promise<void> {
    await Promise.all(this.lanes.map((lane) => lane.close()));
  }
}

export type { Lane };
