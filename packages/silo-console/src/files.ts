import { readdir, readFile } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import { extname, join, relative, sep } from 'node:path';

/** One built file, held in memory: the whole app is a few hundred kilobytes. */
export interface AppFile {
  readonly body: Buffer;
  readonly type: string;
  readonly etag: string;
}

const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.json': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
};

async function walk(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const out: string[] = [];
  for (const e of entries) {
    const full = join(dir, e.name);
    if (e.isDirectory()) out.push(...(await walk(full)));
    else if (e.isFile()) out.push(full);
  }
  return out;
}

function file(body: Buffer, name: string): AppFile {
  const hash = createHash('sha256').update(body).digest('base64url').slice(0, 27);
  return { body, type: TYPES[extname(name)] ?? 'application/octet-stream', etag: `"${hash}"` };
}

/**
 * Reads the built app into a map keyed by URL path below the base ("index.html",
 * "assets/index-3f2a.js"). Requests are answered only from this map, so no request path ever
 * reaches the file system (no traversal to guard against). The build refers to its assets
 * relatively ("./assets/..."); index.html is rewritten to the base path so that it works both at
 * "/console" and "/console/".
 */
export async function loadApp(dir: string, basePath: string): Promise<Map<string, AppFile>> {
  const files = new Map<string, AppFile>();
  for (const full of await walk(dir)) {
    const key = relative(dir, full).split(sep).join('/');
    let body = await readFile(full);
    if (key === 'index.html') {
      body = Buffer.from(body.toString('utf8').replaceAll('"./assets/', `"${basePath}/assets/`), 'utf8');
    }
    files.set(key, file(body, key));
  }
  if (!files.has('index.html')) throw new Error(`no index.html in ${dir}`);
  return files;
}
