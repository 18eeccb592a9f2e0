/**
 * One `silo migrate`, spawned as a user runs it: `node packages/silo-server/bin/silo.js migrate
 * --from URL --to URL` (the `silo` bin, which runs dist/cli.js's main). Its wall time from spawn
 * to exit, and its peak RSS, polled from /proc/<pid>/status (VmHWM, the kernel's own high-water
 * mark) every 50 ms while it runs.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFile } from 'node:fs/promises';
import { siloEnv } from './seed.js';

const POLL_MS = 50;

export interface MigrateRun {
  seconds: number;
  /** The last VmHWM read while the process ran, in bytes (undefined without /proc). */
  peakRssBytes: number | undefined;
  /** The command's closing progress line (what it says it moved). */
  summary: string;
}

/** VmHWM of `pid` in bytes, or undefined once the process is gone. */
async function vmHwm(pid: number): Promise<number | undefined> {
  try {
    const status = await readFile(`/proc/${pid}/status`, 'utf8');
    const kb = /^VmHWM:\s+(\d+) kB$/m.exec(status)?.[1];
    return kb === undefined ? undefined : Number(kb) * 1024;
  } catch {
    return undefined;
  }
}

export async function runMigrate(cli: string, from: string, to: string): Promise<MigrateRun> {
  const started = performance.now();
  const child = spawn(process.execPath, [cli, 'migrate', '--from', from, '--to', to], { env: siloEnv(), stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  let peak: number | undefined;
  const poll = setInterval(() => {
    if (child.pid === undefined) return;
    void vmHwm(child.pid).then((bytes) => {
      if (bytes !== undefined) peak = bytes;
    });
  }, POLL_MS);
  const closed = once(child, 'close');
  try {
    const [code] = (await once(child, 'exit')) as [number | null];
    const seconds = (performance.now() - started) / 1000;
    await closed;
    if (code !== 0) throw new Error(`silo migrate --to ${to} exited with ${code}: ${stderr.trim()}`);
    return { seconds, peakRssBytes: peak, summary: stderr.trim().split('\n').at(-1) ?? '' };
  } finally {
    clearInterval(poll);
  }
}
