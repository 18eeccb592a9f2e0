/**
 * JSON Schemas (2020-12, as OpenAPI 3.1 uses) of the silo resource: request bodies and response
 * bodies. They drive request validation (http/validate.ts), the OpenAPI document (openapi.ts) and,
 * through FromSchema, the TypeScript types below. Change a rule here and all three follow.
 */
import { REGIONS } from '../model/index.js';
import type { FromSchema } from './from-schema.js';

export const fileUuid = {
  type: 'string',
  format: 'uuid',
  description: 'The permanent identifier of a silo: 36 characters, 32 hexadecimal digits in groups of 8-4-4-4-12.',
  examples: ['3f2c1a9e-8b7d-4c6e-9f10-2a3b4c5d6e7f'],
} as const;

export const fileName = {
  type: 'string',
  minLength: 1,
  maxLength: 255,
  description: 'A human-readable label, 1 to 255 characters. It has no effect on behaviour.',
} as const;

/** Any JSON object: what an object of file_data, or an item of an array of file_data, may be. */
const anyObject = { type: 'object', additionalProperties: true } as const;

export const fileData = {
  type: ['object', 'array'],
  // Both spelled out: a generator reads a bare `type: object` as an object without members.
  additionalProperties: true,
  items: anyObject,
  description:
    'The stored JSON: an object, or an array whose items are all objects (`{}` and `[]` are allowed). ' +
    "Its compact JSON text may be at most the account plan's size limit (default 10 MB).",
} as const;

export const regionName = {
  type: 'string',
  enum: REGIONS,
  description: 'The region that stores the silo; its data is served only on that region\'s host.',
} as const;

export const isPublic = {
  type: 'boolean',
  description: 'true: readable by anyone at /public/<file_uuid>; false: readable with an access key only.',
} as const;

export const version = {
  type: 'integer',
  minimum: 1,
  description: 'The version of the silo: 1 at create, one more on every successful write (update, patch, restore).',
} as const;

export const timestamp = {
  type: 'string',
  format: 'date-time',
  description: 'RFC 3339, UTC.',
} as const;

/** POST /api/v1/manage/ */
export const createSiloBody = {
  type: 'object',
  description: 'Unknown fields are ignored.',
  properties: {
    file_name: fileName,
    file_data: fileData,
    // Defaults said in words: a `default` keyword makes generators (openapi-typescript's
    // defaultNonNullable) type the member as always present, so a client could not omit it.
    region_name: { ...regionName, description: `${regionName.description} Default: \`api\`.` },
    is_public: { ...isPublic, description: `${isPublic.description} Default: false.` },
  },
  required: ['file_name', 'file_data'],
} as const;
export type CreateSiloBody = FromSchema<typeof createSiloBody>;

/** The four fields a create or update body may carry (anything else is ignored). */
export const BODY_FIELDS = ['file_name', 'file_data', 'region_name', 'is_public'] as const;

/**
 * PATCH /api/v1/manage/{file_uuid}: any non-empty subset of the four fields.
 *
 * "At least one" is an `anyOf` of one-field branches under `allOf`: the fields' own schemas are
 * checked once, at the top (so a bad value is reported as itself, never as "no branch matched"),
 * and a generator reads it as the fields intersected with "one of them present" (a bare
 * `anyOf: [{required}]` beside `properties` reads as a union with `unknown`, so anything passes).
 */
export const updateSiloBody = {
  type: 'object',
  description:
    'Any subset of the four fields, at least one. Omitted fields keep their stored value; file_data is ' +
    'replaced whole when sent. Unknown fields are ignored.',
  properties: {
    file_name: fileName,
    file_data: fileData,
    region_name: regionName,
    is_public: isPublic,
  },
  allOf: [{ anyOf: BODY_FIELDS.map((field) => ({ properties: { [field]: {} }, required: [field] })) }],
} as const;
export type UpdateSiloBody = FromSchema<Omit<typeof updateSiloBody, 'allOf'>>;

/** The six metadata fields and the version: meta responses and list items. */
export const siloMeta = {
  type: 'object',
  properties: {
    file_name: fileName,
    file_uuid: fileUuid,
    created_at: timestamp,
    updated_at: timestamp,
    is_public: isPublic,
    region_name: regionName,
    version,
  },
  required: ['file_name', 'file_uuid', 'created_at', 'updated_at', 'is_public', 'region_name', 'version'],
} as const;
export type SiloMetaBody = FromSchema<typeof siloMeta>;

/** 201 of create: the contract's four fields, plus the two timestamps and the version: all seven always sent. */
export const siloCreated = {
  type: 'object',
  properties: siloMeta.properties,
  required: ['file_uuid', 'is_public', 'file_name', 'region_name', 'created_at', 'updated_at', 'version'],
} as const;

/** 200 of update: all seven fields. */
export const siloUpdated = {
  type: 'object',
  properties: {
    file_name: fileName,
    file_uuid: fileUuid,
    region_name: regionName,
    is_public: isPublic,
    file_data: fileData,
    created_at: timestamp,
    updated_at: timestamp,
    version,
  },
  required: ['file_name', 'file_uuid', 'region_name', 'is_public', 'file_data', 'created_at', 'updated_at', 'version'],
} as const;

/** A list item: the metadata and version, and the size of the stored data (an extra field, contract §4 allows them). */
export const siloListItem = {
  type: 'object',
  properties: {
    ...siloMeta.properties,
    size: { type: 'integer', minimum: 0, description: "The byte length of file_data's stored compact JSON text (what the plan's size limit counts)." },
  },
  required: [...siloMeta.required, 'size'],
} as const;

export const siloList = {
  type: 'object',
  properties: {
    metadata: {
      type: 'object',
      properties: {
        total_items: { type: 'integer', minimum: 0, description: "The number of the caller's silos." },
        per_page: { type: 'integer', minimum: 1, maximum: 100 },
        page_no: { type: 'integer', minimum: 1 },
      },
      required: ['total_items', 'per_page', 'page_no'],
    },
    silos: {
      type: 'array',
      items: siloListItem,
      description: 'Newest first (created_at descending, ties by file_uuid). Empty past the last page.',
    },
  },
  required: ['metadata', 'silos'],
} as const;
export type SiloListBody = FromSchema<typeof siloList>;

/** 200 of get-silo: the stored JSON under `data`. */
export const siloData = {
  type: 'object',
  properties: { data: fileData },
  required: ['data'],
} as const;

export const siloDeleted = {
  type: 'object',
  properties: { file_uuid: fileUuid, deleted: { const: true } },
  required: ['file_uuid', 'deleted'],
} as const;

/** Any JSON value: what a data read with parameters answers. */
export const anyJson = {
  description: 'The stored JSON without parameters; with parameters, the selected or converted value, or the array of matches.',
} as const;

/**
 * The document a partial update patches (contract §10): the silo's four fields, all present and
 * nothing else, so that a patch which removes a field or adds an unknown one is refused.
 */
export const siloDocument = {
  type: 'object',
  properties: {
    file_name: fileName,
    file_data: fileData,
    region_name: regionName,
    is_public: isPublic,
  },
  required: [...BODY_FIELDS],
  additionalProperties: false,
} as const;
export type SiloDocument = FromSchema<typeof siloDocument>;

/** One version in history (contract §9). */
export const versionInfo = {
  type: 'object',
  properties: {
    version,
    updated_at: timestamp,
    file_name: fileName,
    is_public: isPublic,
    region_name: { ...regionName, description: 'The region the silo was in at this version (history moves with the silo).' },
    size: { type: 'integer', minimum: 0, description: 'Bytes of the JSON text of file_data at this version.' },
  },
  required: ['version', 'updated_at', 'file_name', 'is_public', 'region_name', 'size'],
} as const;

export const versionList = {
  type: 'object',
  properties: {
    metadata: {
      ...siloList.properties.metadata,
      properties: {
        ...siloList.properties.metadata.properties,
        total_items: { type: 'integer', minimum: 0, description: 'The number of versions the history keeps.' },
      },
    },
    versions: { type: 'array', items: versionInfo, description: 'Newest first. Empty past the last page.' },
  },
  required: ['metadata', 'versions'],
} as const;

export const versionData = {
  type: 'object',
  properties: { version, updated_at: timestamp, data: fileData },
  required: ['version', 'updated_at', 'data'],
} as const;

/**
 * An RFC 7386 merge patch of the silo document. It is not what validates a merge patch: the
 * patched document is (siloDocument). This describes the patches that can pass: a member set to
 * null is removed, so a known one must hold a value the document may have. (An unknown member may
 * only be null, removing nothing; that is said in words, since `additionalProperties: {type:
 * 'null'}` beside typed members makes generators type every member as null.)
 */
export const mergePatch = {
  type: 'object',
  description:
    'An RFC 7386 merge patch applied to the document {"file_name", "file_data", "region_name", "is_public"}: members set to null are removed, objects merge, anything else replaces. The result must still satisfy the update rules (otherwise 422 and nothing changes), so the four fields cannot be removed, and other members may only be null.',
  properties: {
    file_name: fileName,
    file_data: {
      ...fileData,
      description:
        'An object merges into the stored file_data (its members set to null are removed; onto an array, it replaces it); an array of objects replaces it.',
    },
    region_name: regionName,
    is_public: isPublic,
  },
  examples: [{ file_data: { settings: { theme: 'dark', beta: null } } }, { file_name: 'orders-2026', is_public: true }],
} as const;

/** A JSON Pointer (RFC 6901): empty, or `/` tokens in which `~` is only `~0` or `~1`. */
const pointer = {
  type: 'string',
  pattern: '^(/([^~/]|~[01])*)*$',
  description: 'A JSON Pointer (RFC 6901) into the document, such as /file_data/0/name, /file_data/- (append) or /is_public.',
} as const;

/**
 * RFC 6902 operations, one schema per kind: `value` is required by add, replace and test, `from`
 * by move and copy. The server checks a patch by hand (patch/check.ts: the messages of its 422s,
 * and the operation bound); a test proves that this schema accepts exactly what that check does.
 */
const patchOperation = (ops: readonly string[], required: readonly string[], members: Record<string, object>) =>
  ({
    type: 'object',
    properties: { op: { type: 'string', enum: ops }, path: pointer, ...members },
    required: ['op', 'path', ...required],
  }) as const;

export const jsonPatchOperation = {
  oneOf: [
    patchOperation(['add', 'replace', 'test'], ['value'], {
      value: { description: 'add: the value to insert; replace: the new value; test: the value the target must equal.' },
    }),
    patchOperation(['remove'], [], {}),
    patchOperation(['move', 'copy'], ['from'], {
      from: { ...pointer, description: 'The JSON Pointer (RFC 6901) to take the value from.' },
    }),
  ],
} as const;

/** An RFC 6902 JSON Patch of the silo document. */
export const jsonPatch = {
  type: 'array',
  description:
    'RFC 6902 operations applied in order, all or nothing, to the document {"file_name", "file_data", "region_name", "is_public"}. Pointers such as /file_data/0/name, /file_data/- (append), /is_public. At most 1 000 operations unless the operator changes it. A malformed document is a 422 with loc ["body", <index>, <member>]; an operation that cannot apply (a failed test, a missing path, an index out of range) is a 409.',
  items: jsonPatchOperation,
  examples: [[{ op: 'add', path: '/file_data/-', value: { id: 3 } }, { op: 'replace', path: '/is_public', value: true }]],
} as const;
