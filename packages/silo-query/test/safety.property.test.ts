import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compile, ErrorType, PARAM_NAMES, query, SiloQueryError, toJSON } from '../src/index.js';
import { exactJsonArb, jsonArb } from './arbitraries.js';

const runs = { numRuns: 1000 };

/** Every own property (names and symbols) of the built-in prototypes, with its descriptor. */
function snapshot(): Map<string, unknown> {
  const out = new Map<string, unknown>();
  for (const [label, proto] of [['Object', Object.prototype], ['Array', Array.prototype], ['Function', Function.prototype], ['String', String.prototype]] as const) {
    for (const key of Reflect.ownKeys(proto)) {
      const d = Object.getOwnPropertyDescriptor(proto, key)!;
      out.set(`${label}.${String(key)}`, 'value' in d ? d.value : [d.get, d.set]);
    }
  }
  return out;
}

// Parameter strings built from pieces that mean something to silo-query, plus noise.
const piece = fc.oneof(
  fc.constantFrom(...PARAM_NAMES, 'idx=', 'path=', 'output=', 'q=', 'value=', 'op=', '&', '=', '?', '.', '..', '%', '%25', '%5C', '\\', '+', '%2E', '%00', '%FF', '%ZZ'),
  fc.constantFrom('__proto__', 'constructor', 'prototype', 'polluted', 'toString', 'length', '0', '01', '-1', '1.5', '99999999999999999999'),
  fc.constantFrom('json', 'text', 'int', 'float', 'bool', 'date', 'eq', 'ne', 'gt', 'lt', 'lk', 'il', 'true', 'null'),
  fc.string({ unit: 'binary', maxLength: 3 }),
);
const paramString = fc.array(piece, { maxLength: 14 }).map((a) => a.join(''));
const paramObject = fc.dictionary(
  fc.constantFrom(...PARAM_NAMES, '__proto__', 'constructor', 'x'),
  fc.oneof(fc.string({ maxLength: 4 }), fc.constantFrom('__proto__', 'constructor.prototype', 'polluted', '%', 'a.__proto__'), fc.array(fc.string({ maxLength: 2 }), { maxLength: 3 })),
  { maxKeys: 6 },
);
const dataArb = fc.oneof(jsonArb, fc.array(jsonArb, { maxLength: 6 }), exactJsonArb, fc.array(exactJsonArb, { maxLength: 6 }));

const TYPES = new Set<string>(Object.values(ErrorType));
function checkError(e: unknown): void {
  expect(e).toBeInstanceOf(SiloQueryError);
  const detail = (e as SiloQueryError).detail;
  expect(detail.length).toBeGreaterThan(0);
  for (const item of detail) {
    expect(item.loc[0]).toBe('query');
    expect(PARAM_NAMES as readonly unknown[]).toContain(item.loc[1]);
    expect(TYPES.has(item.type)).toBe(true);
    expect(typeof item.msg).toBe('string');
  }
}

describe('safety (property)', () => {
  let before: Map<string, unknown>;
  beforeAll(() => {
    before = snapshot();
  });
  afterAll(() => {
    expect(snapshot()).toStrictEqual(before);
  });

  it('random parameter strings never throw anything but SiloQueryError, and results serialise', () => {
    fc.assert(
      fc.property(paramString, dataArb, (params, data) => {
        try {
          const r = query(data, params);
          expect(typeof toJSON(r)).toBe('string');
        } catch (e) {
          checkError(e);
        }
      }),
      runs,
    );
  });

  it('random plain-object parameters never throw anything but SiloQueryError', () => {
    fc.assert(
      fc.property(paramObject, dataArb, (params, data) => {
        try {
          compile(params)(data);
        } catch (e) {
          checkError(e);
        }
      }),
      runs,
    );
  });

  it('no query changes any built-in prototype, and nothing leaks from them', () => {
    fc.assert(
      fc.property(paramString, dataArb, (params, data) => {
        try {
          query(data, params);
        } catch {
          // checked above
        }
        const probe: Record<string, unknown> = {};
        expect(probe['polluted']).toBeUndefined();
        expect(Object.keys(Object.prototype)).toStrictEqual([]);
      }),
      runs,
    );
    expect(snapshot()).toStrictEqual(before);
  });

  it('paths and searches through __proto__ and constructor never reach a prototype', () => {
    const data = JSON.parse('[{"a": {}}, {"__proto__": {"polluted": 1}}, {"constructor": {"prototype": {"polluted": 2}}}]') as unknown[];
    for (const path of ['0.__proto__', '0.a.__proto__', '0.constructor', '0.a.constructor.prototype', '1.__proto__.polluted', '2.constructor.prototype.polluted', '0.toString', '0.hasOwnProperty']) {
      const r = query(data, { path });
      expect(r === null || r === 1 || r === 2).toBe(true);
      expect(typeof r).not.toBe('function');
    }
    expect(query(data, { path: '1.__proto__.polluted' })).toBe(1);
    expect(query(data, { path: '2.constructor.prototype.polluted' })).toBe(2);
    expect(query(data, { q: '__proto__.polluted', value: '1' })).toStrictEqual([data[1]]);
    expect(query(data, { q: 'constructor.name', value: 'Object' })).toStrictEqual([]);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });
});
