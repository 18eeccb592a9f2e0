/**
 * Where the server's log lines go: the process's stdout, as Node opened it. A pipe or a socket
 * (a container's log driver, journald, `silo serve | tee`) is written from the event loop at once
 * and never blocks it: what the reader has not taken yet waits in memory. A file or a terminal is
 * written synchronously, as Node does for them.
 *
 * Measured (benchmarks/http/README.md, 2026-11-27 evening): every request writes a line, and
 * pino's asynchronous destination handed each write to libuv's thread pool and back; written on
 * the stream itself, `silo serve` answered 1.25-1.28x the 1 KB reads per second (a turn's lines
 * gathered into one write did worse, 1.05-1.13x).
 *
 * A reader that stops reading must neither freeze the server (a blocking write) nor grow its
 * memory without end: beyond `maxQueuedBytes` waiting, lines are dropped and counted, and once the
 * reader has caught up the count is reported (`onDropped`) as a line of its own.
 */
import type { Writable } from 'node:stream';

export interface LineSink {
  write(line: string): void;
  /** Resolves once every line written has been taken by the reader, or after `timeoutMs`. */
  drained(timeoutMs: number): Promise<void>;
}

/** Log lines that may wait for a slow reader: about 4 000 request lines. */
export const MAX_QUEUED_BYTES = 1024 * 1024;

/** Streams whose reader is gone for good (EPIPE): the server goes on without its log rather than crash on it. */
const broken = new WeakSet<Writable>();
const watched = new WeakSet<Writable>();

export function streamSink(out: Writable, onDropped: (count: number) => void, maxQueuedBytes = MAX_QUEUED_BYTES): LineSink {
  let dropped = 0;
  // One listener per stream, however many loggers write to it (a test's servers share stdout).
  if (!watched.has(out)) {
    watched.add(out);
    out.on('error', () => broken.add(out));
  }
  const reportDropped = () => {
    const count = dropped;
    dropped = 0;
    if (count > 0) onDropped(count);
  };
  return {
    write(line) {
      if (broken.has(out)) return;
      if (out.writableLength < maxQueuedBytes) {
        out.write(line);
        return;
      }
      // Over the bound (far above the stream's high-water mark) the stream has said it is full, so a
      // drain is coming: the count goes out then.
      if (dropped++ === 0) out.once('drain', reportDropped);
    },
    drained(timeoutMs) {
      if (broken.has(out) || out.writableLength === 0) return Promise.resolve();
      return new Promise((resolve) => {
        const timer = setTimeout(resolve, timeoutMs);
        // An empty write's callback comes once every write before it has gone out.
        out.write('', () => {
          clearTimeout(timer);
          resolve();
        });
      });
    },
  };
}
