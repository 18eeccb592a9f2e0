/** When a key stops working, in words, and whether that is soon (within 7 days, as `silo keys list` warns). */

const DAY_MS = 86_400_000;
export const SOON_DAYS = 7;

/** True when the key has expired, or expires within `SOON_DAYS`. */
export function expiresSoon(expiresAt: string | null | undefined, now: number): boolean {
  if (!expiresAt) return false;
  const at = Date.parse(expiresAt);
  return Number.isFinite(at) && at - now < SOON_DAYS * DAY_MS;
}

/** "expired", "in less than a day", "in 1 day", "in 12 days"; "never" without an expiry. */
export function timeLeft(expiresAt: string | null | undefined, now: number): string {
  if (!expiresAt) return 'never';
  const left = Date.parse(expiresAt) - now;
  if (!Number.isFinite(left)) return expiresAt;
  if (left <= 0) return 'expired';
  if (left < DAY_MS) return 'in less than a day';
  // Rounded up: a key made for 7 days is "in 7 days" for its first day, not "in 6 days".
  const days = Math.ceil(left / DAY_MS);
  return `in ${days} day${days === 1 ? '' : 's'}`;
}
