/**
 * Webhooks' vocabulary (contract §12), below the layers that use it: what an account registers,
 * and a delivery waiting in the outbox, recorded in the commit of the write it reports.
 */

export const WEBHOOK_EVENTS = ['silo.created', 'silo.updated', 'silo.deleted'] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENTS)[number];

/** A webhook as its account sees it (never its secret, except once at create). */
export interface WebhookInfo {
  id: string;
  url: string;
  events: WebhookEventType[];
  /** Only these silos' events (uuids); null: every silo of the account. */
  silos: string[] | null;
  created_at: string;
  /** Turned off after failing every attempt for DISABLE_AFTER (5 days); deliveries stop. */
  disabled: boolean;
  /** When the current run of failed attempts began; null after a success. */
  failing_since: string | null;
}

/** As stored: the signing secret is kept (it signs every delivery), and the owning account. */
export interface StoredWebhook extends WebhookInfo {
  account: string;
  secret: string;
}

/** A delivery in the outbox: one message to one webhook, the same bytes and id on every attempt. */
export interface PendingDelivery {
  /** The message id (`webhook-id`). */
  id: string;
  webhook: string;
  account: string;
  type: WebhookEventType;
  /** The JSON body sent. */
  body: string;
  /** When the write committed (epoch ms). */
  created_at: number;
  /** Attempts made so far. */
  attempts: number;
  /** When the next attempt is due (epoch ms); while claimed, when the claim lapses. */
  due: number;
  /** Set while an instance attempts it (until `due`): a retry-now leaves such a delivery alone. */
  claimed?: true;
}

/** One attempt as the deliveries list shows it. */
export interface DeliveryAttempt {
  /** The message id (the same on every attempt of one event). */
  id: string;
  type: WebhookEventType;
  attempt: number;
  at: string;
  status: number | null;
  error: string | null;
  duration_ms: number;
  /** What became of the event after this attempt. */
  outcome: 'delivered' | 'retrying' | 'given up';
}

/** Webhooks one account may have. */
export const MAX_WEBHOOKS_PER_ACCOUNT = 10;

/** When the webhook delivery worker polls, retries, gives up and disables (see webhooks/worker.ts). */

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

