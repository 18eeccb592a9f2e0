/**
 * The first distinct (position, key) pairs a process compiles get dedicated getters (see path.ts); later ones
 * share one. This file runs in a fresh module instance, so the keys below are the first ones
 * and take the dedicated getters: both kinds must refuse what is not an own property.
 */
import { describe, expect, it } from 'vitest';
import { compile, query } from '../src/index.js';

const PROTOTYPE_NAMES = ['toString', 'constructor', 'valueOf', 'hasOwnProperty', 'isPrototypeOf', 'propertyIsEnumerable', 'toLocaleString', '__defineGetter__', 'length', 'polluted'];

describe('dedicated and shared getters', () => {
  it('refuse prototype members and array length on every getter kind', () => {
    const run = (): void => {
      for (const key of PROTOTYPE_NAMES) {
        expect(query({}, { path: key }), key).toBeNull();
        expect(query({ a: {} }, { path: `a.${key}` }), key).toBeNull();
        expect(query([[1, 2]], { path: `0.${key}` }), key).toBeNull();
        expect(query({ [key]: 'own' }, { path: key }), key).toBe('own');
        expect(query([{}, { [key]: 'own' }], { q: key, value: 'own' }), key).toStrictEqual([{ [key]: 'own' }]);
      }
    };
    run(); // dedicated getters (first keys of this process)
    for (let i = 0; i < 50; i++) compile({ path: `filler${i}` }); // use up the dedicated getters
    run(); // the same keys still use their dedicated getters; now check the shared one too:
    for (const key of PROTOTYPE_NAMES) {
      const fresh = `${key}\u200b`; // a new key, so a shared getter; same own-property rules
      expect(query({}, { path: fresh })).toBeNull();
      expect(query({ [fresh]: 1 }, { path: fresh })).toBe(1);
    }
    expect(query({}, { path: 'toString' })).toBeNull();
  });

  it('a polluted Object.prototype stays invisible to a dedicated getter', () => {
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
