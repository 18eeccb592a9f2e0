/**
 * A `silo serve` of a given checkout (this one, or an older build for a before/after comparison)
 * as a child process on a free port, with its first-start manage key read from its output.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

export interface WriteServer {
  url: string;
  manageKey: string;
  pid: number;
  stop(): Promise<void>;
}

/** Starts `silo serve` from `root` on empty storage described by `env` (SILO_DATA_DIR, SILO_STORE_URL). */
export async function startServer(root: string, env: Record<string, string>): Promise<WriteServer> {
  // Output goes to a file, as a server's logs do in production: a pipe that the busy benchmark
  // process drains late would make every log line cost the server far more than it does.
  const logDir = fs.mkdtempSync(path.join(os.tmpdir(), 'silo-bench-log-'));
  const logFile = path.join(logDir, 'out.log');
  const fd = fs.openSync(logFile, 'w');
  const child: ChildProcess = spawn(process.execPath, [path.join(root, 'packages/silo-server/bin/silo.js'), 'serve'], {
    env: {
      PATH: process.env.PATH ?? '',
      NODE_ENV: 'production',
      PORT: '0',
      SILO_LISTEN_ADDRESS: '127.0.0.1',
      // The benchmark measures writes, not the rate limiter.
      SILO_RATE_LIMIT_PER_MINUTE: '0',
      SILO_MAX_DATA_BYTES: String(8 * 1024 * 1024),
      ...env,
    },
    stdio: ['ignore', fd, fd],
  });
  fs.closeSync(fd);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
    fs.rmSync(logDir, { recursive: true, force: true });
  };
  const deadline = Date.now() + 20_000;
  for (;;) {
    const output = fs.readFileSync(logFile, 'utf8').slice(0, 20_000);
    const port = /"msg":"listening".*?"port":(\d+)/.exec(output)?.[1];
    const key = /manage key "default" \([^)]*\): (silo_man_\S+)/.exec(output)?.[1];
    if (port && key) return { url: `http://127.0.0.1:${port}`, manageKey: key, pid: child.pid!, stop };
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`silo serve (${root}) did not start:\n${output}`);
    }
    await sleep(50);
  }
}
