/**
 * How a task's text travels to its worker. A string is copied by postMessage's structured clone
 * on the sending thread, in one piece: 30-90 ms of the event loop for a 10 MB silo, on every
 * large PATCH and body check (the isolation test's tiny reads met it as their worst latency).
 * Bytes are moved instead: the text is encoded in turns of the loop's bulk work (text-bytes.ts,
 * a millisecond per MiB), its buffer transferred without a copy, and decoded by the worker.
 *
 * Only well-formed texts go as bytes: UTF-8 cannot carry a lone surrogate, and a text that holds
 * one (none that Silo stores does: JSON.stringify escapes them) goes as the string it is.
 */
import { textBytes } from '../limits/text-bytes.js';
import type { Task } from './tasks.js';

/** From this length on, a text is worth moving as bytes rather than copying. */
export const WIRE_BYTES_FROM = 64 * 1024;

/** A task as it is posted: its text as the string itself or as UTF-8 bytes (moved). */
export type WireTask = { [K in Task['kind']]: Omit<Extract<Task, { kind: K }>, 'text'> & { text?: string | Uint8Array } }[Task['kind']];

/** The task as it is posted, and the buffers that move with it. */
export async function toWire(task: Task): Promise<{ task: WireTask; transfer: ArrayBuffer[] }> {
  const { text } = task;
  if (text === undefined || text.length < WIRE_BYTES_FROM || !wellFormed(text)) return { task, transfer: [] };
  let bytes: Uint8Array = await textBytes(text);
  // A buffer of its own (a large allocUnsafe is): moving a pooled one would take its neighbours.
  if (bytes.byteOffset !== 0 || bytes.buffer.byteLength !== bytes.byteLength) bytes = new Uint8Array(bytes);
  return { task: { ...task, text: bytes }, transfer: [bytes.buffer as ArrayBuffer] };
}

/** String.prototype.isWellFormed (Node 20; TypeScript's lib names it from ES2024): at once for a one-byte string. */
function wellFormed(text: string): boolean {
  return (text as string & { isWellFormed(): boolean }).isWellFormed();
}

const decoder = new TextDecoder();

/** The task as the worker runs it: its text a string again. */
export function fromWire(task: WireTask): Task {
  return (task.text instanceof Uint8Array ? { ...task, text: decoder.decode(task.text) } : task) as Task;
}
