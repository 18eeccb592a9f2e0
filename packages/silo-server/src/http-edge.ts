/**
 * HTTP/1.1 rules that Node leaves to the application, checked before Silo sees a request:
 * one Host header (RFC 9112 §3.2), the host of an absolute-form target wins over Host (§3.2.2),
 * an expectation other than 100-continue is a 417 (RFC 9110 §10.1.1), a transfer coding other than
 * chunked a 501 (RFC 9112 §6.1), and an error answered
 * before the body was read closes the connection instead of waiting for that body.
 */
import type { IncomingMessage } from 'node:http';
import type { Context, Middleware, Next } from 'koa';
import { drainUnreadBody } from 'koa-silo';

/** Node's own test for a 100-continue expectation (lib/_http_server.js). */
const CONTINUE = /(?:^|\W)100-continue(?:$|\W)/i;

/** `http://host[:port]/path?query`: scheme, authority, path and query (a fragment is not sent). */
const ABSOLUTE_FORM = /^([a-z][a-z0-9+.-]*):\/\/([^/?#]*)([^#]*)$/i;
/** RFC 3986 host (reg-name or IP literal) and optional port. */
const AUTHORITY = /^(?:[a-z0-9._~!$&'()*+,;=%-]+|\[[0-9a-f:.]+\])(?::[0-9]{0,5})?$/i;

class EdgeRefusal {
  constructor(
    readonly status: number,
    readonly detail: string,
  ) {}
}

function isHttp11(req: IncomingMessage): boolean {
  return req.httpVersionMajor === 1 && req.httpVersionMinor === 1;
}

/**
 * Checks the Host header and rewrites an absolute-form target (`GET http://sg.example/x`) to
 * origin form with its authority as Host, so that routing by host sees the target's host.
 */
function normaliseTarget(req: IncomingMessage): EdgeRefusal | undefined {
  let hosts = 0;
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    const name = req.rawHeaders[i]!;
    if (name.length === 4 && name.toLowerCase() === 'host') hosts++;
  }
  if (hosts > 1) return new EdgeRefusal(400, 'Bad Request: more than one Host header');
  if (hosts === 0 && isHttp11(req)) return new EdgeRefusal(400, 'Bad Request: an HTTP/1.1 request needs a Host header');
  const host = req.headers.host;
  if (host !== undefined && host !== '' && !AUTHORITY.test(host)) return new EdgeRefusal(400, 'Bad Request: the Host header is not a host name');
  const url = req.url ?? '/';
  if (url.startsWith('/') || url === '*') return undefined;
  const m = ABSOLUTE_FORM.exec(url);
  const scheme = m?.[1]!.toLowerCase();
  if (!m || (scheme !== 'http' && scheme !== 'https') || !AUTHORITY.test(m[2]!)) {
    return new EdgeRefusal(400, 'Bad Request: the request target must be a path or an http(s) URL');
  }
  req.headers.host = m[2]!;
  const rest = m[3]!;
  req.url = rest.startsWith('/') ? rest : `/${rest}`;
  return undefined;
}

function unknownExpectation(req: IncomingMessage): EdgeRefusal | undefined {
  const expect = req.headers.expect;
  if (expect === undefined || !isHttp11(req) || CONTINUE.test(expect)) return undefined;
  return new EdgeRefusal(417, 'Expectation Failed: the only expectation supported is Expect: 100-continue');
}

/**
 * A transfer coding other than chunked (RFC 9112 §6.1: 501): Node's parser decodes the chunks and
 * hands on whatever coding lies beneath (`gzip, chunked`) as if it were the body itself.
 */
function unknownTransferCoding(req: IncomingMessage): EdgeRefusal | undefined {
  const codings = req.headers['transfer-encoding'];
  if (codings === undefined) return undefined;
  const unknown = codings.split(',').some((coding) => coding.trim().toLowerCase() !== 'chunked');
  return unknown ? new EdgeRefusal(501, 'Not Implemented: the only transfer coding supported is chunked') : undefined;
}

/** The edge checks, as the first middleware after the request log. */
export function httpEdge(): Middleware {
  return async function edge(ctx: Context, next: Next) {
    const refusal = normaliseTarget(ctx.req) ?? unknownExpectation(ctx.req) ?? unknownTransferCoding(ctx.req);
    if (refusal) {
      ctx.status = refusal.status;
      ctx.body = { detail: refusal.detail };
      // A request this malformed may be framed differently than the client thinks: start afresh.
      ctx.set('Connection', 'close');
    } else {
      await next();
    }
    // Answered without the body (401, 413, 415...): the rest is dropped as it comes, within
    // bounds, so that a client sending it all before reading (fetch) gets the answer.
    if (ctx.status >= 400) drainUnreadBody(ctx);
  };
}
