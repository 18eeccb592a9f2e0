/**
 * Standard Webhooks signatures (https://www.standardwebhooks.com/, contract §12), symmetric
 * scheme `v1`: HMAC-SHA256 over `<id>.<timestamp>.<body>`, keyed with the secret's bytes. Done
 * with node:crypto so receivers can verify with any Standard Webhooks library and the server
 * needs no dependency for it.
 */
import { createHmac, randomBytes } from 'node:crypto';

const SECRET_PREFIX = 'whsec_';

export type SignatureHeaders = Record<'webhook-id' | 'webhook-timestamp' | 'webhook-signature', string>;

/** `whsec_` + base64 of 32 random bytes (the spec asks for 24 to 64). Shown to the account once. */
export function newWebhookSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64');
}

/**
 * `msg_` + 144 random bits, url-safe. The same id goes with every retry of one event, so a
 * receiver can use it as an idempotency key; it never contains a `.`, which would make the signed
 * content `<id>.<timestamp>.<body>` ambiguous.
 */
export function newMessageId(): string {
  return `msg_${randomBytes(18).toString('base64url')}`;
}

/** The HMAC key: the base64 after `whsec_` decoded (a bare base64 secret is accepted too). */
function secretKey(secret: string): Buffer {
  const encoded = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  const key = Buffer.from(encoded, 'base64');
  if (key.length === 0) throw new Error('A webhook secret must hold key bytes');
  return key;
}

/** The three headers that let a receiver check `body` came from us, unchanged, and recently. */
export function signatureHeaders(secret: string, id: string, timestampSeconds: number, body: string): SignatureHeaders {
  // Both would make the signed content ambiguous or unverifiable: programming errors, not input.
  if (id.includes('.')) throw new Error('A webhook message id must not contain "."');
  if (!Number.isSafeInteger(timestampSeconds)) throw new Error('A webhook timestamp must be whole seconds');
  const timestamp = String(timestampSeconds);
  const mac = createHmac('sha256', secretKey(secret)).update(`${id}.${timestamp}.${body}`, 'utf8').digest('base64');
  return { 'webhook-id': id, 'webhook-timestamp': timestamp, 'webhook-signature': `v1,${mac}` };
}
