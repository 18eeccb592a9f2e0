/**
 * A task's text crosses to its worker as moved bytes (work/wire.ts): the same text arrives, the
 * sending thread copies nothing in one piece, and what UTF-8 cannot carry goes as the string.
 */
import { MessageChannel } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { fromWire, toWire, WIRE_BYTES_FROM, type WireTask } from '../src/work/wire.js';
import type { Task } from '../src/work/tasks.js';

const body = (text: string): Task => ({ kind: 'body', shape: 'create', text, maxDepth: 1000, maxOperations: 1000 });

/** Posts `task` through a real message port, as the pool does, and reads it back as the worker would. */
async function posted(task: Task): Promise<{ arrived: Task; moved: number }> {
  const { port1, port2 } = new MessageChannel();
  const wire = await toWire(task);
  const moved = wire.transfer.reduce((n, b) => n + b.byteLength, 0);
  const got = new Promise<WireTask>((resolve) => port2.once('message', resolve));
  port1.postMessage(wire.task, wire.transfer);
  // Moved, not copied: the sender's buffers are empty now.
  expect(wire.transfer.every((b) => b.byteLength === 0)).toBe(true);
  const arrived = fromWire(await got);
  port1.close();
  return { arrived, moved };
}

describe('task texts on the wire', () => {
  it('moves a large text as its UTF-8 bytes and gives the worker the very same text', async () => {
    const text = JSON.stringify({ file_name: 'naïve ✓', file_data: Array.from({ length: 5000 }, (_, i) => ({ i, s: `日本語 😀 ${i}` })) });
    expect(text.length).toBeGreaterThan(WIRE_BYTES_FROM);
    const { arrived, moved } = await posted(body(text));
    expect(arrived).toEqual(body(text));
    expect(moved).toBe(Buffer.byteLength(text, 'utf8'));
  });

  it('sends a small text, or one with a lone surrogate (UTF-8 would replace it), as the string', async () => {
    const small = await posted(body('{"file_name":"x","file_data":{}}'));
    expect(small).toEqual({ arrived: body('{"file_name":"x","file_data":{}}'), moved: 0 });
    const lone = `{"s":"${'a'.repeat(WIRE_BYTES_FROM)}\uD800"}`;
    expect(await posted(body(lone))).toEqual({ arrived: body(lone), moved: 0 });
  });
});
