/**
 * Loads silo-query for the benchmark: the built JS (`packages/silo-query/dist/index.js`, what
 * users of the package run) when it exists and is up to date, otherwise the TypeScript source
 * through tsx (`packages/silo-query/src/index.ts`, imported as `index.js`).
 */
import { readdirSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export type QueryParams = URLSearchParams | string | Record<string, string>;

/** The part of silo-query's public API that is benchmarked (see issue 2). */
export interface SiloQueryApi {
  query(data: unknown, params: QueryParams): unknown;
  compile(params: QueryParams): (data: unknown) => unknown;
}

export type SiloBuild = 'dist' | 'src' | 'module';
export type SiloChoice = 'dist' | 'src' | 'auto';

export interface LoadedSilo {
  api: SiloQueryApi;
  build: SiloBuild;
  /** The module that was imported. */
  file: string;
  /** Why this build was chosen (and any warning, e.g. a stale dist). */
  note: string;
}

const DIST_URL = new URL('../../packages/silo-query/dist/index.js', import.meta.url);
const SRC_URL = new URL('../../packages/silo-query/src/index.js', import.meta.url);
const SRC_DIR = new URL('../../packages/silo-query/src/', import.meta.url);
const DIST_DIR = new URL('../../packages/silo-query/dist/', import.meta.url);
const BUILD_INFO = new URL('../../packages/silo-query/tsconfig.tsbuildinfo', import.meta.url);

function mtime(path: string): number | undefined {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return undefined;
  }
}

/** The newest mtime among the `.ts` files under `dir`, and whether each has a `.js` in dist. */
function sourceState(dir: string, distDir: string): { newest: number; allBuilt: boolean } {
  let newest = 0;
  let allBuilt = true;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.ts') || entry.name.endsWith('.d.ts')) continue;
    const file = `${entry.parentPath}/${entry.name}`;
    newest = Math.max(newest, mtime(file) ?? 0);
    const rel = file.slice(dir.length).replace(/^\//, '').replace(/\.ts$/, '.js');
    if (mtime(`${distDir}/${rel}`) === undefined) allBuilt = false;
  }
  return { newest, allBuilt };
}

function asApi(mod: unknown): SiloQueryApi | undefined {
  const m = mod as Partial<SiloQueryApi> | null;
  return m && typeof m.query === 'function' && typeof m.compile === 'function'
    ? (m as SiloQueryApi)
    : undefined;
}

async function tryImport(url: URL): Promise<SiloQueryApi | undefined> {
  try {
    return asApi(await import(url.href));
  } catch {
    return undefined;
  }
}

export class SiloQueryUnavailable extends Error {}

/** Any module with the same API (another build, a branch, an experiment), by file path. */
export async function loadSiloQueryFrom(file: string): Promise<LoadedSilo> {
  const abs = resolve(file);
  const api = await tryImport(pathToFileURL(abs));
  if (!api) throw new SiloQueryUnavailable(`${abs} does not export query and compile.`);
  return { api, build: 'module', file: abs, note: `module given on the command line (${abs})` };
}

/**
 * `auto`: dist when it exists, exports query and compile and was built after the last source
 * change (tsbuildinfo not older than any src file, every src file has its .js);
 * otherwise src. `dist` / `src`: exactly that one (an error if it is not usable).
 */
export async function loadSiloQuery(choice: SiloChoice = 'auto'): Promise<LoadedSilo> {
  const distFile = fileURLToPath(DIST_URL);
  const srcFile = fileURLToPath(SRC_URL).replace(/\.js$/, '.ts');
  const distTime = mtime(distFile);
  // tsc -b rewrites only the outputs that changed, so the build time is the tsbuildinfo's.
  const buildTime = Math.max(mtime(fileURLToPath(BUILD_INFO)) ?? 0, distTime ?? 0);
  const src = sourceState(fileURLToPath(SRC_DIR), fileURLToPath(DIST_DIR));
  const distFresh = distTime !== undefined && src.allBuilt && buildTime >= src.newest;

  if (choice === 'dist' || (choice === 'auto' && distFresh)) {
    const api = await tryImport(DIST_URL);
    if (api) {
      const note = distFresh
        ? 'built JS (packages/silo-query/dist, up to date with src)'
        : 'built JS (packages/silo-query/dist) — WARNING: older than src, run `npx tsc -b`';
      return { api, build: 'dist', file: distFile, note };
    }
    if (choice === 'dist') {
      throw new SiloQueryUnavailable(
        `${distFile} does not export query and compile (build it with \`npx tsc -b\`).`,
      );
    }
  }
  const api = await tryImport(SRC_URL);
  if (api) {
    const why = distTime === undefined
      ? 'dist not built'
      : distFresh
        ? 'dist does not export query/compile'
        : 'dist older than src';
    return {
      api,
      build: 'src',
      file: srcFile,
      note: choice === 'src' ? 'TypeScript source through tsx' : `TypeScript source through tsx (${why})`,
    };
  }
  throw new SiloQueryUnavailable(
    `silo-query does not export query and compile yet (looked at ${srcFile}` +
      `${choice === 'src' ? '' : ` and ${distFile}`}).`,
  );
}
