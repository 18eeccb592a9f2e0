/**
 * Names that storage gives what it writes: blobs (the data of a version) and ETag tags.
 *
 * A blob id is unique per write attempt, so a writer that lost its lock (paused past its lifetime,
 * then resumed) can only ever write a blob that nobody commits: it never overwrites data that a
 * committed version names. It starts with the time it was made, so that the orphan sweep can
 * leave alone the blobs of writes still in progress.
 */
import { randomFillSync } from 'node:crypto';

// Random bytes drawn from a pool refilled 4 KB at a time (as crypto.randomUUID does): one call
// into the CSPRNG per few hundred ids instead of two per write.
const pool = Buffer.alloc(4096);
let used = pool.length;

/** `bytes` random bytes in base64url. */
export function randomText(bytes: number): string {
  if (used + bytes > pool.length) {
    randomFillSync(pool);
    used = 0;
  }
  used += bytes;
  return pool.toString('base64url', used - bytes, used);
}

export function newBlobId(version: number, nowMs = Date.now()): string {
  return `${version}-${nowMs.toString(36)}-${randomText(6)}`;
}

/** When the blob was made (ms), or undefined for an id this module did not make. */
export function blobMadeAt(blob: string): number | undefined {
  const parts = blob.split('-');
  if (parts.length < 3) return undefined;
  const ms = parseInt(parts[1]!, 36);
  return Number.isSafeInteger(ms) ? ms : undefined;
}

/** An opaque ETag tag: 96 random bits in base64url, fresh for every version. */
export function newEtag(): string {
  return randomText(12);
}
