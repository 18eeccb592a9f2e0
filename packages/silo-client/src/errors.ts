/**
 * What a failed call throws: a `SiloError` with the answer's status and its `detail`, exactly as
 * the API sends it (`{"detail": "..."}`, or for a 422 the list of problems). A call the client
 * cannot address (a silo of a region it has no URL for) throws a `SiloRegionError` before any
 * request. Network failures and aborts are not wrapped: they reject as fetch rejects.
 */
import type { components } from './generated/openapi.js';

/** One problem of a 422: where (`loc`), what (`msg`), and a stable word (`type`). */
export type ValidationIssue = components['schemas']['ValidationIssue'];
type Region = components['schemas']['SiloMeta']['region_name'];

export class SiloError extends Error {
  override readonly name = 'SiloError';

  constructor(
    /** The HTTP status (401, 404, 409, 412, 422, 429, 503, ...). */
    readonly status: number,
    /** The answer's `detail`: a message, or for a 422 every problem found. */
    readonly detail: string | ValidationIssue[],
    /** The answer's headers (Retry-After, RateLimit-*, Allow, ...). */
    readonly headers: Headers = new Headers(),
  ) {
    super(`${status}: ${typeof detail === 'string' ? detail : detail.map((i) => `${i.loc.join('.')}: ${i.msg}`).join('; ')}`);
  }

  /** The problems of a 422 (empty for any other status). */
  get issues(): ValidationIssue[] {
    return Array.isArray(this.detail) ? this.detail : [];
  }

  /** Seconds the server asked to wait (429, 503), when it said. */
  get retryAfter(): number | undefined {
    const ms = retryAfterMs(this.headers.get('Retry-After'));
    return ms === undefined ? undefined : Math.ceil(ms / 1000);
  }

  /** The error of a failed answer (its body read and parsed; a body that is not JSON becomes the detail text). */
  static async from(response: Response): Promise<SiloError> {
    const text = await response.text().catch(() => '');
    let detail: string | ValidationIssue[] = text || response.statusText || `HTTP ${response.status}`;
    try {
      const body = JSON.parse(text) as { detail?: unknown };
      if (typeof body.detail === 'string' || Array.isArray(body.detail)) detail = body.detail as string | ValidationIssue[];
    } catch {
      // Not JSON (a proxy's page, say): its text stands as the detail.
    }
    return new SiloError(response.status, detail, response.headers);
  }
}

/**
 * A silo's data lives on another region's host, and the client cannot tell where that is: no
 * `regionUrls` entry for the region, and a `baseUrl` whose first host label is no region to swap
 * (`localhost`, an IP address, `silo.internal`). Thrown before any request: sent to `baseUrl`,
 * the read would only answer a misleading 404. Not a SiloError, since no server answered.
 */
export class SiloRegionError extends Error {
  override readonly name = 'SiloRegionError';

  constructor(
    /** The region of the silo, which the client has no address for. */
    readonly region: Region,
    /** The silo asked for. */
    readonly uuid: string,
    baseUrl: string,
  ) {
    super(
      `Silo ${uuid} is in region ${region}, which ${baseUrl} does not serve: give its address as regionUrls['${region}'] ` +
        `(for silo serve: the port of SILO_PORT_${region.toUpperCase().replace(/-/g, '_')}), ` +
        `or use a baseUrl whose first host label is a region (api.example.com, then ${region}.example.com is asked)`,
    );
  }
}

/** `true` when `error` is a SiloError (of `status`, when given). */
export function isSiloError(error: unknown, status?: number): error is SiloError {
  return error instanceof SiloError && (status === undefined || error.status === status);
}

/** Retry-After as milliseconds: delay-seconds or an HTTP-date (RFC 9110 §10.2.3); undefined when absent or unreadable. */
export function retryAfterMs(header: string | null, now = Date.now()): number | undefined {
  if (header === null || header.trim() === '') return undefined;
  const text = header.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}
