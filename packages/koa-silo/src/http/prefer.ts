/**
 * `Prefer: return=minimal` (RFC 7240, contract §18): a write's answer without `file_data` (its
 * metadata, version and ETag), for clients that do not need the document back. Honoured on
 * create, PATCH (every content type) and restore, and said so with `Preference-Applied`.
 */
import type { Context } from 'koa';

/** Whether the request prefers a minimal answer (the preference's name and value are case-insensitive). */
export function prefersMinimal(ctx: Context): boolean {
  const header = ctx.get('Prefer');
  if (!header) return false;
  return header.split(',').some((preference) => /^\s*return\s*=\s*"?minimal"?\s*(;|$)/i.test(preference));
}

/** Marks the answer as the minimal one the request asked for. */
export function applyMinimal(ctx: Context): void {
  ctx.set('Preference-Applied', 'return=minimal');
}
