/**
 * The subscriber processes of the events benchmark, driven as one: N streams split across a few
 * forked processes (subscribers.ts), each answering one command at a time.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Command, Reply, Stats } from './protocol.js';

const SCRIPT = fileURLToPath(new URL('./subscribers.ts', import.meta.url));

class SubscriberProcess {
  readonly #child: ChildProcess;
  readonly #waiting: ((reply: Reply) => void)[] = [];
  readonly #exited: Promise<void>;

  constructor() {
    // The TypeScript source through tsx, like the benchmark itself.
    this.#child = fork(SCRIPT, [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    this.#child.on('message', (reply: Reply) => this.#waiting.shift()?.(reply));
    this.#exited = new Promise((resolve) => this.#child.once('exit', () => resolve()));
    this.#child.once('exit', (code) => {
      for (const wake of this.#waiting.splice(0)) wake({ type: 'error', message: `subscriber process exited (${code})` });
    });
  }

  async ask<T extends Reply['type']>(command: Command, expect: T): Promise<Extract<Reply, { type: T }>> {
    const reply = await new Promise<Reply>((resolve) => {
      this.#waiting.push(resolve);
      this.#child.send(command);
    });
    if (reply.type === 'error') throw new Error(reply.message);
    if (reply.type !== expect) throw new Error(`expected ${expect} from a subscriber process, got ${reply.type}`);
    return reply as Extract<Reply, { type: T }>;
  }

  async stop(): Promise<void> {
    if (this.#child.exitCode !== null || this.#child.signalCode !== null) return;
    this.#child.disconnect();
    const timer = setTimeout(() => this.#child.kill('SIGKILL'), 5000);
    await this.#exited;
    clearTimeout(timer);
  }
}

export interface OpenResult {
  opened: number;
  failed: number;
  firstError?: string;
  /** Wall time until every process had its streams open, ms. */
  ms: number;
}

export class Fleet {
  readonly #procs: SubscriberProcess[];

  constructor(processes: number) {
    this.#procs = Array.from({ length: processes }, () => new SubscriberProcess());
  }

  /** Opens `count` streams on `path`, split evenly; throws unless every one of them opened. */
  async open(port: number, path: string, count: number, record: boolean): Promise<OpenResult> {
    const started = performance.now();
    const n = this.#procs.length;
    const replies = await Promise.all(
      this.#procs.map((p, i) => p.ask({ type: 'open', port, path, count: Math.floor(count / n) + (i < count % n ? 1 : 0), record }, 'opened')),
    );
    const result: OpenResult = {
      opened: replies.reduce((s, r) => s + r.opened, 0),
      failed: replies.reduce((s, r) => s + r.failed, 0),
      ms: performance.now() - started,
    };
    const firstError = replies.find((r) => r.firstError)?.firstError;
    if (firstError) result.firstError = firstError;
    if (result.failed > 0) throw new Error(`${result.failed} of ${count} streams did not open (first: ${firstError})`);
    return result;
  }

  /** For each version, every stream's arrival time (null: never arrived), all processes together. */
  async times(versions: number[]): Promise<(number | null)[][]> {
    const replies = await Promise.all(this.#procs.map((p) => p.ask({ type: 'times', versions }, 'times')));
    return versions.map((_, v) => replies.flatMap((r) => r.times[v]!));
  }

  async stats(): Promise<Stats> {
    const replies = await Promise.all(this.#procs.map((p) => p.ask({ type: 'stats' }, 'stats')));
    return replies.reduce((s, r) => ({ open: s.open + r.stats.open, ended: s.ended + r.stats.ended, events: s.events + r.stats.events }), { open: 0, ended: 0, events: 0 });
  }

  async close(): Promise<void> {
    await Promise.all(this.#procs.map((p) => p.ask({ type: 'close' }, 'closed')));
  }

  async stop(): Promise<void> {
    await Promise.all(this.#procs.map((p) => p.stop()));
  }
}
