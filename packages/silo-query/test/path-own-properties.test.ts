/**
 * Path getters see own properties only: prototype members, array `length` and a polluted
 * Object.prototype stay invisible, however many paths a process has compiled before.
 */
import { describe, expect, it } from 'vitest';
import { compile, query } from '../src/index.js';

const PROTOTYPE_NAMES = ['toString', 'constructor', 'valueOf', 'hasOwnProperty', 'isPrototypeOf', 'propertyIsEnumerable', 'toLocaleString', '__defineGetter__', 'length', 'polluted'];

describe('path getters', () => {
  it('refuse prototype members and array length, before and after many compiled paths', () => {
    const run = (): void => {
      for (const key of PROTOTYPE_NAMES) {
        expect(query({}, { path: key }), key).toBeNull();
        expect(query({ a: {} }, { path: `a.${key}` }), key).toBeNull();
        expect(query([[1, 2]], { path: `0.${key}` }), key).toBeNull();
        expect(query({ [key]: 'own' }, { path: key }), key).toBe('own');
        expect(query([{}, { [key]: 'own' }], { q: key, value: 'own' }), key).toStrictEqual([{ [key]: 'own' }]);
      }
    };
    run();
    for (let i = 0; i < 50; i++) compile({ path: `filler${i}` }); // getters that have seen many keys
    run();
    for (const key of PROTOTYPE_NAMES) {
      const fresh = `${key}\u200b`; // a look-alike key is an ordinary key
      expect(query({}, { path: fresh })).toBeNull();
      expect(query({ [fresh]: 1 }, { path: fresh })).toBe(1);
    }
    expect(query({}, { path: 'toString' })).toBeNull();
  });

  it('a polluted Object.prototype stays invisible', () => {
    const proto = Object.prototype as Record<string, unknown>;
    try {
      proto['polluted'] = { deep: 'yes' };
      expect(query({}, { path: 'polluted' })).toBeNull();
      expect(query({}, { path: 'polluted.deep' })).toBeNull();
      expect(query({ a: {} }, { path: 'a.polluted' })).toBeNull();
    } finally {
      delete proto['polluted'];
    }
  });
});
