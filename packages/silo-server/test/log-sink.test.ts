/**
 * The log's way to stdout (log-sink.ts): lines in order, a reader that stops reading neither blocks
 * the writer nor grows its memory past the bound (lines beyond are counted, and the count said once
 * the reader caught up), a reader gone for good (EPIPE) is no crash, and the shutdown's wait.
 */
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { streamSink } from '../src/log-sink.js';

/** A reader that takes chunks only when told to (`take`), or at once when `flowing`. */
function slowReader(flowing = false) {
  const taken: string[] = [];
  const waiting: Array<() => void> = [];
  const out = new Writable({
    highWaterMark: 1024,
    write(chunk: Buffer, _encoding, done) {
      taken.push(chunk.toString());
      if (flowing) done();
      else waiting.push(done);
    },
  });
  const take = async () => {
    flowing = true;
    while (waiting.length > 0) {
      waiting.shift()!();
      await new Promise((resolve) => setImmediate(resolve));
    }
  };
  return { out, taken, take };
}

describe('streamSink', () => {
  it('writes lines in order, at once', () => {
    const { out, taken } = slowReader(true);
    const sink = streamSink(out, () => undefined);
    for (let i = 0; i < 5; i++) sink.write(`line ${i}\n`);
    expect(taken.join('')).toBe('line 0\nline 1\nline 2\nline 3\nline 4\n');
  });

  it('holds at most the bound for a reader that stopped, counts what it drops and says so once it caught up', async () => {
    const { out, taken, take } = slowReader();
    const dropped: number[] = [];
    const sink = streamSink(out, (count) => dropped.push(count), 10_000);
    const line = `${'x'.repeat(99)}\n`;
    for (let i = 0; i < 1000; i++) sink.write(line);
    // 100 000 bytes written against a bound of 10 000: the rest waits no more than the bound.
    expect(out.writableLength).toBeLessThanOrEqual(10_000);
    expect(dropped).toEqual([]);
    await take();
    const kept = taken.join('').length / line.length;
    expect(kept).toBe(100);
    expect(dropped).toEqual([900]);
    // Caught up: lines go out again, and nothing more is counted.
    sink.write(line);
    expect(taken.at(-1)).toBe(line);
    expect(dropped).toEqual([900]);
  });

  it('goes on without a word when the reader is gone for good', () => {
    const out = new Writable({
      write(_chunk, _encoding, done) {
        done(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }));
      },
    });
    const sink = streamSink(out, () => undefined);
    sink.write('first\n');
    expect(() => sink.write('second\n')).not.toThrow();
  });

  it('drained waits until the reader has taken every line, or for the time given', async () => {
    const { out, take } = slowReader();
    const sink = streamSink(out, () => undefined);
    sink.write('a\n');
    sink.write('b\n');
    const started = Date.now();
    await sink.drained(50);
    expect(Date.now() - started).toBeGreaterThanOrEqual(40);
    let done = false;
    const waiting = sink.drained(10_000).then(() => (done = true));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(done).toBe(false);
    await take();
    await waiting;
    expect(done).toBe(true);
  });
});
