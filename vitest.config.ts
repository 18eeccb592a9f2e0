import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const src = (pkg: string, entry = 'index') => fileURLToPath(new URL(`./packages/${pkg}/src/${entry}.ts`, import.meta.url));

// Workspace packages (and their subpath exports) resolve to their TypeScript sources, so tests
// never run against a stale build.
const alias = [
  ...['model', 'testing'].map((room) => ({ find: `koa-silo/${room}`, replacement: src('koa-silo', `${room}/index`) })),
  ...['silo-query', 'koa-silo', 'silo-server', 'silo-console', 'silo-client'].map((pkg) => ({ find: new RegExp(`^${pkg}$`), replacement: src(pkg) })),
];

/** The load tests (see the 'load' project). */
const LOAD = ['reliability/isolation.test.ts', 'reliability/event-streams.test.ts'];

export default defineConfig({
  resolve: { alias },
  test: {
    // CI also writes a JSON report, from which .ci/run prints one plain closing line.
    reporters: process.env.CI === 'true' ? ['default', ['json', { outputFile: '.ci/vitest-report.json' }]] : ['default'],
    // Two files at a time even on two cores (vitest's default there is one): most files spend their
    // time waiting on servers, stores and browsers they start, and the suite ran in 452 s on one
    // worker against 280 s on two. The load tests still run alone, after all the others (below).
    maxWorkers: 2,
    projects: [
      ...['silo-query', 'koa-silo', 'silo-server', 'silo-console', 'silo-client'].map((name) => ({
        extends: true as const,
        test: { name, root: `packages/${name}`, include: ['test/**/*.test.ts'] },
      })),
      { extends: true as const, test: { name: 'e2e', root: 'test', include: ['**/*.test.ts'], exclude: LOAD } },
      // Tests that measure a bystander's latency under attack (p99 under 100 ms on 2 cores) run
      // last and one file at a time: another test file's work on the same cores is not an attack.
      {
        extends: true as const,
        test: { name: 'load', root: 'test', include: LOAD, fileParallelism: false, sequence: { groupOrder: 1 } },
      },
    ],
  },
});
