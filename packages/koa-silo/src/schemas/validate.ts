/**
 * Validation with ajv from the schemas of this folder (requests, and patched documents), and the
 * mapping of ajv's errors to the contract's validation body: `loc` starts with the input's source, `type` is a stable word,
 * and every problem is listed (allErrors), up to the first MAX_ISSUES (contract §17).
 */
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import { IssueList, type ValidationIssue } from '../model/index.js';

export type Source = 'body' | 'path' | 'query' | 'header';

const UUID_RE = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
const DATE_TIME_RE = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(?:[Zz]|[+-](\d{2}):(\d{2}))$/;

/**
 * An RFC 3339 date-time, its fields in range: `2026-02-30T00:00:00Z` is no time (Date.parse reads
 * it as the 2nd of March), nor is hour 24. A leap second (60) passes, as the RFC allows.
 */
export function isDateTime(text: string): boolean {
  const m = DATE_TIME_RE.exec(text);
  if (!m) return false;
  const [year, month, day, hour, minute, second, offsetHours = 0, offsetMinutes = 0] = m.slice(1).map((f) => (f === undefined ? undefined : Number(f)));
  const daysInMonth = new Date(Date.UTC(year!, month!, 0)).getUTCDate();
  return month! >= 1 && month! <= 12 && day! >= 1 && day! <= daysInMonth && hour! <= 23 && minute! <= 59 && second! <= 60 && offsetHours <= 23 && offsetMinutes <= 59;
}

export const ajv = new Ajv2020({ allErrors: true, strict: true, strictRequired: false, allowUnionTypes: true, coerceTypes: false, useDefaults: false });
ajv.addFormat('uuid', UUID_RE);
ajv.addFormat('date-time', isDateTime);

export interface Validator<T> {
  /** The value as T, or a ValidationError listing every problem. */
  (value: unknown, source: Source): T;
  /** The problems of `value` (empty when valid). */
  issues(value: unknown, source: Source): ValidationIssue[];
}

/**
 * Top-level members whose array items are checked by hand (by the predicate given), not by ajv:
 * with allErrors, ajv builds one error object per bad item, 3 million of them for a 10 MB
 * `[1,1,...]`. Here the items are checked with the first MAX_ISSUES problems kept and the rest
 * counted. The schema keeps its `items` (the OpenAPI document and the types read it).
 */
export type ItemChecks = Record<string, (item: unknown) => boolean>;

/** What JSON Schema calls an object (ajv's `type: object`): not null, not an array. */
export function isPlainObject(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const ITEM_MSG = 'Input should be a valid dictionary (a JSON object)';

export function validator<T>(schema: object, itemChecks: ItemChecks = {}): Validator<T> {
  const validate = ajv.compile(withoutItems(schema, Object.keys(itemChecks))) as ValidateFunction;
  const collect = (value: unknown, source: Source): IssueList => {
    const list = new IssueList();
    if (!validate(value)) for (const issue of toIssues(validate.errors ?? [], source, value)) list.push(issue);
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
      for (const [member, isItem] of Object.entries(itemChecks)) {
        const items: unknown = Object.hasOwn(value, member) ? (value as Record<string, unknown>)[member] : undefined;
        if (!Array.isArray(items)) continue;
        for (let i = 0; i < items.length; i++) {
          if (isItem(items[i])) continue;
          if (list.full) list.more++;
          else list.push({ loc: [source, member, i], msg: ITEM_MSG, type: 'dict_type' });
        }
      }
    }
    return list;
  };
  const issues = (value: unknown, source: Source): ValidationIssue[] => collect(value, source).detail;
  const check = (value: unknown, source: Source): T => {
    collect(value, source).throwIfAny();
    return value as T;
  };
  return Object.assign(check, { issues });
}

/** `schema` with the `items` of the named top-level properties taken out (a copy; the schema is shared). */
function withoutItems(schema: object, members: string[]): object {
  if (members.length === 0) return schema;
  const { properties, ...rest } = schema as { properties?: Record<string, object> };
  const copy: Record<string, object> = { ...properties };
  for (const member of members) {
    const property = copy[member] as { items?: unknown } | undefined;
    if (property === undefined) throw new TypeError(`validator: the schema has no property ${member}`);
    const { items: _items, ...shape } = property;
    copy[member] = shape;
  }
  return { ...rest, properties: copy };
}

/** Convert ajv errors to issues, in the order found, without duplicates. */
export function toIssues(errors: ErrorObject[], source: Source, data: unknown): ValidationIssue[] {
  const out: ValidationIssue[] = [];
  const seen = new Set<string>();
  // Errors inside an anyOf branch are summed up by the anyOf error itself.
  const anyOfPaths = new Set(errors.filter((e) => e.keyword === 'anyOf').map((e) => e.schemaPath));
  // A value of the wrong type gets only its type error (not also "not one of the enum values").
  const wrongType = new Set(errors.filter((e) => e.keyword === 'type').map((e) => e.instancePath));
  for (const error of errors) {
    if ([...anyOfPaths].some((p) => error.schemaPath.startsWith(`${p}/`))) continue;
    if (error.keyword !== 'type' && wrongType.has(error.instancePath)) continue;
    const issue = toIssue(error, errors, source, data);
    const key = JSON.stringify([issue.loc, issue.type]);
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(issue);
  }
  return out;
}

function toIssue(error: ErrorObject, all: ErrorObject[], source: Source, data: unknown): ValidationIssue {
  const loc = [source, ...pointerToLoc(error.instancePath, data)];
  const p = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return { loc: [...loc, String(p.missingProperty)], msg: 'Field required', type: 'missing' };
    case 'type':
      return typeIssue(loc, String(p.type), source);
    case 'additionalProperties':
      return { loc: [...loc, String(p.additionalProperty)], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' };
    case 'enum': {
      const allowed = (p.allowedValues as unknown[]).map((v) => `'${String(v)}'`);
      const list = allowed.length > 1 ? `${allowed.slice(0, -1).join(', ')} or ${allowed.at(-1)}` : allowed.join('');
      return { loc, msg: `Input should be ${list}`, type: 'enum' };
    }
    case 'const':
      return { loc, msg: `Input should be ${JSON.stringify(p.allowedValue)}`, type: 'literal_error' };
    case 'format':
      if (p.format === 'uuid') {
        return { loc, msg: 'Input should be a valid UUID: 36 characters, hexadecimal digits in groups 8-4-4-4-12', type: 'uuid_parsing' };
      }
      if (p.format === 'date-time') {
        // Pydantic's name, `datetime_parsing`; the form is said, as a date alone is the usual mistake.
        return { loc, msg: 'Input should be a valid date-time: RFC 3339 with a time and a zone, such as 2026-05-01T00:00:00Z', type: 'datetime_parsing' };
      }
      return { loc, msg: `Input should be a valid ${String(p.format)}`, type: `${String(p.format).replace('-', '')}_parsing` };
    case 'minLength':
      return { loc, msg: `String should have at least ${plural(Number(p.limit), 'character')}`, type: 'string_too_short' };
    case 'maxLength':
      return { loc, msg: `String should have at most ${plural(Number(p.limit), 'character')}`, type: 'too_long' };
    case 'minimum':
      return { loc, msg: `Input should be greater than or equal to ${String(p.limit)}`, type: 'greater_than_equal' };
    case 'maximum':
      return { loc, msg: `Input should be less than or equal to ${String(p.limit)}`, type: 'less_than_equal' };
    case 'anyOf': {
      const branches = all.filter((e) => e.schemaPath.startsWith(`${error.schemaPath}/`));
      if (branches.length > 0 && branches.every((e) => e.keyword === 'required')) {
        const names = branches.map((e) => String((e.params as Record<string, unknown>).missingProperty));
        return { loc, msg: `At least one of ${names.join(', ')} is required`, type: 'missing' };
      }
      return { loc, msg: error.message ?? 'Input is not valid', type: 'value_error' };
    }
    case 'minItems':
      return { loc, msg: `List should have at least ${plural(Number(p.limit), 'item')}`, type: 'too_short' };
    case 'maxItems':
      return { loc, msg: `List should have at most ${plural(Number(p.limit), 'item')}`, type: 'too_long' };
    case 'uniqueItems':
      return { loc, msg: `List should not repeat an item: items ${String(p.j)} and ${String(p.i)} are the same`, type: 'value_error' };
    case 'pattern':
      return { loc, msg: `String should match pattern '${String(p.pattern)}'`, type: 'string_pattern_mismatch' };
    default:
      // A keyword no request schema uses today: the one word for any other rule, not the validator's own.
      return { loc, msg: 'Input is not valid', type: 'value_error' };
  }
}

function typeIssue(loc: (string | number)[], expected: string, source: Source): ValidationIssue {
  switch (expected) {
    case 'string':
      return { loc, msg: 'Input should be a valid string', type: 'string_type' };
    case 'boolean':
      return { loc, msg: 'Input should be a valid boolean', type: 'bool_type' };
    case 'integer':
    case 'number':
      return source === 'body'
        ? { loc, msg: 'Input should be a valid integer', type: 'int_type' }
        : { loc, msg: 'Input should be a valid integer, unable to parse string as an integer', type: 'int_parsing' };
    case 'array':
      return { loc, msg: 'Input should be a valid list', type: 'list_type' };
    case 'object':
      return loc.length === 1
        ? { loc, msg: 'Input should be a valid dictionary or object to extract fields from', type: 'model_attributes_type' }
        : { loc, msg: 'Input should be a valid dictionary (a JSON object)', type: 'dict_type' };
    case 'object,array':
      return { loc, msg: 'Input should be a JSON object or an array of objects', type: 'dict_type' };
    default:
      return { loc, msg: `Input should be of type ${expected}`, type: 'type_error' };
  }
}

/** `/file_data/3/a~1b` → `['file_data', 3, 'a/b']`, numbers where the data holds an array. */
function pointerToLoc(pointer: string, data: unknown): (string | number)[] {
  if (pointer === '') return [];
  const loc: (string | number)[] = [];
  let node: unknown = data;
  for (const raw of pointer.slice(1).split('/')) {
    const segment = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(node)) {
      const index = Number(segment);
      loc.push(index);
      node = node[index];
    } else {
      loc.push(segment);
      node = node !== null && typeof node === 'object' && Object.hasOwn(node, segment) ? (node as Record<string, unknown>)[segment] : undefined;
    }
  }
  return loc;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

