/**
 * Packaging: the three packages, packed as they would be published and installed into an empty
 * app with nothing else, install, import and type-check under strict NodeNext settings, and the
 * README's "Embedding" examples compile and print what their comments say.
 *
 * Install runs with --ignore-scripts: the only install script is better-sqlite3's native build
 * (about a minute from source here; the repository's own `npm ci` already proves it builds), and
 * nothing this test runs opens a SQLite database (better-sqlite3 loads its addon lazily).
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { freePort } from '../support/ports.js';
import { readmeEmbeddingExamples, type ReadmeExample } from './readme-examples.js';
import { packAll, PACKAGES, REPO, registryUnreachable, run, writeApp, type Packed, type Ran } from './scratch-app.js';

const INSTALL_TIMEOUT_MS = 180_000;
const TSC = path.join(REPO, 'node_modules/.bin/tsc');
const FIXTURE = 'published-types.ts';

let dir = '';
let appDir = '';
let packed: Packed;
let examples: ReadmeExample[];
let install: Ran;
let compiled: Ran;
let skipped = false;
const timings: Record<string, number> = {};

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'silo-packaging-'));
  appDir = path.join(dir, 'app');
  let t = performance.now();
  packed = await packAll(dir);
  timings.pack = performance.now() - t;

  examples = readmeEmbeddingExamples();
  const sources: Record<string, string> = { [FIXTURE]: await readFile(new URL(`./app/${FIXTURE}`, import.meta.url), 'utf8') };
  for (const example of examples) sources[example.file] = example.code;
  await writeApp(appDir, packed.tarballs, sources);

  install = await run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--ignore-scripts'], appDir, INSTALL_TIMEOUT_MS);
  timings.install = install.ms;
  if (install.code !== 0 && registryUnreachable(install) && process.env.CI !== 'true') {
    console.warn(`\n!!! SKIPPING packaging tests: the npm registry is unreachable and the npm cache lacks a dependency. !!!\n${install.stderr.slice(-1000)}\n`);
    skipped = true;
    return;
  }
  expect(install.code, `npm install failed:\n${install.stderr}`).toBe(0);

  t = performance.now();
  compiled = await run(TSC, ['-p', 'tsconfig.json'], appDir, 120_000);
  timings.tsc = performance.now() - t;
}, 300_000);

afterAll(async () => {
  const figures = Object.entries(timings).map(([step, ms]) => `${step} ${(ms / 1000).toFixed(1)} s`);
  console.log(`[packaging] ${figures.join(', ')}`);
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('the packed packages in an empty app', () => {
  test('each tarball carries its build, its declarations and the MIT license', () => {
    for (const name of PACKAGES) {
      expect(packed.files[name], name).toEqual(expect.arrayContaining(['LICENSE', 'package.json', 'dist/index.js', 'dist/index.d.ts']));
    }
    // The console ships its built pages: silo serve offers them with no network at run time.
    expect(packed.files['silo-console']).toEqual(expect.arrayContaining(['dist/app/index.html']));
  });

  test('type-check with nothing but the tarballs installed (strict, NodeNext, declarations checked)', (ctx) => {
    ctx.skip(skipped, 'npm registry unreachable');
    expect(compiled.stdout + compiled.stderr).toBe('');
    expect(compiled.code).toBe(0);
  });

  test('import all three packages; query results, ErrorType and error items are typed precisely', async (ctx) => {
    ctx.skip(skipped, 'npm registry unreachable');
    const ran = await run('node', [`dist/${FIXTURE.replace(/\.ts$/, '.js')}`], appDir, 30_000);
    expect(ran.stderr).toBe('');
    expect(ran.stdout).toBe('"Ada" "Linus" int_parsing no_such_word true function function function\n');
  });

  test("the README's embedding examples run and print what their comments say", async (ctx) => {
    ctx.skip(skipped, 'npm registry unreachable');
    expect(examples.length).toBe(2);
    for (const example of examples) {
      // The examples listen on 8080, as a reader would; here on a port nothing else uses.
      const port = String(await freePort());
      const js = path.join(appDir, 'dist', example.file.replace(/\.ts$/, '.js'));
      await writeFile(js, (await readFile(js, 'utf8')).replaceAll('8080', port));
      const t = performance.now();
      const ran = await run('node', [js], appDir, 30_000);
      timings[example.file] = performance.now() - t;
      expect(ran.stderr, example.file).toBe('');
      expect(ran.stdout.split('\n').slice(0, -1), example.file).toEqual(example.expectedOutput);
      expect(ran.code, example.file).toBe(0);
    }
  });
});
