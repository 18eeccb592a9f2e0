/**
 * Validation with ajv from the schemas of this folder (requests, and patched documents), and the
 * mapping of ajv's errors to the contract's validation body: `loc` starts with the input's source, `type` is a stable word,
 * and every problem is listed (allErrors).
 */
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import type { ValidationIssue } from '../errors.js';
import { ValidationError } from '../errors.js';

export type Source = 'body' | 'path' | 'query' | 'header';

const UUID_RE = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
const DATE_TIME_RE = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

export const ajv = new Ajv2020({ allErrors: true, strict: true, strictRequired: false, allowUnionTypes: true, coerceTypes: false, useDefaults: false });
ajv.addFormat('uuid', UUID_RE);
ajv.addFormat('date-time', DATE_TIME_RE);

export interface Validator<T> {
  /** The value as T, or a ValidationError listing every problem. */
  (value: unknown, source: Source): T;
  /** The problems of `value` (empty when valid). */
  issues(value: unknown, source: Source): ValidationIssue[];
}

export function validator<T>(schema: object): Validator<T> {
  const validate = ajv.compile(schema) as ValidateFunction;
  const issues = (value: unknown, source: Source): ValidationIssue[] =>
    validate(value) ? [] : toIssues(validate.errors ?? [], source, value);
  const check = (value: unknown, source: Source): T => {
    const found = issues(value, source);
    if (found.length > 0) throw new ValidationError(found);
    return value as T;
  };
  return Object.assign(check, { issues });
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
      return { loc, msg: `Input should be a valid ${String(p.format)}`, type: `${String(p.format)}_parsing` };
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
    default:
      return { loc, msg: error.message ?? 'Input is not valid', type: error.keyword };
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

