/**
 * Console users and sessions in storage: one record per user beside a list of their names (both in
 * the directory, changed together), and one record per session under the hash of its token.
 */
import { parseOr } from './stored-json.js';
import type { ConsoleSession, KnownNetwork, StoredUser } from '../model/index.js';
import type { ConsoleRecords } from './types.js';
import type { AuditStorage } from './audit-records.js';
import type { KeyvTextStore } from './keyv-text-store.js';
import type { ReadModifyWrite } from './read-modify-write.js';
import type { StorageKeys } from './storage-keys.js';

interface Deps {
  main: KeyvTextStore;
  keys: StorageKeys;
  readModifyWrite: ReadModifyWrite;
  /** Where a change's audit entry joins its commit (users, sign-ins, sign-outs). */
  audit: Pick<AuditStorage, 'auditWrites'>;
}

export function createConsoleRecords({ main, keys, readModifyWrite, audit }: Deps): ConsoleRecords {
  return {
    async getUser(name) {
      const text = await main.get(keys.user(name));
      return text === undefined ? undefined : (JSON.parse(text) as StoredUser);
    },

    insertUser(user, entry) {
      return readModifyWrite([keys.user(user.name), keys.users()], ([existing, list]) => {
        const names = parseOr<string[]>(list, []);
        if (existing !== undefined || names.includes(user.name)) return { result: false };
        const recorded = audit.auditWrites(entry, 'directory');
        return {
          result: true,
          set: [[keys.user(user.name), JSON.stringify(user)], [keys.users(), JSON.stringify([...names, user.name])], ...recorded.set],
          indexAdd: recorded.indexAdd,
          auditAdd: recorded.auditAdd,
        };
      });
    },

    removeUser(name, entryOf) {
      return readModifyWrite([keys.user(name), keys.users()], ([existing, list]) => {
        if (existing === undefined) return { result: undefined };
        const user = JSON.parse(existing) as StoredUser;
        const names = parseOr<string[]>(list, []).filter((n) => n !== name);
        const recorded = audit.auditWrites(entryOf?.(user), 'directory');
        return {
          result: user,
          set: [[keys.users(), JSON.stringify(names)], ...recorded.set],
          delete: [keys.user(name), keys.signedInFrom(name)],
          indexAdd: recorded.indexAdd,
          auditAdd: recorded.auditAdd,
        };
      });
    },

    async listUsers() {
      const names = parseOr<string[]>(await main.get(keys.users()), []);
      const texts = await main.getMany(names.map((name) => keys.user(name)));
      return texts.flatMap((text) => (text === undefined ? [] : [JSON.parse(text) as StoredUser]));
    },

    async getSignedInFrom(name) {
      return parseOr<KnownNetwork[]>(await main.get(keys.signedInFrom(name)), []);
    },

    async putSignedInFrom(name, networks) {
      await main.set(keys.signedInFrom(name), JSON.stringify(networks));
    },

    async getSession(hash) {
      const text = await main.get(keys.session(hash));
      return text === undefined ? undefined : (JSON.parse(text) as ConsoleSession);
    },

    async putSession(hash, session, entry) {
      if (!entry) return main.set(keys.session(hash), JSON.stringify(session));
      // A sign-in: the session and its audit entry in one commit (the read expects nothing).
      const recorded = audit.auditWrites(entry, 'directory');
      await readModifyWrite([], () => ({ result: undefined, set: [[keys.session(hash), JSON.stringify(session)], ...recorded.set], indexAdd: recorded.indexAdd, auditAdd: recorded.auditAdd }));
    },

    async deleteSession(hash, entryOf) {
      if (!entryOf) return main.delete(keys.session(hash));
      // A sign-out: the session's removal and its entry in one commit, only while the session is there.
      await readModifyWrite([keys.session(hash)], ([text]) => {
        if (text === undefined) return { result: undefined };
        const recorded = audit.auditWrites(entryOf(JSON.parse(text) as ConsoleSession), 'directory');
        return { result: undefined, set: recorded.set, delete: [keys.session(hash)], indexAdd: recorded.indexAdd, auditAdd: recorded.auditAdd };
      });
    },
  };
}
