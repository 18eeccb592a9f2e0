/**
 * The body of a partial update (contract §10), chosen by Content-Type: an RFC 7386 merge patch
 * (`application/merge-patch+json`) or an RFC 6902 operation list (`application/json-patch+json`).
 * Any other Content-Type, or none, keeps the contract's update body: clients of the hosted service
 * are never refused for their headers. Patch bodies are parsed keeping numbers as written.
 */
import type { Context } from 'koa';
import { parseJson } from 'silo-query';
import type { ValidationIssue } from '../errors.js';
import { checkJsonPatch, type JsonPatchOperation } from '../patch/index.js';
import type { SiloPatch } from '../service/types.js';
import { readJson, type BodyLimit } from './body.js';

export const MERGE_PATCH = 'application/merge-patch+json';
export const JSON_PATCH = 'application/json-patch+json';

/** The patch of a PATCH request and the problems of its body, or undefined for an update body. */
export async function readPatch(
  ctx: Context,
  limit: BodyLimit,
  maxDepth: number,
): Promise<{ patch: SiloPatch; issues: ValidationIssue[] } | undefined> {
  const type = ctx.request.type;
  if (type !== MERGE_PATCH && type !== JSON_PATCH) return undefined;
  const { text } = await readJson(ctx, limit, maxDepth);
  const value = parseJson(text);
  if (type === MERGE_PATCH) return { patch: { type: 'merge', patch: value }, issues: [] };
  return { patch: { type: 'json-patch', operations: value as JsonPatchOperation[] }, issues: checkJsonPatch(value).detail };
}
