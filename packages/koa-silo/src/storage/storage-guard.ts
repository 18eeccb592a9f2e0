/**
 * Every call into a storage backend goes through `guarded`: a failure becomes a
 * StorageUnavailableError (503), and a call that does not answer within the time limit fails the
 * same way instead of hanging the request. (A Redis client queues commands while it reconnects;
 * without a limit a request would wait for as long as Redis is down.)
 */
import { SiloError, StorageUnavailableError } from '../model/index.js';

/** Default time limit of one storage call. */
export const DEFAULT_STORAGE_TIMEOUT_MS = 5000;

export class StorageTimeoutError extends Error {
  constructor(what: string, ms: number) {
    super(`storage ${what} did not answer within ${ms} ms`);
    this.name = 'StorageTimeoutError';
  }
}

/**
 * Runs `op`, mapping any failure to StorageUnavailableError. `timeoutMs` 0 means no time limit
 * (for stores that cannot hang, such as an in-process Map). One promise and one timer per call
 * (no Promise.race): a late failure after the time limit settles nothing and is never unhandled.
 */
export function guarded<T>(what: string, timeoutMs: number, op: () => Promise<T>): Promise<T> {
  let pending: Promise<T>;
  try {
    pending = op();
  } catch (error) {
    return Promise.reject(toStorageError(error));
  }
  if (timeoutMs <= 0) return pending.catch(rethrowAsStorageError);
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(toStorageError(new StorageTimeoutError(what, timeoutMs))), timeoutMs);
    timer.unref();
    pending.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(toStorageError(error));
      },
    );
  });
}

function rethrowAsStorageError(error: unknown): never {
  throw toStorageError(error);
}

function toStorageError(error: unknown): SiloError {
  // A typed error raised on purpose inside a guarded section keeps its meaning.
  if (error instanceof SiloError) return error;
  return new StorageUnavailableError(error);
}
