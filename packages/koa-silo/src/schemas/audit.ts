/**
 * The audit log's schemas (contract §19): the query of `GET /api/v1/manage/audit`, an entry, a
 * page of them, and the path item of the OpenAPI document.
 */
import { AUDIT_ACTIONS, AUDIT_ACTOR_TYPES } from '../model/index.js';
import type { FromSchema } from './from-schema.js';
import { listQuery } from './params.js';
import { fileUuid } from './silo.js';

/** page, page_no and per_page as the silo list's; since, silo and actor filter. */
export const auditQuery = {
  type: 'object',
  properties: {
    ...listQuery.properties,
    per_page: { ...listQuery.properties.per_page, description: 'Entries per page, 1 to 100.' },
    since: {
      type: 'string',
      format: 'date-time',
      description: 'Only entries at or after this time (RFC 3339, such as `2026-05-01T00:00:00Z`).',
    },
    silo: { ...fileUuid, description: 'Only entries of this silo (its file_uuid).' },
    actor: {
      type: 'string',
      minLength: 1,
      maxLength: 100,
      description: 'Only entries of actors of this name: a manage key\'s name, a console user, `silo` (the command).',
    },
  },
} as const;
export type AuditQueryParams = FromSchema<typeof auditQuery>;

export const auditEntry = {
  type: 'object',
  description:
    'One management action: when, what, who (a manage key by its type and name, a console user, the `silo` command, or the programmatic API), from which address, on which silo and version, and whether it succeeded. Never a key value, a password or silo data.',
  properties: {
    time: { type: 'string', format: 'date-time' },
    action: { type: 'string', enum: [...AUDIT_ACTIONS] },
    actor: {
      type: 'object',
      properties: { type: { type: 'string', enum: [...AUDIT_ACTOR_TYPES] }, name: { type: 'string' } },
      required: ['type', 'name'],
    },
    address: { type: ['string', 'null'], description: "The client's address (null for the `silo` command and the programmatic API)." },
    file_uuid: { ...fileUuid, description: 'The silo acted on (silo actions).' },
    version: { type: 'integer', minimum: 1, description: 'The version the action made (silo.delete: the last one).' },
    subject: {
      type: 'string',
      description: 'What else the action was on: a key (`manage:NAME`, `access:NAME`), a webhook id, a console user, the region of a move.',
    },
    outcome: { type: 'string', enum: ['success', 'failure'] },
  },
  required: ['time', 'action', 'actor', 'address', 'outcome'],
} as const;

export const auditList = {
  type: 'object',
  properties: {
    metadata: {
      type: 'object',
      properties: { total_items: { type: 'integer' }, per_page: { type: 'integer' }, page_no: { type: 'integer' } },
      required: ['total_items', 'per_page', 'page_no'],
    },
    entries: { type: 'array', items: auditEntry },
  },
  required: ['metadata', 'entries'],
} as const;

/** The path item of `GET /api/v1/manage/audit`, with what the document around it shares. */
export function auditPathItem(security: unknown, errors: Record<string, unknown>, rateHeaders: Record<string, unknown>): Record<string, unknown> {
  return {
    get: {
      tags: ['manage'],
      operationId: 'listAudit',
      summary: "The account's audit log, newest first",
      description:
        'Every management action of the account (silo create, update, patch, restore, move, delete; key create and revoke; webhook create and delete; console sign-in, failed sign-in, sign-out; console user create and delete; import), each committed with the action it records. Paged as the silo list. Entries are kept for the plan\'s `auditDays` (default 90).',
      security,
      parameters: Object.entries(auditQuery.properties).map(([name, schema]) => ({ name, in: 'query', required: false, description: schema.description, schema })),
      responses: {
        '200': { description: 'One page of entries.', headers: rateHeaders, content: { 'application/json': { schema: { $ref: '#/components/schemas/AuditList' } } } },
        '422': { $ref: '#/components/responses/ValidationFailed' },
        ...errors,
      },
    },
  };
}

/** Where the audit feed resumes: an event id of the feed (an entry's time) or `since`, both RFC 3339 times. */
export const auditFeedResume = {
  'Last-Event-ID': {
    type: 'string',
    format: 'date-time',
    description: 'Resume after a reconnect: the id of the last event received (an entry\'s time). Entries at or after it are sent again first (those of that millisecond included), at most 1 000.',
  },
  since: {
    type: 'string',
    format: 'date-time',
    description: 'Start with the entries at or after this time (RFC 3339), at most 1 000; without it (and without Last-Event-ID), only new entries.',
  },
} as const;

/** The OpenAPI path item of `GET /api/v1/manage/audit/events`. */
export function auditFeedPathItem(security: unknown, errors: Record<string, unknown>, stream: unknown): Record<string, unknown> {
  return {
    get: {
      tags: ['manage'],
      operationId: 'auditEvents',
      summary: "The account's audit feed: each audit log entry, as it commits",
      description:
        'Server-sent `audit` events, one per entry of the account\'s audit log, `data` the entry as the listing shows it, `id` its time. The log is read every second (entries of every instance, whatever the store); an entry committed late (up to 5 s behind) still comes. A replay of more than 1 000 entries sends one `reset` event instead (read them with `GET /api/v1/manage/audit`), then goes on live. Ends when the key is revoked (checked every second).',
      security,
      parameters: [
        { name: 'Last-Event-ID', in: 'header', required: false, description: auditFeedResume['Last-Event-ID'].description, schema: auditFeedResume['Last-Event-ID'] },
        { name: 'since', in: 'query', required: false, description: auditFeedResume.since.description, schema: auditFeedResume.since },
      ],
      responses: { '200': stream, '422': { $ref: '#/components/responses/ValidationFailed' }, ...errors },
    },
  };
}
