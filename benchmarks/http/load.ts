/**
 * One load round with autocannon, driven from code. autocannon's own latency histogram has 1 ms
 * resolution, so the latency of every 2xx response is also recorded here (from autocannon's
 * `response` event, in fractional ms) and p50/p99 are computed from those exact values.
 */
import { createRequire } from 'node:module';

/** The part of autocannon 9's programmatic API used here (it ships no types). */
interface AutocannonOptions {
  url: string | string[];
  connections: number;
  pipelining: number;
  duration: number;
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  timeout?: number;
  idReplacement?: boolean;
  setupClient?: (client: AutocannonClient) => void;
}
/** autocannon's per-connection client, as far as `setupClient` touches it. */
interface AutocannonClient {
  pipelinedRequests: { addBody(data: Buffer): void };
}
interface AutocannonResult {
  duration: number;
  errors: number;
  timeouts: number;
  non2xx: number;
  resets: number;
  '1xx': number;
  '2xx': number;
  '3xx': number;
  '4xx': number;
  '5xx': number;
  statusCodeStats: Record<string, { count: number }>;
  requests: { total: number; sent: number };
  throughput: { total: number };
}
interface AutocannonInstance {
  on(event: 'response', listener: (client: unknown, statusCode: number, resBytes: number, responseTime: number) => void): void;
  stop(): void;
}
type Autocannon = (opts: AutocannonOptions, cb: (err: Error | null, result: AutocannonResult) => void) => AutocannonInstance;

const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

export interface LoadRequest {
  /** One URL, or one per connection (connection i uses url[i % length]). */
  url: string | string[];
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  /**
   * Every `[<id>]` in the URL (and headers and body) replaced by a fresh id on each request
   * (autocannon's idReplacement): a distinct query string per request, e.g. past a server's cache.
   */
  idReplacement?: boolean;
}

export interface LoadSettings {
  connections: number;
  durationSec: number;
  /** Receives the sorted latencies (ms) of the round's 2xx responses, for pooled percentiles. */
  latencies?: (sorted: Float64Array) => void;
  /**
   * Count the answers' bytes without keeping their bodies. autocannon appends every body chunk to
   * a string (`body += chunk`, for its verifyBody and expectBody, neither used here): a UTF-8
   * decoding that costs the load generator ~3 ms of CPU per 170 KB gzip or br body (binary, off
   * V8's ASCII fast path), against ~0.6 ms for 1 MB of plain JSON, and makes it, not the server,
   * the limit of large compressed answers on a 2-core machine.
   */
  discardBodies?: boolean;
}

export interface RoundResult {
  /** Completed responses per second of wall time. */
  reqPerSec: number;
  responses: number;
  /** Requests sent, those still in flight when the round stopped included (autocannon `requests.sent`). */
  sent: number;
  durationSec: number;
  /** Latency of 2xx responses, ms. */
  latency: { p50: number; p99: number; mean: number; max: number };
  /** Connection errors (autocannon `errors`, timeouts included). */
  errors: number;
  timeouts: number;
  non2xx: number;
  statusCodes: Record<string, number>;
  /** Response bytes per second (headers and bodies). */
  bytesPerSec: number;
  /**
   * CPU time the server process used per response, µs (from /proc; null elsewhere). Unlike req/s
   * it hardly moves when other processes compete for the cores.
   */
  serverCpuUsPerReq?: number | null;
}

export function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank]!;
}

function discardBodies(client: AutocannonClient): void {
  client.pipelinedRequests.addBody = () => undefined;
}

export function runLoad(request: LoadRequest, settings: LoadSettings): Promise<RoundResult> {
  return new Promise((resolve, reject) => {
    let latencies = new Float64Array(1 << 16);
    let n = 0;
    let sum = 0;
    const instance = autocannon(
      {
        url: request.url,
        connections: settings.connections,
        pipelining: 1,
        duration: settings.durationSec,
        timeout: 30,
        ...(request.method ? { method: request.method } : {}),
        ...(request.headers ? { headers: request.headers } : {}),
        ...(request.body !== undefined ? { body: request.body } : {}),
        ...(request.idReplacement ? { idReplacement: true } : {}),
        ...(settings.discardBodies ? { setupClient: discardBodies } : {}),
      },
      (err, result) => {
        if (err) {
          reject(err);
          return;
        }
        const sorted = latencies.subarray(0, n).sort();
        settings.latencies?.(sorted);
        const statusCodes: Record<string, number> = {};
        for (const [code, { count }] of Object.entries(result.statusCodeStats)) statusCodes[code] = count;
        resolve({
          reqPerSec: result.requests.total / result.duration,
          responses: result.requests.total,
          sent: result.requests.sent,
          durationSec: result.duration,
          latency: { p50: percentile(sorted, 50), p99: percentile(sorted, 99), mean: n ? sum / n : Number.NaN, max: n ? sorted[n - 1]! : Number.NaN },
          errors: result.errors,
          timeouts: result.timeouts,
          non2xx: result.non2xx,
          statusCodes,
          bytesPerSec: result.throughput.total / result.duration,
        });
      },
    );
    instance.on('response', (_client, statusCode, _bytes, responseTime) => {
      if (statusCode < 200 || statusCode > 299) return;
      if (n === latencies.length) {
        const grown = new Float64Array(latencies.length * 2);
        grown.set(latencies);
        latencies = grown;
      }
      latencies[n++] = responseTime;
      sum += responseTime;
    });
  });
}
