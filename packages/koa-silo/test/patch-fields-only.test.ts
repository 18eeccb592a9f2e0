/**
 * A patch that leaves file_data alone (a rename, a move, a change of visibility) reads none of the
 * stored data: a merge patch of `file_name` on a 9 MB silo had parsed all of it (1.1-1.9 s of a
 * worker). Its result, its checks and its version are those of any patch.
 */
import Keyv from 'keyv';
import { beforeEach, describe, expect, it } from 'vitest';
import { ConflictError, ValidationError, type SiloPatch } from '../src/model/index.js';
import { createServices, type SiloService } from '../src/service/index.js';
import { patchFieldsOnly } from '../src/service/silo-patch.js';
import { createStorage } from '../src/storage/index.js';

const limits = { maxDataBytes: 1_000_000, maxDepth: 1000 };
const record = { file_name: 'f', region_name: 'api' as const, is_public: false, size: 20 };
const DATA = [{ id: 1 }, { id: 2 }];

let silos: SiloService;
/** Patches the service handed to its applier (which reads and parses the data). */
let applied: SiloPatch[];

beforeEach(async () => {
  applied = [];
  const storage = createStorage({ main: new Keyv({ store: new Map() }) });
  const services = createServices(storage, {
    applyPatch: async (...args) => {
      applied.push(args[5]);
      const { applySiloPatch } = await import('../src/service/silo-patch.js');
      return applySiloPatch(args[3], args[4], args[5], args[6]);
    },
  });
  silos = services.silos;
  await services.accounts.createAccount('alice');
});

describe('patches that leave file_data alone', () => {
  it('rename, move and publish a silo without its data, each a new version with the data as it was', async () => {
    const { file_uuid: uuid } = await silos.create('alice', { file_name: 'before', file_data: DATA });
    const renamed = await silos.patch('alice', uuid, { type: 'merge', patch: { file_name: 'after', is_public: true } });
    expect(renamed).toMatchObject({ record: { file_name: 'after', is_public: true, version: 2 }, text: JSON.stringify(DATA) });
    const moved = await silos.patchRecord('alice', uuid, { type: 'json-patch', operations: [{ op: 'replace', path: '/region_name', value: 'sg-01-api' }] });
    expect(moved).toMatchObject({ region_name: 'sg-01-api', version: 3 });
    const asText = await silos.patch('alice', uuid, { type: 'merge', text: '{"file_name":"third"}' });
    expect(asText.record.file_name).toBe('third');
    expect(applied).toEqual([]);
    expect((await silos.read('alice', uuid)).text).toBe(JSON.stringify(DATA));
    // A patch that touches the data still goes to the applier.
    await silos.patch('alice', uuid, { type: 'merge', patch: { file_data: [] } });
    expect(applied).toHaveLength(1);
  });

  it('answer bad fields, unknown members and failed tests as any patch does', async () => {
    const { file_uuid: uuid } = await silos.create('alice', { file_name: 'x', file_data: DATA });
    await expect(silos.patch('alice', uuid, { type: 'merge', patch: { file_name: 7 } })).rejects.toBeInstanceOf(ValidationError);
    await expect(silos.patch('alice', uuid, { type: 'merge', patch: { region_name: 'mars' } })).rejects.toBeInstanceOf(ValidationError);
    await expect(silos.patch('alice', uuid, { type: 'merge', patch: { surprise: 1 } })).rejects.toBeInstanceOf(ValidationError);
    await expect(silos.patch('alice', uuid, { type: 'json-patch', operations: [{ op: 'test', path: '/file_name', value: 'y' }] })).rejects.toBeInstanceOf(
      ConflictError,
    );
    await expect(silos.patch('alice', uuid, { type: 'json-patch', operations: [{ op: 'remove', path: '/file_name' }] })).rejects.toBeInstanceOf(ValidationError);
    expect(applied).toEqual([]);
    expect((await silos.meta('alice', uuid)).version).toBe(1);
  });

  it('are told apart from patches that reach file_data, the root, or a member named like it', () => {
    const reach: SiloPatch[] = [
      { type: 'merge', patch: { file_data: null } },
      { type: 'merge', patch: { file_data: { a: 1 } } },
      { type: 'merge', patch: [] },
      { type: 'json-patch', operations: [{ op: 'test', path: '/file_data/0/id', value: 1 }] },
      { type: 'json-patch', operations: [{ op: 'copy', from: '/file_data', path: '/file_name' }] },
      { type: 'json-patch', operations: [{ op: 'copy', from: '/file_name', path: '/file_data' }] },
      { type: 'json-patch', operations: [{ op: 'replace', path: '', value: {} }] },
    ];
    for (const patch of reach) expect(patchFieldsOnly(record, patch, limits), JSON.stringify(patch)).toBeUndefined();
    expect(patchFieldsOnly(record, { type: 'merge', patch: {} }, limits)).toEqual({ file_name: 'f', region_name: 'api', is_public: false });
    // '/file_data~1x' is a member named "file_data/x", not file_data: an unknown field, refused.
    expect(() => patchFieldsOnly(record, { type: 'json-patch', operations: [{ op: 'add', path: '/file_data~1x', value: 1 }] }, limits)).toThrow(ValidationError);
  });
});
