/**
 * What the `data:` line of each server-sent event holds (contract §11, §19): the change feeds of a
 * silo and of an account, and the audit feed. Not used to validate (the server writes these); they
 * describe the streams in the OpenAPI document, whose generated types the official client uses.
 */
import { fileData, fileUuid, regionName, siloMeta, timestamp, version } from './silo.js';

/** `update` on a silo's feed (`file_data` with `?data=1`); `create`, `update` and `delete` on the account's. */
export const siloChangeEvent = {
  type: 'object',
  description: "The silo's metadata after the write (`update`; on the account's feed also `create` and `delete`), with `file_data` when the stream was opened with `?data=1`.",
  properties: { ...siloMeta.properties, file_data: fileData },
  required: siloMeta.required,
  additionalProperties: false,
} as const;

/** `delete` on a silo's feed, its last event. */
export const siloDeleteEvent = {
  type: 'object',
  description: "`delete` on a silo's feed: the silo is gone; the stream ends.",
  properties: { file_uuid: fileUuid, version },
  required: ['file_uuid', 'version'],
  additionalProperties: false,
} as const;

/** `move` on a silo's feed, its last event. */
export const siloMoveEvent = {
  type: 'object',
  description: "`move` on a silo's feed: the silo now answers on the host of `region_name`; the stream ends.",
  properties: { file_uuid: fileUuid, region_name: regionName, version },
  required: ['file_uuid', 'region_name', 'version'],
  additionalProperties: false,
} as const;

/** `reset` on a silo's feed: the versions after Last-Event-ID are no longer all in history. */
export const feedResetEvent = {
  type: 'object',
  description: '`reset`: history no longer holds every version after `Last-Event-ID`; `version` is the current one (read the silo again).',
  properties: { file_uuid: fileUuid, version },
  required: ['file_uuid', 'version'],
  additionalProperties: false,
} as const;

/** `reset` on the audit feed: more entries were missed than it replays. */
export const auditResetEvent = {
  type: 'object',
  description: '`reset` on the audit feed: more entries were missed than it replays; list the log from `since` to catch up.',
  properties: { detail: { type: 'string' }, since: timestamp },
  required: ['detail', 'since'],
  additionalProperties: false,
} as const;
