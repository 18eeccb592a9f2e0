/**
 * Every call into a storage backend goes through `guarded`: a failure becomes a
 * StorageUnavailableError (503), and a call that does not answer within the time limit fails the
 * same way instead of hanging the request. (A Redis client queues commands while it reconnects;
 * without a limit a request would wait for as long as Redis is down.)
 */
import { SiloError, StorageUnavailableError } from '../errors.js';

/** Default time limit of one storage call. */
export const DEFAULT_STORAGE_TIMEOUT_MS = 5000;

export class StorageTimeoutError extends Error {
  constructor(what: string, ms: number) {
    super(`storage ${what} did not answer within ${ms} ms`);
    this.name = 'StorageTimeoutError';
  }
}

const ignore = (): void => {};

/**
 * Runs `op`, mapping any failure to StorageUnavailableError. `timeoutMs` 0 means no time limit
 * (for stores that cannot hang, such as an in-process Map).
 */
export async function guarded<T>(what: string, timeoutMs: number, op: () => Promise<T>): Promise<T> {
  let pending: Promise<T>;
  try {
    pending = op();
  } catch (error) {
    throw toStorageError(error);
  }
  if (timeoutMs <= 0) {
    try {
      return await pending;
    } catch (error) {
      throw toStorageError(error);
    }
  }
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new StorageTimeoutError(what, timeoutMs)), timeoutMs);
    timer.unref();
  });
  try {
    return await Promise.race([pending, timeout]);
  } catch (error) {
    // The call may still settle later; its late failure must not become an unhandled rejection.
    pending.catch(ignore);
    throw toStorageError(error);
  } finally {
    clearTimeout(timer);
  }
}

function toStorageError(error: unknown): SiloError {
  // A typed error raised on purpose inside a guarded section keeps its meaning.
  if (error instanceof SiloError) return error;
  return new StorageUnavailableError(error);
}
