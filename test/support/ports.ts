/**
 * Ports for servers that cannot take port 0 (a child process told its PORT, a redis-server).
 *
 * A port the kernel hands out for port 0 comes from the ephemeral range (32768-60999 here), the
 * same range every outgoing connection and every other test's port-0 listener draws from, so it
 * can be taken between our check and the child's bind (CI saw `silo serve` refuse such a port).
 * These are picked at random below that range instead, where only another test picking the same
 * number could collide, and never twice by one process.
 */
import net from 'node:net';

/** Below the ephemeral range: 10000-19999 for servers, 20000-22767 (+ 10000) for cluster nodes. */
const SERVER_PORTS = { from: 10_000, to: 20_000 };
const CLUSTER_PORTS = { from: 20_000, to: 22_768 };
/** Redis's cluster bus listens on the client port + 10000. */
export const CLUSTER_BUS_OFFSET = 10_000;

const handedOut = new Set<number>();

/** Whether something could listen on 127.0.0.1:`port` right now. */
export function listenable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

async function pick(range: { from: number; to: number }, alsoFree: (port: number) => number[]): Promise<number> {
  for (let tries = 0; tries < 1000; tries++) {
    const port = range.from + Math.floor(Math.random() * (range.to - range.from));
    const ports = [port, ...alsoFree(port)];
    if (ports.some((p) => handedOut.has(p))) continue;
    if (!(await allListenable(ports))) continue;
    for (const p of ports) handedOut.add(p);
    return port;
  }
  throw new Error(`no free port in ${range.from}-${range.to - 1} after 1000 tries`);
}

async function allListenable(ports: number[]): Promise<boolean> {
  for (const port of ports) if (!(await listenable(port))) return false;
  return true;
}

/** A TCP port on 127.0.0.1 that nothing listens on right now, outside the ephemeral range. */
export function freePort(): Promise<number> {
  return pick(SERVER_PORTS, () => []);
}

/** A port for a Redis Cluster node whose cluster-bus port is free too. */
export function freeClusterNodePort(): Promise<number> {
  return pick(CLUSTER_PORTS, (port) => [port + CLUSTER_BUS_OFFSET]);
}
