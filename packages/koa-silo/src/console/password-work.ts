/**
 * The line that password hashing waits in. scrypt runs on libuv's thread pool (four threads by
 * default), which zlib's asynchronous compression, file I/O and DNS lookups share: unbounded, a
 * flood of sign-in attempts from many addresses (each within its own rate limit) kept every thread
 * busy, and each compressed answer of the whole server waited behind the guesses (91 s measured).
 *
 * So at most `concurrency` hashes run at once (one: three threads stay for everything else), and
 * the attempts waiting for their turn are served in two lanes:
 * - first, a user signing in from a network where that user has signed in lately (the console
 *   service keeps them in storage: every instance knows them, after a restart too), and an
 *   operator setting a password: the real user, who knows the password, does not queue behind a
 *   guesser, who has never signed in;
 * - then everyone else, one network at a time in turn (a network's burst waits behind the others),
 *   at most MAX_PER_NETWORK waiting per network and `maxWaiting` in all.
 * Past those bounds an attempt is refused at once (503 and Retry-After), never queued without end.
 */
import { SignInBusyError } from '../model/index.js';

/** Attempts one network may have waiting: as many as its rate limit admits in a minute (sign-in-guard.ts). */
export const MAX_PER_NETWORK = 20;
const RETRY_AFTER_SECONDS = 2;

export interface PasswordWorkOptions {
  /** Hashes run at once. Default 1. */
  concurrency?: number;
  /** Attempts of unknown networks waiting, in all. Default 32 (about 2 s of scrypt). */
  maxWaiting?: number;
}

type Task = () => void;

export class PasswordWork {
  readonly #concurrency: number;
  readonly #maxWaiting: number;
  readonly #first: Task[] = [];
  /** The waiting attempts of each network, in turn order (Map order: the next network first). */
  readonly #byNetwork = new Map<string, Task[]>();
  #waiting = 0;
  #running = 0;

  constructor(options: PasswordWorkOptions = {}) {
    this.#concurrency = Math.max(1, options.concurrency ?? 1);
    this.#maxWaiting = Math.max(1, options.maxWaiting ?? 32);
  }

  /** Runs `hash` for a sign-in from `network` when its turn comes; first when `known` (the user signed in from there lately). */
  signIn<T>(known: boolean, network: string, hash: () => Promise<T>): Promise<T> {
    if (known) return this.#enqueue(hash, this.#first);
    let line = this.#byNetwork.get(network);
    if (this.#waiting >= this.#maxWaiting || (line?.length ?? 0) >= MAX_PER_NETWORK) {
      return Promise.reject(new SignInBusyError(RETRY_AFTER_SECONDS));
    }
    if (!line) this.#byNetwork.set(network, (line = []));
    this.#waiting++;
    return this.#enqueue(hash, line);
  }

  /** An operator's hash (a user made, a password set): first in line. */
  operator<T>(hash: () => Promise<T>): Promise<T> {
    return this.#enqueue(hash, this.#first);
  }

  /** Attempts waiting (tests, metrics). */
  get waiting(): number {
    return this.#first.length + this.#waiting;
  }

  #enqueue<T>(hash: () => Promise<T>, line: Task[]): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      line.push(() => {
        let done: Promise<T>;
        try {
          done = hash();
        } catch (error) {
          done = Promise.reject(error);
        }
        done.then(resolve, reject).finally(() => {
          this.#running--;
          this.#next();
        });
      });
      this.#next();
    });
  }

  #next(): void {
    while (this.#running < this.#concurrency) {
      const task = this.#first.shift() ?? this.#nextOfNetworks();
      if (!task) return;
      this.#running++;
      task();
    }
  }

  /** The first attempt of the network whose turn it is; that network then goes to the back. */
  #nextOfNetworks(): Task | undefined {
    for (const [network, line] of this.#byNetwork) {
      const task = line.shift()!;
      this.#byNetwork.delete(network);
      if (line.length > 0) this.#byNetwork.set(network, line);
      this.#waiting--;
      return task;
    }
    return undefined;
  }
}
