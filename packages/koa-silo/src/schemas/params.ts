/**
 * Schemas of path, query and header parameters. Path and list-query parameters are validated from
 * these objects; the data-access query parameters are validated by silo-query, and described here
 * with the same rules for the OpenAPI document.
 */
import type { FromSchema } from './from-schema.js';
import { fileUuid } from './silo.js';

export const uuidPath = {
  type: 'object',
  properties: { file_uuid: fileUuid },
  required: ['file_uuid'],
} as const;
export type UuidPath = FromSchema<typeof uuidPath>;

const page = {
  type: 'integer',
  minimum: 1,
  // Past it, integerParam's number is no longer exact: a 422 naming the bound, not a page rounded.
  maximum: Number.MAX_SAFE_INTEGER,
  default: 1,
  description: 'The page to show, 1-based. A page past the end is an empty page with the true total.',
} as const;

/** `page`, `page_no` and `per_page`: canonical integers (integerParam). */
export const listQuery = {
  type: 'object',
  properties: {
    page,
    page_no: { ...page, description: 'Another name for `page` (`page` wins when both are sent).' },
    per_page: { type: 'integer', minimum: 1, maximum: 100, default: 25, description: 'Items per page (silos, versions, entries), 1 to 100.' },
  },
} as const;
export type ListQuery = FromSchema<typeof listQuery>;

/**
 * The data-access parameters (validated by silo-query; documented from here). silo-query reads
 * idx, limit and offset as integerParam does, but for non-negative integers only: a sign is not
 * canonical there, so `-1` is an int_parsing rather than a bound.
 */
export const dataQuery = {
  idx: {
    type: 'integer',
    minimum: 0,
    description:
      'Selects one element of an array silo (zero-based, a canonical integer: `0`, `7`; `-1`, `01`, `+1` are a 422 int_parsing). Not an array or past its end: null.',
  },
  path: {
    type: 'string',
    description:
      'Dot notation; each segment is an own object key or a canonical array index. Applied to the idx-selected element, or to each search match. Unresolved: null. Empty segments are a 422.',
  },
  output: {
    type: 'string',
    enum: ['json', 'text', 'int', 'float', 'bool'],
    default: 'json',
    description: 'Converts the selected value (null when impossible). `date` and `timestamp` are unsupported (422). Not with search.',
  },
  q: { type: 'string', description: 'Search: the dot path of the field to test on each element of an array silo.' },
  value: { type: 'string', description: 'Search: the value to compare with (required with q).' },
  op: {
    type: 'string',
    enum: ['eq', 'ne', 'gt', 'lt', 'lk', 'il'],
    default: 'eq',
    description: 'Search operator. lk/il are SQL LIKE/ILIKE over the whole string (`%`, `_`, `\\` escapes).',
  },
  filter: {
    type: 'string',
    maxLength: 4096,
    description:
      'A boolean expression over each element of an array silo (contract §16): `expr := and ("or" and)*`, ' +
      '`and := unary ("and" unary)*`, `unary := "not" unary | "(" expr ")" | condition`, ' +
      '`condition := path op literal | path "in" "(" literal ("," literal)* ")" | path "exists"`, ' +
      'ops `eq ne gt lt ge le lk il has`; a literal is a JSON string, number, true, false or null; a path is a dot path, ' +
      'a segment with other characters written as a JSON string (`"first name".city`). Each condition matches exactly as ' +
      'the search q/value/op does. At most 4 096 characters, 32 conditions, nesting depth 8; a syntax error is a 422 whose ' +
      '`ctx.position` is the 0-based offset of the problem.',
    examples: ['price gt 100 and category eq "tools"', '(tags has "new" or stock le 3) and not discontinued exists'],
  },
  sort: {
    type: 'string',
    description:
      'Comma-separated dot paths (at most 8), each optionally prefixed with `-` for descending. One total order: numbers ' +
      '(and numeric strings) by exact value, then other strings by code point, then false, true, then objects and arrays, ' +
      'then null, then a missing path. Stable.',
    examples: ['-price,name'],
  },
  limit: {
    type: 'integer',
    minimum: 0,
    maximum: 10000,
    description:
      'At most this many results (a canonical integer, 0 to 10 000; above it a 422 less_than_equal): after the filter and sort, before `fields`. `0` answers `[]` with X-Total-Count.',
    examples: [20],
  },
  offset: {
    type: 'integer',
    minimum: 0,
    description: 'Skip this many results first (a canonical integer, ≥ 0).',
    examples: [40],
  },
  fields: {
    type: 'string',
    description: 'Comma-separated dot paths (at most 32, each of at most 1 000 segments): each result keeps only these, nested as in the source; missing ones are left out. Not with `path`.',
    examples: ['name,price,dimensions.weight'],
  },
} as const;

export const headers = {
  manageKey: { type: 'string', description: 'A manage key (`silo_man_...`). Header names are case-insensitive.' },
  accessKey: { type: 'string', description: 'An access key (`silo_acc_...`).' },
  ifNoneMatch: { type: 'string', description: 'An ETag from an earlier response: 304 when it is still current.' },
  ifMatch: {
    type: 'string',
    description: 'An ETag of the silo (from get-silo, meta, create, update, restore, or a data read with or without parameters, compressed or not): 412 when the silo has changed since.',
  },
  prefer: {
    type: 'string',
    description:
      'RFC 7240 preferences. `return=minimal`: the answer carries the metadata and version, not `file_data` (the ETag as always), and says `Preference-Applied: return=minimal`. Other preferences are ignored.',
    examples: ['return=minimal'],
  },
} as const;

/**
 * The one reading of an integer in a path, a query or a header: the canonical decimal form of an
 * integer (`0`, `7`, `-3`; never `01`, `+1`, `1e0`, `1.0`, ` 1`, `-0`) is a number, checked by the
 * parameter's schema for its bounds (`0` against a minimum of 1 is `greater_than_equal`, not
 * `int_parsing`); any other text stays a string, which the schema's `type: integer` refuses
 * (`int_parsing`). A canonical integer past Number.MAX_SAFE_INTEGER is never rounded to a
 * neighbour: it stands as the first unsafe integer, beyond every bound of these schemas.
 */
export function integerParam(raw: string): number | string {
  if (!/^(0|-?[1-9][0-9]*)$/.test(raw)) return raw;
  const value = Number(raw);
  return Number.isSafeInteger(value) ? value : Math.sign(value) * (Number.MAX_SAFE_INTEGER + 1);
}

/** The version an event stream resumes after: `Last-Event-ID` (an event's id) or `?since=`. */
const resumeVersion = {
  type: 'integer',
  minimum: 0,
  maximum: Number.MAX_SAFE_INTEGER,
  description:
    "The last version the client has (an event's id): the later versions still in history are replayed first (or `reset` is sent when some were pruned). " +
    "A canonical integer from 0 to the silo's current version: above it, a 422 (`less_than_equal`).",
} as const;

/** An event stream's resume point, by where it came from. */
export const eventResume = {
  type: 'object',
  properties: {
    'Last-Event-ID': resumeVersion,
    since: { ...resumeVersion, description: `As Last-Event-ID, for clients that cannot set headers (Last-Event-ID wins when both are sent). ${resumeVersion.description}` },
    data: {
      type: 'string',
      enum: ['0', '1'],
      description: '`1`: each update carries `file_data`; `0`, or none: metadata only. Any other value is a 422 (`?data=true` carried nothing, silently).',
      examples: ['1'],
    },
  },
} as const;

export const versionPath = {
  type: 'object',
  properties: {
    version: {
      type: 'integer',
      minimum: 1,
      // Past this a number in a path no longer names one version: 2^53 + 1 reads as 2^53.
      maximum: Number.MAX_SAFE_INTEGER,
      description: 'A version of the silo: 1 at create, one more on every write.',
    },
  },
  required: ['version'],
} as const;
