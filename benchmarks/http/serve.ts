/**
 * `silo serve` as shipped, started as a user starts it:
 *
 *   node packages/silo-server/bin/silo.js serve
 *
 * with PORT=0, SILO_LISTEN_ADDRESS=127.0.0.1, SILO_RATE_LIMIT_PER_MINUTE=0 (rate limiting off, as
 * in server.ts), NODE_ENV=production (as every server of the suite), and its storage:
 * - serve-sqlite: the default store, SQLite in SILO_DATA_DIR (a temp dir, removed afterwards);
 * - serve-redis:  SILO_STORE_URL on a Redis database of its own (4; the in-process server has 11), flushed before and after.
 * Every other setting is its default; no SILO_* variable of the harness's environment reaches it.
 *
 * Its request log is on (it cannot be turned off): one JSON line per request on stdout, which is
 * a pipe the harness drains into a file next to the data (never kept in memory). The ready signal
 * is the log's `listening` line (the port); the keys come from the first-start banner on stderr.
 * The silos are then seeded through the management API (seed-http.ts), with the same data as
 * server.ts seeds in-process.
 */
import { spawn } from 'node:child_process';
import { createWriteStream, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { finished } from 'node:stream/promises';
import os from 'node:os';
import path from 'node:path';
import { ROOT, stopper, type Child } from './children.js';
import type { ServeKind } from './kinds.js';
import { seedOverHttp } from './seed-http.js';
import type { ReadyLine, SeedKind } from './server.js';

export const SILO_BIN = 'packages/silo-server/bin/silo.js';

export interface ServeStartOptions {
  seed?: SeedKind;
  patchSilos?: number;
  /** serve-redis: the (dedicated, flushed) database. */
  redisUrl: string;
  /** Node flags before the script (e.g. `--cpu-prof`). */
  nodeArgs?: string[];
  timeoutMs?: number;
  /** FLUSHDB on the Redis database (targets.ts flushRedisDb); false when unreachable. */
  flushRedis(url: string): Promise<boolean>;
}

export interface RequestLog {
  /** The file the harness drains the server's stdout into. */
  path: string;
  bytes(): number;
  lines(): number;
}

export interface ServeProcess {
  child: Child<ReadyLine>;
  requestLog: RequestLog;
  /** Stops the server, waits for its log to reach the file, removes the temp dir (and flushes Redis). */
  dispose(): Promise<void>;
}

const MANAGE_KEY = /manage key "default" \([^)]*\): (silo_man_\S+)/;
const ACCESS_KEY = /access key "default":\s+(silo_acc_\S+)/;

/** The server's environment: the harness's, without any SILO_* setting or PORT, plus the benchmark's. */
function serveEnv(settings: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (!name.startsWith('SILO_') && name !== 'PORT') env[name] = value;
  }
  return { ...env, NODE_ENV: 'production', PORT: '0', SILO_LISTEN_ADDRESS: '127.0.0.1', SILO_RATE_LIMIT_PER_MINUTE: '0', ...settings };
}

export async function startServe(kind: ServeKind, options: ServeStartOptions): Promise<ServeProcess> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'silo-serve-bench-'));
  const dataDir = path.join(dir, 'data');
  mkdirSync(dataDir);
  const settings: Record<string, string> = { SILO_DATA_DIR: dataDir };
  if (kind === 'serve-redis') {
    if (!(await options.flushRedis(options.redisUrl))) throw new Error(`Redis is not reachable at ${options.redisUrl}`);
    settings.SILO_STORE_URL = options.redisUrl;
  }
  const cleanup = async () => {
    rmSync(dir, { recursive: true, force: true });
    if (kind === 'serve-redis') await options.flushRedis(options.redisUrl);
  };

  const proc = spawn(process.execPath, [...(options.nodeArgs ?? []), SILO_BIN, 'serve'], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: serveEnv(settings),
  });
  const stop = stopper(proc);

  // stdout → file, with backpressure; a counter of lines on the way.
  const logPath = path.join(dir, 'stdout.log');
  const file = createWriteStream(logPath);
  const logWritten = finished(file).catch(() => undefined);
  let lines = 0;
  let logBytes = 0;
  proc.stdout!.on('data', (chunk: Buffer) => {
    logBytes += chunk.length;
    for (let at = chunk.indexOf(10); at >= 0; at = chunk.indexOf(10, at + 1)) lines++;
  });
  proc.stdout!.pipe(file);
  const requestLog: RequestLog = { path: logPath, bytes: () => logBytes, lines: () => lines };

  let errText = '';
  proc.stderr!.setEncoding('utf8');
  proc.stderr!.on('data', (chunk: string) => {
    errText = (errText + chunk).slice(-8000);
  });

  try {
    const started = await waitForStart(proc, () => errText, options.timeoutMs ?? 60_000);
    const seeded = await seedOverHttp(`http://127.0.0.1:${started.port}`, started.manage, options.seed ?? 'standard', options.patchSilos ?? 50);
    const ready: ReadyLine = {
      ready: true,
      pid: proc.pid!,
      port: started.port,
      store: kind,
      seed: options.seed ?? 'standard',
      keys: { manage: started.manage, access: started.access },
      ...seeded,
    };
    const child: Child<ReadyLine> = { name: `silo-${kind}`, proc, pid: proc.pid!, ready, stderr: () => errText, stop };
    return {
      child,
      requestLog,
      async dispose() {
        await stop();
        await logWritten;
        await cleanup();
      },
    };
  } catch (err) {
    await stop(1000);
    await logWritten;
    await cleanup();
    throw new Error(`silo-${kind}: ${err instanceof Error ? err.message : String(err)}${errText ? `\n${errText.trim().slice(-2000)}` : ''}`);
  }
}

interface Started {
  port: number;
  manage: string;
  access: string;
}

/** The port from the `listening` log line (stdout) and the keys from the banner (stderr). */
function waitForStart(proc: ReturnType<typeof spawn>, stderr: () => string, timeoutMs: number): Promise<Started> {
  return new Promise<Started>((resolve, reject) => {
    let port: number | undefined;
    let pending = '';
    let settled = false;
    const done = (err?: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearInterval(poll);
      proc.stdout!.off('data', scan);
      proc.off('exit', exited);
      if (err) return reject(err);
      resolve({ port: port!, manage: MANAGE_KEY.exec(stderr())![1]!, access: ACCESS_KEY.exec(stderr())![1]! });
    };
    const check = () => {
      if (port !== undefined && MANAGE_KEY.test(stderr()) && ACCESS_KEY.test(stderr())) done();
    };
    const scan = (chunk: Buffer) => {
      pending += chunk.toString('utf8');
      let nl: number;
      while (port === undefined && (nl = pending.indexOf('\n')) >= 0) {
        const line = pending.slice(0, nl);
        pending = pending.slice(nl + 1);
        if (!line.includes('"msg":"listening"')) continue;
        const parsed = JSON.parse(line) as { port?: unknown };
        if (typeof parsed.port === 'number') port = parsed.port;
      }
      check();
    };
    const exited = (code: number | null, signal: string | null) => done(new Error(`exited before it was ready (code ${code}, signal ${signal})`));
    const timer = setTimeout(() => done(new Error(`no listening line and banner within ${timeoutMs / 1000} s`)), timeoutMs);
    // The banner follows the listening line on another stream: look again until both are there.
    const poll = setInterval(check, 20);
    proc.stdout!.on('data', scan);
    proc.once('exit', exited);
  });
}
