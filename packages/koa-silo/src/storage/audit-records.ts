/**
 * The audit log in storage (contract §19): one record per entry, and sorted indexes of them per
 * account: all its entries, those of each silo, those of each actor name. An entry is written by
 * the commit of the action it records (`auditWrites` gives the writes that join that batch), so
 * there is never an action without its entry nor an entry without its action, whatever instant a
 * crash picks. Entries are removed only by retention (`pruneAudit`), each with its index entries
 * in one commit.
 *
 * Order. An index's score is minus the entry's time in epoch milliseconds, so ascending order is
 * newest first, as the silo listing. An entry's id starts with its time (9 base-36 digits) and a
 * counter that falls within a process, so that entries of one millisecond made by one process
 * list newest first too, and the time of any member is read from the member itself: `since` is a
 * binary search of an index, never a scan.
 *
 * On a Redis Cluster, the entries of silo writes live in the account's slot and those of the
 * directory's records (keys, webhooks, users, sign-ins) in the directory's (storage-keys.ts): a
 * listing then merges the two parts by finding, with binary searches, where the page starts in
 * each. Elsewhere both parts are one and a page is one index read.
 *
 * This is the layout of the stores without an audit log of their own (an in-memory Map, Redis,
 * Redis Cluster). A store that has one (AuditLogAdapter: SQLite, PostgreSQL) keeps an entry as one
 * row instead (audit-log.ts), and `moveOut` carries what an older version wrote in this layout
 * there.
 */
import type { AuditEntry, NewAuditEntry } from '../model/index.js';
import type { Atomic } from './atomic.js';
import { randomText } from './ids.js';
import type { KeyvTextStore } from './keyv-text-store.js';
import type { AuditKeys, AuditShard, StorageKeys } from './storage-keys.js';
import type { AtomicBatch, AuditListing, AuditRecords, AuditRow, ListIndex } from './types.js';

/** Which part of an account's log an action's commit reaches (see storage-keys.ts). */
export type AuditPart = 'silos' | 'directory';

/** Entries removed per commit of a prune. */
const PRUNE_CHUNK = 200;

/** Entries a listing with both `silo` and `actor` looks through before it gives up (422 at the HTTP layer). */
export const MAX_AUDIT_SCAN = 10_000;

/** The listing could not be answered within MAX_AUDIT_SCAN entries. */
export class AuditScanTooLargeError extends Error {}

const TIME_DIGITS = 9;
let counter = 0;

/** A new entry id: its time, then a counter falling within this process, then random text. */
export function newAuditId(timeMs: number): string {
  counter = (counter + 1) % 0x7fffffff;
  const falling = (0x7fffffff - counter).toString(36).padStart(6, '0');
  return `${Math.max(0, Math.floor(timeMs)).toString(36).padStart(TIME_DIGITS, '0')}${falling}${randomText(6)}`;
}

/** Whether `id` could be one that newAuditId made (what an import accepts). */
export function isAuditId(id: string): boolean {
  return Number.isFinite(auditIdTime(id)) && id.length > TIME_DIGITS;
}

/** The time (epoch ms) an entry id starts with; NaN for anything else. */
export function auditIdTime(id: string): number {
  return parseInt(id.slice(0, TIME_DIGITS), 36);
}

/** Index order: newest first, then by id. Negative when `a` comes first. */
function compareIds(a: string, b: string): number {
  const ta = auditIdTime(a);
  const tb = auditIdTime(b);
  if (ta !== tb) return tb - ta;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** An index read as an array (positions from the newest), cut to its first `length` members. */
interface View {
  shard: AuditShard;
  key: string;
  length: number;
  at(offset: number, limit: number): Promise<string[]>;
}

interface Deps {
  main: KeyvTextStore;
  keys: StorageKeys;
  atomic: Atomic;
  /** Reads a sorted index by its key (the `account` argument is the index key itself). */
  index: ListIndex;
}

/** The writes that record an audit entry in the commit of its action. */
export type AuditWrites = Pick<AtomicBatch, 'set' | 'indexAdd'> & { auditAdd?: AuditRow[] };

export interface AuditStorage extends AuditRecords {
  /** The writes that record `entry` in a commit of `part`: its record and index entries, or its row. */
  auditWrites(entry: NewAuditEntry | undefined, part: AuditPart): AuditWrites;
}

/** The generic layout's own: what moves its entries to a store's audit log (audit-log.ts). */
export interface LegacyAuditStorage extends AuditStorage {
  /**
   * Removes up to `max` of the account's entries, oldest first, each commit also writing
   * `carry(entries)`'s rows: entries move without ever being in both places or in none. Commits
   * expect every entry they remove, so processes moving one account at once move each entry once.
   */
  moveOut(account: string, carry: (entries: { entry: AuditEntry; part: AuditPart }[]) => AuditRow[], max?: number): Promise<number>;
}

export function createAuditRecords({ main, keys, atomic, index }: Deps): LegacyAuditStorage {
  const writes = (entry: AuditEntry, part: AuditPart): Pick<AtomicBatch, 'set' | 'indexAdd'> => {
    const audit = keys.audit(entry.account);
    const shard = audit[part];
    const score = -Date.parse(entry.time);
    const indexAdd: AtomicBatch['indexAdd'] = [
      [shard.index, score, entry.id],
      [shard.actor(entry.actor.name), score, entry.id],
    ];
    if (entry.file_uuid !== undefined && part === 'silos') indexAdd.push([audit.silo(entry.file_uuid), score, entry.id]);
    return { set: [[shard.entry(entry.id), JSON.stringify(entry)]], indexAdd };
  };

  const withId = (entry: NewAuditEntry): AuditEntry => ({ id: newAuditId(Date.parse(entry.time)), ...entry });

  /** An entry of a silo write goes to the silos' part of the log, the others to the directory's (as their actions commit). */
  const partOf = (entry: AuditEntry): AuditPart => (entry.action.startsWith('silo.') ? 'silos' : 'directory');

  function view(shard: AuditShard, key: string, length: number): View {
    return { shard, key, length, at: async (offset, limit) => (limit <= 0 || offset >= length ? [] : (await index.page(key, offset, Math.min(limit, length - offset))).uuids) };
  }

  /** The number of members of `key` at or after `since` (a prefix, newest first): a binary search. */
  async function prefixSince(key: string, total: number, since: number | undefined): Promise<number> {
    if (since === undefined || total === 0) return total;
    const timeAt = async (i: number) => auditIdTime((await index.page(key, i, 1)).uuids[0] ?? '');
    if ((await timeAt(total - 1)) >= since) return total;
    let lo = 0;
    let hi = total - 1; // the member at hi is older than since
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((await timeAt(mid)) >= since) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** The index (and the part its entries are in) that a query reads, one per distinct part. */
  function sources(audit: AuditKeys, query: { silo?: string; actor?: string }): { shard: AuditShard; key: string }[] {
    if (query.silo !== undefined) return [{ shard: audit.silos, key: audit.silo(query.silo) }];
    const parts = audit.silos.index === audit.directory.index ? [audit.silos] : [audit.silos, audit.directory];
    return parts.map((shard) => ({ shard, key: query.actor !== undefined ? shard.actor(query.actor) : shard.index }));
  }

  async function views(account: string, query: { silo?: string; actor?: string; since?: number }): Promise<View[]> {
    return Promise.all(
      sources(keys.audit(account), query).map(async ({ shard, key }) => {
        return view(shard, key, await prefixSince(key, await index.count(key), query.since));
      }),
    );
  }

  /**
   * How many of the first `k` members of the merged order come from `a` (the rest from `b`): the
   * k-th element of two sorted arrays, found with a binary search over `a`'s share.
   */
  async function split(a: View, b: View, k: number): Promise<number> {
    let lo = Math.max(0, k - b.length);
    let hi = Math.min(k, a.length);
    while (lo < hi) {
      const i = (lo + hi) >>> 1; // i from a, k - i from b
      const [ai] = await a.at(i, 1);
      const [bj] = await b.at(k - i - 1, 1);
      // a[i] comes before b[k-i-1]: a's share is larger than i.
      if (compareIds(ai!, bj!) < 0) lo = i + 1;
      else hi = i;
    }
    return lo;
  }

  /** Members `offset` to `offset + limit` of the merged order of `parts`, each with the part it is in. */
  async function page(parts: View[], offset: number, limit: number): Promise<{ id: string; shard: AuditShard }[]> {
    if (parts.length === 1) {
      const [only] = parts;
      return (await only!.at(offset, limit)).map((id) => ({ id, shard: only!.shard }));
    }
    const [a, b] = parts as [View, View];
    const fromA = await split(a, b, offset);
    const [as, bs] = await Promise.all([a.at(fromA, limit), b.at(offset - fromA, limit)]);
    const merged = [...as.map((id) => ({ id, shard: a.shard })), ...bs.map((id) => ({ id, shard: b.shard }))];
    return merged.sort((x, y) => compareIds(x.id, y.id)).slice(0, limit);
  }

  async function read(members: { id: string; shard: AuditShard }[]): Promise<AuditEntry[]> {
    const texts = await main.getMany(members.map(({ id, shard }) => shard.entry(id)));
    // An entry pruned between the index read and this one is left out.
    return texts.flatMap((text) => (text === undefined ? [] : [JSON.parse(text) as AuditEntry]));
  }

  /** `silo` and `actor` together: the smaller of their indexes, filtered by the other, within MAX_AUDIT_SCAN. */
  async function both(account: string, query: AuditListing): Promise<{ total: number; entries: AuditEntry[] }> {
    const [bySilo, byActor] = await Promise.all([views(account, { silo: query.silo!, ...since(query) }), views(account, { actor: query.actor!, ...since(query) })]);
    const siloCount = bySilo[0]!.length;
    const actorCount = byActor.reduce((n, v) => n + v.length, 0);
    const [scan, keep] =
      siloCount <= actorCount
        ? [bySilo, (e: AuditEntry) => e.actor.name === query.actor]
        : [byActor, (e: AuditEntry) => e.file_uuid === query.silo];
    const count = Math.min(siloCount, actorCount);
    if (count > MAX_AUDIT_SCAN) throw new AuditScanTooLargeError(`the silo and the actor each have more than ${MAX_AUDIT_SCAN} entries`);
    const matching = (await read(await page(scan, 0, count))).filter(keep);
    return { total: matching.length, entries: matching.slice(query.offset, query.offset + query.limit) };
  }

  const since = (query: AuditListing) => (query.since !== undefined ? { since: query.since } : {});

  return {
    auditWrites(entry, part) {
      if (!entry) return { set: [], indexAdd: [] };
      return writes(withId(entry), part);
    },

    async appendAudit(entry) {
      const stored = withId(entry);
      const { set, indexAdd } = writes(stored, partOf(stored));
      if (!(await atomic.apply({ expect: [], set, delete: [], indexAdd, indexRemove: [] }))) throw new Error('an audit entry could not be written');
      return stored;
    },

    async importAudit(entries) {
      // One commit per part of one account's log (one slot on a cluster), each expecting its entries absent.
      const groups = new Map<string, Pick<AtomicBatch, 'expect' | 'set' | 'indexAdd'>>();
      for (const entry of entries) {
        if (!isAuditId(entry.id)) throw new TypeError(`audit entry id ${JSON.stringify(entry.id)} is not one Silo made`);
        const part = partOf(entry);
        const name = `${part}\n${entry.account}`;
        let group = groups.get(name);
        if (!group) groups.set(name, (group = { expect: [], set: [], indexAdd: [] }));
        const { set, indexAdd } = writes(entry, part);
        group.expect.push([set[0]![0], undefined]);
        group.set.push(...set);
        group.indexAdd.push(...indexAdd);
      }
      for (const group of groups.values()) {
        if (!(await atomic.apply({ ...group, delete: [], indexRemove: [] }))) throw new Error('an audit entry being imported exists already');
      }
    },

    async listAudit(account, query) {
      if (query.silo !== undefined && query.actor !== undefined) return both(account, query);
      const parts = await views(account, { ...(query.silo !== undefined ? { silo: query.silo } : {}), ...(query.actor !== undefined ? { actor: query.actor } : {}), ...since(query) });
      const total = parts.reduce((n, v) => n + v.length, 0);
      if (query.offset >= total || query.limit <= 0) return { total, entries: [] };
      return { total, entries: await read(await page(parts, query.offset, query.limit)) };
    },

    pruneAudit(account, before, max = Number.MAX_SAFE_INTEGER) {
      return take(account, before, max);
    },

    moveOut(account, carry, max = Number.MAX_SAFE_INTEGER) {
      return take(account, Number.POSITIVE_INFINITY, max, carry);
    },
  };

  /** Removes up to `max` entries older than `before`, oldest first, `PRUNE_CHUNK` per commit (see moveOut for `carry`). */
  async function take(account: string, before: number, max: number, carry?: Parameters<LegacyAuditStorage['moveOut']>[1]): Promise<number> {
    const audit = keys.audit(account);
    const parts = audit.silos.index === audit.directory.index ? [audit.silos] : [audit.silos, audit.directory];
    let removed = 0;
    for (const shard of parts) {
      while (removed < max) {
        const total = await index.count(shard.index);
        if (total === 0) break;
        const chunk = Math.min(PRUNE_CHUNK, total, max - removed);
        // The oldest members, oldest last; those older than `before` go.
        const members = (await index.page(shard.index, total - chunk, chunk)).uuids.filter((id) => !(auditIdTime(id) >= before));
        if (members.length === 0) break;
        const texts = await main.getMany(members.map((id) => shard.entry(id)));
        const indexRemove: AtomicBatch['indexRemove'] = [];
        const moved: { entry: AuditEntry; part: AuditPart }[] = [];
        members.forEach((id, i) => {
          indexRemove.push([shard.index, id]);
          const text = texts[i];
          if (text === undefined) return;
          const entry = JSON.parse(text) as AuditEntry;
          moved.push({ entry, part: shard === audit.silos ? 'silos' : 'directory' });
          indexRemove.push([shard.actor(entry.actor.name), id]);
          if (entry.file_uuid !== undefined && shard === audit.silos) indexRemove.push([audit.silo(entry.file_uuid), id]);
        });
        const keysOf = members.map((id) => shard.entry(id));
        const committed = await atomic.apply({
          // A prune needs no expectation (removing twice is removing); a move must write each entry once.
          expect: carry ? keysOf.map((key, i): [string, string | undefined] => [key, texts[i]]) : [],
          set: [],
          delete: keysOf,
          indexAdd: [],
          indexRemove,
          ...(carry ? { auditAdd: carry(moved) } : {}),
        });
        // Another process moved some of them first: read again.
        if (!committed) continue;
        removed += members.length;
        if (members.length < chunk) break;
      }
    }
    return removed;
  }
}
