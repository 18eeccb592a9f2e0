/**
 * Console users and sessions in storage: one record per user beside a list of their names (both in
 * the directory, changed together), and one record per session under the hash of its token.
 */
import { parseOr } from './stored-json.js';
import type { ConsoleSession, StoredUser } from '../model/index.js';
import type { ConsoleRecords } from './types.js';
import type { KeyvTextStore } from './keyv-text-store.js';
import type { ReadModifyWrite } from './read-modify-write.js';
import type { StorageKeys } from './storage-keys.js';


export function createConsoleRecords({ main, keys, readModifyWrite }: { main: KeyvTextStore; keys: StorageKeys; readModifyWrite: ReadModifyWrite }): ConsoleRecords {
  return {
    async getUser(name) {
      const text = await main.get(keys.user(name));
      return text === undefined ? undefined : (JSON.parse(text) as StoredUser);
    },

    insertUser(user) {
      return readModifyWrite([keys.user(user.name), keys.users()], ([existing, list]) => {
        const names = parseOr<string[]>(list, []);
        if (existing !== undefined || names.includes(user.name)) return { result: false };
        return { result: true, set: [[keys.user(user.name), JSON.stringify(user)], [keys.users(), JSON.stringify([...names, user.name])]] };
      });
    },

    removeUser(name) {
      return readModifyWrite([keys.user(name), keys.users()], ([existing, list]) => {
        if (existing === undefined) return { result: undefined };
        const names = parseOr<string[]>(list, []).filter((n) => n !== name);
        return { result: JSON.parse(existing) as StoredUser, set: [[keys.users(), JSON.stringify(names)]], delete: [keys.user(name)] };
      });
    },

    async listUsers() {
      const names = parseOr<string[]>(await main.get(keys.users()), []);
      const texts = await main.getMany(names.map((name) => keys.user(name)));
      return texts.flatMap((text) => (text === undefined ? [] : [JSON.parse(text) as StoredUser]));
    },

    async getSession(hash) {
      const text = await main.get(keys.session(hash));
      return text === undefined ? undefined : (JSON.parse(text) as ConsoleSession);
    },

    async putSession(hash, session) {
      await main.set(keys.session(hash), JSON.stringify(session));
    },

    async deleteSession(hash) {
      await main.delete(keys.session(hash));
    },
  };
}
