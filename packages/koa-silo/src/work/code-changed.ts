/**
 * When a module's file last changed: how a worker thread tells that its code is not the code of
 * the main thread that started it (files replaced under a running server; see worker.ts).
 */
import { statSync } from 'node:fs';

/** The last change of the file at `moduleUrl`, in ms since the epoch (0 when it cannot be told). */
export function changedAt(moduleUrl: string): number {
  try {
    return statSync(new URL(moduleUrl)).mtimeMs;
  } catch {
    return 0;
  }
}
