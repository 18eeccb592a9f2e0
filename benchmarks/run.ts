/**
 * `npm run bench`: every benchmark suite, one after the other (the packages are built first by
 * the npm script). Each suite writes its own files under benchmarks/results/.
 *
 *   npm run bench                    # query, http, writes, migrate, then events
 *   npm run bench -- query           # one suite
 *   npm run bench -- http --quick    # flags after the suite name go to that suite
 *
 * query: silo-query against jsonpath-plus and hand-written JS (benchmarks/query/, issue 2), then
 *        the catalogue questions over HTTP against json-server 1.0 (query/http-catalogue.ts, issue 24).
 *        Flags: --quick, --no-write.
 * http:  the HTTP server against bare Koa, node:http and json-server (benchmarks/http/, issue 5),
 *        then large answers of `silo serve` (http/large-answers.ts: compressed reads of 1 and 5.8 MB,
 *        a 5 MB append with and without Prefer: return=minimal, a search cached and uncached against
 *        json-server 1.0), which takes --quick and --no-write and is left out of a run narrowed
 *        by --only or --stores. Flags: those of benchmarks/http/run.ts (--quick, --no-write,
 *        --no-memory, --rounds=N, ...).
 * writes: JSON Patch append against whole-array PATCH, and PATCH/create against the build before
 *        versioned storage (benchmarks/writes/, issue 9). Flags: --quick, --no-write, --before=<dir>.
 * migrate: `silo migrate` from SQLite into SQLite, Redis, PostgreSQL and Redis Cluster, silos/s
 *        and peak RSS (benchmarks/migrate/, issue 11). Flags: --quick, --no-write.
 * events: 2 000 SSE subscribers on one silo: event latency, server RSS, write throughput with and
 *        without them (benchmarks/events/, issue 12). Flags: --quick, --no-write, --subscribers=N.
 * isolation: the attacks of the isolation review against a tiny read's latency and the server's
 *        event-loop delay, each beside the same at rest (benchmarks/isolation/, issue 22).
 *        Flags: --quick, --no-write.
 */
import { parseEventsArgs, runEventsBenchmarks } from './events/run.js';
import { runIsolationBenchmarks } from './isolation/run.js';
import { runCatalogueOverHttp } from './query/http-catalogue.js';
import { parseHttpArgs, runHttpBenchmarks } from './http/run.js';
import { runLargeAnswers } from './http/large-answers.js';
import { parseMigrateArgs, runMigrateBenchmarks } from './migrate/run.js';
import { runQueryBenchmarks, type QueryBenchOptions } from './query/run.js';
import { parseWritesArgs, runWritesBenchmarks } from './writes/run.js';
import { isInvokedDirectly } from './common.js';

const SUITES = ['query', 'http', 'writes', 'migrate', 'events', 'isolation'] as const;
type Suite = (typeof SUITES)[number];

function queryOptions(flags: readonly string[]): QueryBenchOptions {
  const o: QueryBenchOptions = {};
  for (const flag of flags) {
    if (flag === '--quick') o.quick = true;
    else if (flag === '--no-write') o.write = false;
    else throw new Error(`the query suite takes --quick and --no-write here (got ${flag}); run benchmarks/query/run.ts for its other flags`);
  }
  return o;
}

export async function runBenchmarks(argv: readonly string[]): Promise<void> {
  const named = argv.filter((a) => !a.startsWith('--'));
  const flags = argv.filter((a) => a.startsWith('--'));
  for (const name of named) {
    if (!SUITES.includes(name as Suite)) throw new Error(`unknown suite "${name}": use ${SUITES.join(', ')}`);
  }
  const suites: Suite[] = named.length > 0 ? (named as Suite[]) : [...SUITES];
  if (suites.length > 1 && flags.length > 0 && !flags.every((f) => f === '--quick' || f === '--no-write')) {
    throw new Error('with several suites only --quick and --no-write apply; name one suite for its other flags');
  }
  for (const suite of suites) {
    console.log(`\n=== ${suite} benchmarks ===\n`);
    if (suite === 'query') {
      await runQueryBenchmarks(queryOptions(flags));
      await runCatalogueOverHttp(queryOptions(flags));
    }
    else if (suite === 'http') {
      const options = parseHttpArgs(flags);
      await runHttpBenchmarks(options);
      // A run narrowed to some scenarios or stores is about those: large answers only in a whole run.
      if (!options.only?.length && options.stores === undefined) {
        console.log('\n=== http: large answers ===\n');
        await runLargeAnswers({ quick: options.quick ?? false, write: options.write ?? true });
      }
    }
    else if (suite === 'writes') await runWritesBenchmarks(parseWritesArgs(flags));
    else if (suite === 'migrate') await runMigrateBenchmarks(parseMigrateArgs(flags));
    else if (suite === 'events') await runEventsBenchmarks(parseEventsArgs(flags));
    else await runIsolationBenchmarks({ quick: flags.includes('--quick'), write: !flags.includes('--no-write') });
  }
}

const invokedDirectly = isInvokedDirectly(import.meta.url);

if (invokedDirectly) {
  try {
    await runBenchmarks(process.argv.slice(2));
  } catch (err) {
    console.error(`\nbenchmarks aborted — ${err instanceof Error ? `${err.name}: ${err.message}` : String(err)}`);
    process.exitCode = 1;
  }
}
