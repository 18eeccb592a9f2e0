/**
 * The OpenAPI 3.1 document served at /api/v1/openapi.json, built from the same schema objects that
 * validate requests. Shared schema objects become `$ref`s to components by identity, so a schema is
 * written once and cannot drift between the document and the behaviour.
 */
import { DEFAULT_MAX_PATCH_OPERATIONS, type Plan, type Region, REGIONS, WEBHOOK_EVENTS } from '../model/index.js';
import { httpError, validationError, validationIssue } from './errors.js';
import { dataQuery, eventResume, headers, listQuery, versionPath } from './params.js';
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
import { createWebhookBody, deliveryList, webhookCreated, webhookDeleted, webhookEvent, webhookInfo, webhookList, webhookRetried } from './webhook.js';
import { auditEntry, auditFeedPathItem, auditList, auditPathItem } from './audit.js';
import { auditResetEvent, feedResetEvent, siloChangeEvent, siloDeleteEvent, siloMoveEvent } from './events.js';

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
  WebhookDeleted: webhookDeleted,
  WebhookRetried: webhookRetried,
  WebhookEvent: webhookEvent,
  DeliveryList: deliveryList,
  AuditEntry: auditEntry,
  AuditList: auditList,
  SiloChangeEvent: siloChangeEvent,
  SiloDeleteEvent: siloDeleteEvent,
  SiloMoveEvent: siloMoveEvent,
  FeedResetEvent: feedResetEvent,
  AuditResetEvent: auditResetEvent,
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

/**
 * A request body read as JSON whatever its Content-Type (contract §10: clients of the hosted
 * service are never refused for their headers; curl's `-d` sends application/x-www-form-urlencoded).
 * `*\/*` says so to a validator; the specific types listed beside it take precedence (OpenAPI 3.1).
 */
const jsonBody = (schema: object, more: Record<string, { schema: object }> = {}) => ({
  required: true,
  description:
    'JSON. The body is read as JSON whatever its Content-Type, or with none (`*/*`): clients of the hosted service send application/json, and curl -d sends application/x-www-form-urlencoded. A compressed body (Content-Encoding) is a 415.',
  content: { ...json(schema), ...more, '*/*': { schema } },
});

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
/** On the data and event addresses a path that is not a uuid is not a Silo address at all. */
const dataUuidParam = { ...uuidParam, description: 'The silo (a path that is not a uuid is not a Silo address: 404).' };
const versionParam = {
  name: 'version',
  in: 'path',
  required: true,
  description:
    "A version in the silo's history: a canonical integer from 1 (`01`, `+1`, `1e0` are a 422 int_parsing; `0` a 422 greater_than_equal), as every integer parameter.",
  schema: versionPath.properties.version,
};
const ifNoneMatch = { name: 'If-None-Match', in: 'header', required: false, schema: headers.ifNoneMatch };
/** If-None-Match on a write (RFC 9110 §13.1.2). */
const ifNoneMatchWrite = {
  name: 'If-None-Match',
  in: 'header',
  required: false,
  description: 'ETags (or `*`) of versions this write must not apply to: 412 when the silo is at one of them (`*`: always, as the silo exists).',
  schema: { type: 'string' },
};
/** On create, update and restore (http/prefer.ts). */
const prefer = { name: 'Prefer', in: 'header', required: false, description: headers.prefer.description, schema: headers.prefer };
/** A write's answer headers, `Preference-Applied` when `Prefer: return=minimal` was honoured. */
const WRITE_HEADERS = { ...ETAG_HEADERS, 'Preference-Applied': { $ref: '#/components/headers/Preference-Applied' } };

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
  description: `${schema.description} A canonical integer (\`01\`, \`+1\`, \`1e0\` are a 422 int_parsing; a value out of range a 422 greater_than_equal or less_than_equal).`,
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
  'text/event-stream. On each committed write: `event: update`, `id: <version>`, `data:` the metadata fields and `version` (and `file_data` with `?data=1`). On delete: `event: delete`, then the end; on a region move: `event: move` with the new `region_name`, then the end. `Last-Event-ID` (or `?since=`) replays the later versions still in history, or sends `event: reset` with the current version when some were pruned; one that is not a canonical integer, or is above the current version, is a 422. A comment line every 15 s keeps the stream open; a revoked key ends it within 1 s. At most 20 streams per client (the operator may change it): 429 beyond.';

const EVENT_PARAMS = [
  { name: 'Last-Event-ID', in: 'header', required: false, description: eventResume.properties['Last-Event-ID'].description, schema: eventResume.properties['Last-Event-ID'] },
  { name: 'since', in: 'query', required: false, description: eventResume.properties.since.description, schema: eventResume.properties.since },
  { name: 'data', in: 'query', required: false, description: eventResume.properties.data.description, schema: eventResume.properties.data },
];

const WEBHOOK_ID = { name: 'id', in: 'path', required: true, description: 'The webhook (`wh_...`).', schema: { type: 'string' } };

/**
 * A `text/event-stream` answer whose events are `events` (name → the schema of its `data:` line,
 * one line of JSON). OpenAPI 3.1 cannot type the items of a stream (3.2's itemSchema can): the
 * body is a string whose `$defs` name each event's schema, a component, so that generated types
 * include them and linters see them used.
 */
function eventStream(description: string, events: Record<string, string>) {
  const list = Object.entries(events).map(([event, schema]) => `\`${event}\` (${schema})`).join(', ');
  return {
    description,
    headers: RATE_HEADERS,
    content: {
      'text/event-stream': {
        schema: {
          type: 'string',
          description: `Server-sent events; each \`data:\` line is one line of JSON: ${list}.`,
          $defs: Object.fromEntries(Object.entries(events).map(([event, schema]) => [event, ref(schema)])),
        },
      },
    },
  };
}

const SILO_STREAM = eventStream('A stream of server-sent events, open until the silo is deleted or moved, the key revoked, or the client leaves.', {
  update: 'SiloChangeEvent',
  delete: 'SiloDeleteEvent',
  move: 'SiloMoveEvent',
  reset: 'FeedResetEvent',
});
const ACCOUNT_STREAM = eventStream('A stream of server-sent events, open until the key is revoked or the client leaves.', {
  create: 'SiloChangeEvent',
  update: 'SiloChangeEvent',
  delete: 'SiloChangeEvent',
});
const AUDIT_STREAM = eventStream('A stream of server-sent events, open until the key is revoked or the client leaves.', {
  audit: 'AuditEntry',
  reset: 'AuditResetEvent',
});

export interface OpenApiOptions {
  hosts: Record<Region, string>;
  plans: Record<string, Plan>;
  publicQueries: boolean;
  requireIfMatch: boolean;
  /** Operations a JSON Patch may have (default 1000). */
  maxPatchOperations?: number;
  /** 'json' when the server answers every path itself: then `/` is Silo's too (a pointer). */
  notFound?: 'next' | 'json';
}

const BEYOND = [
  'Query and search parameters are accepted in any order (the hosted service demands idx, path, output / q, value, op, path).',
  'Every data, get-silo, meta, create and update response carries a strong ETag; If-None-Match answers 304; If-Match on PATCH, DELETE and restore answers 412 when the silo has changed (428 without it when the operator requires it).',
  'Public data allows CORS GET from any origin; OPTIONS preflights are answered. Keyed requests allow CORS only from the origins the operator lists (none by default), never with credentials.',
  'Region moves copy, switch, then delete: a read in flight during a move still succeeds.',
  'Every write is atomic (a reader, or a restart after a crash, sees the whole write or none of it) and makes a new version: `version` is in every metadata answer; history (GET /api/v1/manage/{file_uuid}/versions) keeps the plan\'s number of versions and any of them can be restored.',
  'PATCH takes an RFC 7386 merge patch (Content-Type application/merge-patch+json) or an RFC 6902 JSON Patch (application/json-patch+json); any other Content-Type, or none, keeps the update body.',
  'The stored JSON is exactly the JSON sent (numbers as written), without its insignificant whitespace.',
  'page_no is accepted as another name for page. Integers in paths, queries and headers are read one way: canonical decimal integers (`01`, `+1`, `1e0` are a 422 int_parsing; a value out of range is a 422 naming the bound); a query parameter given twice is a 422 multiple_values.',
  'POST /api/v1/manage (without the slash) creates as POST /api/v1/manage/ does; a trailing slash is also accepted on every other management path (those variants are not listed as paths of their own).',
  'Unknown body fields are ignored; bodies are read as JSON whatever their Content-Type (a compressed body is a 415).',
  'JSON nested deeper than the configured depth (default 1000) is a 422 of type json_too_deep.',
  'Manage keys expire (7d, 30d, 90d, 365d, never); keys are stored hashed and compared in constant time.',
  'HEAD is answered wherever GET is, with the same status and headers and no body; OPTIONS on every path answers 204 with Allow (and, for an allowed origin, the CORS preflight headers).',
];

type Operation = Record<string, unknown> & { operationId: string; responses: Record<string, unknown>; tags: string[]; security: unknown[] };
type PathItem = Partial<Record<'get' | 'post' | 'patch' | 'delete', Operation>> & { options?: Operation };

const METHODS = ['get', 'post', 'patch', 'delete'] as const;

/** A response as HEAD gives it: the same status, description and headers, no content. */
function headResponse(raw: unknown, responses: Record<string, Record<string, unknown>>): Record<string, unknown> {
  const resolved = (raw as { $ref?: string }).$ref ? responses[(raw as { $ref: string }).$ref.split('/').at(-1)!]! : (raw as Record<string, unknown>);
  const { content: _content, ...rest } = resolved;
  return rest;
}

/**
 * Every path item completed with what the server answers beyond its operations: HEAD wherever GET
 * is (the same status and headers, no body), OPTIONS everywhere (204 with Allow, and the CORS
 * preflight headers), and a description of the 405 that any other method gets.
 */
function complete(paths: Record<string, PathItem>, responses: Record<string, Record<string, unknown>>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [path, item] of Object.entries(paths)) {
    const methods = METHODS.filter((m) => item[m]);
    const allow = methods.flatMap((m) => (m === 'get' ? ['GET', 'HEAD'] : [m.toUpperCase()]));
    const first = item[methods[0]!]!;
    // Path parameters belong to the path: every operation of it, HEAD and OPTIONS too, has them.
    const inPath = (p: unknown) => (p as { in?: string }).in === 'path';
    const pathParams = ((first.parameters ?? []) as unknown[]).filter(inPath);
    const completed: Record<string, unknown> = {
      description: `Methods: ${[...allow, 'OPTIONS'].join(', ')}. Any other method: 405 \`{"detail": "Method Not Allowed"}\` with \`Allow: ${[...allow, 'OPTIONS'].join(', ')}\`.`,
      ...(pathParams.length > 0 ? { parameters: pathParams } : {}),
    };
    for (const m of methods) {
      const { parameters, ...op } = item[m]!;
      const own = ((parameters ?? []) as unknown[]).filter((p) => !inPath(p));
      completed[m] = own.length > 0 ? { ...op, parameters: own } : op;
    }
    const get = completed.get as Operation | undefined;
    if (get) {
      completed.head = {
        ...get,
        operationId: `${get.operationId}Head`,
        summary: `${String(get.summary)} (HEAD: the status and headers of GET, no body)`,
        responses: Object.fromEntries(Object.entries(get.responses).map(([status, raw]) => [status, headResponse(raw, responses)])),
      };
      delete (completed.head as Record<string, unknown>).description;
    }
    completed.options = item.options ?? {
      tags: first.tags,
      operationId: `${first.operationId}Options`,
      summary: 'The methods of this path, and the CORS preflight of a keyed request',
      security: [],
      responses: {
        '204': {
          description: `\`Allow: ${[...allow, 'OPTIONS'].join(', ')}\`. From an origin the operator lists (SILO_CORS_ORIGINS), also the CORS preflight headers; from any other origin, none (the browser then refuses the request).`,
          headers: { Allow: { $ref: '#/components/headers/Allow' }, ...PREFLIGHT_HEADERS },
        },
      },
    };
    out[path] = completed;
  }
  return out;
}

const PREFLIGHT_HEADERS = {
  'Access-Control-Allow-Origin': { description: 'The origin, when allowed (or `*`).', schema: { type: 'string' } },
  'Access-Control-Allow-Methods': { description: 'The methods of the path.', schema: { type: 'string' } },
  'Access-Control-Allow-Headers': { description: 'The request headers a page may send.', schema: { type: 'string' } },
  'Access-Control-Max-Age': { description: 'Seconds a browser may keep this answer.', schema: { type: 'integer' } },
};

const signatureHeader = (name: string, description: string) => ({ name, in: 'header', required: true, description, schema: { type: 'string' } });

/** The POST a webhook's URL receives for `event`: its body, its signature headers, and what its answer means. */
function webhookDelivery(event: (typeof WEBHOOK_EVENTS)[number]): Operation {
  return {
    tags: ['webhooks'],
    operationId: `deliver${event.split('.').map((w) => w[0]!.toUpperCase() + w.slice(1)).join('')}`,
    summary: `A delivery of ${event}, to the webhook's URL`,
    description:
      'Signed as the Standard Webhooks specification says: check `webhook-signature` (v1, HMAC-SHA256 with the secret shown at create) over `<webhook-id>.<webhook-timestamp>.<body>` before trusting the body. At least once: the same `webhook-id` on every attempt.',
    security: [],
    parameters: [
      signatureHeader('webhook-id', 'The message: the same on every attempt of this event (deduplicate by it).'),
      signatureHeader('webhook-timestamp', 'Unix seconds of this attempt.'),
      signatureHeader('webhook-signature', '`v1,<base64 HMAC-SHA256>`.'),
    ],
    requestBody: { required: true, content: json(ref('WebhookEvent')) },
    responses: {
      '2XX': { description: 'Delivered: no more attempts.' },
      default: {
        description:
          'Anything else, no answer within 10 s, or a redirect (never followed): attempted again with exponential backoff for 72 h; an endpoint failing every attempt for 5 days is disabled.',
      },
    },
  };
}

/** OPTIONS of a public address: any origin may GET. */
function publicPreflight(operationId: string, tag: string): Operation {
  return {
    tags: [tag],
    operationId,
    summary: 'CORS preflight: any origin may GET',
    security: [],
    responses: {
      '204': {
        description: '`Allow: GET, HEAD, OPTIONS`, and the CORS preflight headers for any origin.',
        headers: { Allow: { $ref: '#/components/headers/Allow' }, ...PREFLIGHT_HEADERS },
      },
    },
  };
}

export function buildOpenApi(options: OpenApiOptions): Record<string, unknown> {
  const defaultPlan = options.plans.default!;
  const hostList = REGIONS.map((r) => `\`${r}\`: ${options.hosts[r]}`).join(', ');
  const schemas: Record<string, unknown> = {};
  for (const [name, schema] of Object.entries(SCHEMAS)) schemas[name] = refify(schema);
  (schemas.SiloJsonPatch as Record<string, unknown>).maxItems = options.maxPatchOperations ?? DEFAULT_MAX_PATCH_OPERATIONS;

  const ifMatchParam = ifMatch(options.requireIfMatch);
  /** 428 exists only where the operator requires If-Match. */
  const preconditionRequired = options.requireIfMatch ? { '428': response('PreconditionRequired') } : {};
  const manageKey = [{ ManageKey: [] }];
  const accessKey = [{ AccessKey: [] }];

  const create = (operationId: string, summary: string): Operation => ({
    tags: ['manage'],
    operationId,
    summary,
    security: manageKey,
    parameters: [prefer],
    requestBody: jsonBody(ref('SiloCreate')),
    responses: {
      '201': {
        description: 'Created.',
        headers: { ...WRITE_HEADERS, Location: { description: 'The meta address of the new silo.', schema: { type: 'string' } } },
        content: json(ref('SiloCreated')),
      },
      '408': response('RequestTimeout'),
      '413': response('PayloadTooLarge'),
      '415': response('UnsupportedMediaType'),
      '422': response('ValidationFailed'),
      ...MANAGE_ERRORS,
    },
  });

  const paths: Record<string, PathItem> = {
    '/api/v1/manage/': { post: create('createSilo', 'Create a silo') },
    '/api/v1/manage': { post: create('createSiloWithoutSlash', 'Create a silo: the same as POST /api/v1/manage/ (the hosted service\'s address, with the slash)') },
    '/api/v1/manage/silos': {
      get: {
        tags: ['manage'],
        operationId: 'listSilos',
        summary: "List the caller's silos, newest first",
        security: manageKey,
        parameters: queryParams,
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
        security: manageKey,
        parameters: [uuidParam, ifNoneMatch],
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
        security: manageKey,
        parameters: [uuidParam, ifNoneMatch],
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
          'A region change moves the data to the new region\'s storage, then removes it from the old one: after the response the old host answers 404 and the new host serves the silo. Every update changes updated_at. The Content-Type chooses the body: a merge patch, a JSON Patch, or (application/json, any other type, or none) the update body, whose file_data replaces the stored data whole (a merge patch sent without application/merge-patch+json is read so).',
        security: manageKey,
        parameters: [uuidParam, ifMatchParam, ifNoneMatchWrite, prefer],
        requestBody: jsonBody(ref('SiloUpdate'), {
          'application/merge-patch+json': { schema: ref('SiloMergePatch') },
          'application/json-patch+json': { schema: ref('SiloJsonPatch') },
        }),
        responses: {
          '200': {
            description: 'All seven fields and the version after the update; with `Prefer: return=minimal`, the metadata and version only (and `Preference-Applied`).',
            headers: WRITE_HEADERS,
            content: json({ anyOf: [ref('SiloUpdated'), ref('SiloMeta')] }),
          },
          '404': response('NotFound'),
          '409': response('PatchConflict'),
          '412': response('PreconditionFailed'),
          '428': response('PreconditionRequired'),
          '408': response('RequestTimeout'),
          '413': response('PayloadTooLarge'),
          '415': response('UnsupportedMediaType'),
          '422': response('ValidationFailed'),
          ...preconditionRequired,
          ...MANAGE_ERRORS,
        },
      },
      delete: {
        tags: ['manage'],
        operationId: 'deleteSilo',
        summary: 'Delete a silo: afterwards every address of it answers 404',
        security: manageKey,
        parameters: [uuidParam, ifMatchParam, ifNoneMatchWrite],
        responses: {
          '200': { description: 'Deleted.', headers: RATE_HEADERS, content: json(ref('SiloDeleted')) },
          '404': response('NotFound'),
          '412': response('PreconditionFailed'),
          '428': response('PreconditionRequired'),
          '422': response('ValidationFailed'),
          ...preconditionRequired,
          ...MANAGE_ERRORS,
        },
      },
    },
    '/api/v1/manage/{file_uuid}/versions': {
      get: {
        tags: ['history'],
        operationId: 'listVersions',
        summary: "List the versions in a silo's history, newest first",
        security: manageKey,
        parameters: [uuidParam, ...queryParams],
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
        security: manageKey,
        parameters: [uuidParam, versionParam],
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
        security: manageKey,
        parameters: [uuidParam, versionParam, ifMatchParam, ifNoneMatchWrite, prefer],
        responses: {
          '200': {
            description: 'As an update: all seven fields and the new version; with `Prefer: return=minimal`, the metadata and version only (and `Preference-Applied`).',
            headers: WRITE_HEADERS,
            content: json({ anyOf: [ref('SiloUpdated'), ref('SiloMeta')] }),
          },
          '404': response('NotFound'),
          '412': response('PreconditionFailed'),
          '428': response('PreconditionRequired'),
          '422': response('ValidationFailed'),
          ...preconditionRequired,
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
        security: accessKey,
        parameters: [dataUuidParam, ifNoneMatch, ...dataParams],
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
        parameters: [dataUuidParam, ifNoneMatch, ...(options.publicQueries ? dataParams : [])],
        responses: {
          '200': {
            description: 'JSON.',
            headers: { ...DATA_HEADERS, 'Access-Control-Allow-Origin': { schema: { const: '*' } } },
            content: json(anyJson),
          },
          '304': response('NotModified'),
          ...(options.publicQueries ? {} : { '400': response('BadRequest') }),
          '404': response('NotFound'),
          ...(options.publicQueries ? { '422': response('ValidationFailed') } : {}),
          '429': response('TooManyRequests'),
          '500': response('InternalError'),
          '503': response('StorageUnavailable'),
        },
      },
      options: publicPreflight('preflightPublicData', 'data'),
    },
    '/{file_uuid}/events': {
      get: {
        tags: ['events'],
        operationId: 'privateEvents',
        summary: "The silo's change feed (server-sent events) on its region host",
        description: EVENTS_DESCRIPTION,
        security: accessKey,
        parameters: [dataUuidParam, ...EVENT_PARAMS],
        responses: {
          '200': SILO_STREAM,
          '401': response('Unauthorized'),
          '404': response('NotFound'),
          '422': response('ValidationFailed'),
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
        parameters: [dataUuidParam, ...EVENT_PARAMS],
        responses: {
          '200': SILO_STREAM,
          '404': response('NotFound'),
          '422': response('ValidationFailed'),
          '429': response('TooManyRequests'),
          '500': response('InternalError'),
          '503': response('StorageUnavailable'),
        },
      },
      options: publicPreflight('preflightPublicEvents', 'events'),
    },
    '/api/v1/manage/events': {
      get: {
        tags: ['events'],
        operationId: 'accountEvents',
        summary: "The account's change feed: create, update and delete of all its silos",
        description:
          'Server-sent events `create`, `update` (a region move too) and `delete`; `data` is the silo\'s metadata fields, `file_uuid` and `version`. No replay (the events carry no id). Ends when the key is revoked (checked every second).',
        security: manageKey,
        responses: { '200': ACCOUNT_STREAM, ...MANAGE_ERRORS },
      },
    },
    '/api/v1/manage/webhooks': {
      post: {
        tags: ['webhooks'],
        operationId: 'createWebhook',
        summary: 'Register a webhook; the answer shows its signing secret, this once',
        description:
          'Deliveries are POSTs of `{"type", "timestamp", "data"}` signed as the Standard Webhooks specification says (`webhook-id`, `webhook-timestamp`, `webhook-signature: v1,<base64 HMAC-SHA256>`). At least once: recorded with the write, retried with exponential backoff for 72 h (the first retry within 30 s), the same `webhook-id` on every retry; an endpoint failing every attempt for 5 days is disabled. Redirects are not followed.',
        security: manageKey,
        requestBody: jsonBody(ref('WebhookCreate')),
        responses: {
          '201': {
            description: 'Created.',
            headers: { ...RATE_HEADERS, Location: { description: 'The address of the new webhook.', schema: { type: 'string' } } },
            content: json(ref('WebhookCreated')),
          },
          '408': response('RequestTimeout'),
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
        security: manageKey,
        responses: { '200': { description: 'Every webhook of the account.', headers: RATE_HEADERS, content: json(ref('WebhookList')) }, ...MANAGE_ERRORS },
      },
    },
    '/api/v1/manage/webhooks/{id}': {
      get: {
        tags: ['webhooks'],
        operationId: 'getWebhook',
        summary: 'One webhook (never its secret): where the create answer\'s Location points',
        security: manageKey,
        parameters: [WEBHOOK_ID],
        responses: { '200': { description: 'The webhook.', headers: RATE_HEADERS, content: json(ref('WebhookInfo')) }, '404': response('NotFound'), ...MANAGE_ERRORS },
      },
      delete: {
        tags: ['webhooks'],
        operationId: 'deleteWebhook',
        summary: 'Remove a webhook (its pending deliveries are dropped)',
        security: manageKey,
        parameters: [WEBHOOK_ID],
        responses: { '200': { description: "Removed (answered as a silo's delete is).", headers: RATE_HEADERS, content: json(ref('WebhookDeleted')) }, '404': response('NotFound'), ...MANAGE_ERRORS },
      },
    },
    '/api/v1/manage/webhooks/{id}/deliveries': {
      get: {
        tags: ['webhooks'],
        operationId: 'listDeliveries',
        summary: "A webhook's recent delivery attempts, newest first (the last 50)",
        security: manageKey,
        parameters: [WEBHOOK_ID],
        responses: {
          '200': { description: 'Recent attempts.', headers: RATE_HEADERS, content: json(ref('DeliveryList')) },
          '404': response('NotFound'),
          ...MANAGE_ERRORS,
        },
      },
    },
    '/api/v1/manage/webhooks/{id}/retry': {
      post: {
        tags: ['webhooks'],
        operationId: 'retryDeliveries',
        summary: "Attempt the webhook's deliveries that wait for a retry now, rather than after their backoff",
        description: 'A delivery being attempted at this moment is left alone; the rest are attempted within a second, with the same `webhook-id`.',
        security: manageKey,
        parameters: [WEBHOOK_ID],
        responses: {
          '200': { description: 'How many deliveries were made due.', headers: RATE_HEADERS, content: json(ref('WebhookRetried')) },
          '404': response('NotFound'),
          ...MANAGE_ERRORS,
        },
      },
    },
    '/api/v1/manage/audit': auditPathItem(manageKey, MANAGE_ERRORS, RATE_HEADERS),
    '/api/v1/manage/audit/events': auditFeedPathItem(manageKey, MANAGE_ERRORS, AUDIT_STREAM),
    // `/` is Silo's only when it answers every path itself (notFound: 'json'; see http/root.ts).
    ...(options.notFound === 'json'
      ? {
          '/': {
            get: {
              tags: ['meta'],
              operationId: 'root',
              summary: 'What this server is: pointers to the console, this document and the README',
              security: [],
              responses: {
                '200': {
                  description: 'JSON by default; a small HTML page of links when Accept prefers text/html.',
                  content: { ...json({ type: 'object', additionalProperties: true }), 'text/html': { schema: { type: 'string' } } },
                },
              },
            },
          },
        }
      : {}),
    '/api/v1/openapi.json': {
      get: {
        tags: ['meta'],
        operationId: 'openapi',
        summary: 'This document',
        security: [],
        responses: {
          '200': {
            description: 'OpenAPI 3.1, to any origin.',
            headers: { 'Access-Control-Allow-Origin': { description: '`*`: any page may read this document.', schema: { type: 'string', const: '*' } } },
            content: json({ type: 'object', additionalProperties: true }),
          },
        },
      },
    },
  };

  const responses: Record<string, Record<string, unknown>> = {
    NotModified: { description: 'The If-None-Match ETag is current: no body.', headers: ETAG_HEADERS },
    ...(options.publicQueries
      ? {}
      : { BadRequest: { description: 'Parameters on the public address (they need the private address).', headers: RATE_HEADERS, content: json(ref('HTTPError')) } }),
    Unauthorized: { description: 'Missing or invalid key (never says whether a silo exists).', headers: RATE_HEADERS, content: json(ref('HTTPError')) },
    NotFound: {
      description: 'No such silo for this caller on this host (also when it belongs to another account, is private at /public, or lives in another region).',
      headers: RATE_HEADERS,
      content: json(ref('HTTPError')),
    },
    PreconditionFailed: { description: 'If-Match names a version that is no longer current, or If-None-Match names the current one (or is `*`).', headers: RATE_HEADERS, content: json(ref('HTTPError')) },
    PreconditionRequired: {
      description: 'No If-Match, where the operator requires one (`SILO_REQUIRE_IF_MATCH`, koa-silo `requireIfMatch`; off by default): send the ETag of the version this write is based on.',
      headers: RATE_HEADERS,
      content: json(ref('HTTPError')),
    },
    PatchConflict: {
      description: 'The patch cannot apply to the current document (a failed test, a missing path, an index out of range): nothing changed.',
      headers: RATE_HEADERS,
      content: json(ref('HTTPError')),
    },
    PayloadTooLarge: { description: "Over the plan's size limit; the detail states the limit.", headers: RATE_HEADERS, content: json(ref('HTTPError')) },
    RequestTimeout: {
      description: "The body arrived slower than the server's minimum rate (silo serve: `SILO_MIN_BODY_RATE`, 1000 bytes/s over 10 s); the connection is closed after the answer.",
      content: json(ref('HTTPError')),
    },
    UnsupportedMediaType: {
      description: 'A compressed (Content-Encoding) body. (The Content-Type is never refused: the body is read as JSON whatever it says.)',
      headers: RATE_HEADERS,
      content: json(ref('HTTPError')),
    },
    ValidationFailed: { description: 'Every problem found, with where it is.', headers: RATE_HEADERS, content: json(ref('HTTPValidationError')) },
    ...(options.requireIfMatch
      ? { PreconditionRequired: { description: 'This server requires If-Match on PATCH, DELETE and restore.', headers: RATE_HEADERS, content: json(ref('HTTPError')) } }
      : {}),
    TooManyRequests: {
      description: 'Over the rate limit of the plan (or, on an event address, over the open streams a client may hold).',
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
  };

  return {
    openapi: '3.1.0',
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    info: {
      title: 'Silo',
      version: OPENAPI_VERSION,
      license: { name: 'MIT', identifier: 'MIT' },
      description: [
        'Self-hosted JSON hosting: one JSON value per silo, a management API and a data API with query and search.',
        '',
        `Regions and hosts: ${hostList}. The region of a request is the one whose host equals the Host header (port ignored); any other host is served as \`api\`. Management answers on every host; data only on the silo's region host (404 elsewhere).`,
        '',
        'Before a request reaches these operations, the server itself answers (JSON, any path): 400 for a malformed request (several Host headers, a bad request target), 417 for an expectation other than 100-continue, 501 for a transfer coding other than chunked or a CONNECT, and 431 for headers larger than it takes (silo serve: 16 KB).',
        '',
        `Errors are JSON: \`{"detail": "..."}\` or the validation body. Unknown paths under Silo's addresses answer 404 \`{"detail":"Not Found"}\`; a known path with another method answers 405 \`{"detail":"Method Not Allowed"}\` with Allow (each path's description lists its methods). A storage outage is a 503. Rate limit: per client per minute by plan (default plan: ${defaultPlan.rateLimitPerMinute || 'unlimited'}/min, ${defaultPlan.maxDataBytes} bytes of file_data).`,
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
    paths: complete(paths, responses),
    // What a webhook's URL receives (contract §12): one POST per event, the same for the three kinds.
    webhooks: Object.fromEntries(WEBHOOK_EVENTS.map((event) => [event, { post: webhookDelivery(event) }])),
    components: {
      schemas,
      securitySchemes: {
        ManageKey: {
          type: 'apiKey',
          in: 'header',
          name: 'X-MAN-API',
          description: 'A manage key (`silo_man_...`). Missing, unknown, revoked, expired, or an access key: 401. Header names are case-insensitive.',
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
        Allow: { description: 'The methods of this path.', schema: { type: 'string' } },
        'RateLimit-Limit': {
          description:
            'Requests allowed per minute for this client (with RateLimit-Remaining and RateLimit-Reset). Absent when the plan has no limit, and on answers given before the request is counted (a path whose uuid is malformed, a request the HTTP edge refuses).',
          schema: { type: 'integer' },
        },
        'RateLimit-Remaining': { description: 'Requests left in this window.', schema: { type: 'integer' } },
        'RateLimit-Reset': { description: 'Seconds until the window resets.', schema: { type: 'integer' } },
        'Retry-After': { description: 'Seconds to wait before retrying.', schema: { type: 'integer' } },
        'Preference-Applied': {
          description: 'Sent as `return=minimal` when the request preferred a minimal answer and got one (RFC 7240).',
          schema: { type: 'string', enum: ['return=minimal'] },
        },
        'X-Total-Count': {
          description: 'The matches of a search or filter before offset and limit; sent when q/value/op, filter, limit or offset was given.',
          schema: { type: 'integer', minimum: 0 },
        },
      },
      responses,
    },
  };
}
