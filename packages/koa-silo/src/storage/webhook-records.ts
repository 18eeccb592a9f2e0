/**
 * Webhooks in storage: each account's webhooks (one JSON list, beside the list of accounts that
 * have any, both in the directory), the outbox of pending deliveries (an entry per delivery and a
 * per-account sorted index by due time, both in the account's slot; written by the commits of
 * silo writes, see versions.ts), and each webhook's recent attempts.
 *
 * Every change is a read-modify-write: read, compute, commit expecting what was read, again if it moved.
 * A delivery is claimed the same way (its entry rewritten with the claim's end as its due time),
 * so two instances never attempt one delivery at once.
 */
import { parseOr } from './stored-json.js';
import type { DeliveryAttempt, PendingDelivery, StoredWebhook } from '../model/index.js';
import type { Atomic } from './atomic.js';
import type { AuditStorage } from './audit-records.js';
import type { KeyvTextStore } from './keyv-text-store.js';
import type { StorageKeys } from './storage-keys.js';
import { readModifyWriteOf } from './read-modify-write.js';
import type { ListIndex, WebhookRecords } from './types.js';

/** Attempts kept per webhook for its deliveries list. */
const ATTEMPTS_KEPT = 50;


interface Deps {
  main: KeyvTextStore;
  keys: StorageKeys;
  atomic: Atomic;
  outbox: ListIndex;
  /** Where a change's audit entry joins its commit. */
  audit: Pick<AuditStorage, 'auditWrites'>;
}

export function createWebhookRecords({ main, keys, atomic, outbox, audit }: Deps): WebhookRecords {
  const readModifyWrite = readModifyWriteOf(main, atomic);

  const hooksOf = (text: string | undefined) => parseOr<StoredWebhook[]>(text, []);

  return {
    async listWebhooks(account) {
      return hooksOf(await main.get(keys.webhooks(account)));
    },

    insertWebhook(hook, max, entry) {
      const listKey = keys.webhooks(hook.account);
      return readModifyWrite([listKey, keys.hooked()], ([list, hooked]) => {
        const hooks = hooksOf(list);
        if (hooks.length >= max) return { result: false };
        const accounts = parseOr<string[]>(hooked, []);
        const recorded = audit.auditWrites(entry, 'directory');
        return {
          result: true,
          set: [
            [listKey, JSON.stringify([...hooks, hook])],
            ...(accounts.includes(hook.account) ? [] : [[keys.hooked(), JSON.stringify([...accounts, hook.account])] as [string, string]]),
            ...recorded.set,
          ],
          indexAdd: recorded.indexAdd,
          auditAdd: recorded.auditAdd,
        };
      });
    },

    updateWebhook(account, id, change) {
      const listKey = keys.webhooks(account);
      return readModifyWrite([listKey], ([list]) => {
        const hooks = hooksOf(list);
        const at = hooks.findIndex((h) => h.id === id);
        if (at < 0) return { result: undefined };
        const next = change(hooks[at]!);
        if (JSON.stringify(next) === JSON.stringify(hooks[at])) return { result: next };
        return { result: next, set: [[listKey, JSON.stringify(hooks.map((h, n) => (n === at ? next : h)))]] };
      });
    },

    removeWebhook(account, id, entry) {
      const listKey = keys.webhooks(account);
      return readModifyWrite([listKey], ([list]) => {
        const hooks = hooksOf(list);
        const found = hooks.find((h) => h.id === id);
        if (!found) return { result: undefined };
        const recorded = audit.auditWrites(entry, 'directory');
        // The account stays on the worker's round until the worker has dropped its pending deliveries.
        return { result: found, set: [[listKey, JSON.stringify(hooks.filter((h) => h !== found))], ...recorded.set], indexAdd: recorded.indexAdd, auditAdd: recorded.auditAdd };
      });
    },

    async unhookIfIdle(account) {
      await readModifyWrite([keys.webhooks(account), keys.hooked()], ([list, hooked]) => {
        const accounts = parseOr<string[]>(hooked, []);
        if (hooksOf(list).length > 0 || !accounts.includes(account)) return { result: undefined };
        return { result: undefined, set: [[keys.hooked(), JSON.stringify(accounts.filter((a) => a !== account))]] };
      });
    },

    async hookedAccounts() {
      return parseOr<string[]>(await main.get(keys.hooked()), []);
    },

    async pendingDeliveries(account, limit) {
      const { uuids: ids } = await outbox.page(account, 0, limit);
      const texts = await main.getMany(ids.map((id) => keys.delivery(account, id)));
      return texts.flatMap((text) => (text === undefined ? [] : [{ delivery: JSON.parse(text) as PendingDelivery, text }]));
    },

    replaceDelivery(account, id, text, next) {
      const key = keys.delivery(account, id);
      const index = keys.outbox(account);
      return atomic.apply({
        expect: [[key, text]],
        set: next ? [[key, JSON.stringify(next)]] : [],
        delete: next ? [] : [key],
        indexAdd: next ? [[index, next.due, id]] : [],
        indexRemove: next ? [] : [[index, id]],
      });
    },

    async recordAttempt(account, webhook, attempt) {
      const key = keys.deliveries(account, webhook);
      await readModifyWrite([key], ([list]) => ({
        result: undefined,
        set: [[key, JSON.stringify([attempt, ...parseOr<DeliveryAttempt[]>(list, [])].slice(0, ATTEMPTS_KEPT))]],
      }));
    },

    async listAttempts(account, webhook) {
      return parseOr<DeliveryAttempt[]>(await main.get(keys.deliveries(account, webhook)), []);
    },

    outboxSize: (account) => outbox.count(account),
  };
}
