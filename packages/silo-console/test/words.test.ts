import { describe, expect, it } from 'vitest';
import { errorWords, SESSION_ENDED } from '../app/src/lib/errors.js';

describe('errorWords: API errors in words', () => {
  it('keeps a specific detail, as a sentence', () => {
    expect(errorWords(404, { detail: 'Silo not found' })).toEqual({ message: 'Silo not found.', fields: {} });
    expect(errorWords(413, { detail: 'file_data is over the limit of 10000000 bytes.' }).message).toBe('file_data is over the limit of 10000000 bytes.');
  });

  it('lists every 422 problem and places each beside its field', () => {
    const w = errorWords(422, {
      detail: [
        { loc: ['body', 'file_name'], msg: 'Field required', type: 'missing' },
        { loc: ['body', 'file_data', 0], msg: 'Input should be an object', type: 'dict_type' },
        { loc: ['query', 'idx'], msg: 'Input should be a valid integer', type: 'int_parsing' },
      ],
    });
    expect(w.message).toBe('Please correct: file_name: Field required; file_data.0: Input should be an object; idx: Input should be a valid integer.');
    expect(w.fields).toEqual({ file_name: 'Field required', file_data: 'file_data.0: Input should be an object', idx: 'Input should be a valid integer' });
  });

  it('says how long to wait on a 429', () => {
    expect(errorWords(429, { detail: 'Too many sign-in attempts' }, '30').message).toBe('Too many sign-in attempts. Please wait 30 seconds, then try again.');
    expect(errorWords(429, {}, '1').message).toBe('Too many requests. Please wait 1 second, then try again.');
    expect(errorWords(429, {}, null).message).toBe('Too many requests. Please wait a moment, then try again.');
  });

  it('has words for statuses without a detail, the network, and bugs', () => {
    expect(errorWords(0, undefined).message).toMatch(/could not be reached/);
    expect(errorWords(401, undefined).message).toBe(SESSION_ENDED);
    expect(errorWords(412, { detail: 'Precondition Failed' }).message).toMatch(/Someone changed this silo/);
    expect(errorWords(503, {}).message).toMatch(/storage is unavailable/);
    expect(errorWords(500, { detail: 'Internal Server Error' }).message).toMatch(/server failed \(status 500\)/);
    expect(errorWords(418, 'not json').message).toBe('The request failed (status 418).');
  });
});
