/**
 * `silo serve` as a user runs it (node packages/silo-server/bin/silo.js serve, SQLite in a temp
 * directory, PORT=0), for the events benchmark: the port from the `listening` JSON log line on
 * stdout, the manage key from the first-start banner on stderr, and its resident memory from /proc.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface EventsServer {
  url: string;
  port: number;
  pid: number;
  manageKey: string;
  /** VmRSS of the server process, bytes (NaN once it has exited). */
  rss(): number;
  stop(): Promise<void>;
}

/** Reads the first `"msg":"listening"` JSON line of stdout, if written yet. */
function listeningPort(stdout: string): number | undefined {
  for (const line of stdout.split('\n')) {
    if (!line.startsWith('{') || !line.includes('"listening"')) continue;
    try {
      const parsed = JSON.parse(line) as { msg?: unknown; port?: unknown };
      if (parsed.msg === 'listening' && typeof parsed.port === 'number') return parsed.port;
    } catch {
      // A line still being written.
    }
  }
  return undefined;
}

export function readRss(pid: number): number {
  try {
    const kb = /^VmRSS:\s+(\d+) kB/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb === undefined ? Number.NaN : Number(kb) * 1024;
  } catch {
    return Number.NaN;
  }
}

/** Starts `silo serve` on an empty data directory with `env` added to a clean environment. */
export async function startEventsServer(env: Record<string, string>): Promise<EventsServer> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'silo-bench-events-'));
  // Logs go to files, as in production: a pipe drained late by a busy benchmark process would
  // make each of the server's log lines cost it more than it does.
  const outFile = path.join(dir, 'stdout.log');
  const errFile = path.join(dir, 'stderr.log');
  const out = fs.openSync(outFile, 'w');
  const err = fs.openSync(errFile, 'w');
  const child = spawn(process.execPath, [path.join(ROOT, 'packages/silo-server/bin/silo.js'), 'serve'], {
    cwd: dir,
    env: { PATH: process.env.PATH ?? '', NODE_ENV: 'production', PORT: '0', SILO_LISTEN_ADDRESS: '127.0.0.1', SILO_DATA_DIR: path.join(dir, 'data'), ...env },
    stdio: ['ignore', out, err],
  });
  fs.closeSync(out);
  fs.closeSync(err);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    }
    fs.rmSync(dir, { recursive: true, force: true });
  };

  const deadline = Date.now() + 20_000;
  for (;;) {
    const stdout = fs.readFileSync(outFile, 'utf8');
    const stderr = fs.readFileSync(errFile, 'utf8');
    const port = listeningPort(stdout);
    // The banner is written to stderr right after the listening line; its last line names "More keys:".
    const manageKey = stderr.includes('More keys:') ? /silo_man_[A-Za-z0-9_-]+/.exec(stderr)?.[0] : undefined;
    if (port !== undefined && manageKey !== undefined) {
      const pid = child.pid!;
      return { url: `http://127.0.0.1:${port}`, port, pid, manageKey, rss: () => readRss(pid), stop };
    }
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`silo serve did not start:\n${stdout.slice(0, 4000)}\n${stderr.slice(0, 4000)}`);
    }
    await sleep(50);
  }
}

/** Samples the server's RSS every `everyMs` until stopped: the peak and the last sample. */
export function sampleRss(server: EventsServer, everyMs = 100): { stop(): { peak: number; last: number; samples: number } } {
  let peak = 0;
  let last = Number.NaN;
  let samples = 0;
  const take = () => {
    last = server.rss();
    samples++;
    if (last > peak) peak = last;
  };
  take();
  const timer = setInterval(take, everyMs);
  return {
    stop() {
      clearInterval(timer);
      take();
      return { peak, last, samples };
    },
  };
}
