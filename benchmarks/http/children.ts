/**
 * Server processes of the HTTP benchmarks: start one (same Node, tsx loader), wait for its
 * `{"ready": true, ...}` line, stop it with SIGTERM; and read its memory from /proc.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface Child<T> {
  name: string;
  proc: ChildProcess;
  pid: number;
  ready: T;
  /** The last lines the process wrote to stderr (for error messages). */
  stderr(): string;
  /** SIGTERM, then SIGKILL after `graceMs`. Resolves when the process has exited. */
  stop(graceMs?: number): Promise<void>;
}

export interface StartOptions {
  /** Node flags placed before `--import tsx` (e.g. `--cpu-prof`). */
  nodeArgs?: string[];
  timeoutMs?: number;
  env?: NodeJS.ProcessEnv;
}

/** `Child.stop` of `proc`: SIGTERM, then SIGKILL after `graceMs`; resolves once it has exited. */
export function stopper(proc: ChildProcess): (graceMs?: number) => Promise<void> {
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  return async (graceMs = 10_000) => {
    if (proc.exitCode !== null || proc.signalCode !== null) return;
    proc.kill('SIGTERM');
    const timer = setTimeout(() => proc.kill('SIGKILL'), graceMs);
    await exited;
    clearTimeout(timer);
  };
}

/** Runs `node [nodeArgs] --import tsx <script> [args]` and resolves with its ready line. */
export function startChild<T extends { ready: true; pid: number }>(
  name: string,
  script: string,
  args: string[],
  options: StartOptions = {},
): Promise<Child<T>> {
  const file = fileURLToPath(new URL(script, import.meta.url));
  const proc = spawn(process.execPath, [...(options.nodeArgs ?? []), '--import', 'tsx', file, ...args], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, NODE_ENV: 'production', ...options.env },
  });
  let errText = '';
  proc.stderr!.setEncoding('utf8');
  proc.stderr!.on('data', (chunk: string) => {
    errText = (errText + chunk).slice(-4000);
  });
  const stop = stopper(proc);

  return new Promise<Child<T>>((resolve, reject) => {
    let buffered = '';
    let done = false;
    const fail = (why: string) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      void stop(1000).then(() => reject(new Error(`${name}: ${why}${errText ? `\n${errText.trim()}` : ''}`)));
    };
    const timer = setTimeout(() => fail(`not ready within ${(options.timeoutMs ?? 120_000) / 1000} s`), options.timeoutMs ?? 120_000);
    proc.once('exit', (code, signal) => fail(`exited before it was ready (code ${code}, signal ${signal})`));
    proc.once('error', (err) => fail(err.message));
    proc.stdout!.setEncoding('utf8');
    proc.stdout!.on('data', (chunk: string) => {
      if (done) return;
      buffered += chunk;
      let nl: number;
      while ((nl = buffered.indexOf('\n')) >= 0) {
        const line = buffered.slice(0, nl).trim();
        buffered = buffered.slice(nl + 1);
        if (!line.startsWith('{')) continue;
        let parsed: unknown;
        try {
          parsed = JSON.parse(line);
        } catch {
          continue;
        }
        if (typeof parsed === 'object' && parsed !== null && (parsed as { ready?: unknown }).ready === true) {
          done = true;
          clearTimeout(timer);
          proc.stdout!.resume();
          resolve({ name, proc, pid: proc.pid!, ready: parsed as T, stderr: () => errText, stop });
          return;
        }
      }
    });
  });
}

export interface ProcMemory {
  /** Resident set size now, bytes. */
  rss: number;
  /** Peak resident set size since start or the last reset, bytes. */
  hwm: number;
}

/** VmRSS and VmHWM of a process (Linux), or undefined elsewhere. */
export function readMemory(pid: number): ProcMemory | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+)\\s+kB`, 'm').exec(status)?.[1] ?? NaN) * 1024;
    const rss = kb('VmRSS');
    const hwm = kb('VmHWM');
    return Number.isFinite(rss) && Number.isFinite(hwm) ? { rss, hwm } : undefined;
  } catch {
    return undefined;
  }
}

let ticksPerSecond: number | undefined;

/** CPU time (user + system) a process has used so far, in ms (Linux), or undefined elsewhere. */
export function readCpuMs(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which is in parentheses and may contain spaces).
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]); // utime, stime (fields 14 and 15 of stat)
    if (ticksPerSecond === undefined) {
      try {
        ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
      } catch {
        ticksPerSecond = 100;
      }
    }
    return Number.isFinite(ticks) ? (ticks * 1000) / ticksPerSecond : undefined;
  } catch {
    return undefined;
  }
}

/** Resets VmHWM to the current RSS (Linux ≥ 4.0: `echo 5 > /proc/<pid>/clear_refs`). */
export function resetPeak(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}
