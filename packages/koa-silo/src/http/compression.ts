/**
 * Compressed answers (contract §18): a success body over about 1 KB is sent with `br` (preferred)
 * or `gzip` when the request's Accept-Encoding allows it, with `Vary: Accept-Encoding`. A large
 * body is compressed in zlib's asynchronous API, on libuv's thread pool, never on the event loop; a
 * small one (under INLINE_COMPRESS_BYTES) on the event loop, a bounded cost smaller than the hop's
 * own (see there); a body shared
 * between responses (the version caches' encoded bodies) is compressed once per coding and the
 * result kept beside it for as long as it lives. A compressed representation is another
 * representation: its ETag carries the coding (`"<tag>-br"`), and If-None-Match accepts either.
 */
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import type { Context } from 'koa';

/** Bodies smaller than this are sent as they are: compressing them saves less than it costs. */
export const COMPRESS_MIN_BYTES = 1024;

/**
 * Bodies smaller than this are compressed on the event loop, at once. Measured (one 1.2 KB JSON
 * answer, CPU per call): brotli 35-90 µs and gzip 22-50 µs synchronously, where the asynchronous API
 * cost 340 and 260 µs (a stream, a pool thread, the callback) and made a 1 KB PATCH's answer cost
 * more than the PATCH. At this bound a call costs at most about 0.15 ms of the loop.
 */
export const INLINE_COMPRESS_BYTES = 8 * 1024;

export type Coding = 'br' | 'gzip';

const brotli = promisify(zlib.brotliCompress);
const gzip = promisify(zlib.gzip);

/** Brotli at quality 5: about gzip's speed with a smaller result (11, the default, is for static files). */
const BROTLI_OPTIONS = { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 5, [zlib.constants.BROTLI_PARAM_MODE]: zlib.constants.BROTLI_MODE_TEXT } };
/**
 * A large body compressed for one answer only (a write's answer with its document) takes the
 * fastest levels: 5.8 MB in 20 ms (brotli 1) or 33 ms (gzip 1) instead of 98 or 114, for a result
 * a third larger. A shared body is compressed once for every answer: it keeps the better ratio.
 */
const FAST_ABOVE_BYTES = 256 * 1024;
const FAST_BROTLI_OPTIONS = { params: { ...BROTLI_OPTIONS.params, [zlib.constants.BROTLI_PARAM_QUALITY]: 1 } };
const FAST_GZIP_OPTIONS = { level: 1 };

/** Bodies made for one answer (see `answerOnly`): never kept, compressed fast when large. */
const oneAnswer = new WeakSet<Buffer>();

/** Marks `bytes` as made for one answer only (not a version cache's body shared by many). */
export function answerOnly(bytes: Buffer): Buffer {
  oneAnswer.add(bytes);
  return bytes;
}

/** Compressed forms of shared bodies, per coding; they go when the body does. */
const compressed = new WeakMap<Buffer, Partial<Record<Coding, Promise<Buffer>>>>();

/** A weight as RFC 9110 writes one (§12.4.2): 0 to 1, at most three decimals. */
const QVALUE = /^\s*q=(0(\.\d{0,3})?|1(\.0{0,3})?)\s*$/;

/**
 * The weight an Accept-Encoding header gives each coding it names (`*` included); a member whose
 * weight is not one (`q=abc`) counts for nothing.
 */
function codingWeights(header: string): Map<string, number> {
  const q = new Map<string, number>();
  for (const part of header.toLowerCase().split(',')) {
    const [name, ...params] = part.trim().split(';');
    if (!name) continue;
    const weight = params.find((p) => /^\s*q=/.test(p));
    if (weight === undefined) q.set(name.trim(), 1);
    else {
      const valid = QVALUE.exec(weight);
      if (valid) q.set(name.trim(), Number(valid[1]));
    }
  }
  return q;
}

/** The weight `q` gives `coding`: its own, else `*`'s, else 0 (refused). */
function weightOf(q: Map<string, number>, coding: string): number {
  return q.get(coding) ?? q.get('*') ?? 0;
}

/**
 * The coding the request accepts with the highest weight, br on a tie; undefined for identity
 * (also when the client weighs identity above every coding it takes).
 */
export function acceptedCoding(header: string | undefined): Coding | undefined {
  if (!header) return undefined;
  const q = codingWeights(header);
  const br = weightOf(q, 'br');
  const gzip = weightOf(q, 'gzip');
  const best = Math.max(br, gzip);
  if (best === 0) return undefined;
  const identity = q.get('identity');
  if (identity !== undefined && identity > best) return undefined;
  return br >= gzip ? 'br' : 'gzip';
}

/**
 * The 304 of a client that holds a compressed representation (its If-None-Match named `held`, a
 * coded tag of the version tagged `etag`, so the answer is one worth compressing): it carries the
 * ETag a 200 would carry now (RFC 9110 §15.4.5), the coding this request would get, with `Vary:
 * Accept-Encoding`, as the 200 did.
 */
export function notModifiedRepresentation(ctx: Context, etag: string, held: string): void {
  if (!/-(br|gzip)"$/.test(held)) return;
  if (ctx.res.hasHeader('Vary')) ctx.vary('Accept-Encoding');
  else ctx.set('Vary', 'Accept-Encoding');
  const coding = acceptedCoding(ctx.get('Accept-Encoding'));
  if (coding) ctx.set('ETag', codedEtag(etag, coding));
}

/** The ETag of the `coding` representation of the one tagged `etag`. */
export function codedEtag(etag: string, coding: Coding): string {
  return etag.endsWith('"') ? `${etag.slice(0, -1)}-${coding}"` : etag;
}

/** An ETag without its coding: what If-None-Match compares (any representation of the version). */
export function uncodedEtag(etag: string): string {
  return etag.replace(/-(br|gzip)"$/, '"');
}

/** Compresses the answer of `ctx` when it is a success body worth it and the client takes a coding. */
export async function compressAnswer(ctx: Context): Promise<void> {
  if (ctx.status !== 200 && ctx.status !== 201) return;
  const body: unknown = ctx.body;
  if (typeof body !== 'string' && !Buffer.isBuffer(body)) return;
  const size = typeof body === 'string' ? Buffer.byteLength(body) : body.length;
  if (size < COMPRESS_MIN_BYTES) return;
  // Koa's vary parses the header each time; nearly every answer has none yet.
  if (ctx.res.hasHeader('Vary')) ctx.vary('Accept-Encoding');
  else ctx.set('Vary', 'Accept-Encoding');
  const coding = acceptedCoding(ctx.get('Accept-Encoding'));
  if (!coding || ctx.method === 'HEAD') return;
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  const packed = await compress(bytes, coding, Buffer.isBuffer(body) && !oneAnswer.has(body));
  if (packed.length >= bytes.length) return;
  const type = ctx.response.get('Content-Type');
  ctx.body = packed;
  ctx.set('Content-Type', type);
  ctx.set('Content-Encoding', coding);
  const etag = ctx.response.get('ETag');
  if (etag) ctx.set('ETag', codedEtag(etag, coding));
}

function compress(bytes: Buffer, coding: Coding, shared: boolean): Promise<Buffer> {
  const fast = !shared && bytes.length >= FAST_ABOVE_BYTES;
  const run = () => (bytes.length < INLINE_COMPRESS_BYTES ? Promise.resolve(compressInline(bytes, coding)) : compressOffLoop(bytes, coding, fast));
  if (!shared) return run();
  const forms = compressed.get(bytes) ?? {};
  let form = forms[coding];
  if (!form) {
    form = run();
    forms[coding] = form;
    compressed.set(bytes, forms);
    // A failure is not kept: the next response tries again.
    form.catch(() => delete forms[coding]);
  }
  return form;
}

function compressInline(bytes: Buffer, coding: Coding): Buffer {
  return coding === 'br' ? zlib.brotliCompressSync(bytes, brotliOptions(bytes, BROTLI_OPTIONS)) : zlib.gzipSync(bytes);
}

function compressOffLoop(bytes: Buffer, coding: Coding, fast: boolean): Promise<Buffer> {
  return coding === 'br' ? brotli(bytes, brotliOptions(bytes, fast ? FAST_BROTLI_OPTIONS : BROTLI_OPTIONS)) : gzip(bytes, fast ? FAST_GZIP_OPTIONS : {});
}

/** Brotli's options with the body's size as a hint: it sizes its tables for it (less to allocate for a small one). */
function brotliOptions(bytes: Buffer, base: typeof BROTLI_OPTIONS): typeof BROTLI_OPTIONS {
  return { params: { ...base.params, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: bytes.length } };
}
