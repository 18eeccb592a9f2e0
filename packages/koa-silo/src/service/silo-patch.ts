/**
 * Partial updates (contract §10) as the service applies them, under the silo's lock, to the
 * current version: the silo's document `{file_name, file_data, region_name, is_public}` patched
 * by an RFC 7386 merge patch or an RFC 6902 operation list, then checked by the update rules.
 *
 * Appending to an array silo (`add /file_data/-`, the commonest patch) does not parse the stored
 * data: the new elements' text is spliced in before the closing bracket.
 */
import { ConflictError, type JsonPatchOperation, PayloadTooLargeError, type Region, type SiloData, type SiloPatch, type SiloRecord, ValidationError } from '../model/index.js';
import { applyJsonPatch, applyMergePatch, DEFAULT_PATCH_WORK, PatchConflictError, PatchTooCostlyError, PatchTooDeepError, PatchTooLargeError } from '../patch/index.js';
import { siloDocument, type SiloDocument } from '../schemas/silo.js';
import { validator } from '../schemas/validate.js';
import { isJsonObject, parseData, writeData } from './data-json.js';
import { parseJson } from 'silo-query';

// Items must be JSON objects proper: a number kept as text is an object to ajv, not to JSON.
const checkDocument = validator<SiloDocument>(siloDocument, { file_data: isJsonObject });

/** What a patched document may be: as large as the plan allows, as deep as any body may nest. */
export interface PatchLimits {
  maxDataBytes: number;
  /** The deepest nesting of the document `{file_name, ..., file_data}`, its own braces counted (maxJsonDepth). */
  maxDepth: number;
}

/** What a patch changes: the fields, and file_data's new text (undefined: unchanged). */
export interface Patched {
  file_name: string;
  region_name: Region;
  is_public: boolean;
  text?: string;
  /** The UTF-8 size of `text`, when known without counting it. */
  size?: number;
  /** When the patch only appended elements to the array: their texts, comma-separated. */
  appended?: string;
}

/** The element texts of a patch that only appends objects to file_data, else undefined. */
function appendedElements(operations: readonly JsonPatchOperation[]): string[] | undefined {
  const texts: string[] = [];
  for (const op of operations) {
    if (op.op !== 'add' || op.path !== '/file_data/-') return undefined;
    if (!isJsonObject(op.value)) return undefined;
    texts.push(writeData(op.value));
  }
  return texts;
}

/**
 * RFC 6902 on the document: an operation that cannot apply is the contract's 409; a patch whose
 * work would pass its budget a 422 naming the operation, before that work is done; one that would
 * nest the document deeper than any body may the 422 a body that deep gets (json_too_deep); a
 * result (shared by `copy`) larger than the size limit a 413 before it is serialised.
 */
function applyPatch(document: object, operations: readonly JsonPatchOperation[], { maxDataBytes, maxDepth }: PatchLimits): unknown {
  try {
    return applyJsonPatch(document, operations, { maxWork: DEFAULT_PATCH_WORK, maxResultChars: maxDataBytes, maxDepth });
  } catch (error) {
    if (error instanceof PatchConflictError) throw new ConflictError(error.message);
    if (error instanceof PatchTooLargeError) throw new PayloadTooLargeError(maxDataBytes);
    if (error instanceof PatchTooDeepError) {
      throw new ValidationError([
        {
          loc: error.operation === undefined ? ['body'] : ['body', error.operation],
          msg: `After the patch the document would nest deeper than ${error.limit} levels`,
          type: 'json_too_deep',
          ctx: { max_depth: error.limit },
        },
      ]);
    }
    if (error instanceof PatchTooCostlyError) {
      throw new ValidationError([
        {
          loc: error.operation === undefined ? ['body'] : ['body', error.operation],
          msg: `The patch would shift or copy more than ${error.limit} elements of the document: split it, or send the new file_data whole`,
          type: 'patch_too_costly',
          ctx: { max_work: error.limit },
        },
      ]);
    }
    throw error;
  }
}

/** A patch given as its text, parsed (numbers as written); one given as a value, as it is. */
function patchValue(patch: SiloPatch): Exclude<SiloPatch, { text: string }> {
  if (!('text' in patch)) return patch;
  const value = parseJson(patch.text);
  return patch.type === 'merge' ? { type: 'merge', patch: value } : { type: 'json-patch', operations: value as JsonPatchOperation[] };
}

function isArrayText(text: string): boolean {
  return text.charCodeAt(0) === 0x5b; // '[': stored texts are compact
}

/**
 * Whether `patch` sets file_data whole before anything reads its old value: a merge patch whose
 * file_data is not an object (an object merges into the old one), or a JSON Patch whose first
 * operation that reaches file_data (at it, below it, or the root) adds or replaces it whole.
 */
export function replacesDataUnread(patch: Exclude<SiloPatch, { text: string }>): boolean {
  if (patch.type === 'merge') {
    const merge = patch.patch;
    return isJsonObject(merge) && Object.hasOwn(merge, 'file_data') && !isJsonObject(merge.file_data);
  }
  const first = patch.operations.find((op) => reachesData(op.path) || ('from' in op && reachesData(op.from)));
  return first !== undefined && (first.op === 'add' || first.op === 'replace') && first.path === DATA_POINTER;
}

const DATA_POINTER = '/file_data';

function reachesData(pointer: string): boolean {
  return pointer === '' || pointer === DATA_POINTER || pointer.startsWith(`${DATA_POINTER}/`);
}

/** What a patch needs to know of the silo beside its data. */
export type PatchedRecord = Pick<SiloRecord, 'file_name' | 'region_name' | 'is_public' | 'size'>;

/**
 * The result of `patch` when it only appends objects to the array silo whose data is `text`
 * (the commonest patch): the new elements' text spliced in before the closing bracket, with no
 * parse of the stored data. Undefined for any other patch.
 */
export function appendOnly(record: PatchedRecord, text: string, patch: SiloPatch): Patched | undefined {
  if (!isArrayText(text)) return undefined;
  const empty = text.length === 2;
  const appended = appendedTo(record, patch, empty);
  if (!appended || appended.appended === undefined) return appended;
  const body = appended.appended;
  return { ...appended, text: empty ? `[${body}]` : `${text.slice(0, -1)},${body}]` };
}

/**
 * The result of `patch` when it only appends objects to an array silo known to hold elements (one
 * whose head has a tail of appended elements), without its text: the new elements'
 * text and the new size. The data's text is not read at all: an append to a 10 MB array costs
 * what its new elements do. Undefined for any other patch.
 */
export function appendToElements(record: PatchedRecord, patch: SiloPatch): Omit<Patched, 'text'> | undefined {
  return appendedTo(record, patch, false);
}

function appendedTo(record: PatchedRecord, patch: SiloPatch, empty: boolean): Omit<Patched, 'text'> | undefined {
  patch = patchValue(patch);
  if (patch.type !== 'json-patch') return undefined;
  const appended = appendedElements(patch.operations);
  if (!appended) return undefined;
  const fields = { file_name: record.file_name, region_name: record.region_name, is_public: record.is_public };
  if (appended.length === 0) return fields;
  const body = appended.join(',');
  // The stored size plus the new elements': a 1 MB silo is not counted again for one element.
  const size = record.size + Buffer.byteLength(body, 'utf8') + (empty ? 0 : 1);
  return { ...fields, size, appended: body };
}

/**
 * Whether `patch` leaves file_data alone: a merge patch that is an object without a `file_data`
 * member, or a JSON Patch none of whose operations reaches file_data (at it, below it, or the root).
 */
function leavesDataAlone(patch: Exclude<SiloPatch, { text: string }>): boolean {
  if (patch.type === 'merge') return isJsonObject(patch.patch) && !Object.hasOwn(patch.patch, 'file_data');
  return !patch.operations.some((op) => reachesData(op.path) || ('from' in op && reachesData(op.from)));
}

/** The data of a patch that leaves it alone: never read, never written (the result keeps this very object). */
const UNREAD_DATA = Object.freeze({});

/**
 * The result of `patch` when it leaves file_data alone (a rename, a move, a change of visibility),
 * without the data: a 10 MB silo is renamed as quickly as an empty one. Undefined for any other patch.
 */
export function patchFieldsOnly(record: PatchedRecord, patch: SiloPatch, limits: PatchLimits): Patched | undefined {
  patch = patchValue(patch);
  if (!leavesDataAlone(patch)) return undefined;
  return patchDocument(record, UNREAD_DATA, patch, limits);
}

/**
 * `patch` applied to the silo of `record` whose data is `text`, parsed by `parse` when the patch
 * needs the value (an append does not). Throws PatchConflictError (409) when it cannot apply,
 * ValidationError (422) when its result breaks the update rules.
 */
export async function applySiloPatch(
  record: PatchedRecord,
  text: string,
  patch: SiloPatch,
  limits: PatchLimits,
  parse: (text: string) => Promise<unknown> = async (t) => parseData(t),
): Promise<Patched> {
  patch = patchValue(patch);
  const appended = appendOnly(record, text, patch);
  if (appended) return appended;
  // Data the patch replaces before it looks at it is not parsed. In its place, null: were it ever
  // seen, the document would fail the update rules (a 422), never be stored.
  const data = replacesDataUnread(patch) ? null : await parse(text);
  return patchDocument(record, data, patch, limits);
}

/** `patch` applied to the document of `record` and `data`, its result checked by the update rules. */
function patchDocument(record: PatchedRecord, data: unknown, patch: Exclude<SiloPatch, { text: string }>, limits: PatchLimits): Patched {
  const fields = { file_name: record.file_name, region_name: record.region_name, is_public: record.is_public };
  const document = { ...fields, file_data: data };
  const result = patch.type === 'merge' ? applyMergePatch(document, patch.patch) : applyPatch(document, patch.operations, limits);
  // A number kept as text is an object to the schema, not to JSON: a patch that leaves no JSON
  // object (a merge patch that is such a number) has no fields to check, and one issue says so.
  const patched = isJsonObject(result) ? result : undefined;
  const issues = patched
    ? checkDocument.issues(patched, 'body')
    : [{ loc: ['body'], msg: 'Input should be a valid dictionary or object to extract fields from', type: 'model_attributes_type' }];
  const fileData: unknown = patched?.file_data;
  const flagged = issues.some((issue) => issue.loc[1] === 'file_data' && issue.loc.length === 2);
  if (fileData !== undefined && !Array.isArray(fileData) && !isJsonObject(fileData) && !flagged) {
    issues.push({ loc: ['body', 'file_data'], msg: 'Input should be a JSON object or an array of objects', type: 'dict_type' });
  }
  if (issues.length > 0) {
    throw new ValidationError(issues.map((issue) => (issue.type === 'too_many_errors' ? issue : { ...issue, msg: `After the patch: ${issue.msg}` })));
  }
  const next = result as SiloDocument;
  return {
    file_name: next.file_name,
    region_name: next.region_name as Region,
    is_public: next.is_public,
    ...(next.file_data === data ? {} : { text: writeData(next.file_data) }),
  };
}
