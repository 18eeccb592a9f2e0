/**
 * Every call into a storage backend goes through `guarded`: a failure becomes a
 * StorageUnavailableError (503), and a call that does not answer within the time limit fails the
 * same way instead of hanging the request. (A Redis client queues commands while it reconnects;
 * without a limit a request would wait for as long as Redis is down.)
 */
import { SiloError, StorageUnavailableError } from '../model/index.js';

/** Default time limit of one storage call. */
export const DEFAULT_STORAGE_TIMEOUT_MS = 5000;

/**
 * Told of every storage call when it settles: its name (`get`, `atomic`, `redis ZRANGE`: a
 * small fixed set), how long it took, and how it failed (metrics/). Must not throw.
 */
export interface StorageObserver {
  call(operation: string, seconds: number, failure: 'timeout' | 'error' | undefined): void;
}

/** Where a storage call runs: its time limit (0: none) and who hears of it. */
export interface GuardLimits {
  readonly timeoutMs: number;
  readonly observer?: StorageObserver | undefined;
}

export class StorageTimeoutError extends Error {
  constructor(what: string, ms: number) {
    super(`storage ${what} did not answer within ${ms} ms`);
    this.name = 'StorageTimeoutError';
  }
}

/**
 * Runs `op`, mapping any failure to StorageUnavailableError. A `timeoutMs` of 0 means no time limit
 * (for stores that cannot hang, such as an in-process Map). One promise and one timer per call
 * (no Promise.race): a late failure after the time limit settles nothing and is never unhandled.
 * With an observer, the call's time and failure are told to it.
 */
export function guarded<T>(what: string, limits: GuardLimits, op: () => Promise<T>): Promise<T> {
  const { timeoutMs, observer } = limits;
  // Told when the call settles, from the callbacks the call has anyway (no promise more).
  const started = observer ? performance.now() : 0;
  let once = false;
  const told = observer
    ? (error?: unknown) => {
        // Once: a call that answers after its time limit was told of as a timeout already.
        if (once) return;
        once = true;
        observer.call(what, (performance.now() - started) / 1000, error === undefined ? undefined : failureOf(error));
      }
    : undefined;
  let pending: Promise<T>;
  try {
    pending = op();
  } catch (error) {
    const failure = toStorageError(error);
    told?.(failure);
    return Promise.reject(failure);
  }
  if (timeoutMs <= 0) {
    if (!told) return pending.catch(rethrowAsStorageError);
    return pending.then(
      (value) => (told(), value),
      (error: unknown) => {
        const failure = toStorageError(error);
        told(failure);
        throw failure;
      },
    );
  }
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => {
      const failure = toStorageError(new StorageTimeoutError(what, timeoutMs));
      told?.(failure);
      reject(failure);
    }, timeoutMs);
    timer.unref();
    pending.then(
      (value) => {
        clearTimeout(timer);
        told?.();
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        const failure = toStorageError(error);
        told?.(failure);
        reject(failure);
      },
    );
  });
}

/** A storage failure's kind; undefined for a typed error raised on purpose (not the store's failure). */
function failureOf(error: unknown): 'timeout' | 'error' | undefined {
  if (!(error instanceof StorageUnavailableError)) return error instanceof SiloError ? undefined : 'error';
  return (error as { cause?: unknown }).cause instanceof StorageTimeoutError ? 'timeout' : 'error';
}

function rethrowAsStorageError(error: unknown): never {
  throw toStorageError(error);
}

function toStorageError(error: unknown): SiloError {
  // A typed error raised on purpose inside a guarded section keeps its meaning.
  if (error instanceof SiloError) return error;
  return new StorageUnavailableError(error);
}
