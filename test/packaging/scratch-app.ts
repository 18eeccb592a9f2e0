/**
 * A scratch app outside the repository that depends on nothing but `npm pack` tarballs of the
 * three packages: what a user gets from `npm install koa-silo` once they are published.
 */
import { execFile } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO = fileURLToPath(new URL('../../', import.meta.url));
export const PACKAGES = ['silo-query', 'koa-silo', 'silo-console', 'silo-server'] as const;

export interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/** Runs a command to its end (or its timeout, then killed); never throws for a failed exit. */
export function run(command: string, args: string[], cwd: string, timeoutMs: number): Promise<Ran> {
  const started = performance.now();
  return new Promise((resolve) => {
    execFile(command, args, { cwd, env: childEnv(), timeout: timeoutMs, maxBuffer: 32 * 1024 * 1024 }, (err, stdout, stderr) => {
      const code = err === null ? 0 : typeof err.code === 'number' ? err.code : null;
      resolve({ code, stdout, stderr, ms: performance.now() - started });
    });
  });
}

/**
 * The environment without what `npm test` sets for the repository's own package, so that npm in
 * the scratch app sees only the scratch app (npm's user and global configuration still apply).
 */
function childEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of Object.keys(env)) {
    if (/^npm_(package|lifecycle)_|^npm_config_(local_prefix|prefix|workspaces?)$|^INIT_CWD$/.test(name)) delete env[name];
  }
  return env;
}

export interface Packed {
  /** Package name → tarball file name in the destination directory. */
  tarballs: Record<string, string>;
  /** Package name → the paths the tarball holds. */
  files: Record<string, string[]>;
}

interface PackJson {
  name: string;
  filename: string;
  files: { path: string }[];
}

/** `npm pack` of the three packages (their current dist: build first) into `dir`. */
export async function packAll(dir: string): Promise<Packed> {
  const workspaces = PACKAGES.flatMap((name) => ['-w', `packages/${name}`]);
  const ran = await run('npm', ['pack', ...workspaces, '--pack-destination', dir, '--json', '--ignore-scripts'], REPO, 60_000);
  if (ran.code !== 0) throw new Error(`npm pack failed (${ran.code}):\n${ran.stderr}`);
  const packed = JSON.parse(ran.stdout) as PackJson[];
  return {
    tarballs: Object.fromEntries(packed.map((p) => [p.name, p.filename])),
    files: Object.fromEntries(packed.map((p) => [p.name, p.files.map((f) => f.path)])),
  };
}

/**
 * Writes the scratch app: a package.json depending on the tarballs only, a strict NodeNext
 * tsconfig that also checks the packages' declarations (`skipLibCheck: false`), and `sources`.
 */
export async function writeApp(appDir: string, tarballs: Record<string, string>, sources: Record<string, string>): Promise<void> {
  await mkdir(path.join(appDir, 'src'), { recursive: true });
  const dependencies = Object.fromEntries(Object.entries(tarballs).map(([name, file]) => [name, `file:../${file}`]));
  await writeFile(path.join(appDir, 'package.json'), JSON.stringify({ name: 'scratch-app', private: true, type: 'module', dependencies }, null, 2));
  const compilerOptions = {
    target: 'ES2023',
    lib: ['ES2023'],
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    types: ['node'],
    strict: true,
    skipLibCheck: false,
    rootDir: 'src',
    outDir: 'dist',
  };
  await writeFile(path.join(appDir, 'tsconfig.json'), JSON.stringify({ compilerOptions, include: ['src'] }, null, 2));
  for (const [file, text] of Object.entries(sources)) await writeFile(path.join(appDir, 'src', file), text);
}

/** An npm failure that says the registry could not be reached (not that the packages are wrong). */
export function registryUnreachable(ran: Ran): boolean {
  return /E(NOTFOUND|AI_AGAIN|CONNREFUSED|CONNRESET|TIMEDOUT|NETUNREACH)|network request|request to .* failed/i.test(ran.stderr);
}
