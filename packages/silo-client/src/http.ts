/**
 * One HTTP call of the client: fetch, with the bounded retries of 429 and 503 that honour
 * `Retry-After`, an AbortSignal that ends the call and its waits, and the answer's body parsed with
 * exact numbers. A failed answer becomes a SiloError.
 */
import { parseJson, toJSON } from 'silo-query';
import { retryAfterMs, SiloError } from './errors.js';

export interface RetryOptions {
  /** Retries after the first attempt (default 2). 0 turns retrying off. */
  retries?: number;
  /** Wait when the answer says nothing (doubling each time, with jitter); default 500 ms. */
  baseDelayMs?: number;
  /** Never wait longer than this for one retry: a longer Retry-After is given up on at once (default 60 s, the window of a rate limit per minute). */
  maxDelayMs?: number;
}

/** How answers are read: silo-query's parseJson (numbers exactly as sent) or JSON.parse (doubles). */
export type ParseJson = (text: string) => unknown;

export interface Transport {
  fetch: typeof fetch;
  retry: Required<RetryOptions>;
  /** How answers and events that carry silo data are parsed (the client's `numbers`). */
  parse: ParseJson;
}

export interface CallInit {
  method: string;
  headers: Record<string, string>;
  /** Serialized with silo-query's toJSON: JsonNumber and bigint values are written exactly. */
  json?: unknown;
  signal?: AbortSignal | undefined;
  /**
   * Whether a 503 may be retried. A 429 always may (the server did nothing); a 503 may leave an
   * unconditional write's outcome unknown, so only reads, deletes and conditional writes retry it.
   */
  retry503: boolean;
}

/** Waits `ms`, or rejects with the signal's reason once it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason as Error);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason as Error);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** The delay before retry number `attempt` (0-based) of an answer that said nothing: base·2^n, jittered ±25 %. */
export function backoffMs(attempt: number, base: number): number {
  return Math.round(base * 2 ** attempt * (0.75 + Math.random() * 0.5));
}

/** The call's answer once it is a success (2xx or 304); otherwise a SiloError, after the retries allowed. */
export async function call(transport: Transport, url: string, init: CallInit): Promise<Response> {
  const { retries, baseDelayMs, maxDelayMs } = transport.retry;
  const headers: Record<string, string> = { Accept: 'application/json', ...init.headers };
  let body: string | undefined;
  if (init.json !== undefined) {
    body = toJSON(init.json);
    headers['Content-Type'] ??= 'application/json';
  }
  for (let attempt = 0; ; attempt++) {
    const response = await transport.fetch(url, { method: init.method, headers, ...(body === undefined ? {} : { body }), ...(init.signal ? { signal: init.signal } : {}) });
    if (response.ok || response.status === 304) return response;
    const retryable = response.status === 429 || (response.status === 503 && init.retry503);
    if (retryable && attempt < retries) {
      const asked = retryAfterMs(response.headers.get('Retry-After'));
      const wait = asked ?? backoffMs(attempt, baseDelayMs);
      if (wait <= maxDelayMs) {
        await response.body?.cancel().catch(() => undefined);
        await sleep(wait, init.signal);
        continue;
      }
    }
    throw await SiloError.from(response);
  }
}

/** The answer's body as JSON, by default with numbers kept exactly as sent (silo-query's parseJson). */
export async function jsonOf<T>(response: Response, parse: ParseJson = parseJson): Promise<T> {
  return parse(await response.text()) as T;
}
