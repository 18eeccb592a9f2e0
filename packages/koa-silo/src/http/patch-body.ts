/**
 * What a PATCH body is, chosen by Content-Type (contract §10): an RFC 7386 merge patch
 * (`application/merge-patch+json`), an RFC 6902 operation list (`application/json-patch+json`),
 * or, for any other Content-Type or none, the contract's update body: clients of the hosted
 * service are never refused for their headers.
 */
import type { Context } from 'koa';
import type { BodyShape } from '../work/index.js';

export const MERGE_PATCH = 'application/merge-patch+json';
export const JSON_PATCH = 'application/json-patch+json';

export function patchShape(ctx: Context): Exclude<BodyShape, 'create'> {
  // Media types are case-insensitive, and whitespace may come before `;` (RFC 9110 §8.3.1):
  // Koa's `type` keeps both, and `Application/JSON-Patch+JSON` was read as an update body.
  const type = ctx.request.type.trim().toLowerCase();
  return type === MERGE_PATCH ? 'merge-patch' : type === JSON_PATCH ? 'json-patch' : 'update';
}
