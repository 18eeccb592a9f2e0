/**
 * The benchmark cases (issue 2, "Benchmarks") and, for each, the four candidates:
 *   - silo-query `query(data, params)`: the query string is parsed and validated on every call;
 *   - silo-query `compile(params)`: parsed once, the returned function is reused;
 *   - jsonpath-plus on the equivalent JSONPath (`eval: false`; filters need `eval: 'safe'`);
 *   - a hand-written JavaScript baseline: direct property access or a plain for-loop filter,
 *     written for that one query (the practical limit).
 */
import { JSONPath } from 'jsonpath-plus';
import { makeDocument, makeLikeWorstCase, makeRecords, type PersonRecord } from './data.js';
import type { Fn } from './harness.js';
import type { SiloQueryApi } from './silo.js';

export type CandidateKey = 'query' | 'compile' | 'jsonpath' | 'baseline';

export const CANDIDATES: ReadonlyArray<{ key: CandidateKey; label: string }> = [
  { key: 'query', label: 'silo-query `query`' },
  { key: 'compile', label: 'silo-query `compile`' },
  { key: 'jsonpath', label: 'jsonpath-plus' },
  { key: 'baseline', label: 'hand-written JS' },
];

/** `list`: the query language of contract §16 (filter, sort, limit), issue 16. */
export type CaseGroup = 'path' | 'search' | 'like' | 'list';

export interface JsonPathSpec {
  path: string;
  /** `false` wherever JSONPath can say it without script; `'safe'` (jsonpath-plus's own
   * evaluator: no eval, no Function, no vm) for filter expressions. Never `'native'`. */
  eval: false | 'safe';
}

export interface BenchCase {
  id: string;
  title: string;
  group: CaseGroup;
  /** Number of elements searched, for the search cases. */
  size?: number;
  /** The silo-query parameters (a query string, as it arrives over HTTP). */
  params: string;
  data: unknown;
  /** The equivalent JSONPath, or why jsonpath-plus cannot express the case. */
  jsonpath: JsonPathSpec | { na: string };
  /** The hand-written baseline and the code it stands for, for the report. */
  baseline: Fn;
  baselineCode: string;
  /** A sanity check of the (agreed) result so the case measures what it claims to. */
  check: (result: unknown) => string | undefined;
  /** For a target measured against another case: that case's id (its compile ops/s). */
  versus?: string;
}

interface UserDocument {
  name: string;
  profile: { address: { city: string } };
  orders: Array<{ items: Array<{ product: { sku: string } }> }>;
}

const isString = (r: unknown): string | undefined =>
  typeof r === 'string' ? undefined : `expected a string, got ${JSON.stringify(r)}`;
const nonEmptyArray = (r: unknown): string | undefined =>
  Array.isArray(r) && r.length > 0 ? undefined : 'expected a non-empty array of matches';
const emptyArray = (r: unknown): string | undefined =>
  Array.isArray(r) && r.length === 0 ? undefined : 'expected [] (the string has no b)';

/**
 * Hand-written LIKE for patterns made of literals and `%` only: anchored first and last
 * literal, leftmost match for the ones between (greedy leftmost is exact for `%`-only
 * patterns), every step an `indexOf`/`startsWith`/`endsWith`.
 */
export function likePercentOnly(text: string, parts: readonly string[]): boolean {
  const first = parts[0] ?? '';
  if (parts.length === 1) return text === first;
  const last = parts[parts.length - 1] ?? '';
  if (!text.startsWith(first)) return false;
  const end = text.length - last.length;
  if (end < first.length || !text.endsWith(last)) return false;
  let pos = first.length;
  for (let i = 1; i < parts.length - 1; i++) {
    const part = parts[i]!;
    const at = text.indexOf(part, pos);
    if (at < 0 || at + part.length > end) return false;
    pos = at + part.length;
  }
  return true;
}

function fmtSize(n: number): string {
  return n.toLocaleString('en-US').replace(/,/g, ' ');
}

export function buildCases(): BenchCase[] {
  const doc = makeDocument();
  const records100k = makeRecords(100_000);
  const records10k = records100k.slice(0, 10_000);
  const like = makeLikeWorstCase(100_000);

  const cases: BenchCase[] = [
    {
      id: 'path-depth-1',
      title: 'path, depth 1 (1 KB object)',
      group: 'path',
      params: 'path=name',
      data: doc,
      jsonpath: { path: '$.name', eval: false },
      baseline: (d) => (d as UserDocument).name,
      baselineCode: 'd.name',
      check: isString,
    },
    {
      id: 'path-depth-3',
      title: 'path, depth 3 (1 KB object)',
      group: 'path',
      params: 'path=profile.address.city',
      data: doc,
      jsonpath: { path: '$.profile.address.city', eval: false },
      baseline: (d) => (d as UserDocument).profile.address.city,
      baselineCode: 'd.profile.address.city',
      check: isString,
    },
    {
      id: 'path-depth-6',
      title: 'path, depth 6 (1 KB object)',
      group: 'path',
      params: 'path=orders.1.items.0.product.sku',
      data: doc,
      jsonpath: { path: '$.orders[1].items[0].product.sku', eval: false },
      baseline: (d) => (d as UserDocument).orders[1]!.items[0]!.product.sku,
      baselineCode: 'd.orders[1].items[0].product.sku',
      check: isString,
    },
    {
      id: 'idx-path-10k',
      title: 'idx + path (10 000-element array)',
      group: 'path',
      params: 'idx=7919&path=address.zip',
      data: records10k,
      jsonpath: { path: '$[7919].address.zip', eval: false },
      baseline: (d) => (d as PersonRecord[])[7919]!.address.zip,
      baselineCode: 'd[7919].address.zip',
      check: isString,
    },
  ];

  for (const [n, records] of [[10_000, records10k], [100_000, records100k]] as const) {
    const size = fmtSize(n);
    cases.push(
      {
        id: `search-eq-${n / 1000}k`,
        title: `search eq (${size} objects)`,
        group: 'search',
        size: n,
        params: 'q=city&value=Lisbon&op=eq',
        data: records,
        jsonpath: { path: "$[?(@.city === 'Lisbon')]", eval: 'safe' },
        baseline: (d) => {
          const a = d as PersonRecord[];
          const out: PersonRecord[] = [];
          for (let i = 0; i < a.length; i++) {
            const o = a[i]!;
            if (o.city === 'Lisbon') out.push(o);
          }
          return out;
        },
        baselineCode: "for (const o of d) if (o.city === 'Lisbon') out.push(o)",
        check: nonEmptyArray,
      },
      {
        id: `search-gt-${n / 1000}k`,
        title: `search gt (${size} objects)`,
        group: 'search',
        size: n,
        params: 'q=age&value=60&op=gt',
        data: records,
        jsonpath: { path: '$[?(@.age > 60)]', eval: 'safe' },
        baseline: (d) => {
          const a = d as PersonRecord[];
          const out: PersonRecord[] = [];
          for (let i = 0; i < a.length; i++) {
            const o = a[i]!;
            if (o.age > 60) out.push(o);
          }
          return out;
        },
        baselineCode: 'for (const o of d) if (o.age > 60) out.push(o)',
        check: nonEmptyArray,
      },
      {
        id: `search-il-${n / 1000}k`,
        title: `search il \`%AN%\` (${size} objects)`,
        group: 'search',
        size: n,
        params: 'q=name&value=%25AN%25&op=il',
        data: records,
        jsonpath: { path: "$[?(@.name.toLowerCase().includes('an'))]", eval: 'safe' },
        baseline: (d) => {
          const a = d as PersonRecord[];
          const out: PersonRecord[] = [];
          for (let i = 0; i < a.length; i++) {
            const o = a[i]!;
            if (o.name.toLowerCase().includes('an')) out.push(o);
          }
          return out;
        },
        baselineCode: "for (const o of d) if (o.name.toLowerCase().includes('an')) out.push(o)",
        check: nonEmptyArray,
      },
    );
  }

  const likeNa = {
    na: 'JSONPath has no LIKE; emulating it with a regular expression (`match`) backtracks ' +
      'catastrophically on this input',
  };
  const likeBaseline = (parts: readonly string[]): Fn => (d) => {
    const a = d as Array<{ s: string }>;
    const out: Array<{ s: string }> = [];
    for (let i = 0; i < a.length; i++) {
      const o = a[i]!;
      if (likePercentOnly(o.s, parts)) out.push(o);
    }
    return out;
  };
  cases.push(
    {
      id: 'like-worst-case',
      title: 'LIKE worst case `%a%a%a%a%b` (100 000 × `a`)',
      group: 'like',
      params: 'q=s&value=%25a%25a%25a%25a%25b&op=lk',
      data: like,
      jsonpath: likeNa,
      baseline: likeBaseline(['', 'a', 'a', 'a', 'a', 'b']),
      baselineCode: 'filter loop with a greedy indexOf matcher for %-only patterns (likePercentOnly)',
      check: emptyArray,
    },
    {
      // Not in the issue: the same pattern with a trailing `%`, so that no implementation can
      // settle it by checking a fixed suffix; the matcher has to scan the whole string.
      id: 'like-unanchored',
      title: 'LIKE `%a%a%a%a%b%` (100 000 × `a`, extra: no fixed suffix)',
      group: 'like',
      params: 'q=s&value=%25a%25a%25a%25a%25b%25&op=lk',
      data: like,
      jsonpath: likeNa,
      baseline: likeBaseline(['', 'a', 'a', 'a', 'a', 'b', '']),
      baselineCode: 'filter loop with a greedy indexOf matcher for %-only patterns (likePercentOnly)',
      check: emptyArray,
    },
    {
      // Not in the issue either: case-insensitive, which rules out plain string search and
      // makes the code-point matcher (with case folding) walk the string.
      id: 'ilike-unanchored',
      title: 'ILIKE `%A%A%A%A%B%` (100 000 × `a`, extra: case-folding matcher)',
      group: 'like',
      params: 'q=s&value=%25A%25A%25A%25A%25B%25&op=il',
      data: like,
      jsonpath: likeNa,
      baseline: (d) => {
        const a = d as Array<{ s: string }>;
        const out: Array<{ s: string }> = [];
        for (let i = 0; i < a.length; i++) {
          const o = a[i]!;
          if (likePercentOnly(o.s.toLowerCase(), ['', 'a', 'a', 'a', 'a', 'b', ''])) out.push(o);
        }
        return out;
      },
      baselineCode: 'the same loop over s.toLowerCase()',
      check: emptyArray,
    },
  );
  cases.push(...listCases(records100k));
  return cases;
}

/** The eight conditions of the filter case, in the order a user might write them. */
export const FILTER_8 =
  'age ge 25 and age le 70 and active eq true and city eq "Lisbon" and score gt 10 and ' +
  'name lk "%a%" and address.zip ne "00000" and id exists';

const sortNa = { na: 'JSONPath has no sorting, limit or offset' };
const byScore = (a: PersonRecord, b: PersonRecord): number => a.score - b.score;
const byScoreDesc = (a: PersonRecord, b: PersonRecord): number => b.score - a.score;
// The names are ASCII, where UTF-16 order is code point order.
const byName = (a: PersonRecord, b: PersonRecord): number => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
const sortedArray = (n: number) => (r: unknown): string | undefined =>
  Array.isArray(r) && r.length === n ? undefined : `expected an array of ${n} elements`;

/** Contract §16 (issue 16): a filter of 8 conditions with sort and limit, and sorts of 100 000 objects. */
function listCases(records: readonly PersonRecord[]): BenchCase[] {
  const n = records.length;
  const size = fmtSize(n);
  return [
    {
      id: 'filter-8-sort-limit-100k',
      title: `filter of 8 conditions, sort=-score, limit=20 (${size} objects)`,
      group: 'list',
      size: n,
      params: `filter=${encodeURIComponent(FILTER_8)}&sort=-score&limit=20`,
      data: records,
      jsonpath: sortNa,
      baseline: (d) => {
        const a = d as PersonRecord[];
        const out: PersonRecord[] = [];
        for (let i = 0; i < a.length; i++) {
          const o = a[i]!;
          if (o.age >= 25 && o.age <= 70 && o.active === true && o.city === 'Lisbon' && o.score > 10 &&
            o.name.includes('a') && o.address.zip !== '00000' && o.id !== undefined) out.push(o);
        }
        return out.sort(byScoreDesc).slice(0, 20);
      },
      baselineCode: "for (const o of d) if (o.age >= 25 && o.age <= 70 && o.active === true && o.city === 'Lisbon' && " +
        "o.score > 10 && o.name.includes('a') && o.address.zip !== '00000' && o.id !== undefined) out.push(o); " +
        'out.sort((a, b) => b.score - a.score).slice(0, 20)',
      check: sortedArray(20),
      versus: 'search-eq-100k',
    },
    {
      id: 'sort-number-100k',
      title: `sort=score (${size} objects)`,
      group: 'list',
      size: n,
      params: 'sort=score',
      data: records,
      jsonpath: sortNa,
      baseline: (d) => (d as PersonRecord[]).slice().sort(byScore),
      baselineCode: 'd.slice().sort((a, b) => a.score - b.score)',
      check: sortedArray(n),
    },
    {
      id: 'sort-string-100k',
      title: `sort=name (${size} objects)`,
      group: 'list',
      size: n,
      params: 'sort=name',
      data: records,
      jsonpath: sortNa,
      baseline: (d) => (d as PersonRecord[]).slice().sort(byName),
      baselineCode: 'd.slice().sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))',
      check: sortedArray(n),
    },
    {
      id: 'sort-2-keys-100k',
      title: `sort=city,-score (${size} objects)`,
      group: 'list',
      size: n,
      params: 'sort=city,-score',
      data: records,
      jsonpath: sortNa,
      baseline: (d) => (d as PersonRecord[]).slice().sort((a, b) => (a.city < b.city ? -1 : a.city > b.city ? 1 : b.score - a.score)),
      baselineCode: 'd.slice().sort((a, b) => (a.city < b.city ? -1 : a.city > b.city ? 1 : b.score - a.score))',
      check: sortedArray(n),
    },
    {
      id: 'sort-top-20-100k',
      title: `sort=-score, limit=20: top 20 (${size} objects)`,
      group: 'list',
      size: n,
      params: 'sort=-score&limit=20',
      data: records,
      jsonpath: sortNa,
      baseline: (d) => (d as PersonRecord[]).slice().sort(byScoreDesc).slice(0, 20),
      baselineCode: 'd.slice().sort((a, b) => b.score - a.score).slice(0, 20)',
      check: sortedArray(20),
    },
  ];
}

export type CandidateFns = Record<CandidateKey, Fn | { na: string }>;

/** The four candidates of one case. silo-query may be missing (`undefined`) while it is built. */
export function candidateFns(c: BenchCase, silo: SiloQueryApi | undefined): CandidateFns {
  let jsonpath: Fn | { na: string };
  if ('na' in c.jsonpath) {
    jsonpath = { na: c.jsonpath.na };
  } else {
    const { path, eval: evalMode } = c.jsonpath;
    // wrap: false returns the single value of a path; filters keep wrap: true (always an array).
    jsonpath = evalMode === false
      ? (d) => JSONPath({ path, json: d as object, eval: false, wrap: false })
      : (d) => JSONPath({ path, json: d as object, eval: evalMode, wrap: true });
  }
  const params = c.params;
  let query: Fn | { na: string } = { na: 'silo-query not available' };
  let compile: Fn | { na: string } = { na: 'silo-query not available' };
  if (silo) {
    const api = silo;
    query = (d) => api.query(d, params);
    compile = api.compile(params);
  }
  return { query, compile, jsonpath, baseline: c.baseline };
}
