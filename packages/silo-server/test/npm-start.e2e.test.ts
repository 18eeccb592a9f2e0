/**
 * `npm start` stopped as a process manager stops it: a signal to npm's own PID must stop the
 * server gracefully, and leave no process behind (npm runs the script through `sh -c`; a shell
 * that dies on SIGTERM would leave the node server reparented and serving). Ctrl-C, which reaches
 * the whole process group, must stay graceful too.
 *
 * The real `npm start` of the repository runs, its `tsc -b` included (a no-op check once built).
 */
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { spawnTracked, type Spawned } from '../../../test/support/processes.js';
import { cleanup, ensureBuilt, ROOT, siloEnv, tempDir } from '../../../test/support/silo-process.js';

beforeAll(() => ensureBuilt(), 120_000);
afterAll(() => cleanup());

// Each npm start runs in a process group of its own, so that a failed test can still end all of it.
const groups = new Set<number>();
afterEach(() => {
  for (const pgid of groups) {
    try {
      process.kill(-pgid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
  groups.clear();
});

/** The PIDs of the processes still in a process group (Linux /proc); reparenting keeps the group. */
function groupMembers(pgid: number): number[] {
  const members: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(path.join('/proc', entry, 'stat'), 'utf8');
      // pid (comm) state ppid pgrp ...: comm may hold spaces, so split after its closing parenthesis.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[2]) === pgid && fields[0] !== 'Z') members.push(Number(entry));
    } catch {
      // Exited while we looked.
    }
  }
  return members;
}

async function npmStart(): Promise<{ npm: Spawned; port: number }> {
  const env = siloEnv({ PORT: '0', SILO_DATA_DIR: path.join(tempDir('npm-start'), 'data') });
  const npm = spawnTracked('npm', ['start'], { cwd: ROOT, env, detached: true });
  groups.add(npm.child.pid!);
  const listening = await npm.waitFor(/"msg":"listening".*?"port":(\d+)/, 30_000);
  return { npm, port: Number(listening[1]) };
}

async function answers(port: number): Promise<boolean> {
  try {
    return (await fetch(`http://127.0.0.1:${port}/healthz`, { signal: AbortSignal.timeout(1000) })).ok;
  } catch {
    return false;
  }
}

async function expectAllGone(npm: Spawned, port: number): Promise<void> {
  const exited = await Promise.race([npm.exited.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), 15_000))]);
  expect(exited, npm.output().slice(-2000)).toBe(true);
  expect(await answers(port)).toBe(false);
  expect(groupMembers(npm.child.pid!)).toEqual([]);
  // Gracefully: the server logged its shutdown, not a forced exit.
  expect(npm.output()).toMatch(/"msg":"stopped"/);
}

describe.skipIf(process.platform !== 'linux')('npm start', () => {
  it('SIGTERM to the PID of npm stops the server gracefully, nothing left running', async () => {
    const { npm, port } = await npmStart();
    expect(await answers(port)).toBe(true);
    process.kill(npm.child.pid!, 'SIGTERM');
    await expectAllGone(npm, port);
  }, 60_000);

  it('Ctrl-C (SIGINT to the whole process group, which npm forwards again) stops it gracefully too', async () => {
    const { npm, port } = await npmStart();
    // Up to the end of its line: output arrives in chunks, a key may be cut in two.
    const manageKey = (await npm.waitFor(/manage key "default" \([^)]*\): (silo_man_[A-Za-z0-9_-]+)\n/, 10_000))[1]!;
    // A request in flight at Ctrl-C: its body is still coming when the signal arrives.
    const body = '{"file_name": "f", "file_data": {"a": 1}}';
    const socket = net.connect(port, '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    let answer = '';
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString('utf8')));
    socket.write(`POST /api/v1/manage/ HTTP/1.1\r\nHost: api.localhost\r\nX-MAN-API: ${manageKey}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 10)}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
    process.kill(-npm.child.pid!, 'SIGINT');
    // npm forwards the SIGINT to the server, which has it from the terminal already: that copy
    // must not count as a second Ctrl-C ("stop at once"), even when it comes late (a busy machine).
    await new Promise((resolve) => setTimeout(resolve, 100));
    // (npm still runs: the server waits for the request in flight; if npm is gone, the checks below say why.)
    if (npm.alive()) process.kill(npm.child.pid!, 'SIGINT');
    await new Promise((resolve) => setTimeout(resolve, 200));
    socket.end(body.slice(10));
    await expectAllGone(npm, port);
    expect(answer).toMatch(/^HTTP\/1\.1 201 /);
  }, 60_000);
});
