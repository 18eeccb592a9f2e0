/**
 * The OpenAPI 3.1 document served at /api/v1/openapi.json, built from the same schema objects that
 * validate requests. Shared schema objects become `$ref`s to components by identity, so a schema is
 * written once and cannot drift between the document and the behaviour.
 */
import { type Plan, type Region, REGIONS } from '../model/index.js';
import { httpError, validationError, validationIssue } from './errors.js';
import { dataQuery, headers, listQuery, versionPath } from './params.js';
import {
  anyJson,
  createSiloBody,
  fileData,
  fileUuid,
  jsonPatch,
  mergePatch,
  siloCreated,
  siloData,
  siloDeleted,
  siloList,
  siloMeta,
  siloUpdated,
  updateSiloBody,
  versionData,
  versionInfo,
  versionList,
} from './silo.js';
import { createWebhookBody, deliveryList, webhookCreated, webhookInfo, webhookList } from './webhook.js';

export const OPENAPI_VERSION = '0.1.0';

const SCHEMAS: Record<string, object> = {
  FileUuid: fileUuid,
  SiloCreate: createSiloBody,
  SiloUpdate: updateSiloBody,
  SiloCreated: siloCreated,
  SiloMeta: siloMeta,
  SiloList: siloList,
  SiloData: siloData,
  SiloUpdated: siloUpdated,
  SiloDeleted: siloDeleted,
  SiloMergePatch: mergePatch,
  SiloJsonPatch: jsonPatch,
  VersionInfo: versionInfo,
  VersionList: versionList,
  VersionData: versionData,
  FileData: fileData,
  WebhookCreate: createWebhookBody,
  WebhookInfo: webhookInfo,
  WebhookCreated: webhookCreated,
  WebhookList: webhookList,
  DeliveryList: deliveryList,
  HTTPError: httpError,
  HTTPValidationError: validationError,
  ValidationIssue: validationIssue,
};

const NAME_OF = new Map<object, string>(Object.entries(SCHEMAS).map(([name, schema]) => [schema, name]));

/** A deep copy of `schema` where nested named schemas become `$ref`s. */
function refify(schema: unknown, root = true): unknown {
  if (Array.isArray(schema)) return schema.map((s) => refify(s, false));
  if (schema === null || typeof schema !== 'object') return schema;
  const name = NAME_OF.get(schema);
  if (!root && name) return { $ref: `#/components/schemas/${name}` };
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) out[key] = refify(value, false);
  return out;
}

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: object) => ({ 'application/json': { schema } });
const response = (name: string) => ({ $ref: `#/components/responses/${name}` });

const RATE_HEADERS = {
  'RateLimit-Limit': { $ref: '#/components/headers/RateLimit-Limit' },
  'RateLimit-Remaining': { $ref: '#/components/headers/RateLimit-Remaining' },
  'RateLimit-Reset': { $ref: '#/components/headers/RateLimit-Reset' },
};
const ETAG_HEADERS = { ETag: { $ref: '#/components/headers/ETag' }, ...RATE_HEADERS };
/** A data read's: its ETag (covering the query), rate limits, and the count of a search, filter or paging query. */
const DATA_HEADERS = { ...ETAG_HEADERS, 'X-Total-Count': { $ref: '#/components/headers/X-Total-Count' } };

const uuidParam = {
  name: 'file_uuid',
  in: 'path',
  required: true,
  description: 'The silo. A value that is not a 36-character uuid is a 422 with loc ["path","file_uuid"].',
  schema: ref('FileUuid'),
};
const versionParam = {
  name: 'version',
  in: 'path',
  required: true,
  description: 'A version in the silo\'s history. Not a positive integer: 422 with loc ["path","version"].',
  schema: versionPath.properties.version,
};
const manageKey = {
  name: 'X-MAN-API',
  in: 'header',
  required: true,
  description: 'The manage key (also documented as the ManageKey security scheme).',
  schema: headers.manageKey,
};
const accessKey = { name: 'X-SILO-KEY', in: 'header', required: true, schema: headers.accessKey };
const ifNoneMatch = { name: 'If-None-Match', in: 'header', required: false, schema: headers.ifNoneMatch };

function ifMatch(requireIfMatch: boolean) {
  return {
    name: 'If-Match',
    in: 'header',
    required: requireIfMatch,
    description:
      `${headers.ifMatch.description} ` +
      (requireIfMatch ? 'This server requires it: without it the answer is 428.' : 'Optional on this server.'),
    schema: headers.ifMatch,
  };
}

const queryParams = Object.entries(listQuery.properties).map(([name, schema]) => ({
  name,
  in: 'query',
  required: false,
  description: schema.description,
  schema,
}));

const dataParams = Object.entries(dataQuery).map(([name, schema]) => ({
  name,
  in: 'query',
  required: false,
  description: schema.description,
  schema,
}));

/** The responses every management operation can give besides its own. */
const MANAGE_ERRORS = {
  '401': response('Unauthorized'),
  '429': response('TooManyRequests'),
  '500': response('InternalError'),
  '503': response('StorageUnavailable'),
};

const EVENTS_DESCRIPTION =
  'text/event-stream. On each committed write: `event: update`, `id: <version>`, `data:` the metadata fields and `version` (and `file_data` with `?data=1`). On delete: `event: delete`, then the end; on a region move: `event: move` with the new `region_name`, then the end. `Last-Event-ID` (or `?since=`) replays the later versions still in history, or sends `event: reset` with the current version when some were pruned. A comment line every 15 s keeps the stream open; a revoked key ends it within 1 s. At most 20 streams per client (the operator may change it): 429 beyond.';

const EVENT_PARAMS = [
  { name: 'Last-Event-ID', in: 'header', required: false, description: 'The last version the client has: later versions are replayed first.', schema: { type: 'string', pattern: '^[0-9]{1,15}$' } },
  { name: 'since', in: 'query', required: false, description: 'As Last-Event-ID, for clients that cannot set headers.', schema: { type: 'string', pattern: '^[0-9]{1,15}$' } },
  { name: 'data', in: 'query', required: false, description: '`1`: each update carries `file_data`.', schema: { type: 'string', enum: ['1'] } },
];

const WEBHOOK_ID = { name: 'id', in: 'path', required: true, description: 'The webhook (`wh_...`).', schema: { type: 'string' } };

const EVENT_STREAM = {
  description: 'A stream of server-sent events, open until the silo is deleted or moved, the key revoked, or the client leaves.',
  content: { 'text/event-stream': { schema: { type: 'string' } } },
};

export interface OpenApiOptions {
  hosts: Record<Region, string>;
  plans: Record<string, Plan>;
  publicQueries: boolean;
  requireIfMatch: boolean;
}

const BEYOND = [
  'Query and search parameters are accepted in any order (the hosted service demands idx, path, output / q, value, op, path).',
  'Every data, get-silo, meta, create and update response carries a strong ETag; If-None-Match answers 304; If-Match on PATCH and DELETE answers 412 when the silo has changed (428 without it when the operator requires it).',
  'Public data allows CORS GET from any origin; OPTIONS preflights are answered. Keyed requests allow CORS only from the origins the operator lists (none by default), never with credentials.',
  'Region moves copy, switch, then delete: a read in flight during a move still succeeds.',
  'Every write is atomic (a reader, or a restart after a crash, sees the whole write or none of it) and makes a new version: `version` is in every metadata answer; history (GET /api/v1/manage/{file_uuid}/versions) keeps the plan\'s number of versions and any of them can be restored.',
  'PATCH takes an RFC 7386 merge patch (Content-Type application/merge-patch+json) or an RFC 6902 JSON Patch (application/json-patch+json); any other Content-Type keeps the update body.',
  'The stored JSON is exactly the JSON sent (numbers as written), without its insignificant whitespace.',
  'page_no is accepted as another name for page; a trailing slash is accepted on every management path.',
  'Unknown body fields are ignored; bodies are read as JSON whatever their Content-Type (a compressed body is a 415).',
  'JSON nested deeper than the configured depth (default 1000) is a 422 of type json_too_deep.',
  'Manage keys expire (7d, 30d, 90d, 365d, never); keys are stored hashed and compared in constant time.',
];

export function buildOpenApi(options: OpenApiOptions): Record<string, unknown> {
  const defaultPlan = options.plans.default!;
  const hostList = REGIONS.map((r) => `\`${r}\`: ${options.hosts[r]}`).join(', ');
  const schemas: Record<string, unknown> = {};
  for (const [name, schema] of Object.entries(SCHEMAS)) schemas[name] = refify(schema);

  return {
    openapi: '3.1.0',
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    info: {
      title: 'Silo',
      version: OPENAPI_VERSION,
      description: [
        'Self-hosted JSON hosting: one JSON value per silo, a management API and a data API with query and search.',
        '',
        `Regions and hosts: ${hostList}. The region of a request is the one whose host equals the Host header (port ignored); any other host is served as \`api\`. Management answers on every host; data only on the silo's region host (404 elsewhere).`,
        '',
        `Errors are JSON: \`{"detail": "..."}\` or the validation body. Unknown paths under Silo's addresses answer 404 \`{"detail":"Not Found"}\`; a known path with another method answers 405 with Allow. A storage outage is a 503. Rate limit: per client per minute by plan (default plan: ${defaultPlan.rateLimitPerMinute || 'unlimited'}/min, ${defaultPlan.maxDataBytes} bytes of file_data).`,
        '',
        'Beyond the hosted service (never breaking its clients):',
        ...BEYOND.map((b) => `- ${b}`),
      ].join('\n'),
    },
    servers: [{ url: '/', description: `The host you reach decides the region for data access (${hostList}).` }],
    security: [],
    tags: [
      { name: 'manage', description: 'Create, read, update, delete and list silos (manage key).' },
      { name: 'history', description: 'The versions of a silo: list, read, restore (manage key).' },
      { name: 'data', description: "Read a silo's JSON, with query and search parameters on the private address." },
      { name: 'events', description: 'Change feeds as server-sent events: one silo (access key, or public), or a whole account (manage key).' },
      { name: 'webhooks', description: 'Signed POSTs of silo changes to URLs of the account (manage key).' },
      { name: 'meta', description: 'This document.' },
    ],
    paths: {
      '/api/v1/manage/': {
        post: {
          tags: ['manage'],
          operationId: 'createSilo',
          summary: 'Create a silo (also at /api/v1/manage without the slash)',
          security: [{ ManageKey: [] }],
          parameters: [manageKey],
          requestBody: { required: true, content: json(ref('SiloCreate')) },
          responses: {
            '201': {
              description: 'Created.',
              headers: { ...ETAG_HEADERS, Location: { description: 'The meta address of the new silo.', schema: { type: 'string' } } },
              content: json(ref('SiloCreated')),
            },
            '413': response('PayloadTooLarge'),
            '415': response('UnsupportedMediaType'),
            '422': response('ValidationFailed'),
            ...MANAGE_ERRORS,
          },
        },
      },
      '/api/v1/manage/silos': {
        get: {
          tags: ['manage'],
          operationId: 'listSilos',
          summary: "List the caller's silos, newest first",
          security: [{ ManageKey: [] }],
          parameters: [manageKey, ...queryParams],
          responses: {
            '200': { description: 'One page of the listing.', headers: RATE_HEADERS, content: json(ref('SiloList')) },
            '422': response('ValidationFailed'),
            ...MANAGE_ERRORS,
          },
        },
      },
      '/api/v1/manage/meta/{file_uuid}': {
        get: {
          tags: ['manage'],
          operationId: 'getSiloMeta',
          summary: 'Read the six metadata fields of a silo',
          security: [{ ManageKey: [] }],
          parameters: [uuidParam, manageKey, ifNoneMatch],
          responses: {
            '200': { description: 'The metadata.', headers: ETAG_HEADERS, content: json(ref('SiloMeta')) },
            '304': response('NotModified'),
            '404': response('NotFound'),
            '422': response('ValidationFailed'),
            ...MANAGE_ERRORS,
          },
        },
      },
      '/api/v1/manage/{file_uuid}': {
        get: {
          tags: ['manage'],
          operationId: 'getSilo',
          summary: 'Read the stored JSON of a silo under `data`',
          security: [{ ManageKey: [] }],
          parameters: [uuidParam, manageKey, ifNoneMatch],
          responses: {
            '200': { description: 'The stored JSON, exactly as stored.', headers: ETAG_HEADERS, content: json(ref('SiloData')) },
            '304': response('NotModified'),
            '404': response('NotFound'),
            '422': response('ValidationFailed'),
            ...MANAGE_ERRORS,
          },
        },
        patch: {
          tags: ['manage'],
          operationId: 'updateSilo',
          summary: 'Update any subset of file_name, file_data, region_name, is_public',
          description:
            'A region change moves the data to the new region\'s storage, then removes it from the old one: after the response the old host answers 404 and the new host serves the silo. Every update changes updated_at.',
          security: [{ ManageKey: [] }],
          parameters: [uuidParam, manageKey, ifMatch(options.requireIfMatch)],
          requestBody: {
            required: true,
            content: {
              ...json(ref('SiloUpdate')),
              'application/merge-patch+json': { schema: ref('SiloMergePatch') },
              'application/json-patch+json': { schema: ref('SiloJsonPatch') },
            },
          },
          responses: {
            '200': { description: 'All seven fields and the version after the update.', headers: ETAG_HEADERS, content: json(ref('SiloUpdated')) },
            '404': response('NotFound'),
            '409': response('PatchConflict'),
            '412': response('PreconditionFailed'),
            '413': response('PayloadTooLarge'),
            '415': response('UnsupportedMediaType'),
            '422': response('ValidationFailed'),
            '428': response('PreconditionRequired'),
            ...MANAGE_ERRORS,
          },
        },
        delete: {
          tags: ['manage'],
          operationId: 'deleteSilo',
          summary: 'Delete a silo: afterwards every address of it answers 404',
          security: [{ ManageKey: [] }],
          parameters: [uuidParam, manageKey, ifMatch(options.requireIfMatch)],
          responses: {
            '200': { description: 'Deleted.', headers: RATE_HEADERS, content: json(ref('SiloDeleted')) },
            '404': response('NotFound'),
            '412': response('PreconditionFailed'),
            '422': response('ValidationFailed'),
            '428': response('PreconditionRequired'),
            ...MANAGE_ERRORS,
          },
        },
      },
      '/api/v1/manage/{file_uuid}/versions': {
        get: {
          tags: ['history'],
          operationId: 'listVersions',
          summary: "List the versions in a silo's history, newest first",
          security: [{ ManageKey: [] }],
          parameters: [uuidParam, manageKey, ...queryParams],
          responses: {
            '200': { description: 'One page of the history.', headers: RATE_HEADERS, content: json(ref('VersionList')) },
            '404': response('NotFound'),
            '422': response('ValidationFailed'),
            ...MANAGE_ERRORS,
          },
        },
      },
      '/api/v1/manage/{file_uuid}/versions/{version}': {
        get: {
          tags: ['history'],
          operationId: 'getVersion',
          summary: 'Read the stored JSON of one version',
          security: [{ ManageKey: [] }],
          parameters: [uuidParam, versionParam, manageKey],
          responses: {
            '200': { description: 'The version and its stored JSON.', headers: RATE_HEADERS, content: json(ref('VersionData')) },
            '404': response('NotFound'),
            '422': response('ValidationFailed'),
            ...MANAGE_ERRORS,
          },
        },
      },
      '/api/v1/manage/{file_uuid}/versions/{version}/restore': {
        post: {
          tags: ['history'],
          operationId: 'restoreVersion',
          summary: "Write a new version whose file_data is that version's (name, visibility and region unchanged)",
          security: [{ ManageKey: [] }],
          parameters: [uuidParam, versionParam, manageKey, ifMatch(options.requireIfMatch)],
          responses: {
            '200': { description: 'As an update: all seven fields and the new version.', headers: ETAG_HEADERS, content: json(ref('SiloUpdated')) },
            '404': response('NotFound'),
            '412': response('PreconditionFailed'),
            '422': response('ValidationFailed'),
            '428': response('PreconditionRequired'),
            ...MANAGE_ERRORS,
          },
        },
      },
      '/{file_uuid}': {
        get: {
          tags: ['data'],
          operationId: 'readPrivateData',
          summary: "Read a silo of the key's account (private, or public) on its region host, with query or search",
          description:
            'Without parameters: the stored JSON. With idx/path/output: the selected, converted value (null when it does not resolve). With q/value/op and/or filter, sort, limit, offset [+ path or fields]: the array of matches, in that order of evaluation, and `X-Total-Count` (the matches before offset and limit) when a search, filter, limit or offset was given. Parameters may come in any order; the ETag covers them.',
          security: [{ AccessKey: [] }],
          parameters: [
            { ...uuidParam, description: 'The silo (a path that is not a uuid is not a Silo address).' },
            accessKey,
            ifNoneMatch,
            ...dataParams,
          ],
          responses: {
            '200': { description: 'JSON.', headers: DATA_HEADERS, content: json(anyJson) },
            '304': response('NotModified'),
            '401': response('Unauthorized'),
            '404': response('NotFound'),
            '422': response('ValidationFailed'),
            '429': response('TooManyRequests'),
            '500': response('InternalError'),
            '503': response('StorageUnavailable'),
          },
        },
      },
      '/public/{file_uuid}': {
        get: {
          tags: ['data'],
          operationId: 'readPublicData',
          summary: 'Read a public silo on its region host, no credentials',
          description: options.publicQueries
            ? 'Query and search parameters work here too (publicQueries is on). CORS: any origin.'
            : 'Query or search parameters here are a 400: they need the private address. CORS: any origin.',
          security: [],
          parameters: [
            { ...uuidParam, description: 'The silo (a path that is not a uuid is not a Silo address).' },
            ifNoneMatch,
            ...(options.publicQueries ? dataParams : []),
          ],
          responses: {
            '200': {
              description: 'JSON.',
              headers: { ...DATA_HEADERS, 'Access-Control-Allow-Origin': { schema: { const: '*' } } },
              content: json(anyJson),
            },
            '304': response('NotModified'),
            '400': response('BadRequest'),
            '404': response('NotFound'),
            '422': response('ValidationFailed'),
            '429': response('TooManyRequests'),
            '500': response('InternalError'),
            '503': response('StorageUnavailable'),
          },
        },
        options: {
          tags: ['data'],
          operationId: 'preflightPublicData',
          summary: 'CORS preflight',
          security: [],
          parameters: [{ ...uuidParam, description: 'The silo.' }],
          responses: { '204': { description: 'Any origin may GET.' } },
        },
      },
      '/{file_uuid}/events': {
        get: {
          tags: ['events'],
          operationId: 'privateEvents',
          summary: "The silo's change feed (server-sent events) on its region host",
          description: EVENTS_DESCRIPTION,
          security: [{ AccessKey: [] }],
          parameters: [{ ...uuidParam, description: 'The silo.' }, accessKey, ...EVENT_PARAMS],
          responses: {
            '200': EVENT_STREAM,
            '400': response('BadRequest'),
            '401': response('Unauthorized'),
            '404': response('NotFound'),
            '429': response('TooManyRequests'),
            '500': response('InternalError'),
            '503': response('StorageUnavailable'),
          },
        },
      },
      '/public/{file_uuid}/events': {
        get: {
          tags: ['events'],
          operationId: 'publicEvents',
          summary: "A public silo's change feed, no credentials, any origin (a browser's EventSource works)",
          description: `${EVENTS_DESCRIPTION} The stream also ends when the silo turns private.`,
          security: [],
          parameters: [{ ...uuidParam, description: 'The silo.' }, ...EVENT_PARAMS],
          responses: {
            '200': EVENT_STREAM,
            '400': response('BadRequest'),
            '404': response('NotFound'),
            '429': response('TooManyRequests'),
            '500': response('InternalError'),
            '503': response('StorageUnavailable'),
          },
        },
        options: {
          tags: ['events'],
          operationId: 'preflightPublicEvents',
          summary: 'CORS preflight',
          security: [],
          parameters: [{ ...uuidParam, description: 'The silo.' }],
          responses: { '204': { description: 'Any origin may GET.' } },
        },
      },
      '/api/v1/manage/events': {
        get: {
          tags: ['events'],
          operationId: 'accountEvents',
          summary: "The account's change feed: create, update and delete of all its silos",
          description:
            'Server-sent events `create`, `update` (a region move too) and `delete`; `data` is the silo\'s metadata fields, `file_uuid` and `version`. No replay. Ends when the key is revoked (checked every second).',
          security: [{ ManageKey: [] }],
          responses: { '200': EVENT_STREAM, ...MANAGE_ERRORS },
        },
      },
      '/api/v1/manage/webhooks': {
        post: {
          tags: ['webhooks'],
          operationId: 'createWebhook',
          summary: 'Register a webhook; the answer shows its signing secret, this once',
          description:
            'Deliveries are POSTs of `{"type", "timestamp", "data"}` signed as the Standard Webhooks specification says (`webhook-id`, `webhook-timestamp`, `webhook-signature: v1,<base64 HMAC-SHA256>`). At least once: recorded with the write, retried with exponential backoff for 72 h (the first retry within 30 s), the same `webhook-id` on every retry; an endpoint failing every attempt for 5 days is disabled. Redirects are not followed.',
          security: [{ ManageKey: [] }],
          parameters: [manageKey],
          requestBody: { required: true, content: json(ref('WebhookCreate')) },
          responses: {
            '201': { description: 'Created.', content: json(ref('WebhookCreated')) },
            '413': response('PayloadTooLarge'),
            '415': response('UnsupportedMediaType'),
            '422': response('ValidationFailed'),
            ...MANAGE_ERRORS,
          },
        },
        get: {
          tags: ['webhooks'],
          operationId: 'listWebhooks',
          summary: "The account's webhooks (never their secrets)",
          security: [{ ManageKey: [] }],
          parameters: [manageKey],
          responses: { '200': { description: 'Every webhook of the account.', content: json(ref('WebhookList')) }, ...MANAGE_ERRORS },
        },
      },
      '/api/v1/manage/webhooks/{id}': {
        delete: {
          tags: ['webhooks'],
          operationId: 'deleteWebhook',
          summary: 'Remove a webhook (its pending deliveries are dropped)',
          security: [{ ManageKey: [] }],
          parameters: [manageKey, WEBHOOK_ID],
          responses: { '204': { description: 'Removed.' }, '404': response('NotFound'), ...MANAGE_ERRORS },
        },
      },
      '/api/v1/manage/webhooks/{id}/deliveries': {
        get: {
          tags: ['webhooks'],
          operationId: 'listDeliveries',
          summary: "A webhook's recent delivery attempts, newest first (the last 50)",
          security: [{ ManageKey: [] }],
          parameters: [manageKey, WEBHOOK_ID],
          responses: { '200': { description: 'Recent attempts.', content: json(ref('DeliveryList')) }, '404': response('NotFound'), ...MANAGE_ERRORS },
        },
      },
      '/api/v1/openapi.json': {
        get: {
          tags: ['meta'],
          operationId: 'openapi',
          summary: 'This document',
          security: [],
          responses: { '200': { description: 'OpenAPI 3.1.', content: json({ type: 'object' }) } },
        },
      },
    },
    components: {
      schemas,
      securitySchemes: {
        ManageKey: {
          type: 'apiKey',
          in: 'header',
          name: 'X-MAN-API',
          description: 'A manage key (`silo_man_...`). Missing, unknown, revoked, expired, or an access key: 401.',
        },
        AccessKey: {
          type: 'apiKey',
          in: 'header',
          name: 'X-SILO-KEY',
          description: 'An access key (`silo_acc_...`). Missing, unknown, revoked, or a manage key: 401.',
        },
      },
      headers: {
        ETag: { description: 'A strong ETag of this representation.', schema: { type: 'string' } },
        'RateLimit-Limit': { description: 'Requests allowed per minute for this client.', schema: { type: 'integer' } },
        'RateLimit-Remaining': { description: 'Requests left in this window.', schema: { type: 'integer' } },
        'RateLimit-Reset': { description: 'Seconds until the window resets.', schema: { type: 'integer' } },
        'Retry-After': { description: 'Seconds to wait before retrying.', schema: { type: 'integer' } },
        'X-Total-Count': {
          description: 'The matches of a search or filter before offset and limit; sent when q/value/op, filter, limit or offset was given.',
          schema: { type: 'integer', minimum: 0 },
        },
      },
      responses: {
        NotModified: { description: 'The If-None-Match ETag is current: no body.', headers: ETAG_HEADERS },
        BadRequest: { description: 'Parameters on the public address (they need the private address).', content: json(ref('HTTPError')) },
        Unauthorized: { description: 'Missing or invalid key (never says whether a silo exists).', content: json(ref('HTTPError')) },
        NotFound: {
          description: 'No such silo for this caller on this host (also when it belongs to another account, is private at /public, or lives in another region).',
          content: json(ref('HTTPError')),
        },
        PreconditionFailed: { description: 'If-Match names a version that is no longer current.', content: json(ref('HTTPError')) },
        PatchConflict: {
          description: 'The patch cannot apply to the current document (a failed test, a missing path, an index out of range): nothing changed.',
          content: json(ref('HTTPError')),
        },
        PayloadTooLarge: { description: "Over the plan's size limit; the detail states the limit.", content: json(ref('HTTPError')) },
        UnsupportedMediaType: { description: 'A compressed (Content-Encoding) body.', content: json(ref('HTTPError')) },
        ValidationFailed: { description: 'Every problem found, with where it is.', content: json(ref('HTTPValidationError')) },
        PreconditionRequired: { description: 'This server requires If-Match on PATCH and DELETE.', content: json(ref('HTTPError')) },
        TooManyRequests: {
          description: 'Over the rate limit of the plan.',
          headers: { 'Retry-After': { $ref: '#/components/headers/Retry-After' }, ...RATE_HEADERS },
          content: json(ref('HTTPError')),
        },
        InternalError: { description: 'A bug: `{"detail":"Internal Server Error"}`, never a stack trace.', content: json(ref('HTTPError')) },
        StorageUnavailable: {
          description:
            'The storage could not be reached, or large requests had filled the memory budget for longer than a request waits; retry after Retry-After seconds (the server recovers by itself).',
          headers: { 'Retry-After': { $ref: '#/components/headers/Retry-After' } },
          content: json(ref('HTTPError')),
        },
      },
    },
  };
}
