/**
 * A subscriber process of the events benchmark (forked by fleet.ts): holds many SSE streams on
 * one silo, each on its own connection (node:http, agent: false), and notes when each `update`
 * event arrives. It runs apart from the benchmark so that receiving 2 000 streams does not delay
 * the writes being timed, and the parser is kept to a few indexOf calls per event so that the
 * client's own cost stays small next to the server's.
 */
import http from 'node:http';
import { monotonicMs, type Command, type Reply, type Stats } from './protocol.js';

/** Streams being opened at once: enough to be quick, few enough not to overflow the accept backlog. */
const OPEN_BATCH = 100;

interface Stream {
  req: http.ClientRequest;
  ended: boolean;
}

let streams: Stream[] = [];
/** Arrival time per version, one slot per stream (NaN: not arrived), while recording. */
let arrivals = new Map<number, Float64Array>();
let recording = false;
let events = 0;
let ended = 0;

function send(reply: Reply): void {
  process.send!(reply);
}

function onEvent(index: number, version: number, at: number): void {
  events++;
  if (!recording) return;
  let slots = arrivals.get(version);
  if (!slots) {
    slots = new Float64Array(streams.length).fill(Number.NaN);
    arrivals.set(version, slots);
  }
  // The first arrival counts (a replayed duplicate would be later).
  if (Number.isNaN(slots[index]!)) slots[index] = at;
}

/** One stream; resolves with null once its 200 has arrived, or with the reason it did not. */
function openOne(port: number, path: string, index: number): Promise<string | null> {
  return new Promise((resolve) => {
    const req = http.get({ host: '127.0.0.1', port, path, headers: { accept: 'text/event-stream' }, agent: false }, (res) => {
      if (res.statusCode !== 200) {
        res.resume();
        req.destroy();
        resolve(`HTTP ${res.statusCode}`);
        return;
      }
      const stream: Stream = { req, ended: false };
      streams[index] = stream;
      // latin1: every byte one character, no UTF-8 decoding; only the ASCII `id:` lines are read.
      res.setEncoding('latin1');
      let buffer = '';
      res.on('data', (chunk: string) => {
        const at = monotonicMs();
        buffer = buffer === '' ? chunk : buffer + chunk;
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          // An update is `event: update\nid: <version>\ndata: ...`; keep-alives are `: ...` comments.
          if (buffer.startsWith('event: update\n')) {
            const idAt = buffer.indexOf('\nid: ');
            if (idAt >= 0 && idAt < end) onEvent(index, parseInt(buffer.slice(idAt + 5, buffer.indexOf('\n', idAt + 5)), 10), at);
          }
          buffer = buffer.slice(end + 2);
        }
      });
      const gone = () => {
        if (stream.ended) return;
        stream.ended = true;
        ended++;
      };
      res.on('close', gone);
      res.on('error', gone);
      resolve(null);
    });
    req.on('error', (err) => resolve(err.message));
  });
}

async function open(command: Extract<Command, { type: 'open' }>): Promise<Reply> {
  const started = monotonicMs();
  streams = new Array<Stream>(command.count);
  arrivals = new Map();
  recording = command.record;
  events = 0;
  ended = 0;
  let opened = 0;
  let failed = 0;
  let firstError: string | undefined;
  for (let from = 0; from < command.count; from += OPEN_BATCH) {
    const batch: Promise<string | null>[] = [];
    for (let i = from; i < Math.min(command.count, from + OPEN_BATCH); i++) batch.push(openOne(command.port, command.path, i));
    for (const error of await Promise.all(batch)) {
      if (error === null) opened++;
      else {
        failed++;
        firstError ??= error;
      }
    }
  }
  return { type: 'opened', opened, failed, ...(firstError ? { firstError } : {}), ms: monotonicMs() - started };
}

function times(versions: number[]): Reply {
  const none = new Float64Array(streams.length).fill(Number.NaN);
  return { type: 'times', times: versions.map((v) => Array.from(arrivals.get(v) ?? none, (t) => (Number.isNaN(t) ? null : t))) };
}

function stats(): Stats {
  return { open: streams.filter((s) => s !== undefined && !s.ended).length, ended, events };
}

function close(): Reply {
  for (const stream of streams) {
    if (!stream) continue;
    // Counted as ended by the server only when it was not us.
    stream.ended = true;
    stream.req.destroy();
  }
  streams = [];
  arrivals = new Map();
  return { type: 'closed' };
}

// Commands are handled one at a time, in order, so replies match them.
let queue: Promise<void> = Promise.resolve();
process.on('message', (command: Command) => {
  queue = queue.then(async () => {
    try {
      if (command.type === 'open') send(await open(command));
      else if (command.type === 'times') send(times(command.versions));
      else if (command.type === 'stats') send({ type: 'stats', stats: stats() });
      else send(close());
    } catch (err) {
      send({ type: 'error', message: err instanceof Error ? err.message : String(err) });
    }
  });
});
process.on('disconnect', () => process.exit(0));
