/**
 * Events with data go out at the event loop's pace, however many streams send them: an update
 * reaches every stream of its silo in one turn, and each stream writing its first slice there
 * made one turn 64 KiB times the streams long (2 500 public streams of a 9.5 MB silo: a tiny read
 * waited 1.1 s). Streams here are fake sockets that take everything at once (a fast reader).
 */
import { EventEmitter } from 'node:events';
import type { Context } from 'koa';
import { afterEach, describe, expect, it } from 'vitest';
import { CHUNK_BYTES, EventStream } from '../src/http/event-stream.js';
import { BYTES_PER_TURN } from '../src/limits/loop-turns.js';

/** Turns of the event loop, counted by a setImmediate of its own. */
let turn = 0;
let ticking = false;
function tick(): void {
  turn++;
  if (ticking) setImmediate(tick);
}

afterEach(() => {
  ticking = false;
});

interface Written {
  turn: number;
  chunk: Buffer;
}

/**
 * A context whose response is a socket that records every write and takes it at once, or (`reads`
 * false) never takes anything, as a client that reads nothing; `destroyed` records when it is closed.
 */
function fakeContext(written: Written[], reads = true, destroyed: number[] = []): Context {
  const res = Object.assign(new EventEmitter(), {
    writableLength: 0,
    writableEnded: false,
    writeHead: () => undefined,
    flushHeaders: () => undefined,
    write: (chunk: Buffer | string) => {
      written.push({ turn, chunk: Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk) });
      return reads;
    },
    end: () => undefined,
    destroy: () => void destroyed.push(turn),
  });
  const req = { socket: new EventEmitter() };
  return { res, req, response: { headers: {} }, respond: true } as unknown as Context;
}

describe('events with data, sent to many streams', () => {
  it('write at most a turn\'s worth of bytes per turn, and never copy the shared data', async () => {
    const data = Buffer.alloc(1024 * 1024, 0x61);
    const streams = Array.from({ length: 300 }, () => {
      const written: Written[] = [];
      return { written, stream: new EventStream(fakeContext(written), 60_000) };
    });
    ticking = true;
    setImmediate(tick);
    const sent = await Promise.all(streams.map(({ stream }) => stream.sendPaced('update', ['{"version":2,"file_data":', data, '}'], 2)));
    expect(sent.every(Boolean)).toBe(true);

    const perTurn = new Map<number, number>();
    for (const { written } of streams) for (const w of written) perTurn.set(w.turn, (perTurn.get(w.turn) ?? 0) + w.chunk.length);
    expect(Math.max(...perTurn.values())).toBeLessThanOrEqual(BYTES_PER_TURN + CHUNK_BYTES);

    for (const { written, stream } of streams) {
      const text = Buffer.concat(written.map((w) => w.chunk)).toString();
      expect(text).toBe(`event: update\nid: 2\ndata: {"version":2,"file_data":${data.toString()}}\n\n`);
      // Every slice of the data is the shared buffer itself.
      for (const w of written) if (w.chunk.length >= 4096) expect(w.chunk.buffer).toBe(data.buffer);
      stream.close();
    }
  }, 60_000);

  it('close the streams that stalled on one update a few per turn, not all in one', async () => {
    const destroyed: number[] = [];
    const data = Buffer.alloc(256 * 1024, 0x61);
    const streams = Array.from({ length: 200 }, () => new EventStream(fakeContext([], false, destroyed), 60_000));
    ticking = true;
    setImmediate(tick);
    const sent = await Promise.all(streams.map((stream) => stream.sendPaced('update', ['{"file_data":', data, '}'], 2)));
    expect(sent.some(Boolean)).toBe(false); // every one dropped for stalling, after STALL_MS
    expect(destroyed).toHaveLength(200);
    const perTurn = new Map<number, number>();
    for (const at of destroyed) perTurn.set(at, (perTurn.get(at) ?? 0) + 1);
    expect(Math.max(...perTurn.values())).toBeLessThanOrEqual(BYTES_PER_TURN / CHUNK_BYTES);
  }, 60_000);
});
