/**
 * Child process: runs silo-query once on the LIKE worst case and prints the time as JSON. The
 * runner starts it (with a time limit) before anything else runs silo-query on that case, so a
 * backtracking LIKE implementation becomes a "target missed" line instead of a run that never
 * ends.
 *
 *   node --import tsx benchmarks/query/like-probe.ts <silo-query module> <params> <length>
 */
import { pathToFileURL } from 'node:url';

const [file, params, length] = process.argv.slice(2);
if (!file || params === undefined || !length) {
  throw new Error('usage: like-probe.ts <silo-query module> <params> <length>');
}
const mod = (await import(pathToFileURL(file.replace(/\.ts$/, '.js')).href)) as {
  query: (data: unknown, params: string) => unknown;
};
const data = [{ s: 'a'.repeat(Number(length)) }];
const t0 = process.hrtime.bigint();
const result = mod.query(data, params);
const ms = Number(process.hrtime.bigint() - t0) / 1e6;
process.stdout.write(`${JSON.stringify({ ms, result })}\n`);
