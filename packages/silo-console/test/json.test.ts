import { describe, expect, it } from 'vitest';
import { checkSiloData, dataFromGetSilo, formatJson, parseExact } from '../app/src/lib/json.js';
import { formatBytes, formatTime, pageCount } from '../app/src/lib/format.js';

describe('formatJson and dataFromGetSilo', () => {
  it('pretty-prints with numbers exactly as stored', () => {
    const text = '{"data":[{"id":12345678901234567890,"price":1.50,"e":1e400,"s":"x\\"y"},{}]}';
    expect(dataFromGetSilo(text)).toBe('[\n  {\n    "id": 12345678901234567890,\n    "price": 1.50,\n    "e": 1e400,\n    "s": "x\\"y"\n  },\n  {}\n]');
  });

  it('round-trips: the printed text parses back to equal data', () => {
    const value = parseExact('{"a":[1,2.0,{"b":null,"c":[]}],"d":true,"__proto__":{"x":1}}');
    expect(formatJson(parseExact(formatJson(value)))).toBe(formatJson(value));
    expect(formatJson(value)).toContain('"__proto__": {');
  });

  it('refuses an answer without data', () => {
    expect(() => dataFromGetSilo('{"detail":"x"}')).toThrow(SyntaxError);
    expect(() => dataFromGetSilo('[1]')).toThrow(SyntaxError);
  });
});

describe('checkSiloData', () => {
  it('accepts an object or an array of objects', () => {
    expect(checkSiloData('{}').ok).toBe(true);
    expect(checkSiloData('[]').ok).toBe(true);
    expect(checkSiloData('[{"a":1},{}]').ok).toBe(true);
  });

  it('says what is wrong otherwise', () => {
    expect(checkSiloData('[{"a":1},]')).toMatchObject({ ok: false, message: expect.stringMatching(/^Not valid JSON/) });
    expect(checkSiloData('[{}, 3]')).toEqual({ ok: false, message: 'Item 1 of the array is not an object: silo data is an object, or an array of objects.' });
    expect(checkSiloData('"text"')).toEqual({ ok: false, message: 'Silo data must be an object, or an array of objects.' });
    expect(checkSiloData('12345678901234567890').ok).toBe(false);
  });
});

describe('format', () => {
  it('sizes, times and page counts', () => {
    expect(formatBytes(999)).toBe('999 B');
    expect(formatBytes(1500)).toBe('1.5 kB');
    expect(formatBytes(2_500_000)).toBe('2.5 MB');
    expect(formatBytes(undefined)).toBe('—');
    expect(formatTime('2026-11-22T02:29:51.221Z')).toBe('2026-11-22 02:29 UTC');
    expect(formatTime(null)).toBe('never');
    expect(pageCount(0, 25)).toBe(1);
    expect(pageCount(26, 25)).toBe(2);
  });
});
