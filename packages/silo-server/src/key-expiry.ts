/**
 * Manage keys expire (30 days by default), access keys when given a duration, and whatever uses
 * one stops working the day it does. So the server warns in its log, at start and then daily,
 * about each key that expires within 7 days (or did in the last 7): its account and name, never
 * its value.
 */
import type { AccountService } from 'koa-silo';
import { errorFields, type Logger } from './log.js';

export const DAY_MS = 86_400_000;
/** A key this close to its expiry (or as long past it) is warned about: the log, `silo keys list`. */
export const EXPIRY_WARNING_DAYS = 7;

/**
 * `left` milliseconds (more than none) in words: "in less than a day", "in 7 days". Days are
 * rounded up, as the console rounds them: a key made for 7 days is "in 7 days" on its first day.
 */
export function inDays(left: number): string {
  if (left < DAY_MS) return 'in less than a day';
  const days = Math.ceil(left / DAY_MS);
  return `in ${days} day${days === 1 ? '' : 's'}`;
}

/** Writes one warn line per manage key close to its expiry; resolves to how many. */
export async function warnExpiringKeys(accounts: AccountService, logger: Logger, now = Date.now()): Promise<number> {
  let warned = 0;
  for (const account of await accounts.listAccounts()) {
    for (const key of await accounts.listKeys(account.name)) {
      // Every manage key expires; an access key only when it was given a duration.
      if (!key.expires_at) continue;
      const left = Date.parse(key.expires_at) - now;
      if (Math.abs(left) > EXPIRY_WARNING_DAYS * DAY_MS) continue;
      const fields = { account: key.account, name: key.name, expires_at: key.expires_at };
      const replace = `replace it: silo keys create --account ${key.account} --type ${key.type} --name NAME`;
      if (left > 0) logger.warn(`${key.type} key expires soon`, { ...fields, expires_in_hours: Math.floor(left / 3_600_000), action: replace });
      else logger.warn(`${key.type} key has expired`, { ...fields, action: replace });
      warned++;
    }
  }
  return warned;
}

export interface ExpiryWatch {
  /** Stops the daily check; resolves once a check under way has finished (before storage closes). */
  stop(): Promise<void>;
}

/** Checks now, then every `intervalMs` (a day) until stopped. A failed check is a warn line, not a crash. */
export function watchKeyExpiry(accounts: AccountService, logger: Logger, intervalMs = DAY_MS): ExpiryWatch {
  let running: Promise<unknown> = Promise.resolve();
  const check = () => {
    running = warnExpiringKeys(accounts, logger).catch((error: unknown) => logger.warn('checking key expiry failed', errorFields(error)));
  };
  check();
  const timer = setInterval(check, intervalMs).unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
