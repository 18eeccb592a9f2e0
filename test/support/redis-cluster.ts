/**
 * A Redis Cluster of a test's own: three masters from `redis-server --cluster-enabled yes` on
 * spare ports of 127.0.0.1, joined by `redis-cli --cluster create`, in a temporary directory that
 * goes with it. The shared Redis on 6379 is never touched.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { createClient } from '@keyv/redis';
import { freeClusterNodePort } from './ports.js';
import { spawnTracked, type Spawned } from './processes.js';
import { haveRedisServer } from './redis-server.js';

const run = promisify(execFile);

export interface OwnCluster {
  /** The URL of one node (Silo finds the others). */
  url: string;
  ports: number[];
  /** Remove every key from every master. */
  flush(): Promise<void>;
  /** Stop the nodes and remove their directory. */
  dispose(): Promise<void>;
}

async function command(port: number, args: string[]): Promise<unknown> {
  const client = createClient({ url: `redis://127.0.0.1:${port}`, socket: { connectTimeout: 2000, reconnectStrategy: false } });
  await client.connect();
  try {
    return await client.sendCommand(args);
  } finally {
    client.destroy();
  }
}

async function clusterOk(ports: number[]): Promise<boolean> {
  for (const port of ports) {
    const info = String(await command(port, ['CLUSTER', 'INFO']).catch(() => ''));
    if (!info.includes('cluster_state:ok')) return false;
  }
  return true;
}

export async function startOwnCluster(masters = 3): Promise<OwnCluster> {
  if (!haveRedisServer()) throw new Error('redis-server is not on PATH: Redis Cluster tests need it');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'silo-cluster-'));
  const procs: Spawned[] = [];
  const ports: number[] = [];
  const dispose = async () => {
    await Promise.all(procs.map((p) => p.stop()));
    fs.rmSync(dir, { recursive: true, force: true });
  };
  try {
    while (ports.length < masters) {
      const port = await freeClusterNodePort();
      const nodeDir = path.join(dir, String(port));
      fs.mkdirSync(nodeDir);
      const proc = spawnTracked('redis-server', [
        '--port', String(port),
        '--bind', '127.0.0.1',
        '--cluster-enabled', 'yes',
        '--cluster-config-file', 'nodes.conf',
        '--cluster-node-timeout', '2000',
        '--save', '',
        '--appendonly', 'no',
        '--daemonize', 'no',
        '--dir', nodeDir,
      ]);
      try {
        await proc.waitFor(/Ready to accept connections/, 10_000);
      } catch {
        // Taken between the check and the bind: another port.
        await proc.stop();
        continue;
      }
      procs.push(proc);
      ports.push(port);
    }
    await run('redis-cli', ['--cluster', 'create', ...ports.map((p) => `127.0.0.1:${p}`), '--cluster-replicas', '0', '--cluster-yes'], {
      timeout: 20_000,
    });
    const deadline = Date.now() + 20_000;
    while (!(await clusterOk(ports))) {
      if (Date.now() > deadline) throw new Error(`the cluster on ports ${ports.join(', ')} did not reach cluster_state:ok`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  } catch (error) {
    await dispose();
    throw error;
  }
  return {
    url: `redis://127.0.0.1:${ports[0]}`,
    ports,
    async flush() {
      await Promise.all(ports.map((port) => command(port, ['FLUSHALL'])));
    },
    dispose,
  };
}

/**
 * Whether Redis Cluster tests can run (they need redis-server and redis-cli on PATH). In CI a
 * missing binary fails them; on a laptop they skip with a loud message.
 */
export function clusterAvailable(): boolean {
  if (haveRedisServer()) return true;
  if (process.env.CI === 'true') throw new Error('redis-server is required in CI for the Redis Cluster tests');
  console.warn('\n!!! SKIPPING Redis Cluster tests: redis-server is not on PATH. !!!\n');
  return false;
}

/** A cluster for a suite that takes `open` (start it, give its URL) and `close` (stop it) steps. */
export function clusterForSuite(): { open(): Promise<string>; close(): Promise<void> } {
  let cluster: OwnCluster | undefined;
  return {
    async open() {
      cluster = await startOwnCluster();
      return cluster.url;
    },
    async close() {
      await cluster?.dispose();
      cluster = undefined;
    },
  };
}
