/**
 * What a command reads and writes. Tests and embedders pass their own; the real process gets
 * `defaultIo()`.
 */
import type { Readable, Writable } from 'node:stream';

export interface Io {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  env: Record<string, string | undefined>;
  cwd: string;
  /** Resolves when the server should stop (SIGTERM/SIGINT by default). */
  stopSignal?: () => Promise<string>;
  /** What `silo import` reads (default: nothing, an empty input). */
  stdin?: Readable;
  /** Where `silo export` writes with backpressure (default: through `stdout`). */
  stdoutStream?: Writable;
  /** stderr when it is a terminal, for progress bars (default: none, plain progress lines). */
  terminal?: NodeJS.WriteStream;
  /** Whether SIGINT and SIGTERM stop an import (true for the real process only). */
  signals?: boolean;
  /** `stdout` is this process's: the server's log lines may go to it asynchronously (pino). */
  processStdout?: boolean;
}

/** One command (`keys create`): its arguments after the command's words; resolves to the exit code. */
export type Command = (args: string[], io: Io) => Promise<number>;

export const defaultIo = (): Io => ({
  stdout: (t) => process.stdout.write(t),
  stderr: (t) => process.stderr.write(t),
  env: process.env,
  cwd: process.cwd(),
  stdin: process.stdin,
  stdoutStream: process.stdout,
  ...(process.stderr.isTTY ? { terminal: process.stderr } : {}),
  signals: true,
  processStdout: true,
});
