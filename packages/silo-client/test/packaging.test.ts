/**
 * Packaging: silo-client (and silo-query, its one dependency), packed as they would be published,
 * installed into an empty app with nothing else, and the README's examples as a reader copies
 * them: every TypeScript block type-checks strictly as a Node program (ES2023 and Node's types
 * only: the client's declarations must not need the DOM library there), the browser quick start's
 * module script as a browser program in plain JavaScript (a page runs it as it is: a type
 * annotation there is an error), and the Node quick start runs against `silo serve` and prints
 * what its comments say.
 *
 * Blocks of the "Every call" section go on from the quick start: where a block does not make its
 * own `silo` (or `uuid`), they are declared for it, typed as the quick start's.
 */
import { execFile, execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { registryUnreachable, REPO, run, type Ran } from '../../../test/packaging/scratch-app.js';
import { removeDataDirs, startSilo, type Running } from './support/servers.js';

const TSC = path.join(REPO, 'node_modules/typescript/bin/tsc');

interface Example {
  file: string;
  code: string;
  /** What it prints, from its `console.log(...); // <output>` comments (the quick start only). */
  expected?: string[];
}

/** The README's examples: its ```ts blocks, and the module script of its ```html block. */
async function readmeExamples(): Promise<{ node: Example[]; browser: Example[] }> {
  const readme = await readFile(path.join(REPO, 'packages/silo-client/README.md'), 'utf8');
  const blocks = [...readme.matchAll(/```(ts|html)\n([\s\S]*?)```/g)].map((m) => ({ lang: m[1]!, code: m[2]! }));
  const node: Example[] = [];
  const browser: Example[] = [];
  for (const [i, block] of blocks.entries()) {
    if (block.lang === 'html') {
      const script = /<script type="module">([\s\S]*?)<\/script>/.exec(block.code)?.[1];
      if (script) browser.push({ file: `readme-${i + 1}.js`, code: `${script}\nexport {};\n` });
      continue;
    }
    const own = /\bconst silo\b/.test(block.code);
    const preamble = own ? '' : "declare const silo: import('silo-client').SiloClient;\n";
    const uuid = /\bconst uuid\b/.test(block.code) ? '' : 'declare const uuid: string;\n';
    const example: Example = { file: `readme-${i + 1}.ts`, code: `${preamble}${own ? '' : uuid}${block.code}\nexport {};\n` };
    if (node.length === 0) example.expected = printed(block.code);
    node.push(example);
  }
  return { node, browser };
}

function printed(code: string): string[] {
  return code
    .split('\n')
    .filter((line) => line.includes('console.log('))
    .map((line) => {
      const comment = /\/\/ (.*)$/.exec(line);
      if (!comment?.[1]) throw new Error(`the quick start's console.log has no comment saying what it prints: ${line.trim()}`);
      return comment[1].trim();
    });
}

let dir = '';
let app = '';
let examples: Awaited<ReturnType<typeof readmeExamples>>;
let install: Ran;
let skipped = false;
let silo: Running | undefined;
const timings: Record<string, number> = {};

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'silo-client-packaging-'));
  app = path.join(dir, 'app');
  execFileSync(process.execPath, [TSC, '-b', 'packages/silo-client'], { cwd: REPO, timeout: 120_000 });
  let t = performance.now();
  const packed = await run('npm', ['pack', '-w', 'packages/silo-query', '-w', 'packages/silo-client', '--pack-destination', dir, '--json', '--ignore-scripts'], REPO, 60_000);
  if (packed.code !== 0) throw new Error(`npm pack failed:\n${packed.stderr}`);
  const tarballs = Object.fromEntries((JSON.parse(packed.stdout) as { name: string; filename: string; files: { path: string }[] }[]).map((p) => [p.name, p]));
  timings.pack = performance.now() - t;
  expect(tarballs['silo-client']!.files.map((f) => f.path)).toEqual(expect.arrayContaining(['LICENSE', 'README.md', 'package.json', 'dist/index.js', 'dist/index.d.ts', 'dist/generated/openapi.d.ts']));

  examples = await readmeExamples();
  await mkdir(path.join(app, 'src/node'), { recursive: true });
  await mkdir(path.join(app, 'src/browser'), { recursive: true });
  const dependencies = Object.fromEntries(Object.values(tarballs).map((p) => [p.name, `file:../${p.filename}`]));
  await writeFile(
    path.join(app, 'package.json'),
    JSON.stringify({ name: 'scratch-client-app', private: true, type: 'module', dependencies, devDependencies: { '@types/node': '^20.19.0' } }, null, 2),
  );
  const strict = { target: 'ES2023', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noUncheckedIndexedAccess: true, skipLibCheck: false };
  await writeFile(path.join(app, 'tsconfig.json'), JSON.stringify({ compilerOptions: { ...strict, lib: ['ES2023'], types: ['node'], rootDir: 'src/node', outDir: 'dist' }, include: ['src/node'] }));
  await writeFile(
    path.join(app, 'tsconfig.browser.json'),
    // JavaScript, checked against the client's declarations (checkJs): TypeScript syntax fails it.
    JSON.stringify({ compilerOptions: { ...strict, lib: ['ES2023', 'DOM', 'DOM.Iterable'], types: [], noEmit: true, allowJs: true, checkJs: true }, include: ['src/browser'] }),
  );
  for (const e of examples.node) await writeFile(path.join(app, 'src/node', e.file), e.code);
  for (const e of examples.browser) await writeFile(path.join(app, 'src/browser', e.file), e.code);

  t = performance.now();
  install = await run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--ignore-scripts'], app, 180_000);
  timings.install = performance.now() - t;
  if (install.code !== 0 && registryUnreachable(install) && process.env.CI !== 'true') {
    console.warn(`\n!!! SKIPPING silo-client packaging tests: the npm registry is unreachable and the npm cache lacks @types/node. !!!\n`);
    skipped = true;
    return;
  }
  expect(install.code, `npm install failed:\n${install.stderr}`).toBe(0);
}, 300_000);

afterAll(async () => {
  console.log(`[packaging] silo-client: ${Object.entries(timings).map(([step, ms]) => `${step} ${(ms / 1000).toFixed(1)} s`).join(', ')}`);
  await silo?.stop();
  removeDataDirs();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('silo-client packed, in an empty app', () => {
  test('installs with nothing but its tarball and silo-query\'s: no other runtime dependency', async (ctx) => {
    ctx.skip(skipped, 'npm registry unreachable');
    const lock = JSON.parse(await readFile(path.join(app, 'package-lock.json'), 'utf8')) as { packages: Record<string, { dev?: boolean }> };
    const runtime = Object.entries(lock.packages)
      .filter(([name, p]) => name !== '' && !p.dev)
      .map(([name]) => name)
      .sort();
    expect(runtime).toEqual(['node_modules/silo-client', 'node_modules/silo-query']);
  });

  test("type-checks every TypeScript example of the README as a Node program (strict, declarations checked, no DOM)", async (ctx) => {
    ctx.skip(skipped, 'npm registry unreachable');
    expect(examples.node.length).toBeGreaterThanOrEqual(10);
    const t = performance.now();
    const compiled = await run(process.execPath, [TSC, '-p', 'tsconfig.json'], app, 120_000);
    timings.tsc = performance.now() - t;
    expect(compiled.stdout + compiled.stderr).toBe('');
    expect(compiled.code).toBe(0);
  }, 180_000);

  test("type-checks the browser quick start's script as a browser program in plain JavaScript", async (ctx) => {
    ctx.skip(skipped, 'npm registry unreachable');
    expect(examples.browser).toHaveLength(1);
    const compiled = await run(process.execPath, [TSC, '-p', 'tsconfig.browser.json'], app, 120_000);
    expect(compiled.stdout + compiled.stderr).toBe('');
    expect(compiled.code).toBe(0);
  }, 180_000);

  test('runs the Node quick start against silo serve: it prints what its comments say', async (ctx) => {
    ctx.skip(skipped, 'npm registry unreachable');
    silo = await startSilo('sqlite');
    const quickStart = examples.node[0]!;
    const ran = await node(path.join(app, 'dist', quickStart.file.replace(/\.ts$/, '.js')), { SILO_URL: silo.baseUrl, MANAGE_KEY: silo.keys.manage, ACCESS_KEY: silo.keys.access });
    expect(ran.stderr).toBe('');
    expect(ran.stdout.split('\n').slice(0, -1)).toEqual(quickStart.expected);
    expect(ran.code).toBe(0);
  }, 60_000);
});

/** Runs `file` with Node in the app, with `env` beside this process's environment. */
function node(file: string, env: Record<string, string>): Promise<Ran> {
  const started = performance.now();
  return new Promise((resolve) => {
    execFile(process.execPath, [file], { cwd: app, env: { ...process.env, ...env }, timeout: 30_000 }, (err, stdout, stderr) =>
      resolve({ code: err === null ? 0 : typeof err.code === 'number' ? err.code : null, stdout, stderr, ms: performance.now() - started }),
    );
  });
}
