/**
 * The client's types come from the OpenAPI document the server serves, and nothing else goes into
 * its package:
 *
 * - src/generated/openapi.ts equals a fresh openapi-typescript generation from the document that
 *   `silo serve` serves (regenerate with `npm run generate -w silo-client`);
 * - src/ imports only its own modules and silo-query, and package.json depends on silo-query alone
 *   (dependency-cruiser cannot see npm imports here: node_modules is outside its graph).
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GENERATED, generateTypes } from '../scripts/generate-types.js';
import { removeDataDirs, startSilo, type Running } from './support/servers.js';

const SRC = fileURLToPath(new URL('../src/', import.meta.url));

let silo: Running;
beforeAll(async () => {
  silo = await startSilo('sqlite');
}, 60_000);
afterAll(async () => {
  await silo?.stop();
  removeDataDirs();
});

describe('the generated types', () => {
  it('equal a fresh generation from the document silo serve serves', async () => {
    const served = await (await fetch(`${silo.baseUrl}/api/v1/openapi.json`)).text();
    const fresh = await generateTypes(served);
    const committed = fs.readFileSync(GENERATED, 'utf8');
    if (committed !== fresh) {
      const a = committed.split('\n');
      const b = fresh.split('\n');
      const line = a.findIndex((l, i) => l !== b[i]);
      throw new Error(
        `src/generated/openapi.ts is not what the served document generates (first difference at line ${line + 1}):\n` +
          `  committed: ${a[line]?.trim()}\n  fresh:     ${b[line]?.trim()}\nRun: npm run generate -w silo-client`,
      );
    }
    expect(committed).toBe(fresh);
  }, 60_000);
});

describe('what the package needs', () => {
  it('imports only its own modules and silo-query', () => {
    const files = fs.readdirSync(SRC, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
    expect(files.length).toBeGreaterThan(5);
    for (const file of files) {
      const text = fs.readFileSync(path.join(SRC, file), 'utf8');
      for (const [, specifier] of text.matchAll(/(?:^|\n)\s*(?:import|export)\b[^'"]*?from\s+['"]([^'"]+)['"]/g)) {
        expect(specifier === 'silo-query' || specifier!.startsWith('./') || specifier!.startsWith('../'), `${file}: ${specifier}`).toBe(true);
      }
      expect(text, file).not.toMatch(/\bimport\(\s*['"](?!\.)/);
      expect(text, file).not.toMatch(/\brequire\(/);
    }
  });

  it('depends on silo-query alone, which depends on nothing', () => {
    const pkg = JSON.parse(fs.readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as Record<string, unknown>;
    expect(pkg.dependencies).toEqual({ 'silo-query': '0.1.0' });
    expect(pkg.peerDependencies).toBeUndefined();
    expect(pkg.optionalDependencies).toBeUndefined();
    const query = JSON.parse(fs.readFileSync(new URL('../../silo-query/package.json', import.meta.url), 'utf8')) as Record<string, unknown>;
    expect(query.dependencies ?? {}).toEqual({});
  });
});
