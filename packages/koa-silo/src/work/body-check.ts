/**
 * A request body's JSON checked as the API reads it: parsed (strict, nesting bounded), validated
 * by the request schemas, and the parts the service needs taken out (the known fields, and
 * file_data's text exactly as sent). Pure: it runs inline for small bodies and on a worker thread
 * for large ones (work/), where a 10 MB body's parse and validation cannot hold other requests.
 */
import { parseJson } from 'silo-query';
import { ValidationError, type ValidationIssue } from '../model/index.js';
import { compactJson, memberSpan } from './json-member.js';
import { checkJsonPatch } from '../patch/index.js';
import { BODY_FIELDS } from '../schemas/silo.js';
import { checkCreateBody, checkUpdateBody } from '../schemas/silo-checks.js';

/** What a body is: a create or update body (contract §4), or a patch document (§10). */
export type BodyShape = 'create' | 'update' | 'merge-patch' | 'json-patch';

export interface CheckedBody {
  /** Its problems (at most 100 and a count, as a 422 lists them); none when it may be used. */
  issues: ValidationIssue[];
  /** The known fields but file_data (create and update bodies). */
  fields: Record<string, unknown>;
  /** file_data's text as sent, whitespace removed (when the body has file_data). */
  dataText?: string;
  /**
   * Where dataText lies in the body's text, when it is that part as sent (a compact body): a
   * worker sends this back instead of dataText, and the main thread, which has the body, takes
   * the slice (V8 shares it: no copy of 10 MB across threads, nor its garbage).
   */
  dataSpan?: [start: number, end: number];
}

/** Every body field but file_data, whose text is taken from the body as sent. */
const FIELDS = BODY_FIELDS.filter((f) => f !== 'file_data');

export function checkBody(shape: BodyShape, text: string, maxDepth: number, maxOperations: number): CheckedBody {
  return checkedBody(shape, text, maxDepth, maxOperations, false).checked;
}

/**
 * checkBody, and, when `keep`, the body's parse if it is a patch that may be applied: parsed as
 * the patch will be (numbers as written), so that a worker may keep it for the patch task that
 * follows and a large patch is parsed once (tasks.ts). A parse nobody keeps is JSON.parse's: the
 * check reads no number, and the exact parser's scan would be work thrown away.
 */
export function checkedBody(shape: BodyShape, text: string, maxDepth: number, maxOperations: number, keep: boolean): { checked: CheckedBody; patch?: unknown } {
  if (shape === 'merge-patch' || shape === 'json-patch') {
    const patch = parseBodyJson(text, maxDepth, keep ? parseJson : JSON.parse);
    const issues = shape === 'json-patch' ? checkJsonPatch(patch, maxOperations).detail : [];
    return issues.length > 0 ? { checked: { issues, fields: {} } } : { checked: { issues, fields: {} }, patch };
  }
  return { checked: checkDataBody(shape, text, maxDepth) };
}

function checkDataBody(shape: 'create' | 'update', text: string, maxDepth: number): CheckedBody {
  const value = parseBodyJson(text, maxDepth);
  const issues = (shape === 'create' ? checkCreateBody : checkUpdateBody).issues(value, 'body');
  if (issues.length > 0) return { issues: shape === 'update' && Array.isArray(value) ? patchHint(issues) : issues, fields: {} };
  const body = value as Record<string, unknown>;
  const fields: Record<string, unknown> = {};
  for (const field of FIELDS) if (Object.hasOwn(body, field)) fields[field] = body[field];
  if (!Object.hasOwn(body, 'file_data')) return { issues, fields };
  const span = memberSpan(text, 'file_data');
  if (!span) return { issues, fields, dataText: JSON.stringify(body.file_data) };
  const dataText = compactJson(text, span[0], span[1]);
  return { issues, fields, dataText, ...(dataText.length === span[1] - span[0] ? { dataSpan: span } : {}) };
}

/** `checked` as a worker sends it back: without dataText when the body's text gives it (dataSpan). */
export function withoutSpannedText(checked: CheckedBody): CheckedBody {
  if (!checked.dataSpan) return checked;
  const { dataText: _sent, ...rest } = checked;
  return rest;
}

/** `checked` from a worker, with dataText taken again from the body's `text` where it was left out. */
export function withSpannedText(checked: CheckedBody, text: string): CheckedBody {
  return checked.dataSpan && checked.dataText === undefined ? { ...checked, dataText: text.slice(checked.dataSpan[0], checked.dataSpan[1]) } : checked;
}

/**
 * An array sent as an update body is most likely a JSON Patch whose Content-Type was left as
 * application/json (a generic client's default): the 422 says which one the server reads it by.
 */
function patchHint(issues: ValidationIssue[]): ValidationIssue[] {
  return issues.map((issue) =>
    issue.loc.length === 1 && issue.type === 'model_attributes_type'
      ? { ...issue, msg: `${issue.msg} (a JSON Patch array needs Content-Type: application/json-patch+json)` }
      : issue,
  );
}

/**
 * `parse` (JSON.parse, or silo-query's parseJson, which keeps numbers as written) with the
 * contract's 422s, and a nesting bound checked first so nothing downstream recurses too deep.
 */
export function parseBodyJson(text: string, maxDepth: number, parse: (text: string) => unknown = JSON.parse): unknown {
  const depth = nestingDepth(text, maxDepth);
  if (depth > maxDepth) {
    throw new ValidationError([
      { loc: ['body'], msg: `JSON nesting is deeper than ${maxDepth} levels`, type: 'json_too_deep' },
    ]);
  }
  try {
    return parse(text);
  } catch (err) {
    throw new ValidationError([{ loc: ['body'], msg: `JSON decode error: ${decodeReason(syntaxErrorOf(text, err))}`, type: 'json_invalid' }]);
  }
}

/** JSON.parse's own error for `text`, so a 422 reads the same whichever parser found it invalid. */
function syntaxErrorOf(text: string, err: unknown): unknown {
  try {
    JSON.parse(text);
  } catch (native) {
    return native;
  }
  return err;
}

/**
 * JSON.parse's message without the excerpt of the body that V8 quotes (`Unexpected token 's',
 * ..."name": silo_man_P"... is not valid JSON`): an error body never repeats the client's input,
 * which may hold a key pasted in the wrong place. Positions and the offending character stay.
 */
function decodeReason(err: unknown): string {
  const message = err instanceof Error ? err.message : 'invalid JSON';
  return message.replace(/, (?:\.\.\.)?".*"(?:\.\.\.)? is not valid JSON$/s, ' (not valid JSON)');
}

/** The deepest bracket nesting of `text` outside strings; stops counting once past `stopAt`. */
export function nestingDepth(text: string, stopAt: number): number {
  // Nothing can nest deeper than half its length: short texts need no scan.
  if (text.length <= stopAt * 2) return 0;
  let depth = 0;
  let max = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // Jump to the closing quote: one not preceded by an odd run of backslashes.
      let close = text.indexOf('"', i + 1);
      while (close !== -1) {
        let backslashes = 0;
        for (let k = close - 1; text.charCodeAt(k) === 0x5c; k--) backslashes++;
        if (backslashes % 2 === 0) break;
        close = text.indexOf('"', close + 1);
      }
      if (close === -1) return max; // unterminated: JSON.parse reports it
      i = close;
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) {
        max = depth;
        if (max > stopAt) return max;
      }
    } else if (c === 0x5d || c === 0x7d) {
      depth--;
    }
  }
  return max;
}
