/**
 * Child processes that reliability tests start (silo servers, redis-servers, the silo command):
 * every one is registered here so that a failing test still stops it, and so that the test
 * process never leaves one behind even when it exits abruptly.
 */
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';

const live = new Set<ChildProcess>();

process.once('exit', () => {
  for (const child of live) child.kill('SIGKILL');
});

export interface Spawned {
  child: ChildProcess;
  /** Everything the process wrote to stdout and stderr so far, in order. */
  output(): string;
  /** Resolves with the exit code (or signal) once the process has exited. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  alive(): boolean;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves once the process is gone. Idempotent. */
  stop(graceMs?: number): Promise<void>;
  /** SIGKILL at once (a crash); resolves once the process is gone. */
  kill9(): Promise<void>;
  /** Resolves with the first output match of `pattern`; rejects on exit or after `timeoutMs`. */
  waitFor(pattern: RegExp, timeoutMs: number): Promise<RegExpExecArray>;
}

export function spawnTracked(command: string, args: string[], options: SpawnOptions = {}): Spawned {
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], ...options });
  live.add(child);
  let text = '';
  const waiters = new Set<() => void>();
  const onData = (chunk: Buffer) => {
    text += chunk.toString('utf8');
    for (const wake of waiters) wake();
  };
  child.stdout?.on('data', onData);
  child.stderr?.on('data', onData);
  let gone = false;
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => {
      gone = true;
      live.delete(child);
      for (const wake of waiters) wake();
      resolve({ code, signal });
    });
    child.once('error', () => {
      gone = true;
      live.delete(child);
      for (const wake of waiters) wake();
      resolve({ code: null, signal: null });
    });
  });

  const kill = async (signal: NodeJS.Signals) => {
    if (gone) return;
    child.kill(signal);
    await exited;
  };

  return {
    child,
    output: () => text,
    exited,
    alive: () => !gone,
    async stop(graceMs = 3000) {
      if (gone) return;
      child.kill('SIGTERM');
      const done = await Promise.race([exited.then(() => true), sleep(graceMs).then(() => false)]);
      if (!done) await kill('SIGKILL');
    },
    kill9: () => kill('SIGKILL'),
    waitFor(pattern, timeoutMs) {
      return new Promise((resolve, reject) => {
        const deadline = setTimeout(() => finish(new Error(`no ${pattern} within ${timeoutMs} ms; output:\n${text.slice(-2000)}`)), timeoutMs);
        const check = () => {
          const m = pattern.exec(text);
          if (m) return finish(undefined, m);
          if (gone) finish(new Error(`process exited before printing ${pattern}; output:\n${text.slice(-2000)}`));
        };
        const finish = (error?: Error, m?: RegExpExecArray) => {
          clearTimeout(deadline);
          waiters.delete(check);
          if (error) reject(error);
          else resolve(m!);
        };
        waiters.add(check);
        check();
      });
    },
  };
}
