/**
 * Redis Cluster nodes whose test process was killed before it could stop them are stopped by the
 * next cluster a test starts (test/support/redis-cluster.ts): left running, 51 of them once
 * gossiped on the two cores the timing tests measure on.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { spawnTracked } from '../support/processes.js';
import { clusterAvailable, startOwnCluster } from '../support/redis-cluster.js';

const running = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** The node pids of the clusters that `owner` started, from their directories' owner files. */
function nodesOf(owner: number): number[] {
  const pids: number[] = [];
  for (const name of fs.readdirSync(os.tmpdir()).filter((n) => n.startsWith('silo-cluster-'))) {
    try {
      const file = JSON.parse(fs.readFileSync(path.join(os.tmpdir(), name, 'owner.json'), 'utf8')) as { pid: number; nodes: { pid: number }[] };
      if (file.pid === owner) pids.push(...file.nodes.map((n) => n.pid));
    } catch {
      // Another run's cluster being made.
    }
  }
  return pids;
}

describe.skipIf(!clusterAvailable())('Redis Cluster nodes of a killed test process', () => {
  it('are stopped by the next cluster started, and the live clusters are left alone', async () => {
    const support = pathToFileURL(path.resolve(import.meta.dirname, '../support/redis-cluster.ts')).href;
    const script = `import { startOwnCluster } from '${support}'; await startOwnCluster(); console.log('started'); setInterval(() => {}, 1000);`;
    const killed = spawnTracked(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script]);
    await killed.waitFor(/started/, 30_000);
    const orphans = nodesOf(killed.child.pid!);
    expect(orphans).toHaveLength(3);
    await killed.kill9();
    expect(orphans.every(running)).toBe(true);

    const ours = await startOwnCluster();
    try {
      for (let i = 0; i < 50 && orphans.some(running); i++) await sleep(100);
      expect(orphans.filter(running)).toEqual([]);
      // The new cluster (this process's, alive) is whole.
      expect(nodesOf(process.pid).every(running)).toBe(true);
      await ours.flush();
    } finally {
      await ours.dispose();
    }
  }, 60_000);
});
