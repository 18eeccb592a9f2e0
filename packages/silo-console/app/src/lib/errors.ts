import type { ValidationIssue } from './types.js';

/** An API error in words: one sentence for the page, and per-field sentences for 422 bodies. */
export interface ErrorWords {
  message: string;
  /** Keyed by the field a 422 names (`file_name`, `idx`, ...); empty otherwise. */
  fields: Record<string, string>;
}

export const SESSION_ENDED = 'Your session has ended: sign in again';

function isIssue(v: unknown): v is ValidationIssue {
  if (typeof v !== 'object' || v === null) return false;
  const o = v as Record<string, unknown>;
  return Array.isArray(o['loc']) && typeof o['msg'] === 'string';
}

function detailOf(body: unknown): unknown {
  return typeof body === 'object' && body !== null ? (body as Record<string, unknown>)['detail'] : undefined;
}

/** The field a 422 issue is about: its loc without the source (`body`, `query`, ...). */
export function issueField(issue: ValidationIssue): string {
  const rest = issue.loc.slice(1);
  return rest.length > 0 ? rest.map(String).join('.') : String(issue.loc[0] ?? '');
}

/** Top-level field of a loc path (`file_data.0.name` → `file_data`), for placing a message beside its control. */
function topField(field: string): string {
  return field.split('.')[0] ?? field;
}

/**
 * Turns a failed response (status, parsed body, Retry-After) into words for a person. The
 * server's `detail` is kept where it says something specific; the status supplies the rest.
 * Status 0 stands for "no response at all" (network down, server stopped).
 */
export function errorWords(status: number, body: unknown, retryAfter?: string | null): ErrorWords {
  const detail = detailOf(body);
  const text = typeof detail === 'string' && detail.trim() !== '' ? detail.trim().replace(/\.?$/, '.') : undefined;
  if (status === 0) return { message: 'The server could not be reached: check that it is running, then try again.', fields: {} };
  if (Array.isArray(detail)) {
    const issues = detail.filter(isIssue);
    const fields: Record<string, string> = {};
    const lines: string[] = [];
    for (const issue of issues) {
      const field = issueField(issue);
      const line = `${field}: ${issue.msg}`;
      lines.push(line);
      const top = topField(field);
      fields[top] = fields[top] ? `${fields[top]}; ${issue.msg}` : field === top ? issue.msg : line;
    }
    const message = lines.length > 0 ? `Please correct: ${lines.join('; ')}.` : 'The request was refused as invalid.';
    return { message, fields };
  }
  switch (status) {
    case 401:
      return { message: text ?? SESSION_ENDED, fields: {} };
    case 403:
      return { message: text ?? 'This is not allowed from this page (the request was refused).', fields: {} };
    case 404:
      return { message: text ?? 'Not found: it may have been deleted.', fields: {} };
    case 409:
      return { message: text ?? 'That conflicts with the current state: reload and try again.', fields: {} };
    case 412:
      return { message: 'Someone changed this silo since you opened it: reload it, then try again.', fields: {} };
    case 413:
      return { message: text ?? 'That is too large for your plan.', fields: {} };
    case 429: {
      const secs = retryAfter && /^\d+$/.test(retryAfter) ? Number(retryAfter) : undefined;
      const wait = secs === undefined ? 'wait a moment' : `wait ${secs} second${secs === 1 ? '' : 's'}`;
      return { message: `${text ?? 'Too many requests.'} Please ${wait}, then try again.`, fields: {} };
    }
    case 503:
      return { message: text ?? 'The storage is unavailable right now: try again in a moment.', fields: {} };
    default:
      if (status >= 500) return { message: `The server failed (status ${status}): try again, and report it if it keeps happening.`, fields: {} };
      return { message: text ?? `The request failed (status ${status}).`, fields: {} };
  }
}
