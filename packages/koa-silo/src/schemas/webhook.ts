/**
 * JSON Schemas of the webhook resource (contract §12): the create body, and what the API answers.
 * They drive validation (http/webhooks.ts), the OpenAPI document and the types below.
 */
import { WEBHOOK_EVENTS } from '../model/index.js';
import type { FromSchema } from './from-schema.js';
import { fileUuid, siloMeta, timestamp } from './silo.js';


const url = {
  type: 'string',
  minLength: 1,
  maxLength: 2048,
  description:
    "Where deliveries are POSTed: http or https, no credentials in it. It must reach only globally routable unicast addresses that are not the server's own (checked at create, and after DNS at each delivery): loopback, private, link-local, multicast, documentation and other special-purpose ranges, and IPv6 forms of IPv4 addresses are refused (422 url_refused) unless the operator sets SILO_WEBHOOK_ALLOW_PRIVATE=true.",
} as const;

const events = {
  type: 'array',
  items: { type: 'string', enum: WEBHOOK_EVENTS },
  minItems: 1,
  uniqueItems: true,
  description: 'The events to deliver.',
} as const;

const silos = {
  type: 'array',
  items: fileUuid,
  maxItems: 100,
  uniqueItems: true,
  description: "Only these silos' events (default: every silo of the account). Each must be a silo of the account (422 silo_not_found otherwise).",
} as const;

/** POST /api/v1/manage/webhooks */
export const createWebhookBody = {
  type: 'object',
  description: 'Unknown fields are ignored.',
  properties: { url, events, silos },
  required: ['url', 'events'],
} as const;
export type CreateWebhookBody = FromSchema<typeof createWebhookBody>;

export const webhookInfo = {
  type: 'object',
  properties: {
    id: { type: 'string', description: 'The webhook (`wh_...`).' },
    url: { type: 'string' },
    events,
    silos: { anyOf: [silos, { type: 'null' }], description: 'The silos it is limited to; null: every silo.' },
    created_at: timestamp,
    disabled: { type: 'boolean', description: 'Turned off after every attempt failed for 5 days; no more deliveries.' },
    failing_since: { anyOf: [timestamp, { type: 'null' }], description: 'Since when every attempt has failed; null after a success.' },
  },
  required: ['id', 'url', 'events', 'silos', 'created_at', 'disabled', 'failing_since'],
} as const;

export const webhookCreated = {
  ...webhookInfo,
  properties: {
    ...webhookInfo.properties,
    secret: { type: 'string', description: 'The signing secret (`whsec_...`), shown only in this answer.' },
  },
  required: [...webhookInfo.required, 'secret'],
} as const;

/** 200 of DELETE /api/v1/manage/webhooks/{id}: as a silo's delete answers. */
export const webhookDeleted = {
  type: 'object',
  properties: { id: { type: 'string', description: 'The webhook removed (`wh_...`).' }, deleted: { const: true } },
  required: ['id', 'deleted'],
} as const;

/** 200 of POST /api/v1/manage/webhooks/{id}/retry. */
export const webhookRetried = {
  type: 'object',
  properties: {
    id: { type: 'string', description: 'The webhook (`wh_...`).' },
    rescheduled: { type: 'integer', minimum: 0, description: 'Deliveries that were waiting for a retry and are now due (attempted within a second).' },
  },
  required: ['id', 'rescheduled'],
} as const;

/**
 * A delivery's body (contract §12), POSTed to the webhook's URL and signed as the Standard
 * Webhooks specification says: the event, when it happened, and the silo's metadata and version.
 */
export const webhookEvent = {
  type: 'object',
  properties: {
    type: { type: 'string', enum: WEBHOOK_EVENTS, description: 'What happened to the silo.' },
    timestamp: { ...timestamp, description: 'When the write was committed (RFC 3339, UTC).' },
    data: siloMeta,
  },
  required: ['type', 'timestamp', 'data'],
} as const;

export const webhookList = { type: 'object', properties: { webhooks: { type: 'array', items: webhookInfo } }, required: ['webhooks'] } as const;

export const deliveryList = {
  type: 'object',
  properties: {
    deliveries: {
      type: 'array',
      description: 'Recent attempts, newest first.',
      items: {
        type: 'object',
        properties: {
          id: { type: 'string', description: 'The message id (`webhook-id`), the same on every attempt of one event.' },
          type: { type: 'string', enum: WEBHOOK_EVENTS },
          attempt: { type: 'integer', minimum: 1 },
          at: timestamp,
          status: { anyOf: [{ type: 'integer' }, { type: 'null' }], description: 'The HTTP status answered; null when none came.' },
          error: { anyOf: [{ type: 'string' }, { type: 'null' }], description: 'Why the attempt failed without a status (timeout, refused, blocked address).' },
          duration_ms: { type: 'integer', minimum: 0 },
          outcome: { type: 'string', enum: ['delivered', 'retrying', 'given up'] },
        },
        required: ['id', 'type', 'attempt', 'at', 'status', 'error', 'duration_ms', 'outcome'],
      },
    },
  },
  required: ['deliveries'],
} as const;
