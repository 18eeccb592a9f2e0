/**
 * A redis-server of a test's own, on a spare port of 127.0.0.1, so that fault tests can stop and
 * restart it (the shared Redis on 6379 is never touched). No automatic persistence; an explicit
 * SAVE writes a snapshot into a temporary directory that a restart on the same port loads.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createClient } from '@keyv/redis';
import { freePort } from './ports.js';
import { spawnTracked, type Spawned } from './processes.js';

export interface OwnRedis {
  port: number;
  url: string;
  /** Start again on the same port and directory (loads the last SAVE). */
  start(): Promise<void>;
  /** SIGKILL: the server vanishes as in a crash. */
  kill(): Promise<void>;
  /** Send a signal: SIGSTOP freezes it with its connections open, SIGCONT resumes it. */
  signal(signal: NodeJS.Signals): void;
  /** Run one command on it (a fresh connection). */
  command(args: string[]): Promise<unknown>;
  /** Stop it and remove its directory. */
  dispose(): Promise<void>;
}

/** Whether a redis-server binary is on PATH. */
export function haveRedisServer(): boolean {
  return (process.env.PATH ?? '').split(path.delimiter).some((dir) => fs.existsSync(path.join(dir, 'redis-server')));
}

export async function startOwnRedis(): Promise<OwnRedis> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'silo-redis-'));
  let port = 0;
  let proc: Spawned | undefined;

  const launch = async () => {
    proc = spawnTracked('redis-server', [
      '--port', String(port),
      '--bind', '127.0.0.1',
      '--save', '',
      '--appendonly', 'no',
      '--daemonize', 'no',
      '--dir', dir,
      '--dbfilename', 'dump.rdb',
    ]);
    await proc.waitFor(/Ready to accept connections/, 10_000);
  };

  // A port found free may be taken before redis-server binds it: try a few.
  for (let attempt = 0; ; attempt++) {
    port = await freePort();
    try {
      await launch();
      break;
    } catch (error) {
      await proc?.stop();
      if (attempt >= 4) {
        fs.rmSync(dir, { recursive: true, force: true });
        throw error;
      }
    }
  }

  const url = `redis://127.0.0.1:${port}`;
  return {
    port,
    url,
    start: launch,
    async kill() {
      await proc?.kill9();
    },
    signal(signal) {
      proc?.child.kill(signal);
    },
    async command(args) {
      const client = createClient({ url, socket: { connectTimeout: 2000, reconnectStrategy: false } });
      await client.connect();
      try {
        return await client.sendCommand(args);
      } finally {
        await client.close();
      }
    },
    async dispose() {
      proc?.child.kill('SIGCONT');
      await proc?.stop(2000);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
