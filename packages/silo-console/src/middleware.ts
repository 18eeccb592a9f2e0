import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import type { Context, Middleware, Next } from 'koa';
import { loadApp, type AppFile } from './files.js';
import { CACHE_ASSET, CACHE_INDEX, contentSecurityPolicy, NONCE_PLACEHOLDER, SECURITY_HEADERS } from './headers.js';

export interface ConsoleOptions {
  /** Where the console is served; default "/console". Its API stays the embedder's: "<basePath>/api/*" is never answered here. */
  basePath?: string;
  /** The built app; default this package's dist/app (tests point it elsewhere). */
  appDir?: string;
}

// From dist/index.js and from src/index.ts alike (tests run the sources), the build is ../dist/app.
const DEFAULT_APP_DIR = fileURLToPath(new URL('../dist/app/', import.meta.url));

function normaliseBase(basePath: string): string {
  const trimmed = basePath.replace(/\/+$/, '');
  if (!/^\/[A-Za-z0-9._~\-/]*$/.test(trimmed) || trimmed === '') {
    throw new TypeError(`consoleMiddleware: basePath must be a path such as "/console", not ${JSON.stringify(basePath)}`);
  }
  return trimmed;
}

function send(ctx: Context, f: AppFile, cache: string): void {
  ctx.set(SECURITY_HEADERS);
  ctx.set('Cache-Control', cache);
  ctx.set('ETag', f.etag);
  ctx.type = f.type;
  if (ctx.get('If-None-Match') === f.etag) {
    ctx.status = 304;
    return;
  }
  ctx.status = 200;
  ctx.body = f.body;
}

/**
 * index.html with a fresh style nonce in its meta tag and in the CSP header. Never a 304: a
 * revalidated page would keep an old nonce that the new header no longer allows.
 */
function sendIndex(ctx: Context, index: AppFile): void {
  const nonce = randomBytes(18).toString('base64');
  ctx.set(SECURITY_HEADERS);
  ctx.set('Content-Security-Policy', contentSecurityPolicy(nonce));
  ctx.set('Cache-Control', CACHE_INDEX);
  ctx.type = index.type;
  ctx.status = 200;
  ctx.body = Buffer.from(index.body.toString('utf8').replaceAll(NONCE_PLACEHOLDER, nonce), 'utf8');
}

function sendError(ctx: Context, status: number, detail: string): void {
  ctx.set(SECURITY_HEADERS);
  ctx.set('Cache-Control', 'no-store');
  ctx.status = status;
  ctx.body = { detail };
}

/**
 * Serves the built console at basePath: index.html for basePath, basePath/ and any other path
 * that is not a file (routes live in the hash, so that is rare), hashed assets with a year of
 * cache. Every other path, and basePath/api/* (the server's console API), goes to next().
 */
export function consoleMiddleware(options: ConsoleOptions = {}): Middleware {
  const base = normaliseBase(options.basePath ?? '/console');
  const appDir = options.appDir ?? DEFAULT_APP_DIR;
  const apiPrefix = `${base}/api`;
  // Loaded once, on the first console request; a failed load (app not built) is retried on the next.
  let files: Promise<Map<string, AppFile>> | undefined;

  const prefix = `${base}/`;
  const apiPrefixSlash = `${apiPrefix}/`;
  // Not async for the paths it passes on (nearly every request in a server): an async function costs a promise.
  return function siloConsole(ctx: Context, next: Next): Promise<void> {
    const path = ctx.path;
    if (path !== base && !path.startsWith(prefix)) return next();
    if (path === apiPrefix || path.startsWith(apiPrefixSlash)) return next();
    return answer(ctx, path);
  };

  async function answer(ctx: Context, path: string): Promise<void> {
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') {
      ctx.set('Allow', 'GET, HEAD');
      return sendError(ctx, 405, 'Method Not Allowed');
    }
    files ??= loadApp(appDir, base);
    let app: Map<string, AppFile>;
    try {
      app = await files;
    } catch {
      files = undefined;
      return sendError(ctx, 503, 'The console is not built: run `npm run build` in the silo repository');
    }
    const rest = path === base ? '' : path.slice(base.length + 1);
    const asset = rest === '' || rest === 'index.html' ? undefined : app.get(rest);
    if (asset) return send(ctx, asset, rest.startsWith('assets/') ? CACHE_ASSET : 'no-cache');
    // A missing hashed asset is a stale page asking for an old build: a 404, not HTML posing as script.
    if (rest.startsWith('assets/')) return sendError(ctx, 404, 'Not Found');
    const index = app.get('index.html');
    if (!index) return sendError(ctx, 503, 'The console build has no index.html');
    sendIndex(ctx, index);
  }
}
