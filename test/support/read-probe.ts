/**
 * Tiny reads fired at a fixed rate from a separate process, to measure how long a bystander
 * waits while a test loads the server. A separate process, because a client in the server's own
 * process is blocked along with it: it could neither send on time nor read its answer until the
 * server's next block ended, which counts blocks twice. Latency counts from when each read was
 * due. The child is tracked (test/support/processes.ts) and exits when the test's process does.
 */
import { spawnTracked, type Spawned } from './processes.js';

export interface ProbeResult {
  /** Latencies of the reads answered 200, in ms, sorted. */
  latencies: number[];
  /** Anything else: statuses, errors, time-outs. */
  failures: string[];
}

export interface ReadProbe {
  /** Stops firing, waits for the reads in flight, and returns what was measured. */
  stop(): Promise<ProbeResult>;
}

/** The child: plain JavaScript for `node -e` (argv: port, path, host, every ms, headers as JSON). */
const CHILD = `
const http = require('node:http');
const [port, path, host, every, headersJson] = process.argv.slice(1);
const extra = JSON.parse(headersJson || '{}');
const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });
const latencies = [];
const failures = [];
let inflight = 0;
let running = true;
const finish = () => {
  if (running || inflight > 0) return;
  agent.destroy();
  process.stdout.write(JSON.stringify({ latencies, failures }) + '\\n', () => process.exit(0));
};
const fire = (due) => {
  inflight++;
  let settled = false;
  const settle = (failure) => {
    if (settled) return;
    settled = true;
    inflight--;
    if (failure === undefined) latencies.push(performance.now() - due);
    else failures.push(failure);
    finish();
  };
  const req = http.get({ host: '127.0.0.1', port: Number(port), path, agent, setHost: false, headers: { ...extra, host } }, (res) => {
    res.resume();
    res.on('end', () => settle(res.statusCode === 200 ? undefined : 'status ' + res.statusCode));
    res.on('error', (e) => settle(String(e)));
  });
  req.setTimeout(10000, () => req.destroy(new Error('no answer within 10 s')));
  req.on('error', (e) => settle(String(e)));
};
const start = performance.now();
let k = 0;
const next = () => {
  if (!running) return;
  const due = start + k * Number(every);
  setTimeout(() => {
    if (!running) return;
    fire(due);
    k++;
    next();
  }, Math.max(0, due - performance.now()));
};
process.on('SIGTERM', () => {
  running = false;
  finish();
});
// Never outlive the test: its end of stdin closes when it exits, however abruptly.
process.stdin.on('end', () => process.exit(1));
process.stdin.resume();
process.stdout.write('ready\\n');
next();
`;

/** Starts firing `GET path` (Host `host`, and `headers`) at 127.0.0.1:`port` every `everyMs`. */
export async function startReadProbe(
  port: number,
  path: string,
  everyMs: number,
  host = 'api.localhost',
  headers: Record<string, string> = {},
): Promise<ReadProbe> {
  const args = ['-e', CHILD, String(port), path, host, String(everyMs), JSON.stringify(headers)];
  const child: Spawned = spawnTracked(process.execPath, args, { stdio: ['pipe', 'pipe', 'pipe'] });
  await child.waitFor(/ready\n/, 10_000);
  return {
    async stop() {
      await child.stop(15_000);
      const line = child.output().split('\n').find((l) => l.startsWith('{'));
      if (line === undefined) throw new Error(`the read probe printed no result:\n${child.output().slice(-2000)}`);
      const result = JSON.parse(line) as ProbeResult;
      return { latencies: [...result.latencies].sort((x, y) => x - y), failures: result.failures };
    },
  };
}
