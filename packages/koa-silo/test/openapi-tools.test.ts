/**
 * The served OpenAPI document through third-party tools that nobody here wrote, as a user would
 * run them (issue 25):
 *
 * - Redocly CLI lints it with the repository's redocly.yaml (the recommended rules, three turned
 *   off with their reasons written there): no error, no warning.
 * - openapi-typescript generates types from it, and a program written as a user would write it
 *   with openapi-fetch (fixtures/openapi-fetch-program.ts: every operation, no casts)
 *   type-checks under `tsc --strict`, then runs against the server and gets what it asked for.
 *
 * Every response of the HTTP tests is also checked against the document (support/http-openapi.ts).
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import openapiTS, { astToString } from 'openapi-typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSilo, type Harness } from './support/http.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const PROGRAM = fileURLToPath(new URL('./fixtures/openapi-fetch-program.ts', import.meta.url));

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(command: string, args: string[], options: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs?: number }): Promise<Ran> {
  return new Promise((resolve) => {
    execFile(command, args, { cwd: options.cwd, env: options.env ?? process.env, timeout: options.timeoutMs ?? 120_000, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
      resolve({ code: err === null ? 0 : typeof err.code === 'number' ? err.code : null, stdout, stderr });
    });
  });
}

let h: Harness;
let dir: string;
let docFile: string;
let docText: string;

beforeAll(async () => {
  h = await startSilo({ webhooks: { allowPrivate: true, deliver: false } });
  docText = (await h.client.get('/api/v1/openapi.json')).text;
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'silo-openapi-tools-'));
  docFile = path.join(dir, 'openapi.json');
  fs.writeFileSync(docFile, docText);
});

afterAll(async () => {
  await h?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

interface LintReport {
  totals: { errors: number; warnings: number; ignored: number };
  problems: { ruleId: string; severity: string; message: string; location: { pointer?: string }[] }[];
}

async function lint(file: string): Promise<LintReport> {
  const ran = await run(process.execPath, [path.join(ROOT, 'node_modules/@redocly/cli/bin/cli.js'), 'lint', file, '--config', path.join(ROOT, 'redocly.yaml'), '--format=json'], {
    cwd: dir,
    env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
  });
  try {
    return JSON.parse(ran.stdout) as LintReport;
  } catch {
    throw new Error(`redocly lint gave no JSON report (exit ${ran.code}):\n${ran.stdout}\n${ran.stderr}`);
  }
}

describe('Redocly CLI lint of the served document', () => {
  it('finds no error and no warning with the recommended rules and redocly.yaml', async () => {
    const report = await lint(docFile);
    const problems = report.problems.map((p) => `${p.severity} ${p.ruleId} ${p.location[0]?.pointer ?? ''}: ${p.message}`);
    expect(problems).toEqual([]);
    expect(report.totals).toEqual({ errors: 0, warnings: 0, ignored: 0 });
  }, 60_000);

  it('finds none either in the document of a server with public queries on and If-Match required', async () => {
    const other = await startSilo({ publicQueries: true, requireIfMatch: true, maxPatchOperations: 50 });
    try {
      const text = (await other.client.get('/api/v1/openapi.json')).text;
      expect(JSON.parse(text).components.schemas.SiloJsonPatch.maxItems).toBe(50);
      const file = path.join(dir, 'variant.json');
      fs.writeFileSync(file, text);
      const report = await lint(file);
      expect(report.problems.map((p) => `${p.severity} ${p.ruleId} ${p.location[0]?.pointer ?? ''}: ${p.message}`)).toEqual([]);
    } finally {
      await other.close();
    }
  }, 60_000);

  it("still reports what the rules turned off would have reported elsewhere: a trailing slash, an operation without a 4XX", async () => {
    const doc = JSON.parse(docText) as { paths: Record<string, Record<string, { operationId?: string; responses?: Record<string, unknown> }>> };
    const bad = structuredClone(doc);
    bad.paths['/api/v1/manage/silos/'] = bad.paths['/api/v1/manage/silos']!;
    delete bad.paths['/api/v1/manage/silos'];
    for (const status of Object.keys(bad.paths['/api/v1/manage/silos/']!.get!.responses!)) {
      if (status.startsWith('4')) delete bad.paths['/api/v1/manage/silos/']!.get!.responses![status];
    }
    const file = path.join(dir, 'bad.json');
    fs.writeFileSync(file, JSON.stringify(bad));
    const rules = (await lint(file)).problems.map((p) => p.ruleId);
    expect(rules).toContain('rule/no-other-path-trailing-slash');
    expect(rules.filter((r) => r === 'rule/operation-4xx-response')).toHaveLength(1);
  }, 60_000);

  it('has ambiguous path pairs only where a uuid parameter faces a literal that is not a uuid (why redocly.yaml turns the rule off)', () => {
    const doc = JSON.parse(docText) as { paths: Record<string, unknown>; components: { schemas: { FileUuid: { format: string } } } };
    expect(doc.components.schemas.FileUuid.format).toBe('uuid');
    const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
    const templates = Object.keys(doc.paths);
    const segments = (p: string) => p.split('/').slice(1);
    const isParam = (s: string) => s.startsWith('{');
    const ambiguous: string[] = [];
    for (const [i, a] of templates.entries()) {
      for (const b of templates.slice(i + 1)) {
        const [sa, sb] = [segments(a), segments(b)];
        if (sa.length !== sb.length || !sa.every((s, k) => s === sb[k] || isParam(s) || isParam(sb[k]!))) continue;
        // Ambiguous when neither is the more specific: each has a parameter where the other has a literal.
        const paramVsLiteral = (x: string[], y: string[]) => x.some((s, k) => isParam(s) && !isParam(y[k]!));
        if (!paramVsLiteral(sa, sb) || !paramVsLiteral(sb, sa)) continue;
        const separated = sa.some((s, k) => {
          const t = sb[k]!;
          return (s === '{file_uuid}' && !isParam(t) && !UUID.test(t)) || (t === '{file_uuid}' && !isParam(s) && !UUID.test(s));
        });
        expect(separated, `${a} and ${b}`).toBe(true);
        ambiguous.push(`${a} ${b}`);
      }
    }
    // The three Redocly reported (and any other such pair) are among them.
    expect(ambiguous).toEqual(
      expect.arrayContaining([
        '/api/v1/manage/meta/{file_uuid} /api/v1/manage/{file_uuid}/versions',
        '/public/{file_uuid} /{file_uuid}/events',
      ]),
    );
  });
});

describe('openapi-typescript and openapi-fetch', () => {
  let app: string;

  beforeAll(async () => {
    app = path.join(dir, 'app');
    fs.mkdirSync(app);
    // The program and its generated types in a project of their own, with the repository's installed tools.
    fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(app, 'node_modules'), 'dir');
    fs.writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'openapi-fetch-user', private: true, type: 'module' }));
    fs.writeFileSync(
      path.join(app, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2023',
          lib: ['ES2023', 'DOM', 'DOM.Iterable'],
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          types: ['node'],
          strict: true,
          noUncheckedIndexedAccess: true,
          exactOptionalPropertyTypes: true,
          skipLibCheck: false,
          outDir: 'dist',
        },
        files: ['openapi.ts', 'program.ts'],
      }),
    );
    fs.copyFileSync(PROGRAM, path.join(app, 'program.ts'));
  });

  it('generates types in which data is data, updates need a field, and keys are not parameters', async () => {
    const types = astToString(await openapiTS(docText));
    fs.writeFileSync(path.join(app, 'openapi.ts'), types);
    // (`export type webhooks = Record<string, never>` is the generator's own, for a document without webhooks.)
    expect(types).not.toMatch(/[:|&(]\s*Record<string, never>/);
    expect(types).not.toMatch(/"X-MAN-API"|"X-SILO-KEY"/);
    expect(types).toContain('op: "add" | "replace" | "test";');
  }, 60_000);

  it('type-checks a program that calls every operation (tsc --strict, no casts)', async () => {
    const source = fs
      .readFileSync(PROGRAM, 'utf8')
      .replace(/\/\*[\s\S]*?\*\//g, '')
      .replace(/\/\/.*$/gm, '');
    // No escape hatches: a cast, a non-null assertion, `any` or a directive would hide what the types say.
    expect(source).toContain('createClient<paths>');
    expect(source).not.toMatch(/\bas\s+(?!const\b)[A-Za-z{[(]|<[A-Z]\w*>\s*\w|\w!\.|\w!\)|: any\b|@ts-/);
    const ran = await run(process.execPath, [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json'], { cwd: app });
    expect(ran.stdout + ran.stderr).toBe('');
    expect(ran.code).toBe(0);
  }, 120_000);

  it('runs the program against the server: every call answers as the types said', async () => {
    const owner = await h.account('tools');
    const ran = await run(process.execPath, [path.join(app, 'dist/program.js')], {
      cwd: app,
      env: { ...process.env, SILO_URL: `http://127.0.0.1:${h.server.port}`, MANAGE_KEY: owner.manage, ACCESS_KEY: owner.access },
      timeoutMs: 30_000,
    });
    expect(ran.stderr).toBe('');
    expect(ran.stdout.trimEnd().split('\n')).toEqual([
      'create 201 v1 true',
      'create-without-slash 201',
      'list 2 settings,users',
      'meta api false',
      'get 2',
      'head 200 true',
      'update people v2',
      'merge-patch true v3',
      'json-patch 3 v4',
      'json-patch-conflict 409 string',
      'invalid 422 path.version greater_than_equal',
      'versions 4 4,3',
      'version 1 2',
      'restore v5 false return=minimal',
      'read ["Ada"] 1',
      'filter [{"name":"Ada"}] 2',
      'public {"theme":"dark"}',
      'options 204 GET, HEAD, OPTIONS',
      'events 200 event: update',
      'public-events 200 event: update',
      'events-too-far 422 less_than_equal',
      'account-events 200',
      'webhook 201 true 1',
      'webhooks 1',
      'deliveries true',
      'webhook-retry 0',
      'webhook-delete 200 true',
      'delete true 404 Silo not found',
      'openapi 200 string',
    ]);
  }, 60_000);
});
