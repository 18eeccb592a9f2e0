/**
 * The house's rule (npm test runs it: `npm run lint:deps`): data flows one way, and nothing
 * imports upward. koa-silo's rooms, bottom to top:
 *
 *   model            domain types and constants, the clock, the typed errors: imports nothing
 *   options          the options and their defaults (model only)
 *   patch, schemas   JSON Patch and the JSON Schemas: pure tools over the model
 *   limits           the memory budget, heap estimates, byte-budgeted caches
 *   storage          the storage contract and its engines' shared parts
 *   service          silos, accounts, keys: the rules, no HTTP
 *   work             large data off the event loop (worker threads)
 *   events, webhooks, console, transfer, audit, metrics
 *                    (audit: the audit log's reads and retention; metrics: prom-client, fed by
 *                    observers that the rooms below take without importing it)
 *   http             routes and handlers
 *   index.ts         the face
 *
 * silo-query sits below all of koa-silo; silo-client may use only silo-query; the packages import
 * each other through their names, never through relative paths; no cycles anywhere.
 */
const SRC = '^packages/koa-silo/src/';
const rooms = ['model', 'options', 'patch|schemas', 'limits', 'storage', 'service', 'work', 'events|webhooks|console|transfer|audit|metrics', 'http', 'index'];
const pathOf = (room) => (room === 'options' || room === 'index' ? `${SRC}${room}\\.ts$` : `${SRC}(${room})/`);

/** One rule per room: none of the rooms above it. */
const upward = rooms.slice(0, -1).map((room, i) => ({
  name: `no-upward-from-${room.split('|')[0]}`,
  comment: `${room} is below ${rooms.slice(i + 1).join(', ')}: it must not import them (move the shared piece down instead)`,
  severity: 'error',
  from: { path: pathOf(room) },
  to: { path: rooms.slice(i + 1).map(pathOf).join('|') },
}));

module.exports = {
  forbidden: [
    ...upward,
    {
      name: 'storage-by-its-face',
      comment: 'Other rooms reach storage through storage/index.ts (the contract and what it gives them), never its engines',
      severity: 'error',
      from: { path: SRC, pathNot: `${SRC}storage/` },
      to: { path: `${SRC}storage/`, pathNot: `${SRC}storage/index\\.ts$` },
    },
    {
      name: 'no-cycles',
      comment: 'A cycle makes two modules one: break it by moving what both need below them',
      severity: 'error',
      from: { path: '^packages/[^/]+/src/' },
      to: { circular: true },
    },
    {
      name: 'no-cross-package-paths',
      comment: 'Packages use each other by name (koa-silo, koa-silo/model, silo-query), never by relative paths into another package',
      severity: 'error',
      from: { path: '^packages/([^/]+)/' },
      to: { path: '^packages/', pathNot: ['^packages/$1/', 'node_modules'] },
    },
    {
      name: 'silo-query-is-pure',
      comment: 'silo-query is the pure query core: no other package, no Node I/O',
      severity: 'error',
      from: { path: '^packages/silo-query/src/' },
      to: { path: '^packages/(?!silo-query/)|^(fs|net|http|https|child_process|worker_threads)$', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'silo-client-uses-only-silo-query',
      comment:
        'silo-client has no runtime dependency but silo-query (which has none): nothing else from npm, even as a type (its declarations would need it). ' +
        '(node_modules is outside this graph, so packages/silo-client/test/generated.test.ts reads its import lines too.)',
      severity: 'error',
      from: { path: '^packages/silo-client/src/' },
      to: { dependencyTypes: ['npm', 'npm-dev', 'npm-peer', 'npm-optional', 'npm-no-pkg', 'npm-unknown', 'unknown'], pathNot: '^silo-query$' },
    },
    {
      name: 'silo-client-runs-in-browsers',
      comment: 'silo-client runs in browsers as well as Node: no Node built-in module (fetch, streams and TextDecoder are the platform\'s)',
      severity: 'error',
      from: { path: '^packages/silo-client/src/' },
      to: { dependencyTypes: ['core'] },
    },
    {
      name: 'model-loads-nothing',
      comment: 'koa-silo/model must load neither Keyv, ajv nor Koa (the CLI and the console use it)',
      severity: 'error',
      from: { path: `${SRC}model/` },
      to: { dependencyTypes: ['npm', 'npm-dev', 'npm-peer', 'npm-optional'] },
    },
  ],
  options: {
    tsPreCompilationDeps: true,
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(dist|node_modules)/' },
    moduleSystems: ['es6'],
  },
};
