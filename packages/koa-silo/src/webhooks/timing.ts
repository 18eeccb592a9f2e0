/** When the webhook delivery worker polls, retries, gives up and disables (see worker.ts). */

export interface DeliveryTiming {
  /** How often the outbox is read. */
  pollMs: number;
  /** One attempt's time limit. */
  timeoutMs: number;
  /** The first retry's delay; each next one doubles, up to maxRetryMs; ±25 % jitter. */
  retryBaseMs: number;
  maxRetryMs: number;
  /** A delivery is given up once this old (at least 24 h). */
  giveUpAfterMs: number;
  /** An endpoint failing every attempt this long is disabled. */
  disableAfterMs: number;
}

const HOUR = 3_600_000;
export const DEFAULT_DELIVERY_TIMING: DeliveryTiming = {
  pollMs: 1000,
  timeoutMs: 10_000,
  retryBaseMs: 5_000,
  maxRetryMs: 6 * HOUR,
  giveUpAfterMs: 72 * HOUR,
  disableAfterMs: 5 * 24 * HOUR,
};

