/**
 * The shape of an RFC 6902 patch document, checked before anything applies: every problem found,
 * each with `loc` `["body", <index>, <member>]` (contract §10).
 */
import { DEFAULT_MAX_PATCH_OPERATIONS, IssueList, type ValidationIssue } from '../model/index.js';
import { isContainerObject, isPointer } from './json-pointer.js';

export const OPERATIONS = ['add', 'remove', 'replace', 'move', 'copy', 'test'] as const;
type OperationName = (typeof OPERATIONS)[number];

function isOperationName(value: unknown): value is OperationName {
  return (OPERATIONS as readonly unknown[]).includes(value);
}

function pointerIssues(op: Record<string, unknown>, member: 'path' | 'from', loc: (string | number)[]): ValidationIssue[] {
  const value = op[member];
  if (value === undefined) return [{ loc: [...loc, member], msg: 'Field required', type: 'missing' }];
  if (typeof value !== 'string') return [{ loc: [...loc, member], msg: 'Input should be a valid string', type: 'string_type' }];
  if (!isPointer(value)) {
    return [{ loc: [...loc, member], msg: `Input should be a JSON Pointer: ${pointerRule(value)} (RFC 6901)`, type: 'value_error' }];
  }
  return [];
}

/** The rule of RFC 6901 that `text`, no JSON Pointer, breaks. */
function pointerRule(text: string): string {
  return text.startsWith('/') ? 'each "~" followed by "0" or "1"' : 'empty, or starting with "/"';
}

function operationIssues(op: unknown, index: number): ValidationIssue[] {
  const loc: (string | number)[] = ['body', index];
  if (!isContainerObject(op)) return [{ loc, msg: 'Input should be a valid dictionary (a JSON Patch operation)', type: 'dict_type' }];
  const name = op.op;
  if (name === undefined) return [{ loc: [...loc, 'op'], msg: 'Field required', type: 'missing' }, ...pointerIssues(op, 'path', loc)];
  if (!isOperationName(name)) {
    const list = OPERATIONS.map((o) => `'${o}'`).join(', ');
    return [{ loc: [...loc, 'op'], msg: `Input should be ${list}`, type: 'enum' }, ...pointerIssues(op, 'path', loc)];
  }
  const issues = pointerIssues(op, 'path', loc);
  if ((name === 'add' || name === 'replace' || name === 'test') && !Object.prototype.hasOwnProperty.call(op, 'value')) {
    issues.push({ loc: [...loc, 'value'], msg: 'Field required', type: 'missing' });
  }
  if (name === 'move' || name === 'copy') issues.push(...pointerIssues(op, 'from', loc));
  return issues;
}


/**
 * The problems of `body` as a JSON Patch document, in an IssueList (the first 100 kept); none
 * means it is a `JsonPatchOperation[]` of at most `maxOperations` operations.
 */
export function checkJsonPatch(body: unknown, maxOperations = DEFAULT_MAX_PATCH_OPERATIONS): IssueList {
  const list = new IssueList();
  if (!Array.isArray(body)) {
    list.push({ loc: ['body'], msg: 'Input should be a valid list (a JSON Patch document)', type: 'list_type' });
  } else if (body.length > maxOperations) {
    list.push({ loc: ['body'], msg: `A JSON Patch may have at most ${maxOperations} operations`, type: 'too_long', ctx: { max_length: maxOperations } });
  } else {
    body.forEach((op: unknown, index) => {
      for (const issue of operationIssues(op, index)) list.push(issue);
    });
  }
  return list;
}
