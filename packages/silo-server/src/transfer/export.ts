/**
 * `silo export`'s walk of a storage: accounts, then keys, webhooks, console users and audit entries, then each
 * account's silos page by page of its listing index, each silo followed by its kept history with every version's data. Lines
 * are produced as the reader pulls them (an async generator), so a slow writer holds the walk
 * back and memory stays flat: at most a few silos' histories are held at once.
 *
 * The walk is consistent per silo (its head, history and data read together, again if a write
 * came in between), not across the store: exporting while servers write may miss or repeat a
 * silo created or deleted meanwhile. A listing total that changed during the walk is therefore
 * an error; export a store no server is writing to.
 */
import type { SiloHead, SiloStorage, VersionEntry } from 'koa-silo';
import { accountLine, auditLine, countsLine, emptyCounts, headerLine, keyLine, siloLine, userLine, versionLine, webhookLine, type Counts, type StoredUser } from './format.js';
import type { Progress } from './progress.js';

/** The store cannot be exported as it is (it changed meanwhile, or holds what the format cannot carry). */
export class ExportError extends Error {}

/** Silos per read of the listing index; audit entries per read of the audit log. */
const PAGE = 100;
const AUDIT_PAGE = 500;
/**
 * Silos read ahead of the one being written (each holds its history's data in memory): at most
 * this many, and only while their histories (estimated: versions × the current size) stay within
 * READ_AHEAD_CHARS, one at least.
 */
const READ_AHEAD = 4;
const READ_AHEAD_CHARS = 64 * 1024 * 1024;

/** A silo's history in characters, as far as its head tells (each kept version about as large as the current one). */
const historyChars = (head: SiloHead) => head.size * (head.version - head.oldest + 1);
/** Reads of one silo before a silo that keeps changing is an error. */
const ATTEMPTS = 3;

interface SiloLines {
  lines: string[];
  versions: number;
}

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from + 1 }, (_, i) => from + i);
}

/** Whether no write came between two reads of a head (every write gives a new version; a move, a new region). */
function sameHead(a: SiloHead, b: SiloHead): boolean {
  return a.version === b.version && a.oldest === b.oldest && a.region_name === b.region_name;
}

/** The lines of one silo: its head and every kept version with its data, read as one consistent whole. */
async function readSilo(storage: SiloStorage, first: SiloHead): Promise<SiloLines> {
  let head: SiloHead | undefined = first;
  for (let attempt = 0; attempt < ATTEMPTS && head; attempt++) {
    const entries = await storage.getVersions(head, range(head.oldest, head.version));
    const complete = entries.every((e): e is VersionEntry => e !== undefined);
    const texts = complete ? await Promise.all(entries.map((e) => storage.getVersionData(head!, e))) : [];
    if (complete && texts.every((t): t is string => t !== undefined)) {
      const current = head;
      return {
        lines: [siloLine(current), ...entries.map((e, i) => versionLine(current.file_uuid, e, texts[i]!))],
        versions: entries.length,
      };
    }
    // A write pruned or moved this history since the head was read: read the silo again.
    const read = head;
    head = await storage.getHead(head.file_uuid, head.account);
    if (head && sameHead(head, read)) {
      // Nothing wrote it meanwhile: what is missing is not in this storage at all.
      throw new ExportError(
        `silo ${head.file_uuid} (region ${head.region_name}) has versions or data missing from this storage: ` +
          'a configuration with region stores (SILO_STORE_URL_<REGION>) is read with those settings (silo export, or silo migrate without --from)',
      );
    }
  }
  throw new ExportError(`silo ${first.file_uuid} ${head ? 'kept changing' : 'was deleted'} while it was exported: export a store no server is writing to`);
}

/** Every silo of `account`, in listing order, read a few ahead of the one being yielded. */
async function* silosOf(storage: SiloStorage, account: string): AsyncGenerator<SiloLines> {
  const { total } = await storage.index.page(account, 0, 0);
  /** Heads listed and not yet read; reads under way, in listing order, with their estimates. */
  const listed: SiloHead[] = [];
  const pending: { read: Promise<SiloLines>; chars: number }[] = [];
  let ahead = 0;
  let offset = 0;
  let seen = 0;
  for (;;) {
    while (pending.length < READ_AHEAD) {
      if (listed.length === 0 && offset < total) {
        const { uuids } = await storage.index.page(account, offset, PAGE);
        offset += PAGE;
        const heads = await storage.getHeads(account, uuids);
        heads.forEach((head, i) => {
          if (!head) throw new ExportError(`silo ${uuids[i]} of account ${JSON.stringify(account)} was deleted while it was exported: export a store no server is writing to`);
          listed.push(head);
        });
        continue;
      }
      const head = listed[0];
      if (!head || (pending.length > 0 && ahead + historyChars(head) > READ_AHEAD_CHARS)) break;
      listed.shift();
      // A read starts as it is queued; each result is awaited in order below (a failure too: the
      // catch only keeps it from counting as unhandled before its turn).
      const read = readSilo(storage, head);
      read.catch(() => undefined);
      pending.push({ read, chars: historyChars(head) });
      ahead += historyChars(head);
    }
    const next = pending.shift();
    if (!next) break;
    const lines = await next.read;
    ahead -= next.chars;
    yield lines;
    seen++;
  }
  const after = (await storage.index.page(account, 0, 0)).total;
  if (after !== total || seen !== total) {
    throw new ExportError(`account ${JSON.stringify(account)} had ${total} silos when its export began and ${after} at its end: export a store no server is writing to`);
  }
}

/**
 * The console users of every account of `names`, by account as listed, then by name (code unit
 * order: no locale, the same on every machine). A user of an account that is not listed is an
 * error: an import would refuse it.
 */
async function usersOf(storage: SiloStorage, names: readonly string[]): Promise<StoredUser[]> {
  const users = await storage.listUsers();
  const rank = new Map(names.map((name, i) => [name, i]));
  for (const user of users) {
    if (!rank.has(user.account)) throw new ExportError(`console user ${JSON.stringify(user.name)} is of account ${JSON.stringify(user.account)}, which is not listed`);
  }
  return users.sort((a, b) => rank.get(a.account)! - rank.get(b.account)! || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/**
 * The export of `storage`, line by line (without newlines): the header, accounts, keys, webhooks
 * (with their signing secrets), console users (with their password hashes), silos with their
 * history, and the counts. `progress` hears of every silo. Pending webhook deliveries, attempt
 * logs and console sessions are not exported: an export is the store's state, and what the
 * source still owes its receivers the source delivers until it stops; users sign in again.
 */
export async function* exportLines(storage: SiloStorage, progress: Progress): AsyncGenerator<string> {
  const counts: Counts = emptyCounts();
  const names = await storage.listAccountNames();
  let silos = 0;
  for (const name of names) silos += (await storage.index.page(name, 0, 0)).total;
  progress.start(silos);

  yield headerLine(silos);
  for (const name of names) {
    const account = await storage.getAccount(name);
    if (!account) throw new ExportError(`account ${JSON.stringify(name)} is listed but has no record`);
    yield accountLine(account);
    counts.accounts++;
  }
  for (const name of names) {
    for (const key of await storage.listKeys(name)) {
      yield keyLine(key);
      counts.keys++;
    }
  }
  for (const name of names) {
    for (const hook of await storage.listWebhooks(name)) {
      if (hook.account !== name) throw new ExportError(`webhook ${JSON.stringify(hook.id)} is listed under account ${JSON.stringify(name)} but names account ${JSON.stringify(hook.account)}`);
      yield webhookLine(hook);
      counts.webhooks++;
    }
  }
  for (const user of await usersOf(storage, names)) {
    yield userLine(user);
    counts.users++;
  }
  for (const name of names) {
    const { total } = await storage.listAudit(name, { offset: 0, limit: 0 });
    let seen = 0;
    for (let offset = 0; offset < total; offset += AUDIT_PAGE) {
      const { entries } = await storage.listAudit(name, { offset, limit: AUDIT_PAGE });
      for (const entry of entries) {
        if (entry.account !== name) throw new ExportError(`audit entry ${JSON.stringify(entry.id)} is listed under account ${JSON.stringify(name)} but names account ${JSON.stringify(entry.account)}`);
        yield auditLine(entry);
        counts.audit++;
        seen++;
      }
    }
    if (seen !== total) throw new ExportError(`account ${JSON.stringify(name)} had ${total} audit entries when their export began and ${seen} were read: export a store no server is writing to`);
  }
  for (const name of names) {
    for await (const silo of silosOf(storage, name)) {
      for (const line of silo.lines) yield line;
      counts.silos++;
      counts.versions += silo.versions;
      progress.tick(1);
    }
  }
  yield countsLine(counts);
  progress.done(counts);
}
