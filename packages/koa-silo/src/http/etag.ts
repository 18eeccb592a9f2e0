/**
 * Strong ETags derived from a silo's version (and, for parameterised reads, the query string),
 * If-None-Match (→ 304) and If-Match (→ the version handed to the service, which answers 412).
 */
import { createHash } from 'node:crypto';
import type { Context } from 'koa';
import { sendEmpty } from './respond.js';

const PLAIN = /^[A-Za-z0-9_-]{1,128}$/;

/**
 * The opaque-tag of a version: the version itself when it is plain (letters, digits, `-`, `_`),
 * else `x.<digest>`. Tags with a dot are never read back as versions.
 */
function tagOf(version: string): string {
  return PLAIN.test(version) ? version : `x.${digest(version)}`;
}

function digest(text: string): string {
  return createHash('sha256').update(text).digest('base64url').slice(0, 22);
}

/** What a read with parameters adds to its ETag: a digest of its query string (compute it once per query). */
export function queryTag(query: string): string {
  return digest(query);
}

/** `"<version>"`, or `"<version>.<queryTag>"` for a read with parameters. */
export function etagFor(version: string, queryTag?: string): string {
  const tag = tagOf(version);
  return queryTag ? `"${tag}.${queryTag}"` : `"${tag}"`;
}

/** Sets `etag` on the response; when If-None-Match names it, also answers 304 and returns true. */
export function answeredNotModified(ctx: Context, etag: string): boolean {
  ctx.set('ETag', etag);
  if (!notModified(ctx, etag)) return false;
  sendEmpty(ctx, 304);
  return true;
}

function parseList(header: string): string[] {
  return header
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

/** If-None-Match (weak comparison, `*` matches anything) against the current ETag. */
export function notModified(ctx: Context, etag: string): boolean {
  const header = ctx.get('If-None-Match');
  if (!header) return false;
  return parseList(header).some((tag) => tag === '*' || tag.replace(/^W\//, '') === etag);
}

/**
 * If-Match → the version to hand the service (which compares it atomically and answers 412):
 * `undefined` when absent or `*`; for one tag, the version it names; otherwise (several tags, or a
 * tag that cannot be turned back into a version) the current version when one tag names it. A weak
 * or unknown tag never matches (strong comparison).
 */
export async function ifMatchVersion(ctx: Context, currentVersion: () => Promise<string>): Promise<string | undefined> {
  const header = ctx.get('If-Match');
  if (!header) return undefined;
  const tags = parseList(header);
  if (tags.includes('*')) return undefined;
  if (tags.length === 1) {
    const version = versionOf(tags[0]!);
    if (version !== undefined) return version;
  }
  const current = await currentVersion();
  return tags.includes(etagFor(current)) ? current : NO_VERSION;
}

/** A version no silo ever has: the service compares and answers 412. */
export const NO_VERSION = '\u0000stale';

/** The version named by an unparameterised strong tag, when the tag is the version itself. */
function versionOf(tag: string): string | undefined {
  if (tag.length < 2 || !tag.startsWith('"') || !tag.endsWith('"')) return NO_VERSION;
  const inner = tag.slice(1, -1);
  return PLAIN.test(inner) ? inner : undefined;
}

export function hasIfMatch(ctx: Context): boolean {
  return ctx.get('If-Match') !== '';
}
