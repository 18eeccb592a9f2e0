/**
 * One delivery attempt: a POST to an account's endpoint, bounded in every way an endpoint could
 * abuse (time, response size, redirects, where it connects), and described rather than thrown, so
 * the worker only has to record the outcome and schedule the next attempt.
 */
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import {
  bareHostname,
  BlockedAddressError,
  resolveDeliveryAddress,
  webhookUrlProblem,
  type GuardOptions,
  type LookupFn,
  type ResolvedAddress,
} from './address-guard.js';

export const USER_AGENT = 'Silo-Webhooks/1';
export const DEFAULT_TIMEOUT_MS = 10_000;
export const DEFAULT_MAX_RESPONSE_BYTES = 65_536;

export interface DeliveryOutcome {
  /** A 2xx answer. */
  ok: boolean;
  /** The status the endpoint answered, when it answered. */
  status?: number;
  /** Why the attempt failed, when it did not end with a status (or was a redirect). */
  error?: string;
  durationMs: number;
  /** Response body bytes read (at most maxResponseBytes). */
  responseBytes: number;
}

export interface PostOptions extends GuardOptions {
  /** Bounds the whole attempt: resolve, connect, send, answer. */
  timeoutMs?: number;
  maxResponseBytes?: number;
  lookup?: LookupFn;
}

type Attempt = Pick<DeliveryOutcome, 'ok' | 'status' | 'error'>;

function errorCode(error: unknown): string | undefined {
  return error instanceof Error && 'code' in error && typeof error.code === 'string' ? error.code : undefined;
}

/** A short, stable phrase for the deliveries list, rather than Node's internals. */
function describe(error: unknown): string {
  if (error instanceof BlockedAddressError) return error.message;
  const code = errorCode(error);
  const message = error instanceof Error ? error.message : String(error);
  switch (code) {
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ECONNRESET':
    case 'EPIPE':
      return 'connection reset';
    case 'EHOSTUNREACH':
      return 'host unreachable';
    case 'ENETUNREACH':
      return 'network unreachable';
    case 'ETIMEDOUT':
      return 'connection timed out';
  }
  if (code?.startsWith('HPE_')) return 'invalid HTTP response';
  if (code !== undefined && (code.startsWith('ERR_TLS') || code.includes('CERT') || code.startsWith('ERR_SSL'))) return `TLS: ${message}`;
  return message;
}

/** Resolver failures name the host, since that is what the account has to fix. */
async function vet(hostname: string, options: PostOptions): Promise<ResolvedAddress> {
  try {
    return await resolveDeliveryAddress(hostname, options);
  } catch (error) {
    const code = errorCode(error);
    if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'ENODATA' || code === 'EAI_NONAME') {
      throw new Error(`could not resolve ${bareHostname(hostname)}`);
    }
    throw error;
  }
}

function send(
  target: URL,
  vetted: ResolvedAddress,
  headers: Record<string, string>,
  body: string,
  maxResponseBytes: number,
  signal: AbortSignal,
  read: { bytes: number },
): Promise<Attempt> {
  // The socket connects wherever this says, whatever the name resolves to by now: the address
  // checked is the address used, so a DNS answer that changes in between (rebinding) is moot.
  // The host name itself still gives the Host header and, for https, SNI and certificate checks.
  const pinned: LookupFunction = (_hostname, lookupOptions, callback) => {
    if (lookupOptions.all) callback(null, [{ address: vetted.address, family: vetted.family }]);
    else callback(null, vetted.address, vetted.family);
  };
  return new Promise((resolve) => {
    const request = (target.protocol === 'https:' ? https : http).request({
      host: bareHostname(target.hostname),
      port: target.port === '' ? undefined : Number(target.port),
      path: `${target.pathname}${target.search}`,
      method: 'POST',
      headers: {
        ...headers,
        'content-type': 'application/json',
        'user-agent': USER_AGENT,
        'content-length': Buffer.byteLength(body),
      },
      lookup: pinned,
      agent: false,
      signal,
    });
    request.on('error', (error) => resolve({ ok: false, error: describe(error) }));
    request.on('response', (response) => {
      const status = response.statusCode ?? 0;
      const done = (): void => {
        if (status >= 300 && status < 400) resolve({ ok: false, status, error: 'redirect not followed' });
        else resolve({ ok: status >= 200 && status < 300, status });
      };
      response.on('data', (chunk: Buffer) => {
        read.bytes += Math.min(chunk.length, maxResponseBytes - read.bytes);
        if (read.bytes >= maxResponseBytes) {
          // Enough: the status is what counts, and an endless body must not hold the worker.
          response.destroy();
          done();
        }
      });
      response.on('end', done);
      // A body cut short by the endpoint still leaves its status as the answer.
      response.on('error', done);
      response.on('close', done);
    });
    request.end(body);
  });
}

/**
 * POSTs `body` to `url` once and says how it went; never throws. The URL is checked again (it may
 * predate a rule), its host resolved once and vetted, and the connection made to that address.
 */
export async function postWebhook(
  url: string,
  headers: Record<string, string>,
  body: string,
  options: PostOptions,
): Promise<DeliveryOutcome> {
  const started = performance.now();
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const read = { bytes: 0 };
  const abort = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<Attempt>((resolve) => {
    timer = setTimeout(() => {
      abort.abort();
      resolve({ ok: false, error: `timeout after ${timeoutMs} ms` });
    }, timeoutMs);
  });

  const attempt = async (): Promise<Attempt> => {
    try {
      const problem = webhookUrlProblem(url, options);
      if (problem) return { ok: false, error: problem };
      const target = new URL(url);
      const vetted = await vet(target.hostname, options);
      // The deadline may have passed while resolving; the outcome is already decided then.
      if (abort.signal.aborted) return { ok: false, error: 'aborted' };
      return await send(target, vetted, headers, body, options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES, abort.signal, read);
    } catch (error) {
      return { ok: false, error: describe(error) };
    }
  };

  try {
    const outcome = await Promise.race([attempt(), deadline]);
    return { ...outcome, durationMs: Math.round(performance.now() - started), responseBytes: read.bytes };
  } finally {
    clearTimeout(timer);
    abort.abort(); // whatever is still open (a socket the endpoint keeps alive) is closed now
  }
}
