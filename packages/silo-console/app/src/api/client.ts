import { errorWords, SESSION_ENDED, type ErrorWords } from '../lib/errors.js';

/** A failed API call, already in words; `fields` places 422 messages beside their controls. */
export class ApiError extends Error implements ErrorWords {
  readonly fields: Record<string, string>;
  constructor(
    readonly status: number,
    words: ErrorWords,
  ) {
    super(words.message);
    this.fields = words.fields;
  }
}

type SessionEndedHandler = () => void;
let onSessionEnded: SessionEndedHandler = () => {};

/** The app sets this once: any 401 (outside sign-in) sends the person back to sign-in with a message. */
export function setSessionEndedHandler(fn: SessionEndedHandler): void {
  onSessionEnded = fn;
}

/** A page that found the session gone without a 401 (the live feed) sends the person to sign-in too. */
export function endSession(): void {
  onSessionEnded();
}

/** Where the console is mounted ("/console"), from the page's own address: its API sits beside it. */
export const CONSOLE_BASE = location.pathname.replace(/\/(index\.html)?$/, '') || '/console';

export interface CallOptions {
  /** A JSON value to send (stringified here). */
  json?: unknown;
  /** A JSON text to send as it is (the editor's text: exact numbers survive). */
  text?: string;
  headers?: Record<string, string>;
  /** Sign-in answers 401 for a wrong password: that is not a lost session. */
  expect401?: boolean;
}

async function send(method: string, path: string, opts: CallOptions): Promise<Response> {
  const headers: Record<string, string> = { Accept: 'application/json', ...opts.headers };
  let body: string | undefined;
  if (opts.json !== undefined) body = JSON.stringify(opts.json);
  else if (opts.text !== undefined) body = opts.text;
  if (body !== undefined) headers['Content-Type'] ??= 'application/json';
  let res: Response;
  try {
    res = await fetch(path, { method, headers, body, credentials: 'same-origin', cache: 'no-store' });
  } catch {
    throw new ApiError(0, errorWords(0, undefined));
  }
  if (res.ok) return res;
  const raw = await res.text().catch(() => '');
  let parsed: unknown;
  try {
    parsed = raw === '' ? undefined : JSON.parse(raw);
  } catch {
    parsed = undefined;
  }
  if (res.status === 401 && !opts.expect401) {
    onSessionEnded();
    throw new ApiError(401, { message: SESSION_ENDED, fields: {} });
  }
  throw new ApiError(res.status, errorWords(res.status, parsed, res.headers.get('Retry-After')));
}

/** Calls the API and parses its JSON answer (undefined for a 204). */
export async function call<T>(method: string, path: string, opts: CallOptions = {}): Promise<T> {
  const res = await send(method, path, opts);
  if (res.status === 204) return undefined as T;
  return (await res.json()) as T;
}

/** Calls the API and returns its answer as text, for data whose numbers must stay exact. */
export async function callText(method: string, path: string, opts: CallOptions = {}): Promise<string> {
  const res = await send(method, path, opts);
  return res.text();
}
