/**
 * Runs the language-neutral case suite in test/cases/*.json (format: test/cases/README.md)
 * through `query`, through `compile`, and through every equivalent form of the parameters.
 * The files are read with `parseJson`, so every number in them is exactly the number its text
 * spells (`1.0`, `-0`, `1e400`, `12345678901234567890` are `JsonNumber`s), as Silo stores data.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { compile, JsonNumber, parseJson, query, SiloQueryError, toJSON } from '../src/index.js';

type Params = string | Record<string, string>;
interface ErrorItem {
  loc: (string | number)[];
  type: string;
  /** When given, the item's `ctx` must be exactly this (limits, `position` in a filter). */
  ctx?: Record<string, number>;
}
interface Case {
  name: string;
  data?: unknown;
  params: Params;
  result?: unknown;
  /** The `X-Total-Count` the answer carries (matches before offset/limit), `null` for none. */
  total?: number | null;
  error?: ErrorItem;
  errors?: ErrorItem[];
}
interface CaseFile {
  description: string;
  data?: unknown;
  cases: Case[];
}

const dir = new URL('./cases/', import.meta.url);
const files = readdirSync(dir).filter((f) => f.endsWith('.json')).sort();

/** `{"$bigint": "123"}` → 123n, everywhere in a value. */
function revive(value: unknown): unknown {
  if (value instanceof JsonNumber) return value;
  if (Array.isArray(value)) return value.map(revive);
  if (typeof value === 'object' && value !== null) {
    const keys = Object.keys(value);
    const big = (value as Record<string, unknown>)['$bigint'];
    if (keys.length === 1 && typeof big === 'string') return BigInt(big);
    const out: Record<string, unknown> = {};
    for (const k of keys) Object.defineProperty(out, k, { value: revive((value as Record<string, unknown>)[k]), enumerable: true, writable: true, configurable: true });
    return out;
  }
  return value;
}

/** The same parameters in every form `query` accepts. */
function paramForms(params: Params): Array<[string, Parameters<typeof query>[1]]> {
  if (typeof params === 'string') {
    return [
      ['string', params],
      ['URLSearchParams', new URLSearchParams(params)],
    ];
  }
  return [
    ['object', params],
    ['URLSearchParams', new URLSearchParams(params)],
    ['string', new URLSearchParams(params).toString()],
  ];
}

function run(fn: () => unknown): { ok: true; value: unknown } | { ok: false; error: unknown } {
  try {
    return { ok: true, value: fn() };
  } catch (error) {
    return { ok: false, error };
  }
}

/** The error items as the case states them: `ctx` only where the case gives one. */
function asStated(detail: SiloQueryError['detail'], expected: readonly ErrorItem[]): ErrorItem[] {
  return detail.map(({ loc, type, ctx }, i) => (expected[i]?.ctx === undefined ? { loc, type } : { loc, type, ctx: ctx ?? {} }));
}

/** Files of the query language (contract §16); the rest are §5's. */
const LIST_FILES = /^(filter|sort|paging|fields|list)/;

let total = 0;
let listCases = 0;
for (const file of files) {
  const suite = parseJson(readFileSync(new URL(file, dir), 'utf8')) as CaseFile;
  describe(`${file}: ${suite.description}`, () => {
    for (const c of suite.cases) {
      total++;
      if (LIST_FILES.test(file)) listCases++;
      it(c.name, () => {
        const data = 'data' in c ? c.data : suite.data;
        expect(data, 'a case needs data (its own or the file\'s)').not.toBeUndefined();
        const expectedErrors = c.errors ?? (c.error ? [c.error] : undefined);
        expect(expectedErrors === undefined, 'a case has either result or error(s)').toBe('result' in c);
        for (const [form, params] of paramForms(c.params)) {
          for (const [how, exec] of [
            ['query', () => query(data, params)],
            ['compile', () => compile(params)(data)],
          ] as const) {
            const label = `${how} with ${form} parameters`;
            const got = run(exec);
            if (expectedErrors === undefined) {
              if (!got.ok) throw new Error(`${label} threw ${String(got.error)}`);
              expect(got.value, label).toStrictEqual(revive(c.result));
              // The HTTP layer sends toJSON(result): it must be valid JSON of the same value, with
              // every number spelled the same.
              expect(parseJson(toJSON(got.value)), label).toStrictEqual(parseJson(toJSON(revive(c.result))));
              // The text a server sends, built a slice at a time: the same characters as toJSON of the result.
              if (how === 'compile') expect(compile(params).json(data).text, `${label}: json()`).toBe(toJSON(got.value));
              if (how === 'compile' && c.total !== undefined) {
                // The count beside the results, and whether an answer carries it at all.
                const compiled = compile(params);
                expect(compiled.reportsTotal, `${label}: X-Total-Count sent`).toBe(c.total !== null);
                const r = compiled.run(data);
                expect(r.value, label).toStrictEqual(revive(c.result));
                if (c.total !== null) expect(r.total, `${label}: total`).toBe(c.total);
              }
            } else {
              expect(got.ok, `${label} should throw`).toBe(false);
              if (got.ok) continue;
              expect(got.error, label).toBeInstanceOf(SiloQueryError);
              const detail = (got.error as SiloQueryError).detail;
              expect(asStated(detail, expectedErrors), label).toStrictEqual(expectedErrors);
              for (const item of detail) expect(typeof item.msg === 'string' && item.msg.length > 0).toBe(true);
            }
          }
        }
      });
    }
  });
}

describe('the case suite', () => {
  it('has every file and at least 200 cases', () => {
    expect(files.length).toBeGreaterThanOrEqual(10);
    expect(total).toBeGreaterThanOrEqual(200);
  });

  it('has at least 300 cases of the query language (filter, sort, paging, fields)', () => {
    expect(listCases).toBeGreaterThanOrEqual(300);
  });
});
