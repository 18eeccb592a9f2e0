/**
 * An attacker's process for the connection tests: opens COUNT idle TCP connections to a server
 * on 127.0.0.1, bound to a local address (127.0.0.2, ...), at most IN_FLIGHT connecting at once,
 * and holds them, sending nothing. It runs in its own process so that its file descriptors do not
 * count against the test's (or the server's) open-file limit.
 *
 *   node --import tsx test/support/idle-connections.ts <port> <local address> <count> [in flight]
 *
 * Prints one JSON line of figures every 250 ms (`done` once every attempt has settled); on
 * SIGTERM it destroys every socket and exits.
 */
import net from 'node:net';

const [port, localAddress, countArg, inFlightArg = '500'] = process.argv.slice(2);
const count = Number(countArg);
const maxInFlight = Number(inFlightArg);

const open = new Set<net.Socket>();
let started = 0;
let connecting = 0;
let connected = 0;
let closedByServer = 0;
let failed = 0;
/** How long the server let a connection live before closing it, for the longest-lived one. */
let longestLifeMs = 0;
let stopping = false;

function figures(done: boolean): string {
  return JSON.stringify({ done, started, connected, open: open.size, closedByServer, failed, longestLifeMs });
}

function next(): void {
  while (!stopping && started < count && connecting < maxInFlight) {
    started++;
    connecting++;
    const socket = net.connect({ port: Number(port), host: '127.0.0.1', localAddress });
    let at = 0;
    let settled = false;
    const settle = () => {
      if (settled) return;
      settled = true;
      connecting--;
      setImmediate(next);
    };
    socket.once('connect', () => {
      at = performance.now();
      connected++;
      open.add(socket);
      settle();
    });
    socket.on('data', () => undefined);
    socket.on('error', () => undefined);
    socket.once('close', () => {
      if (at === 0) failed++;
      else if (!stopping) {
        closedByServer++;
        longestLifeMs = Math.max(longestLifeMs, performance.now() - at);
      }
      open.delete(socket);
      settle();
    });
  }
}

const report = setInterval(() => process.stdout.write(`${figures(started === count && connecting === 0)}\n`), 250);

function stop(): void {
  stopping = true;
  clearInterval(report);
  for (const socket of open) socket.destroy();
  process.stdout.write(`${figures(true)}\n`, () => process.exit(0));
}

process.on('SIGTERM', stop);
next();
