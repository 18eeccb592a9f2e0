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
  const type = ctx.request.type;
  return type === MERGE_PATCH ? 'merge-patch' : type === JSON_PATCH ? 'json-patch' : 'update';
}
