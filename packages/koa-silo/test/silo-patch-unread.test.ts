/**
 * A patch that sets file_data whole before reading it does not parse the stored data: a 10 MB
 * silo replaced by JSON Patch cost a parse of the old 10 MB that nothing looked at (about 250 ms
 * of a worker per request in the isolation test's item 1, every time it was refused).
 */
import { describe, expect, it } from 'vitest';
import { ValidationError, type JsonPatchOperation, type SiloPatch } from '../src/model/index.js';
import { applySiloPatch, replacesDataUnread } from '../src/service/silo-patch.js';

const record = { file_name: 'f', region_name: 'api' as const, is_public: false, size: 20 };
const limits = { maxDataBytes: 1_000_000, maxDepth: 1000 };
const STORED = '[{"id":1},{"id":2}]';

/** applySiloPatch over STORED, and whether it parsed STORED. */
async function applied(patch: SiloPatch): Promise<{ text?: string; parsed: boolean }> {
  let parsed = false;
  const result = await applySiloPatch(record, STORED, patch, limits, async (text) => {
    parsed = true;
    return JSON.parse(text);
  });
  return { ...(result.text === undefined ? {} : { text: result.text }), parsed };
}

const ops = (...operations: JsonPatchOperation[]): SiloPatch => ({ type: 'json-patch', operations });

describe('patches that replace file_data whole', () => {
  it('do not parse the stored data, and store the new data', async () => {
    expect(await applied(ops({ op: 'replace', path: '/file_data', value: [{ id: 9 }] }))).toEqual({ text: '[{"id":9}]', parsed: false });
    expect(await applied(ops({ op: 'replace', path: '/file_name', value: 'g' }, { op: 'add', path: '/file_data', value: { a: 1 } }))).toEqual({
      text: '{"a":1}',
      parsed: false,
    });
    // Later operations work on the new data.
    expect(await applied(ops({ op: 'add', path: '/file_data', value: [] }, { op: 'add', path: '/file_data/-', value: { id: 3 } }))).toEqual({
      text: '[{"id":3}]',
      parsed: false,
    });
    expect(await applied({ type: 'merge', patch: { file_data: [{ id: 4 }] } })).toEqual({ text: '[{"id":4}]', parsed: false });
  });

  it('parse it when anything reads it first', async () => {
    const before: JsonPatchOperation[] = [
      { op: 'test', path: '/file_data/0/id', value: 1 },
      { op: 'copy', from: '/file_data/0', path: '/file_name' },
      { op: 'move', from: '/file_data', path: '/x' },
      { op: 'remove', path: '/file_data/1' },
      { op: 'replace', path: '', value: { file_name: 'f', region_name: 'api', is_public: false, file_data: [] } },
    ];
    for (const op of before) expect(replacesDataUnread({ type: 'json-patch', operations: [op, { op: 'replace', path: '/file_data', value: [] }] }), op.op).toBe(false);
    expect((await applied(ops({ op: 'test', path: '/file_data/0/id', value: 1 }, { op: 'replace', path: '/file_data', value: [{ id: 7 }] }))).parsed).toBe(true);
    // A copy into file_data reads the document; a member of the same prefix is another member.
    expect(replacesDataUnread({ type: 'json-patch', operations: [{ op: 'copy', from: '/file_name', path: '/file_data' }] })).toBe(false);
    expect(replacesDataUnread({ type: 'json-patch', operations: [{ op: 'add', path: '/file_data~1x', value: 1 }] })).toBe(false);
    // A merge patch's object merges into the old data.
    expect(await applied({ type: 'merge', patch: { file_data: { 0: { id: 5 } } } })).toMatchObject({ parsed: true });
    expect(replacesDataUnread({ type: 'merge', patch: [] })).toBe(false);
  });

  it('refuse a patch that removes or nulls file_data, as before: the placeholder is never stored', async () => {
    await expect(applied(ops({ op: 'replace', path: '/file_data', value: null }))).rejects.toBeInstanceOf(ValidationError);
    await expect(applied({ type: 'merge', patch: { file_data: null } })).rejects.toBeInstanceOf(ValidationError);
    await expect(applied(ops({ op: 'remove', path: '/file_data' }))).rejects.toBeInstanceOf(ValidationError);
  });
});
