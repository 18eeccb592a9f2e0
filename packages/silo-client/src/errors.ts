/**
 * What a failed call throws: a `SiloError` with the answer's status and its `detail`, exactly as
 * the API sends it (`{"detail": "..."}`, or for a 422 the list of problems).
 */
import type { components } from './generated/openapi.js';

/** One problem of a 422: where (`loc`), what (`msg`), and a stable word (`type`). */
export type ValidationIssue = components['schemas']['ValidationIssue'];

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
