/**
 * Versioned silos: a head per silo (the commit point), a history entry per kept version, and the
 * data of each version in an immutable blob in the silo's region store.
 *
 * A write puts its new blob first, then commits one atomic batch on the main store (the new head,
 * its history entry, the pruned entries, the listing entry), then removes the blobs that no kept
 * version names any more. A crash at any instant leaves the old silo or the new one, and at most
 * blobs that no head names: the sweep removes those. When the main store's transaction reaches a
 * region's store (the usual set-up: tables of one SQLite file, namespaces of one Redis), its blobs
 * join the batch instead: one commit, nothing before or after it; except a large blob
 * (PUT_BEFORE_CHARS), which is put before the commit all the same: the batch stays small, and a
 * store may write a large value off its event loop (SQLite does), which no batch can be.
 *
 * Versions that change only metadata share the previous version's blobs, and an append to an array
 * silo stores only the new elements, as one more blob in the version's tail (see blob-text.ts; up
 * to MAX_TAIL, then the next write stores the data whole again). So a blob is always named by a
 * run of consecutive versions; pruning version d removes its blobs unless version d+1 (the oldest
 * version kept, or the new one) names them too. A region move copies every kept blob to the
 * new region before its commit and removes them from the old region after it.
 */
import { type NewAuditEntry, type PendingDelivery, type Region, REGIONS, StorageUnavailableError } from '../model/index.js';
import type { Atomic } from './atomic.js';
import type { AuditStorage, AuditWrites } from './audit-records.js';
import { joinTail } from './blob-text.js';
import { blobMadeAt, newBlobId, newEtag } from './ids.js';
import type { KeyvTextStore } from './keyv-text-store.js';
import { listKeysWithPrefix } from './list-keys.js';
import { ParsedRecords } from './parsed-records.js';
import type { SiloOwners } from './silo-owners.js';
import type { SiloKeys, StorageKeys } from './storage-keys.js';
import type { AtomicBatch, HeldLock, Locks, NewSilo, NextVersion, SiloHead, SiloRef, SiloStorage, SweepReport, VersionEntry } from './types.js';

export interface VersionsDeps {
  main: KeyvTextStore;
  regions: Record<Region, KeyvTextStore>;
  keys: StorageKeys;
  atomic: Atomic;
  locks: Locks;
  /** Owner records, where keys are placed by account (a cluster); undefined elsewhere. */
  owners: SiloOwners | undefined;
  /** Where a write's audit entry joins its commit. */
  audit: Pick<AuditStorage, 'auditWrites'>;
}

type Versions = Pick<
  SiloStorage,
  'getHead' | 'getHeads' | 'getVersions' | 'getVersionData' | 'siloLock' | 'readData' | 'createSilo' | 'writeVersion' | 'deleteSilo' | 'sweep'
>;

/** Blobs younger than this are left to the write that made them. */
export const DEFAULT_SWEEP_GRACE_MS = 60_000;

/** Blobs this large are put before their commit even where the batch could take them (see above). */
export const PUT_BEFORE_CHARS = 256 * 1024;

/** A write commits only if it took less than this share of the sweep's grace period. */
const GRACE_SHARE = 0.5;

/** Appends a version's data may carry before a write stores it whole: a read joins at most this many blobs. */
const MAX_TAIL = 32;

/** Every blob that holds part of a version's data. */
function blobsOf(entry: Pick<VersionEntry, 'blob' | 'tail'>): string[] {
  return entry.tail ? [entry.blob, ...entry.tail] : [entry.blob];
}

/** The blobs of versions whose data is large (PUT_BEFORE_CHARS or more): removed off the event loop, after their commit. */
function largeBlobsOf(entries: Iterable<Pick<VersionEntry, 'blob' | 'tail' | 'size'> | undefined>): Set<string> {
  const large = new Set<string>();
  for (const entry of entries) if (entry && entry.size >= PUT_BEFORE_CHARS) for (const blob of blobsOf(entry)) large.add(blob);
  return large;
}

function entryOf(head: SiloHead): VersionEntry {
  return {
    version: head.version,
    updated_at: head.updated_at,
    file_name: head.file_name,
    is_public: head.is_public,
    region_name: head.region_name,
    size: head.size,
    etag: head.etag,
    blob: head.blob,
    ...(head.tail ? { tail: head.tail } : {}),
  };
}

function range(from: number, to: number): number[] {
  const out: number[] = [];
  for (let v = from; v <= to; v++) out.push(v);
  return out;
}

export function createVersions(deps: VersionsDeps): Versions {
  const { main, regions, keys, atomic, owners, audit } = deps;
  const headText = (head: SiloHead) => JSON.stringify(head);
  const keysOf = (silo: SiloRef): SiloKeys => keys.silo(silo.account, silo.file_uuid);

  /**
   * A write's webhook deliveries and its audit entry, recorded in its commit: the outbox entries
   * and their index, the entry and its indexes.
   */
  const outboxOf = (account: string, outbox: readonly PendingDelivery[], entry?: NewAuditEntry): AuditWrites => {
    const recorded = audit.auditWrites(entry, 'silos');
    return {
      set: [...outbox.map((d): [string, string] => [keys.delivery(account, d.id), JSON.stringify(d)]), ...recorded.set],
      indexAdd: [...outbox.map((d): [string, number, string] => [keys.outbox(account), d.due, d.id]), ...recorded.indexAdd],
      ...(recorded.auditAdd ? { auditAdd: recorded.auditAdd } : {}),
    };
  };

  const heads = new ParsedRecords<SiloHead>();

  const readHead = (raw: string | undefined): SiloHead | undefined => (raw === undefined ? undefined : heads.parse(raw));

  /**
   * The head of `uuid` as stored under `account`. Without an account: where keys are placed by
   * account, under its owner's; elsewhere the account places nothing, so any name does.
   */
  async function headOf(uuid: string, account: string | undefined): Promise<SiloHead | undefined> {
    const under = account ?? (owners ? await owners.of(uuid) : '');
    if (under === undefined) return undefined;
    const head = readHead(await main.get(keys.silo(under, uuid).head));
    return account === undefined || head?.account === account ? head : undefined;
  }

  /** A version's data joined from its blobs in `region`, or undefined when one is gone. */
  async function readBlobs(region: Region, silo: SiloRef, entry: Pick<VersionEntry, 'blob' | 'tail' | 'size'>): Promise<string | undefined> {
    const at = keysOf(silo);
    if (!entry.tail) {
      const key = at.blob(region, entry.blob);
      // A large blob (its size is the data's): read off the event loop where the store can.
      return entry.size >= PUT_BEFORE_CHARS ? regions[region].getLarge(key) : regions[region].get(key);
    }
    const texts = await regions[region].getMany(blobsOf(entry).map((blob) => at.blob(region, blob)));
    if (texts.some((text) => text === undefined)) return undefined;
    return joinTail(texts[0]!, texts.slice(1) as string[]);
  }

  async function getVersions(silo: SiloRef, versions: number[]): Promise<(VersionEntry | undefined)[]> {
    const at = keysOf(silo);
    const texts = await main.getMany(versions.map((v) => at.version(v)));
    return texts.map((t) => (t === undefined ? undefined : (JSON.parse(t) as VersionEntry)));
  }

  async function deleteBlobs(region: Region, at: SiloKeys, blobs: Iterable<string>): Promise<void> {
    const store = regions[region];
    // Removing a blob that no commit names can fail without harm: the sweep finds it again.
    await Promise.all([...blobs].map((blob) => store.delete(at.blob(region, blob)).catch(() => undefined)));
  }

  /** Whether `region`'s blobs can be written and removed in the main store's atomic batch. */
  const joinable = new Map(REGIONS.map((r) => [r, regions[r] === main || atomic.joins(regions[r])]));

  /**
   * The blob writes and removals of one commit, split into what joins the batch (regions kept in
   * the main store) and what happens around it (blobs put before, blobs removed after).
   */
  class BlobChanges {
    readonly batchSet: [string, string][] = [];
    readonly batchDelete: string[] = [];
    readonly #joined = new Map<KeyvTextStore, { store: KeyvTextStore; set: [string, string][]; delete: string[] }>();
    readonly #before: { region: Region; blob: string; text: string }[] = [];
    /** Blobs put before the commit already (their texts let go). */
    readonly #placed: { region: Region; blob: string }[] = [];
    readonly #after: { region: Region; blob: string; large: boolean }[] = [];

    constructor(private readonly at: SiloKeys) {}

    /** The writes to joined stores other than main, for the batch's `joined`. */
    get joined() {
      return [...this.#joined.values()];
    }

    #partOf(region: Region) {
      const store = regions[region];
      let part = this.#joined.get(store);
      if (!part) this.#joined.set(store, (part = { store, set: [], delete: [] }));
      return part;
    }

    put(region: Region, blob: string, text: string): void {
      const key = this.at.blob(region, blob);
      if (!joinable.get(region) || text.length >= PUT_BEFORE_CHARS) this.#before.push({ region, blob, text });
      else if (regions[region] === main) this.batchSet.push([key, text]);
      else this.#partOf(region).set.push([key, text]);
    }

    /**
     * Removes `blobs` with the commit, those in `large` after it: freeing a large row is work in
     * proportion to its size (SQLite frees thousands of overflow pages), which the store then does
     * off the event loop (deleteLarge). A blob no commit names is harmless meanwhile (the sweep
     * would find it).
     */
    remove(region: Region, blobs: Iterable<string>, large: ReadonlySet<string>): void {
      for (const blob of blobs) {
        const key = this.at.blob(region, blob);
        if (!joinable.get(region) || large.has(blob)) this.#after.push({ region, blob, large: large.has(blob) });
        else if (regions[region] === main) this.batchDelete.push(key);
        else this.#partOf(region).delete.push(key);
      }
    }

    /**
     * A copy of `blob` of region `from` as `copy` in region `to` (a move), read off the event loop
     * where the store can and, when it is not small, put at once: a move of a long history of
     * large versions holds one of them at a time, and each put has its own storage time limit.
     */
    async copy(from: Region, blob: string, to: Region, copy: string): Promise<void> {
      const text = await regions[from].getLarge(this.at.blob(from, blob));
      if (text === undefined) return;
      this.put(to, copy, text);
      await this.putBefore();
    }

    /** The puts that must land before the commit (those pending: each is put once). */
    async putBefore(): Promise<void> {
      const pending = this.#before.splice(0);
      this.#placed.push(...pending.map(({ region, blob }) => ({ region, blob })));
      await Promise.all(pending.map(({ region, blob, text }) => regions[region].set(this.at.blob(region, blob), text)));
    }

    /** Undoes putBefore when the commit did not happen (those blobs have fresh ids: nobody names them). */
    async undoBefore(): Promise<void> {
      await Promise.all([...this.#placed, ...this.#before].map(({ region, blob }) => deleteBlobs(region, this.at, [blob])));
    }

    /** The removals that wait for the commit: the large ones one at a time, each within its own time limit. */
    async removeAfter(): Promise<void> {
      const small = this.#after.filter(({ large }) => !large);
      await Promise.all(small.map(({ region, blob }) => deleteBlobs(region, this.at, [blob])));
      for (const { region, blob, large } of this.#after) {
        if (large) await regions[region].deleteLarge(this.at.blob(region, blob)).catch(() => undefined);
      }
    }
  }

  return {
    getHead: headOf,

    async getHeads(account, uuids) {
      const texts = await main.getMany(uuids.map((uuid) => keys.silo(account, uuid).head));
      return texts.map(readHead);
    },

    getVersions,

    getVersionData: (silo, entry) => readBlobs(silo.region_name, silo, entry),

    siloLock: (account, uuid) => keys.siloLock(account, uuid),

    async readData(head: SiloHead): Promise<{ head: SiloHead; text: string } | undefined> {
      const uuid = head.file_uuid;
      const text = await readBlobs(head.region_name, head, head);
      if (text !== undefined) return { head, text };
      // Gone since the head was read: a move renamed it (history has its new name) or pruning
      // removed it (then the newest version is as good an answer as any later read would get).
      for (let attempt = 0; attempt < 3; attempt++) {
        const now = await headOf(uuid, head.account);
        if (!now) return undefined;
        const [entry] = now.version === head.version ? [now] : await getVersions(head, [head.version]);
        const wanted = entry ? { head, blobs: entry } : { head: now, blobs: now };
        const found = await readBlobs(now.region_name, head, wanted.blobs);
        if (found !== undefined) return { head: wanted.head, text: found };
      }
      return undefined;
    },

    async createSilo(silo: NewSilo, text: string, outbox: readonly PendingDelivery[] = [], entry?: NewAuditEntry): Promise<SiloHead> {
      const head: SiloHead = { ...silo, version: 1, etag: newEtag(), blob: newBlobId(1), oldest: 1 };
      const { file_uuid: uuid } = head;
      const at = keysOf(head);
      const blobs = new BlobChanges(at);
      blobs.put(head.region_name, head.blob, text);
      await Promise.all([blobs.putBefore(), owners?.record(uuid, head.account)]);
      const deliveries = outboxOf(head.account, outbox, entry);
      const committed = await atomic.apply({
        expect: [[at.head, undefined]],
        set: [
          ...blobs.batchSet,
          [at.head, headText(head)],
          [at.version(1), JSON.stringify(entryOf(head))],
          ...deliveries.set,
        ],
        delete: [],
        // The listing's entry after the deliveries' and the audit entry's: every commit that changes
        // both the audit log and the listing (this one, a delete) reaches them in that order, so
        // that stores which lock index rows as they go (PostgreSQL) never wait on each other in a cycle.
        indexAdd: [...deliveries.indexAdd, [keys.index(head.account), -Date.parse(head.created_at), uuid]],
        indexRemove: [],
        joined: blobs.joined,
        auditAdd: deliveries.auditAdd,
      });
      if (!committed) {
        await blobs.undoBefore();
        throw new Error(`a silo ${uuid} exists already`);
      }
      return head;
    },

    async writeVersion(
      current: SiloHead,
      next: NextVersion,
      keep: number,
      fence: HeldLock['fence'] = () => [],
      outbox: readonly PendingDelivery[] = [],
      entry?: NewAuditEntry,
    ): Promise<SiloHead | undefined> {
      const started = Date.now();
      const uuid = current.file_uuid;
      const at = keysOf(current);
      const version = current.version + 1;
      const oldest = Math.max(current.oldest, version - Math.max(1, Math.floor(keep)) + 1);
      const from = current.region_name;
      const to = next.region_name;
      const moving = from !== to;
      // An append stores only the new elements, as one more tail blob (not on a move: that copies).
      const appended = !moving && (current.tail?.length ?? 0) < MAX_TAIL ? next.data?.appended : undefined;
      const { tail: currentTail, ...rest } = current;
      const tail = appended !== undefined ? [...(currentTail ?? []), newBlobId(version)] : next.data ? undefined : currentTail;
      const head: SiloHead = {
        ...rest,
        file_name: next.file_name,
        region_name: to,
        is_public: next.is_public,
        updated_at: next.updated_at,
        version,
        etag: newEtag(),
        blob: next.data && appended === undefined ? newBlobId(version) : current.blob,
        ...(tail ? { tail } : {}),
        size: next.data ? next.data.size : current.size,
        oldest,
      };

      // History read: the pruned versions, the oldest kept one (does it share a pruned blob?),
      // and on a move every kept version (all their blobs go along).
      const last = moving ? current.version : Math.min(oldest, current.version);
      const read = range(current.oldest, last);
      const entries = new Map<number, VersionEntry>();
      (await getVersions(current, read)).forEach((entry, i) => entry && entries.set(read[i]!, entry));
      const blobsAt = (v: number): string[] => {
        const entry = v === version ? head : entries.get(v);
        return entry ? blobsOf(entry) : [];
      };
      const dropped = range(current.oldest, oldest - 1);
      const freed = new Set<string>();
      for (const v of dropped) {
        const kept = new Set(blobsAt(v + 1));
        for (const blob of blobsAt(v)) if (!kept.has(blob)) freed.add(blob);
      }

      // A move copies every kept blob under a new id (fresh for the sweep's grace period) and
      // rewrites the kept history entries to name the copies, in the same commit.
      const renamed = new Map<string, string>();
      const rewritten: VersionEntry[] = [];
      if (moving) {
        const copyOf = (blob: string, v: number): string => {
          let copy = renamed.get(blob);
          if (copy === undefined) renamed.set(blob, (copy = newBlobId(v)));
          return copy;
        };
        for (const v of range(oldest, current.version)) {
          const entry = entries.get(v);
          if (!entry) continue;
          rewritten.push({ ...entry, blob: copyOf(entry.blob, v), ...(entry.tail ? { tail: entry.tail.map((b) => copyOf(b, v)) } : {}) });
        }
        if (!next.data) {
          head.blob = copyOf(current.blob, current.version);
          if (currentTail) head.tail = currentTail.map((b) => copyOf(b, current.version));
        }
      }
      const blobs = new BlobChanges(at);
      try {
        for (const [blob, copy] of renamed) await blobs.copy(from, blob, to, copy);
      } catch (error) {
        await blobs.undoBefore();
        throw error;
      }
      if (appended !== undefined) blobs.put(to, tail!.at(-1)!, appended);
      else if (next.data) blobs.put(to, head.blob, typeof next.data.text === 'string' ? next.data.text : await next.data.text());
      await blobs.putBefore();
      if (Date.now() - started > GRACE_SHARE * DEFAULT_SWEEP_GRACE_MS) {
        // Blobs this old may already be swept as orphans: committing them could name a lost blob.
        await blobs.undoBefore();
        throw new StorageUnavailableError(new Error(`a write of silo ${uuid} took too long to commit`));
      }
      blobs.remove(from, moving ? new Set([...renamed.keys(), ...freed, ...blobsOf(current)]) : freed, largeBlobsOf([current, ...entries.values()]));

      const deliveries = outboxOf(current.account, outbox, entry);
      const committed = await atomic.apply({
        expect: [[at.head, headText(current)], ...fence()],
        set: [
          ...blobs.batchSet,
          [at.head, headText(head)],
          [at.version(version), JSON.stringify(entryOf(head))],
          ...rewritten.map((e): [string, string] => [at.version(e.version), JSON.stringify(e)]),
          ...deliveries.set,
        ],
        delete: [...dropped.map((v) => at.version(v)), ...blobs.batchDelete],
        indexAdd: deliveries.indexAdd,
        indexRemove: [],
        joined: blobs.joined,
        auditAdd: deliveries.auditAdd,
      });
      if (!committed) {
        await blobs.undoBefore();
        return undefined;
      }
      await blobs.removeAfter();
      return head;
    },

    async deleteSilo(current: SiloHead, fence: HeldLock['fence'] = () => [], outbox: readonly PendingDelivery[] = [], entry?: NewAuditEntry): Promise<boolean> {
      const uuid = current.file_uuid;
      const at = keysOf(current);
      const kept = range(current.oldest, current.version);
      const entries = await getVersions(current, kept);
      const blobs = new BlobChanges(at);
      blobs.remove(current.region_name, new Set([...blobsOf(current), ...entries.flatMap((e) => (e ? blobsOf(e) : []))]), largeBlobsOf([current, ...entries]));
      const deliveries = outboxOf(current.account, outbox, entry);
      const committed = await atomic.apply({
        expect: [[at.head, headText(current)], ...fence()],
        set: deliveries.set,
        delete: [at.head, ...kept.map((v) => at.version(v)), ...blobs.batchDelete],
        indexAdd: deliveries.indexAdd,
        indexRemove: [[keys.index(current.account), uuid]],
        joined: blobs.joined,
        auditAdd: deliveries.auditAdd,
      });
      if (!committed) return false;
      await Promise.all([blobs.removeAfter(), owners?.forget(uuid).catch(() => undefined)]);
      return true;
    },

    async sweep(graceMs = DEFAULT_SWEEP_GRACE_MS): Promise<SweepReport> {
      const report: SweepReport = { removed: 0, scanned: 0 };
      const cutoff = Date.now() - graceMs;
      for (const region of REGIONS) {
        const blobKeys = keys.blobs(region);
        const names = await listKeysWithPrefix(regions[region], blobKeys.prefix, blobKeys.then);
        if (names === undefined) continue;
        const bySilo = new Map<string, { account: string; uuid: string; blobs: string[] }>();
        for (const name of names) {
          const found = blobKeys.parse(name);
          if (!found) continue;
          report.scanned++;
          const madeAt = blobMadeAt(found.blob);
          if (madeAt === undefined || madeAt > cutoff) continue;
          const id = `${found.account}/${found.uuid}`;
          let silo = bySilo.get(id);
          if (!silo) bySilo.set(id, (silo = { account: found.account, uuid: found.uuid, blobs: [] }));
          silo.blobs.push(found.blob);
        }
        for (const { account, uuid, blobs } of bySilo.values()) {
          const at = keys.silo(account, uuid);
          const raw = await main.get(at.head);
          const head = raw === undefined ? undefined : (JSON.parse(raw) as SiloHead);
          const named = new Set<string>();
          if (head && head.region_name === region) {
            for (const blob of blobsOf(head)) named.add(blob);
            for (const entry of await getVersions(head, range(head.oldest, head.version))) {
              if (entry) for (const blob of blobsOf(entry)) named.add(blob);
            }
          }
          const orphans = blobs.filter((blob) => !named.has(blob));
          await deleteBlobs(region, at, orphans);
          report.removed += orphans.length;
        }
      }
      return report;
    },
  };
}
