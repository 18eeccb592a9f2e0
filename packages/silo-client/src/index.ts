/**
 * silo-client: the official TypeScript client of Silo's HTTP API, for Node 20+ and browsers.
 * No runtime dependency but silo-query (exact JSON numbers), which has none.
 *
 *   const silo = new SiloClient({ baseUrl: 'http://localhost:8080', manageKey, accessKey });
 *   const { file_uuid } = await silo.create({ file_name: 'users', file_data: [{ name: 'Ada', age: 36 }] });
 *   const { data, total } = await silo.read(file_uuid, { filter: where('age').gt(30), sort: '-age' });
 */
export {
  Audit,
  REGIONS,
  SiloClient,
  Webhooks,
  type Address,
  type AuditAction,
  type AuditEntry,
  type AuditList,
  type AuditQuery,
  type CallOptions,
  type Change,
  type ConflictOptions,
  type Current,
  type Delivery,
  type FileData,
  type FullOptions,
  type JsonPatch,
  type JsonPatchOperation,
  type MinimalOptions,
  type PageOptions,
  type ReadOptions,
  type ReadResult,
  type Region,
  type SiloClientOptions,
  type SiloCreate,
  type SiloCreated,
  type SiloDeleted,
  type SiloList,
  type SiloListItem,
  type SiloMergePatch,
  type SiloMeta,
  type SiloUpdate,
  type SiloUpdated,
  type Tagged,
  type UpdateOptions,
  type VersionData,
  type VersionInfo,
  type VersionList,
  type WebhookCreate,
  type WebhookCreated,
  type WebhookDeleted,
  type WebhookEvent,
  type WebhookInfo,
  type WebhookRetried,
  type WriteOptions,
} from './client.js';
export { isSiloError, SiloError, SiloRegionError, type ValidationIssue } from './errors.js';
export type { AuditEvent, AuditEventOptions, EventOptions, SiloEvent } from './events.js';
export type { RetryOptions } from './http.js';
export { and, Field, Filter, literal, not, or, pathText, queryString, where, type Literal, type Op, type FilterOp, type Output, type Path, type ReadQuery } from './query.js';
export type { components, operations, paths } from './generated/openapi.js';
// Exact numbers: answers hold JsonNumbers, which JSON.stringify refuses; toJSON writes them as sent.
export { isNumber, JsonNumber, parseJson, toJSON, type JsonValue } from 'silo-query';
