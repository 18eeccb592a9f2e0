/**
 * Undoing a failed import. An import writes into empty storage only, so what it wrote is exactly
 * what the accounts it created hold: their console users (first: nobody signs in to an account
 * being removed), each of their silos (found through the listing index, page by page, so memory
 * stays flat), their webhooks, their keys, their audit entries, then the accounts themselves. Every step is one of
 * storage's own atomic removals, so a rollback cut short leaves whole records, never parts of
 * one, and running it again finishes the job.
 *
 * It cannot undo what another writer did meanwhile (a server started on the target during the
 * import): that is why import refuses a target that is not empty, and why the command's message
 * says so when the rollback itself fails.
 */
import type { SiloStorage } from 'koa-silo';

const PAGE = 100;

/** Removes every console user, silo, webhook and key of `accounts`, then the accounts. Throws when a step fails. */
export async function removeImported(storage: SiloStorage, accounts: readonly string[]): Promise<void> {
  const created = new Set(accounts);
  for (const user of await storage.listUsers()) {
    if (created.has(user.account)) await storage.removeUser(user.name);
  }
  for (const account of [...accounts].reverse()) {
    for (;;) {
      const { uuids } = await storage.index.page(account, 0, PAGE);
      if (uuids.length === 0) break;
      const heads = await storage.getHeads(account, uuids);
      const removed = await Promise.all(heads.map((head) => (head ? storage.deleteSilo(head) : false)));
      if (!removed.some(Boolean)) throw new Error(`silos of account ${JSON.stringify(account)} could not be removed (is a server writing to this store?)`);
    }
    for (const hook of await storage.listWebhooks(account)) await storage.removeWebhook(account, hook.id);
    // Off the delivery worker's round too: an import writes no pending delivery, so none waits.
    await storage.unhookIfIdle(account);
    for (const key of await storage.listKeys(account)) await storage.removeKey(account, key.type, key.name);
    // Every audit entry of the account (an entry is never older than the end of time).
    await storage.pruneAudit(account, Number.POSITIVE_INFINITY);
    await storage.removeAccount(account);
  }
}
