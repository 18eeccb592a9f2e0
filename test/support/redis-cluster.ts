/**
 * A Redis Cluster of a test's own: three masters from `redis-server --cluster-enabled yes` on
 * spare ports of 127.0.0.1, joined by `redis-cli --cluster create`, in a temporary directory that
 * goes with it. The shared Redis on 6379 is never touched.
 *
 * The directory names the test process that started the nodes (owner.json). A test process
 * killed before it could stop them (SIGKILL, an interrupted run) left them running, gossiping on
 * the cores the timing tests measure (51 were found one day): the next cluster started first stops
 * the nodes of every owner that is gone.
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

const DIR_PREFIX = 'silo-cluster-';
const OWNER_FILE = 'owner.json';

interface Owner {
  /** The test process that started the nodes. */
  pid: number;
  nodes: { pid: number; dir: string }[];
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Stops the nodes left by test processes that are gone, and removes their directories. A node is
 * known by its working directory (redis-server runs in its `--dir`), so that no other process, nor
 * one that took a dead node's pid, is touched.
 */
function reapOrphans(): void {
  for (const name of fs.readdirSync(os.tmpdir())) {
    if (!name.startsWith(DIR_PREFIX)) continue;
    const dir = path.join(os.tmpdir(), name);
    let owner: Owner;
    try {
      owner = JSON.parse(fs.readFileSync(path.join(dir, OWNER_FILE), 'utf8')) as Owner;
    } catch {
      continue; // Being made, or not ours.
    }
    if (alive(owner.pid)) continue;
    for (const node of owner.nodes) {
      try {
        if (fs.readlinkSync(`/proc/${node.pid}/cwd`) === node.dir) process.kill(node.pid, 'SIGKILL');
      } catch {
        // Gone already (or no /proc: nothing to find it by).
      }
    }
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

export async function startOwnCluster(masters = 3): Promise<OwnCluster> {
  if (!haveRedisServer()) throw new Error('redis-server is not on PATH: Redis Cluster tests need it');
  reapOrphans();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), DIR_PREFIX));
  const owner: Owner = { pid: process.pid, nodes: [] };
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
      if (proc.child.pid !== undefined) {
        owner.nodes.push({ pid: proc.child.pid, dir: nodeDir });
        fs.writeFileSync(path.join(dir, OWNER_FILE), JSON.stringify(owner));
      }
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
