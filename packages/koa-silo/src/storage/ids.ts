/**
 * Names that storage gives what it writes: blobs (the data of a version) and ETag tags.
 *
 * A blob id is unique per write attempt, so a writer that lost its lock (paused past its lifetime,
 * then resumed) can only ever write a blob that nobody commits: it never overwrites data that a
 * committed version names. It starts with the time it was made, so that the orphan sweep can
 * leave alone the blobs of writes still in progress.
 */
import { randomBytes } from 'node:crypto';

export function newBlobId(version: number, nowMs = Date.now()): string {
  return `${version}-${nowMs.toString(36)}-${randomBytes(6).toString('base64url')}`;
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
  return randomBytes(12).toString('base64url');
}
