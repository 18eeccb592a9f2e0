/**
 * How console sign-in resists password guessing (contract §13) without handing a guesser the power
 * to lock the real user out. A limit per user name (what this replaced) did exactly that: ten wrong
 * passwords a minute for `admin`, from anywhere, and the right one was refused from everywhere.
 *
 * - Per client network (an IPv4 address, an IPv6 /64): at most ADDRESS_PER_MINUTE attempts, whatever
 *   user they name; 429 past it. Bounds the scrypt work one client can ask for.
 * - Per (user, client network): at most PAIR_PER_MINUTE attempts; 429 past it.
 * - Per user, across every address: no limit, a slow-down. A failed attempt is answered only after
 *   a delay that grows with the user's recent failures (failureDelayMs), so a guesser spread over
 *   many addresses gets few guesses a second; a right password is answered at once, so the user
 *   signs in from their own address whatever a guesser does elsewhere.
 *
 * Unknown users are counted by name as known ones are: the answers must not tell them apart.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Context } from 'koa';
import { clientAddress, clientNetwork } from './client.js';
import type { RateLimit } from './rate-limit.js';

/** The rate-limit plans of sign-in attempts, beside the accounts' plans (middleware.ts adds them). */
export const SIGN_IN_ADDRESS_PLAN = 'console-sign-in-address';
export const SIGN_IN_PAIR_PLAN = 'console-sign-in-user-address';
/** Several people behind one NAT may sign in at once: more than one user's worth. */
export const ADDRESS_PER_MINUTE = 20;
export const PAIR_PER_MINUTE = 10;

/** What "recent" failures are: those of this window. */
export const FAILURE_WINDOW_SECONDS = 15 * 60;
/** Failures a user may have in the window before any slow-down (a few typos cost nothing). */
export const FREE_FAILURES = 3;
/** The first delay, doubled with each further failure up to MAX_FAILURE_DELAY_MS. */
const FIRST_DELAY_MS = 100;
export const MAX_FAILURE_DELAY_MS = 3_000;

/** The delay before answering a failed attempt of a user with `failures` recent failures (this one included). */
export function failureDelayMs(failures: number): number {
  if (failures <= FREE_FAILURES) return 0;
  const doublings = Math.min(failures - FREE_FAILURES - 1, 30);
  return Math.min(MAX_FAILURE_DELAY_MS, FIRST_DELAY_MS * 2 ** doublings);
}

export interface SignInGuard {
  /** Counts an attempt for `user` from the request's client; throws 429 over the address or pair limit. */
  admit(ctx: Context, user: string): Promise<void>;
  /** Records a failed attempt for `user`, then waits out the user's slow-down before the answer. */
  failed(user: string): Promise<void>;
}

export function createSignInGuard(rateLimit: RateLimit, trustProxy: boolean): SignInGuard {
  return {
    async admit(ctx, user) {
      const network = clientNetwork(clientAddress(ctx, trustProxy));
      await rateLimit.consume(ctx, network, SIGN_IN_ADDRESS_PLAN);
      // A network never holds a newline: split at the last one, the pair's key is unambiguous.
      await rateLimit.consume(ctx, `${user}\n${network}`, SIGN_IN_PAIR_PLAN);
    },

    async failed(user) {
      const failures = await rateLimit.count(user, 'sign-in-failures', FAILURE_WINDOW_SECONDS);
      const delay = failureDelayMs(failures);
      if (delay > 0) await sleep(delay);
    },
  };
}
