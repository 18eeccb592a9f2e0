/**
 * One HTTP request to a Silo on 127.0.0.1 with full control of the Host header, raw bodies and
 * header names (node:http, not fetch, which may not set Host), and a hard time limit so that a
 * hanging server fails the test instead of stalling it.
 */
import http from 'node:http';
import zlib from 'node:zlib';

export interface Call {
  method?: string;
  /** Host header; default `api.localhost`. */
  host?: string;
  headers?: Record<string, string> | [string, string][];
  /** An object is sent as JSON; a string or Buffer as is. */
  body?: unknown;
  /** Abort and reject after this many ms. Default 10 000. */
  timeoutMs?: number;
  agent?: http.Agent;
  /**
   * Parse the body as JSON (default true). Off for answers of millions of elements: their parse
   * would take a core of this machine's two for most of a second, starving the server and any
   * probe beside it (the isolation test's tiny reads measured the test's own parse).
   */
  parse?: boolean;
}

export interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  /** The body parsed as JSON, or undefined when it is empty or not JSON. */
  json: any;
  /** Time from sending to the end of the response. */
  ms: number;
}

export class CallTimeoutError extends Error {
  constructor(method: string, path: string, ms: number) {
    super(`${method} ${path} got no complete answer within ${ms} ms`);
    this.name = 'CallTimeoutError';
  }
}

export function call(port: number, path: string, options: Call = {}): Promise<Answer> {
  const method = options.method ?? 'GET';
  const timeoutMs = options.timeoutMs ?? 10_000;
  let payload: Buffer | undefined;
  if (options.body !== undefined) {
    payload = Buffer.isBuffer(options.body)
      ? options.body
      : Buffer.from(typeof options.body === 'string' ? options.body : JSON.stringify(options.body));
  }
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path, method, agent: options.agent ?? false, setHost: false });
    // setHeader keeps names such as __proto__ as plain header names (a literal would not).
    req.setHeader('host', options.host ?? 'api.localhost');
    const pairs = Array.isArray(options.headers) ? options.headers : Object.entries(options.headers ?? {});
    for (const [name, value] of pairs) req.setHeader(name, value);
    if (payload) {
      if (!req.hasHeader('content-type')) req.setHeader('content-type', 'application/json');
      if (!req.hasHeader('content-length') && !req.hasHeader('transfer-encoding')) req.setHeader('content-length', payload.length);
    }
    const timer = setTimeout(() => {
      req.destroy(new CallTimeoutError(method, path, timeoutMs));
    }, timeoutMs);
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
      res.on('end', () => {
        clearTimeout(timer);
        // Decoded as a client that asked for a coding (a fetch) would: the body as the server meant it.
        const text = decoded(Buffer.concat(chunks), res.headers['content-encoding']).toString('utf8');
        let json: unknown;
        try {
          json = text === '' || options.parse === false ? undefined : JSON.parse(text);
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode!, headers: res.headers, text, json, ms: performance.now() - started });
      });
    });
    req.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    req.end(payload);
  });
}

/** Runs `tasks` with at most `limit` in flight; results in task order. */
export async function pool<T>(limit: number, tasks: (() => Promise<T>)[]): Promise<T[]> {
  const results = new Array<T>(tasks.length);
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) {
      const i = next++;
      results[i] = await tasks[i]!();
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, tasks.length) }, worker));
  return results;
}

/** Whether `body` is a contract-shaped error: `{"detail": string}` or `{"detail": [{loc, msg, type}, ...]}`. */
export function isContractError(body: unknown): boolean {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return false;
  const { detail } = body as { detail?: unknown };
  if (typeof detail === 'string') return detail.length > 0;
  if (!Array.isArray(detail) || detail.length === 0) return false;
  return detail.every(
    (issue: unknown) =>
      issue !== null &&
      typeof issue === 'object' &&
      Array.isArray((issue as { loc?: unknown }).loc) &&
      ((issue as { loc: unknown[] }).loc).every((part) => typeof part === 'string' || typeof part === 'number') &&
      typeof (issue as { msg?: unknown }).msg === 'string' &&
      typeof (issue as { type?: unknown }).type === 'string',
  );
}

/** `body` without its Content-Encoding (br or gzip; anything else as it came). */
function decoded(body: Buffer, coding: string | undefined): Buffer {
  if (body.length === 0) return body;
  if (coding === 'br') return zlib.brotliDecompressSync(body);
  if (coding === 'gzip') return zlib.gunzipSync(body);
  return body;
}

/**
 * An agent that keeps connections alive, as a client under load would, and drops one left idle
 * for 3 s: silo serve closes idle connections after 5 s (keepAliveTimeout), and a request sent on
 * a socket the server is closing that very moment fails with "socket hang up" (a flaky test).
 */
export function keptAliveAgent(maxSockets?: number): http.Agent {
  return new http.Agent({ keepAlive: true, timeout: 3_000, ...(maxSockets === undefined ? {} : { maxSockets }) });
}
