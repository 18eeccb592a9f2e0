/**
 * Time as the service records it: RFC 3339 in UTC with milliseconds (`2026-01-02T03:04:05.678Z`).
 * The clock is injectable so tests can freeze it, expire keys, and force equal timestamps.
 */

/** Milliseconds since the epoch. */
export type Clock = () => number;

export const systemClock: Clock = () => Date.now();

export function isoTime(ms: number): string {
  return new Date(ms).toISOString();
}

/**
 * The updated_at of a write that follows one stamped `previous`: now, but always strictly later
 * than `previous`, so that updated_at grows with every update even when two share a millisecond
 * (or the clock steps back), and never falls below created_at.
 */
export function nextUpdatedAt(previous: string, nowMs: number): string {
  const previousMs = Date.parse(previous);
  return isoTime(Number.isNaN(previousMs) ? nowMs : Math.max(nowMs, previousMs + 1));
}
