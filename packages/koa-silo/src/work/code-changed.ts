/**
 * What a module's file holds, as a digest: how a worker thread tells that its code is not the
 * code of the main thread that started it (files replaced under a running server; see
 * worker.ts). A digest of the content, not the file's time: the same build put back (a redeploy,
 * a `touch`) is the same code.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';

/** The SHA-256 of the file at `moduleUrl` ('' when it cannot be read). */
export function codeDigest(moduleUrl: string): string {
  try {
    return createHash('sha256').update(readFileSync(new URL(moduleUrl))).digest('hex');
  } catch {
    return '';
  }
}
