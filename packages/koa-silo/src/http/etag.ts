/**
 * Strong ETags from a version's opaque tag (random per version, so they reveal nothing of the
 * server and change exactly when the version does) and, for reads with parameters, a digest of
 * the query string; If-None-Match (→ 304) and If-Match (→ the tags handed to the service).
 */
import { createHash } from 'node:crypto';
import type { Context } from 'koa';
import { PreconditionFailedError, type IfMatch } from '../model/index.js';
import { notModifiedRepresentation, uncodedEtag } from './compression.js';
import { sendEmpty } from './respond.js';

/** What a read with parameters adds to its ETag: a digest of its query string (compute it once per query). */
export function queryTag(query: string): string {
  return createHash('sha256').update(query).digest('base64url').slice(0, 22);
}

/** `"<tag>"`, or `"<tag>.<queryTag>"` for a read with parameters. */
export function etagFor(tag: string, queryTag?: string): string {
  return queryTag ? `"${tag}.${queryTag}"` : `"${tag}"`;
}

/** Sets `etag` on the response; when If-None-Match names it, also answers 304 and returns true. */
export function answeredNotModified(ctx: Context, etag: string): boolean {
  ctx.set('ETag', etag);
  const held = heldTag(ctx, etag);
  if (held === undefined) return false;
  notModifiedRepresentation(ctx, etag, held);
  sendEmpty(ctx, 304);
  return true;
}

function parseList(header: string): string[] {
  return header
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

/**
 * `*` is the whole header or nothing (RFC 9110: `"*" / #entity-tag`): inside a list it is a
 * malformed member, which matches no tag. Read as "anything" there, `If-Match: "stale", *` was a
 * write without a condition.
 */
function isStar(header: string): boolean {
  return header.trim() === '*';
}

/** If-None-Match (weak comparison, `*` matches anything) against the current ETag. */
export function notModified(ctx: Context, etag: string): boolean {
  return heldTag(ctx, etag) !== undefined;
}

/** The member of If-None-Match that names the current version (`*`, or a tag without `W/`); undefined when none does. */
function heldTag(ctx: Context, etag: string): string | undefined {
  const header = ctx.get('If-None-Match');
  if (!header) return undefined;
  if (isStar(header)) return '*';
  // Any representation of the version will do: the identity one or a compressed one (compression.ts).
  return parseList(header)
    .map((tag) => tag.replace(/^W\//, ''))
    .find((tag) => uncodedEtag(tag) === etag);
}

/** A query answer's ETag (`"<tag>.<queryTag>"`, see etagFor) as its version's: `"<tag>"`. */
const QUERY_PART = /\.[A-Za-z0-9_-]{22}"$/;

/**
 * If-Match → the tags the current version must be among (strong comparison: a weak or malformed
 * tag never matches, so a header of only such tags always fails); undefined when absent or `*`.
 * The ETag of any representation of a version names that version: a compressed one's, and a
 * query answer's (a client that read part of a silo may write on condition that it did not
 * change since; a query answer's ETag changes exactly when the version does).
 */
function ifMatchTags(ctx: Context): readonly string[] | undefined {
  // Present but blank names no version: it fails, rather than being read as no condition at all.
  const header = ctx.req.headers['if-match'];
  if (header === undefined) return undefined;
  if (isStar(header)) return undefined;
  return versionTags(parseList(header));
}

/** Quoted ETags, of any representation, as the opaque tags of the versions they name. */
function versionTags(tags: string[]): string[] {
  return tags.filter((t) => t.length >= 2 && t.startsWith('"') && t.endsWith('"')).map((t) => uncodedEtag(t).replace(QUERY_PART, '"').slice(1, -1));
}

/**
 * If-None-Match on a write (RFC 9110 §13.1.2): the versions it must not be at, by weak comparison
 * (`W/` ignored); `*` is any, which on an existing silo always fails. Undefined when absent.
 */
function ifNoneMatchTags(ctx: Context): readonly string[] | '*' | undefined {
  const header = ctx.req.headers['if-none-match'];
  if (header === undefined) return undefined;
  if (isStar(header)) return '*';
  const members = parseList(header);
  // A member that is no entity tag (`"a" "b"`, `w/"a"`, `*` in a list): the client meant a
  // condition the server cannot read, so the write is refused rather than made without it.
  if (!members.every((tag) => ENTITY_TAG.test(tag))) {
    throw new PreconditionFailedError('If-None-Match is not a list of entity tags ("…" or W/"…", comma-separated) or *: the write is refused');
  }
  return versionTags(members.map((tag) => tag.replace(/^W\//, '')));
}

/** An entity tag (RFC 9110 §8.8.3): optionally `W/`, then a quoted string of visible characters. */
const ENTITY_TAG = /^(W\/)?"[\x21\x23-\x7e\x80-\xff]*"$/;

/** A write's preconditions: If-Match's tags, and If-None-Match's when it is sent. */
export function writePreconditions(ctx: Context): IfMatch {
  const match = ifMatchTags(ctx);
  const noneMatch = ifNoneMatchTags(ctx);
  if (noneMatch === undefined) return match;
  return { ...(match !== undefined ? { match } : {}), noneMatch };
}

export function hasIfMatch(ctx: Context): boolean {
  return ctx.get('If-Match') !== '';
}
