/**
 * Spawning the real `silo` command (packages/silo-server/bin/silo.js over dist/) in tests:
 * bounded in time, loopback only, every process killed and every directory removed afterwards.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const SILO_BIN = path.join(ROOT, 'packages/silo-server/bin/silo.js');
const DIST_CLI = path.join(ROOT, 'packages/silo-server/dist/cli.js');

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(p) : fs.statSync(p).mtimeMs);
  }
  return newest;
}

function stale(): boolean {
  return ['silo-query', 'koa-silo', 'silo-server'].some((p) => {
    const info = path.join(ROOT, 'packages', p, 'tsconfig.tsbuildinfo');
    return !fs.existsSync(info) || newestMtime(path.join(ROOT, 'packages', p, 'src')) > fs.statSync(info).mtimeMs;
  });
}

const pause = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

/**
 * The command runs from dist/: `npm test` builds it first (`tsc -b`). When vitest is run alone and
 * a build is missing or older than its sources, build once here; test files run in parallel, so a
 * lock file keeps two builds from writing the same outputs at once.
 */
export function ensureBuilt(): void {
  if (!stale() && fs.existsSync(DIST_CLI)) return;
  const lock = path.join(os.tmpdir(), `silo-build-${Buffer.from(ROOT).toString('base64url').slice(-24)}.lock`);
  const deadline = Date.now() + 120_000;
  for (;;) {
    try {
      fs.closeSync(fs.openSync(lock, 'wx'));
      break;
    } catch {
      // Another test file is building; a lock older than two minutes is left over from a crash.
      try {
        if (Date.now() - fs.statSync(lock).mtimeMs > 120_000) fs.rmSync(lock, { force: true });
      } catch {
        // Gone already.
      }
      if (Date.now() > deadline) throw new Error(`timed out waiting for the build lock ${lock}`);
      pause(100);
    }
  }
  try {
    if (stale() || !fs.existsSync(DIST_CLI)) {
      execFileSync(process.execPath, [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '-b'], { cwd: ROOT, stdio: 'inherit', timeout: 120_000 });
    }
  } finally {
    fs.rmSync(lock, { force: true });
  }
}

const children = new Set<ChildProcess>();
const dirs = new Set<string>();

/** A fresh temporary directory, removed by `cleanup()`. */
export function tempDir(label: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `silo-${label}-`));
  dirs.add(dir);
  return dir;
}

/** Kills every process still running and removes every temporary directory. */
export async function cleanup(): Promise<void> {
  await Promise.all([...children].map((child) => stopChild(child, 'SIGKILL', 2000).catch(() => undefined)));
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
  dirs.clear();
}

/** Environment of a spawned command: no inherited SILO_ or PORT settings, loopback only. */
export function siloEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('SILO_') && k !== 'PORT') env[k] = v;
  return { ...env, SILO_LISTEN_ADDRESS: '127.0.0.1', ...extra };
}

export interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/** Runs `silo ...args` to completion (killed after `timeoutMs`). */
export function runSilo(args: string[], opts: { env: Record<string, string>; cwd: string; timeoutMs?: number }): Promise<RunResult> {
  const started = Date.now();
  const child = spawn(process.execPath, [SILO_BIN, ...args], { cwd: opts.cwd, env: siloEnv(opts.env), stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 15_000);
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      children.delete(child);
      resolve({ code, signal, stdout, stderr, ms: Date.now() - started });
    });
  });
}

function stopChild(child: ChildProcess, signal: NodeJS.Signals, timeoutMs: number): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  return new Promise((resolve, reject) => {
    if (child.exitCode !== null || child.signalCode !== null) {
      children.delete(child);
      resolve({ code: child.exitCode, signal: child.signalCode });
      return;
    }
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`silo did not exit within ${timeoutMs} ms of ${signal}`));
    }, timeoutMs);
    child.once('exit', (code, sig) => {
      clearTimeout(timer);
      children.delete(child);
      resolve({ code, signal: sig });
    });
    child.kill(signal);
  });
}

export interface Keys {
  manage: string;
  access: string;
}

export interface SiloServer {
  url: string;
  port: number;
  pid: number;
  /** Keys of the first-start banner (on stderr), when this start printed one. */
  keys: Keys | undefined;
  stdout(): string;
  stderr(): string;
  /** Parsed JSON log lines so far. */
  logs(): Array<Record<string, unknown>>;
  /** Stops reading the server's stdout (its log), as a stalled log reader would; `resumeStdout` reads on. */
  pauseStdout(): void;
  resumeStdout(): void;
  /** Resolves when the process exits, however that happens. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Sends `signal` and waits for the exit. */
  stop(signal?: NodeJS.Signals, timeoutMs?: number): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  fetch(pathname: string, init?: RequestInit): Promise<Response>;
}

/** Starts `silo serve` on a free loopback port and waits until it listens (and printed its banner). */
export async function startSilo(opts: { env: Record<string, string>; cwd: string; timeoutMs?: number }): Promise<SiloServer> {
  const child = spawn(process.execPath, [SILO_BIN, 'serve'], {
    cwd: opts.cwd,
    env: siloEnv({ PORT: '0', ...opts.env }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  const logs = () =>
    stdout
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);

  const listening = await new Promise<Record<string, unknown>>((resolve, reject) => {
    const deadline = setTimeout(() => done(new Error(`silo serve did not listen within ${opts.timeoutMs ?? 10_000} ms\n${stdout}\n${stderr}`)), opts.timeoutMs ?? 10_000);
    const poll = setInterval(() => {
      const line = logs().find((l) => l.msg === 'listening');
      // The banner, when there is one (`first_start`), is written to stderr right after the listening line.
      if (line && (line.first_start !== true || stderr.includes('More keys:'))) done(undefined, line);
    }, 10);
    const onExit = (code: number | null) => done(new Error(`silo serve exited (${code}) before listening\n${stdout}\n${stderr}`));
    child.once('exit', onExit);
    function done(error?: Error, line?: Record<string, unknown>) {
      clearTimeout(deadline);
      clearInterval(poll);
      child.off('exit', onExit);
      if (error) reject(error);
      else resolve(line!);
    }
  });

  const manage = /silo_man_[A-Za-z0-9_-]+/.exec(stderr)?.[0];
  const access = /silo_acc_[A-Za-z0-9_-]+/.exec(stderr)?.[0];
  const url = listening.url as string;
  return {
    url,
    port: listening.port as number,
    pid: child.pid!,
    keys: manage && access ? { manage, access } : undefined,
    stdout: () => stdout,
    stderr: () => stderr,
    logs,
    pauseStdout: () => child.stdout!.pause(),
    resumeStdout: () => child.stdout!.resume(),
    exited,
    stop: (signal = 'SIGTERM', timeoutMs = 10_000) => stopChild(child, signal, timeoutMs),
    fetch: (pathname, init) => fetch(`${url}${pathname}`, { ...init, signal: AbortSignal.timeout(10_000) }),
  };
}

/** Polls `probe` until it returns true; resolves to the time it took, or rejects after `withinMs`. */
export async function eventually(probe: () => Promise<boolean>, withinMs: number, intervalMs = 25): Promise<number> {
  const start = Date.now();
  for (;;) {
    if (await probe()) return Date.now() - start;
    if (Date.now() - start > withinMs) throw new Error(`condition not met within ${withinMs} ms`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
