/**
 * Contract §15: an access key scoped to chosen silos reads those and nothing else; any other silo
 * answers exactly as a silo of another account (404, the same body), on data and event addresses.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BadRequestError, ValidationError } from '../src/model/index.js';
import { openSse } from '../../../test/support/sse.js';
import { HOSTS, startSilo, type Account, type Harness } from './support/http.js';

describe('scoped access keys', () => {
  let h: Harness;
  let alice: Account;
  let inside: string;
  let outside: string;
  let scoped: string;

  beforeAll(async () => {
    h = await startSilo();
    alice = await h.account('alice');
    inside = await h.create(alice, { file_name: 'in', file_data: { n: 1 } });
    outside = await h.create(alice, { file_name: 'out', file_data: { n: 2 } });
    scoped = (await h.silo.accounts.createKey({ account: 'alice', type: 'access', name: 'one', silos: [inside.toUpperCase()] })).key;
  });

  afterAll(() => h.close());

  it('reads its silos; every other silo is the 404 of a missing one', async () => {
    const read = (uuid: string, key: string) => h.client.get(`/${uuid}?path=n`, { headers: { 'X-SILO-KEY': key } });
    expect((await read(inside, scoped)).text).toBe('1');
    const refused = await read(outside, scoped);
    const missing = await read('00000000-0000-4000-8000-000000000000', scoped);
    expect(refused.status).toBe(404);
    expect(refused.text).toBe(missing.text);
    // The account's unscoped key still reads both.
    expect((await read(outside, alice.access)).text).toBe('2');
    const stream = await openSse(h.server.port, `/${outside}/events`, { host: HOSTS.api, 'X-SILO-KEY': scoped });
    expect(stream.status).toBe(404);
    const allowed = await openSse(h.server.port, `/${inside}/events`, { host: HOSTS.api, 'X-SILO-KEY': scoped });
    expect(allowed.status).toBe(200);
    allowed.close();
  });

  it('lists its scope, and refuses a scope on a manage key or of non-uuids', async () => {
    const keys = await h.silo.accounts.listKeys('alice');
    expect(keys.find((k) => k.name === 'one')).toMatchObject({ type: 'access', silos: [inside] });
    expect(keys.find((k) => k.name === 'a')!.silos).toBeUndefined();
    await expect(h.silo.accounts.createKey({ account: 'alice', type: 'manage', name: 'm2', silos: [inside] })).rejects.toBeInstanceOf(BadRequestError);
    await expect(h.silo.accounts.createKey({ account: 'alice', type: 'access', name: 'bad', silos: ['not-a-uuid'] })).rejects.toBeInstanceOf(BadRequestError);
    // Which one is not a uuid, by its place (the value is not echoed).
    await expect(h.silo.accounts.createKey({ account: 'alice', type: 'access', name: 'bad', silos: [inside, 'not-a-uuid'] })).rejects.toThrow(/silos\.1 \(counting from 0\) is not one/);
    await expect(h.silo.accounts.createKey({ account: 'alice', type: 'access', name: 'none', silos: [] })).rejects.toBeInstanceOf(BadRequestError);
  });

  it("refuses a scope naming another account's silo, or none, alike (422 silo_not_found), making no key", async () => {
    const bob = await h.account('bob');
    const bobs = await h.create(bob, { file_name: 'bobs', file_data: {} });
    for (const [i, silos] of [[1, [inside, bobs]], [0, ['00000000-0000-4000-8000-000000000000']]] as const) {
      const refused = await h.silo.accounts.createKey({ account: 'alice', type: 'access', name: 'probe', silos: [...silos] }).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(ValidationError);
      expect((refused as ValidationError).detail).toEqual([{ loc: ['body', 'silos', i], msg: 'No silo of this account has this file_uuid', type: 'silo_not_found' }]);
    }
    expect((await h.silo.accounts.listKeys('alice')).map((k) => k.name)).not.toContain('probe');
  });
});
