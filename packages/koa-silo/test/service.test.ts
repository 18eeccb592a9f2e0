/**
 * The service rules of contract sections 1 to 4 (and the size limit of 6), over in-memory storage
 * with a clock the tests move by hand.
 */
import Keyv from 'keyv';
import { beforeEach, describe, expect, it } from 'vitest';
import { BadRequestError, ConflictError, MANAGE_KEY_DURATIONS, NotFoundError, PayloadTooLargeError, PreconditionFailedError, REGIONS, UnauthorizedError, ValidationError } from '../src/model/index.js';
import { createServices, type AccountService, type SiloService } from '../src/service/index.js';
import { createStorage } from '../src/storage/index.js';

const T0 = Date.parse('2026-03-01T12:00:00.000Z');
const DAY = 86_400_000;
const RFC3339_MS_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

let clock = T0;
let map: Map<string, unknown>;
let accounts: AccountService;
let silos: SiloService;
let storage: ReturnType<typeof createStorage>;

beforeEach(async () => {
  clock = T0;
  map = new Map();
  storage = createStorage({ main: new Keyv({ store: map }) });
  ({ accounts, silos } = createServices(storage, {
    now: () => clock,
    plans: { tiny: { maxDataBytes: 20 }, pro: { maxDataBytes: 1000 }, brief: { maxDataBytes: 1000, historyVersions: 1 } },
  }));
  await accounts.createAccount('alice');
  await accounts.createAccount('bob');
});

/** Everything at rest, as one string, to look for secrets. */
function atRest(): string {
  return [...map.values()].map(String).join('\n');
}

describe('accounts', () => {
  it('creates an account on the default plan, once per name', async () => {
    const carol = await accounts.createAccount('carol');
    expect(carol).toEqual({ name: 'carol', plan: 'default', created_at: '2026-03-01T12:00:00.000Z' });
    expect(await accounts.getAccount('carol')).toEqual(carol);
    await expect(accounts.createAccount('carol', 'pro')).rejects.toBeInstanceOf(ConflictError);
    expect((await accounts.listAccounts()).map((a) => a.name)).toEqual(['alice', 'bob', 'carol']);
  });

  it('takes a plan that exists and refuses one that does not', async () => {
    expect((await accounts.createAccount('dora', 'pro')).plan).toBe('pro');
    await expect(accounts.createAccount('emil', 'platinum')).rejects.toBeInstanceOf(BadRequestError);
  });

  it.each(['', ' ', 'a b', 'a/b', 'x'.repeat(65), '-lead', 'ümlaut'])('refuses the account name %j', async (name) => {
    await expect(accounts.createAccount(name)).rejects.toBeInstanceOf(BadRequestError);
  });
});

describe('deleting an account', () => {
  it('removes an account once it holds nothing: refuses while a key or silo is left, or without the name confirmed', async () => {
    await expect(accounts.deleteAccount('alice', 'ALICE')).rejects.toBeInstanceOf(BadRequestError);
    await expect(accounts.deleteAccount('nobody', 'nobody')).rejects.toBeInstanceOf(NotFoundError);
    await accounts.createKey({ account: 'alice', type: 'access', name: 'r' });
    const made = await silos.create('alice', { file_name: 'x', file_data: {} });
    await expect(accounts.deleteAccount('alice', 'alice')).rejects.toThrow(/still has 1 key\(s\), 1 silo\(s\)/);
    await accounts.revokeKey({ account: 'alice', type: 'access', name: 'r', confirm: 'r' });
    await expect(accounts.deleteAccount('alice', 'alice')).rejects.toBeInstanceOf(ConflictError);
    await silos.delete('alice', made.file_uuid);
    await accounts.deleteAccount('alice', 'alice');
    expect(await accounts.getAccount('alice')).toBeUndefined();
    expect((await accounts.listAccounts()).map((a) => a.name)).toEqual(['bob']);
    // Its audit log went with it: an account made again under its name starts with none of it.
    await accounts.createAccount('alice');
    expect(await storage.listAudit('alice', { offset: 0, limit: 10 })).toEqual({ total: 0, entries: [] });
  });
});

describe('keys', () => {
  it('issues a manage key once: a prefixed random value, only its hash at rest', async () => {
    const created = await accounts.createKey({ account: 'alice', type: 'manage', name: 'deploy' });
    expect(created.key).toMatch(/^silo_man_[A-Za-z0-9_-]{43,}$/);
    expect(created).toMatchObject({ type: 'manage', name: 'deploy', account: 'alice', duration: '30d' });
    expect(created.expires_at).toBe(new Date(T0 + 30 * DAY).toISOString());
    expect(atRest()).not.toContain(created.key);
    expect(atRest()).not.toContain(created.key.slice('silo_man_'.length));
    const access = await accounts.createKey({ account: 'alice', type: 'access', name: 'reader' });
    expect(access.key).toMatch(/^silo_acc_[A-Za-z0-9_-]{43,}$/);
    expect(access).not.toHaveProperty('expires_at');
    expect(access).not.toHaveProperty('duration');
  });

  it('never issues the same value twice', async () => {
    const owners = ['v1', 'v2', 'v3', 'v4'];
    for (const owner of owners) await accounts.createAccount(owner);
    const values = await Promise.all(
      Array.from({ length: 48 }, (_, i) => accounts.createKey({ account: owners[i % 4]!, type: 'access', name: `k${i}` })),
    );
    expect(new Set(values.map((v) => v.key)).size).toBe(48);
  });

  it('holds the key cap against concurrent creates', async () => {
    await accounts.createAccount('racer');
    const results = await Promise.allSettled(
      Array.from({ length: 30 }, (_, i) => accounts.createKey({ account: 'racer', type: 'access', name: `k${i}` })),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(20);
    for (const r of results) if (r.status === 'rejected') expect(r.reason).toMatchObject({ status: 422, detail: [expect.objectContaining({ type: 'too_many_keys' })] });
    expect(await accounts.listKeys('racer')).toHaveLength(20);
  });

  it.each(MANAGE_KEY_DURATIONS)('gives a manage key of duration %s its expiry', async (duration) => {
    const created = await accounts.createKey({ account: 'alice', type: 'manage', name: duration, duration });
    const days = { '7d': 7, '30d': 30, '90d': 90, '365d': 365, never: undefined }[duration];
    expect(created.expires_at).toBe(days === undefined ? null : new Date(T0 + days * DAY).toISOString());
  });

  it('treats an expired manage key as invalid, from its expiry instant on', async () => {
    const created = await accounts.createKey({ account: 'alice', type: 'manage', name: 'week', duration: '7d' });
    const forever = await accounts.createKey({ account: 'alice', type: 'manage', name: 'forever', duration: 'never' });
    clock = T0 + 7 * DAY - 1;
    expect((await accounts.authenticate(created.key, 'manage')).account).toBe('alice');
    clock = T0 + 7 * DAY;
    await expect(accounts.authenticate(created.key, 'manage')).rejects.toBeInstanceOf(UnauthorizedError);
    clock = T0 + 10_000 * DAY;
    expect((await accounts.authenticate(forever.key, 'manage')).keyName).toBe('forever');
  });

  it('refuses a bad duration, for either key type', async () => {
    await expect(
      accounts.createKey({ account: 'alice', type: 'manage', name: 'x', duration: '1d' as '7d' }),
    ).rejects.toBeInstanceOf(BadRequestError);
    await expect(accounts.createKey({ account: 'alice', type: 'access', name: 'x', duration: '1d' as '7d' })).rejects.toBeInstanceOf(
      BadRequestError,
    );
  });

  it('gives an access key an expiry only when asked, and treats it as invalid from then on', async () => {
    const week = await accounts.createKey({ account: 'alice', type: 'access', name: 'week', duration: '7d' });
    expect(week).toMatchObject({ type: 'access', duration: '7d', expires_at: new Date(T0 + 7 * DAY).toISOString() });
    const forever = await accounts.createKey({ account: 'alice', type: 'access', name: 'forever', duration: 'never' });
    expect(forever).not.toHaveProperty('expires_at');
    expect((await accounts.listKeys('alice')).find((k) => k.name === 'week')).toMatchObject({ duration: '7d', expires_at: week.expires_at });
    clock = T0 + 7 * DAY - 1;
    expect((await accounts.authenticate(week.key, 'access')).keyName).toBe('week');
    clock = T0 + 7 * DAY;
    await expect(accounts.authenticate(week.key, 'access')).rejects.toBeInstanceOf(UnauthorizedError);
    expect((await accounts.authenticate(forever.key, 'access')).keyName).toBe('forever');
  });

  it('refuses keys for an account that does not exist, and blank or odd names', async () => {
    await expect(accounts.createKey({ account: 'nobody', type: 'access', name: 'x' })).rejects.toBeInstanceOf(NotFoundError);
    for (const name of ['', '   ', 'tab\there', 'x'.repeat(101)]) {
      await expect(accounts.createKey({ account: 'alice', type: 'access', name })).rejects.toBeInstanceOf(BadRequestError);
    }
  });

  it('keeps names unique per account and type', async () => {
    await accounts.createKey({ account: 'alice', type: 'access', name: 'ci' });
    await expect(accounts.createKey({ account: 'alice', type: 'access', name: 'ci' })).rejects.toBeInstanceOf(ConflictError);
    await accounts.createKey({ account: 'alice', type: 'manage', name: 'ci' });
    await accounts.createKey({ account: 'bob', type: 'access', name: 'ci' });
  });

  it('lists keys without values or hashes', async () => {
    const made = [
      await accounts.createKey({ account: 'alice', type: 'manage', name: 'm', duration: 'never' }),
      await accounts.createKey({ account: 'alice', type: 'access', name: 'a' }),
    ];
    await accounts.createKey({ account: 'bob', type: 'access', name: 'b' });
    const listed = await accounts.listKeys('alice');
    expect(listed).toHaveLength(2);
    for (const info of listed) {
      expect(info).not.toHaveProperty('key');
      expect(info).not.toHaveProperty('hash');
      expect(JSON.stringify(info)).not.toMatch(/silo_(man|acc)_/);
    }
    expect(listed.find((k) => k.type === 'manage')).toEqual({
      type: 'manage',
      name: 'm',
      account: 'alice',
      created_at: made[0]!.created_at,
      duration: 'never',
      expires_at: null,
    });
    await expect(accounts.listKeys('nobody')).rejects.toBeInstanceOf(NotFoundError);
  });

  it('revokes only with the name confirmed, and the key stops working at once', async () => {
    const created = await accounts.createKey({ account: 'alice', type: 'access', name: 'reader' });
    await expect(
      accounts.revokeKey({ account: 'alice', type: 'access', name: 'reader', confirm: 'Reader' }),
    ).rejects.toBeInstanceOf(BadRequestError);
    expect((await accounts.authenticate(created.key, 'access')).keyName).toBe('reader');
    await expect(
      accounts.revokeKey({ account: 'alice', type: 'manage', name: 'reader', confirm: 'reader' }),
    ).rejects.toBeInstanceOf(NotFoundError);
    await expect(
      accounts.revokeKey({ account: 'bob', type: 'access', name: 'reader', confirm: 'reader' }),
    ).rejects.toBeInstanceOf(NotFoundError);
    await accounts.revokeKey({ account: 'alice', type: 'access', name: 'reader', confirm: 'reader' });
    await expect(accounts.authenticate(created.key, 'access')).rejects.toBeInstanceOf(UnauthorizedError);
    expect(await accounts.listKeys('alice')).toEqual([]);
    // The name is free again; the old value stays dead.
    await accounts.createKey({ account: 'alice', type: 'access', name: 'reader' });
    await expect(accounts.authenticate(created.key, 'access')).rejects.toBeInstanceOf(UnauthorizedError);
  });

  describe('authenticate', () => {
    it('names the missing header', async () => {
      await expect(accounts.authenticate(undefined, 'manage')).rejects.toThrow(/X-MAN-API header missing/);
      await expect(accounts.authenticate('', 'access')).rejects.toThrow(/X-SILO-KEY header missing/);
    });

    it('refuses a key of the other type, unknown keys and garbage, never echoing the value', async () => {
      const manage = await accounts.createKey({ account: 'alice', type: 'manage', name: 'm' });
      const access = await accounts.createKey({ account: 'alice', type: 'access', name: 'a' });
      const attempts: [string, 'manage' | 'access'][] = [
        [access.key, 'manage'],
        [manage.key, 'access'],
        [`silo_man_${'A'.repeat(43)}`, 'manage'],
        [manage.key.slice(0, -1), 'manage'],
        [`${manage.key}x`, 'manage'],
        ['x'.repeat(10_000), 'manage'],
        ['silo_acc_\u0000💥', 'access'],
      ];
      for (const [value, type] of attempts) {
        const error = await accounts.authenticate(value, type).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(UnauthorizedError);
        expect((error as Error).message).not.toContain(value);
        expect((error as Error).message).not.toContain(value.slice(9, 20));
      }
    });

    it('resolves the principal of a valid key', async () => {
      const created = await accounts.createKey({ account: 'bob', type: 'manage', name: 'ops' });
      expect(await accounts.authenticate(created.key, 'manage')).toEqual({ account: 'bob', keyType: 'manage', keyName: 'ops' });
    });
  });
});

describe('silos', () => {
  it('creates with the defaults: region api, private, equal timestamps, a v4 uuid', async () => {
    const record = await silos.create('alice', { file_name: 'first', file_data: { a: 1 } });
    expect(record.file_uuid).toMatch(UUID_V4);
    expect(record).toMatchObject({ file_name: 'first', region_name: 'api', is_public: false, account: 'alice', size: 7 });
    expect(record.created_at).toMatch(RFC3339_MS_UTC);
    expect(record.created_at).toBe('2026-03-01T12:00:00.000Z');
    expect(record.updated_at).toBe(record.created_at);
    expect(record.version).toBe(1);
    expect(record.etag).toMatch(/^[A-Za-z0-9_-]{16}$/);
    expect(await silos.meta('alice', record.file_uuid)).toEqual(record);
  });

  it('keeps what an update omits and replaces file_data whole', async () => {
    const created = await silos.create('alice', {
      file_name: 'n',
      file_data: { keep: 1, drop: 2 },
      region_name: 'sg-01-api',
      is_public: true,
    });
    const updated = await silos.update('alice', created.file_uuid, { file_data: { fresh: true } });
    expect(updated.record).toMatchObject({ file_name: 'n', region_name: 'sg-01-api', is_public: true });
    expect(updated.text).toBe('{"fresh":true}');
    const renamed = await silos.update('alice', created.file_uuid, { file_name: 'm', is_public: false });
    expect(renamed.text).toBe('{"fresh":true}');
    expect(renamed.record).toMatchObject({ file_name: 'm', is_public: false, region_name: 'sg-01-api', created_at: created.created_at });
  });

  it('moves updated_at forward on every update, even within one millisecond', async () => {
    const created = await silos.create('alice', { file_name: 'n', file_data: {} });
    const stamps = [created.updated_at];
    const versions = [created.etag];
    for (let i = 0; i < 5; i++) {
      const { record } = await silos.update('alice', created.file_uuid, { file_name: `n${i}` });
      stamps.push(record.updated_at);
      versions.push(record.etag);
      expect(record.version).toBe(i + 2);
      expect(record.updated_at).toMatch(RFC3339_MS_UTC);
      expect(record.created_at).toBe(created.created_at);
    }
    clock = T0 - 60_000; // the clock steps back
    stamps.push((await silos.update('alice', created.file_uuid, { is_public: true })).record.updated_at);
    for (let i = 1; i < stamps.length; i++) expect(Date.parse(stamps[i]!)).toBeGreaterThan(Date.parse(stamps[i - 1]!));
    expect(new Set(versions).size).toBe(versions.length);
  });

  it('uses the real time when it is later', async () => {
    const created = await silos.create('alice', { file_name: 'n', file_data: {} });
    clock = T0 + 5000;
    expect((await silos.update('alice', created.file_uuid, { file_name: 'renamed' })).record.updated_at).toBe('2026-03-01T12:00:05.000Z');
  });

  describe('size limit per plan', () => {
    beforeEach(async () => {
      await accounts.createAccount('small', 'tiny');
    });

    it('accepts file_data of exactly the limit and refuses one byte more, stating the limit', async () => {
      // {"s":"..."} is 8 bytes around the string: 12 characters make 20 bytes.
      await silos.create('small', { file_name: 'ok', file_data: { s: 'x'.repeat(12) } });
      const error = await silos.create('small', { file_name: 'no', file_data: { s: 'x'.repeat(13) } }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(PayloadTooLargeError);
      expect((error as PayloadTooLargeError).limitBytes).toBe(20);
      expect((error as Error).message).toContain('20 bytes');
    });

    it('counts UTF-8 bytes, not characters', async () => {
      // é is 2 bytes in UTF-8: 6 make 20 bytes in all; 7 make 22 bytes though only 15 characters.
      await silos.create('small', { file_name: 'ok', file_data: { s: 'é'.repeat(6) } });
      await expect(silos.create('small', { file_name: 'no', file_data: { s: 'é'.repeat(7) } })).rejects.toBeInstanceOf(
        PayloadTooLargeError,
      );
      await expect(silos.create('small', { file_name: 'no', file_data: { s: '😀'.repeat(4) } })).rejects.toBeInstanceOf(
        PayloadTooLargeError,
      );
    });

    it('applies to updates too, and leaves the silo as it was', async () => {
      const created = await silos.create('small', { file_name: 'ok', file_data: {} });
      await expect(
        silos.update('small', created.file_uuid, { file_data: { s: 'x'.repeat(100) } }),
      ).rejects.toBeInstanceOf(PayloadTooLargeError);
      expect((await silos.read('small', created.file_uuid)).text).toBe('{}');
    });

    it('gives the default plan 10 MB', async () => {
      const big = 'x'.repeat(10_000_000 - 8);
      await silos.create('alice', { file_name: 'max', file_data: { s: big } });
      await expect(silos.create('alice', { file_name: 'over', file_data: { s: `${big}x` } })).rejects.toThrow(/10 MB/);
    });
  });

  describe('data access (contract sections 1, 3 and 5)', () => {
    it('serves a private silo to its account on its region only', async () => {
      const created = await silos.create('alice', { file_name: 'p', file_data: [{ a: 1 }], region_name: 'sg-01-api' });
      expect((await silos.readData('sg-01-api', created.file_uuid, 'alice')).text).toBe('[{"a":1}]');
      for (const region of REGIONS.filter((r) => r !== 'sg-01-api')) {
        await expect(silos.readData(region, created.file_uuid, 'alice')).rejects.toBeInstanceOf(NotFoundError);
      }
      await expect(silos.readData('sg-01-api', created.file_uuid, 'bob')).rejects.toBeInstanceOf(NotFoundError);
      await expect(silos.readData('sg-01-api', created.file_uuid, undefined)).rejects.toBeInstanceOf(NotFoundError);
    });

    it('gives a public read nothing when the version it opened is gone and the newer one is private', async () => {
      await accounts.createAccount('frida', 'brief'); // history of one: a write prunes the version before it
      const created = await silos.create('frida', { file_name: 'p', file_data: { v: 'public' }, is_public: true });
      const publicly = await silos.openData('api', created.file_uuid, undefined);
      const privately = await silos.openData('api', created.file_uuid, 'frida');
      await silos.update('frida', created.file_uuid, { is_public: false, file_data: { v: 'private' } });
      await expect(publicly.load()).rejects.toBeInstanceOf(NotFoundError);
      // Its owner reading it gets the newer version, as before.
      expect((await privately.load()).text).toBe('{"v":"private"}');
    });

    it('serves a public silo at the public address to anyone, and privately to its own account only', async () => {
      const created = await silos.create('alice', { file_name: 'p', file_data: {}, is_public: true });
      expect((await silos.readData('api', created.file_uuid, undefined)).text).toBe('{}');
      expect((await silos.readData('api', created.file_uuid, 'alice')).text).toBe('{}');
      await expect(silos.readData('api', created.file_uuid, 'bob')).rejects.toBeInstanceOf(NotFoundError);
      await silos.update('alice', created.file_uuid, { is_public: false });
      await expect(silos.readData('api', created.file_uuid, undefined)).rejects.toBeInstanceOf(NotFoundError);
    });

    it('answers a silo of another account exactly as a missing one', async () => {
      const created = await silos.create('alice', { file_name: 'p', file_data: {} });
      const missing = '3f1e0c2a-9d4b-4c6e-8a7f-0123456789ab';
      const messages = async (uuid: string) =>
        Promise.all(
          [
            silos.meta('bob', uuid),
            silos.read('bob', uuid),
            silos.update('bob', uuid, { file_name: 'x' }),
            silos.delete('bob', uuid),
            silos.readData('api', uuid, 'bob'),
          ].map((p) =>
            p.then(
              () => 'resolved',
              (e: unknown) => `${(e as Error).constructor.name}: ${(e as Error).message}`,
            ),
          ),
        );
      expect(await messages(created.file_uuid)).toEqual(await messages(missing));
      expect((await messages(missing))[0]).toBe('NotFoundError: Silo not found');
      expect((await silos.read('alice', created.file_uuid)).text).toBe('{}');
    });

    it('answers a malformed uuid as missing, and reads any case of a real one', async () => {
      const created = await silos.create('alice', { file_name: 'p', file_data: {}, is_public: true });
      for (const bad of ['', 'nope', `${created.file_uuid}x`, '../meta', created.file_uuid.replaceAll('-', '')]) {
        await expect(silos.meta('alice', bad)).rejects.toBeInstanceOf(NotFoundError);
        await expect(silos.readData('api', bad, undefined)).rejects.toBeInstanceOf(NotFoundError);
      }
      expect((await silos.meta('alice', created.file_uuid.toUpperCase())).file_uuid).toBe(created.file_uuid);
    });
  });

  describe('If-Match', () => {
    it('refuses a stale version with 412 and applies the current one', async () => {
      const created = await silos.create('alice', { file_name: 'v', file_data: {} });
      const next = await silos.update('alice', created.file_uuid, { file_name: 'w' }, [created.etag]);
      await expect(silos.update('alice', created.file_uuid, { file_name: 'x' }, [created.etag])).rejects.toBeInstanceOf(
        PreconditionFailedError,
      );
      await expect(silos.delete('alice', created.file_uuid, ['not-a-version'])).rejects.toBeInstanceOf(PreconditionFailedError);
      await expect(silos.delete('alice', created.file_uuid, [])).rejects.toBeInstanceOf(PreconditionFailedError);
      expect((await silos.meta('alice', created.file_uuid)).file_name).toBe('w');
      await silos.delete('alice', created.file_uuid, [next.record.etag]);
    });

    it('answers 404, not 412, for a silo the account cannot see', async () => {
      const created = await silos.create('alice', { file_name: 'v', file_data: {} });
      await expect(silos.update('bob', created.file_uuid, { file_name: 'x' }, ['stale'])).rejects.toBeInstanceOf(NotFoundError);
    });
  });

  describe('the programmatic API checks what it is given as the HTTP API does', () => {
    it('refuses bad fields and data with the issues a request gets, storing nothing', async () => {
      const refused = async (call: Promise<unknown>, ...types: string[]) => {
        const error = await call.then(() => undefined, (e: unknown) => e);
        expect(error).toBeInstanceOf(ValidationError);
        expect((error as ValidationError).detail.map((d) => d.type)).toEqual(types);
      };
      const anyway = (value: unknown) => value as never; // what a script in plain JavaScript may pass
      await refused(silos.create('alice', anyway({ file_name: '', file_data: 5 })), 'string_too_short', 'dict_type');
      await refused(silos.create('alice', anyway({ file_data: [1, 2] })), 'missing', 'dict_type', 'dict_type');
      await refused(silos.create('alice', anyway({ file_name: 'm', file_data: {}, region_name: 'mars' })), 'enum');
      await refused(silos.createText('alice', anyway({ file_name: 'x'.repeat(256) }), '{}'), 'too_long');
      expect((await silos.list('alice', 1, 10)).metadata.total_items).toBe(0);
      const made = await silos.create('alice', { file_name: 'ok', file_data: {} });
      await refused(silos.update('alice', made.file_uuid, anyway({ is_public: 'yes' })), 'bool_type');
      await refused(silos.update('alice', made.file_uuid, {}), 'missing');
    });
  });

  describe('listing', () => {
    it('keeps page and per_page in range', async () => {
      for (let i = 0; i < 3; i++) await silos.create('alice', { file_name: `f${i}`, file_data: {} });
      expect((await silos.list('alice', 0, 0)).metadata).toEqual({ total_items: 3, per_page: 1, page_no: 1 });
      expect((await silos.list('alice', 1, 1000)).metadata.per_page).toBe(100);
      expect((await silos.list('alice', Number.NaN, Number.NaN)).metadata).toEqual({ total_items: 3, per_page: 25, page_no: 1 });
      const far = await silos.list('alice', Number.MAX_SAFE_INTEGER, 100);
      expect(far).toEqual({ metadata: { total_items: 3, per_page: 100, page_no: Number.MAX_SAFE_INTEGER }, silos: [] });
    });

    it('shows only the caller’s silos', async () => {
      const mine = await silos.create('alice', { file_name: 'a', file_data: {} });
      await silos.create('bob', { file_name: 'b', file_data: {} });
      const page = await silos.list('alice', 1, 25);
      expect(page.metadata.total_items).toBe(1);
      expect(page.silos.map((s) => s.file_uuid)).toEqual([mine.file_uuid]);
    });
  });
});
