/**
 * Silos: the contract's rules for create, list, meta, read, update (with region moves), delete and
 * data access, over the storage facade. No HTTP here.
 *
 * Writes to one silo (update, delete) run under the silo's lock, so they apply one at a time on
 * every instance sharing the storage: an If-Match compares against the version that the write
 * replaces, and concurrent writers without If-Match leave exactly one of their bodies, never a mix
 * of one's data and another's metadata.
 *
 * Order of writes, chosen so that a crash half-way never exposes a silo that was not acknowledged
 * and never resurrects one that was deleted:
 *   create: data record, metadata, listing entry
 *   update: data record (in the new region), metadata, then the old region's data on a move
 *   delete: data records, metadata, listing entry
 */
import { NotFoundError, PayloadTooLargeError, PreconditionFailedError } from '../errors.js';
import type { SiloStorage } from '../storage/types.js';
import { isoTime, nextUpdatedAt, systemClock, type Clock } from './clock.js';
import { limitsOf, withDefaultPlan, type Plans } from './plans.js';
import { canonicalUuid, newSiloUuid, newVersion } from './silo-ids.js';
import {
  REGIONS,
  type CreateSiloInput,
  type Region,
  type SiloData,
  type SiloDataRecord,
  type SiloHandle,
  type SiloMeta,
  type SiloPage,
  type SiloRecord,
  type SiloService,
  type UpdateSiloInput,
} from './types.js';

export interface SiloServiceOptions {
  /** Size limits by plan name; `default` (10 MB) is filled in when missing. */
  plans?: Plans;
  now?: Clock;
}

export const MAX_PER_PAGE = 100;

/** How often a read retries when a silo moved region between reading its metadata and its data. */
const READ_ATTEMPTS = 3;

/** The six fields a listing shows. */
function metaOf(record: SiloRecord): SiloMeta {
  return {
    file_name: record.file_name,
    file_uuid: record.file_uuid,
    created_at: record.created_at,
    updated_at: record.updated_at,
    is_public: record.is_public,
    region_name: record.region_name,
  };
}

function whole(value: number, fallback: number, min: number, max: number): number {
  if (!Number.isFinite(value)) return fallback;
  return Math.min(max, Math.max(min, Math.trunc(value)));
}

/** The lock that serialises writes to one silo (named by its canonical uuid). */
function siloLock(uuid: string): string {
  return `silo:${uuid}`;
}

export function createSiloService(storage: SiloStorage, options: SiloServiceOptions = {}): SiloService {
  const plans = withDefaultPlan(options.plans);
  const now = options.now ?? systemClock;

  /** The canonical uuid, or the same 404 as a missing silo. */
  function idOf(uuid: string): string {
    const id = canonicalUuid(uuid);
    if (id === undefined) throw new NotFoundError();
    return id;
  }

  /** The silo's metadata if `account` owns it; otherwise the 404 of a missing silo. */
  async function owned(account: string, id: string): Promise<SiloRecord> {
    const record = await storage.getMeta(id);
    if (!record || record.account !== account) throw new NotFoundError();
    return record;
  }

  /** The JSON text of `data`, refused with 413 when over the account's plan limit. */
  async function dataText(account: string, data: SiloData): Promise<{ text: string; size: number }> {
    const { maxDataBytes } = limitsOf(plans, (await storage.getAccount(account))?.plan);
    const text = JSON.stringify(data);
    // UTF-8 never takes fewer bytes than UTF-16 code units, so a long text is refused uncounted.
    if (text.length > maxDataBytes) throw new PayloadTooLargeError(maxDataBytes);
    const size = Buffer.byteLength(text, 'utf8');
    if (size > maxDataBytes) throw new PayloadTooLargeError(maxDataBytes);
    return { text, size };
  }

  function checkIfMatch(record: SiloRecord, ifMatch: string | undefined): void {
    if (ifMatch !== undefined && ifMatch !== record.version) throw new PreconditionFailedError();
  }

  async function open(account: string, uuid: string): Promise<SiloHandle> {
    const id = idOf(uuid);
    const first = await owned(account, id);
    const load = async (): Promise<SiloDataRecord> => {
      let record = first;
      for (let attempt = 0; attempt < READ_ATTEMPTS; attempt++) {
        if (attempt > 0) record = await owned(account, id);
        const data = await storage.getData(record.region_name, id);
        // The data record carries its own metadata, consistent with its text.
        if (data && data.record.account === account) return data;
        // Missing: the silo moved region (or was deleted) after its metadata was read. Look again.
      }
      throw new NotFoundError();
    };
    return { record: first, load };
  }

  /**
   * Metadata first (small), then the data record only when asked for. Data is written before
   * metadata, so the data record is never older than the metadata read before it; it is checked
   * by the same rules, since a write may have changed it in between. Missing data means the silo
   * moved away from `region` or was deleted since: 404, as the metadata would now say.
   */
  async function openData(region: Region, uuid: string, account: string | undefined): Promise<SiloHandle> {
    const id = canonicalUuid(uuid);
    if (id === undefined) throw new NotFoundError();
    const readable = (record: SiloRecord | undefined): record is SiloRecord =>
      record !== undefined &&
      record.region_name === region &&
      (account === undefined ? record.is_public : record.account === account);
    const record = await storage.getMeta(id);
    if (!readable(record)) throw new NotFoundError();
    const load = async (): Promise<SiloDataRecord> => {
      const data = await storage.getData(region, id);
      if (!data || !readable(data.record)) throw new NotFoundError();
      return data;
    };
    return { record, load };
  }

  return {
    async create(account: string, input: CreateSiloInput): Promise<SiloRecord> {
      const { text, size } = await dataText(account, input.file_data);
      const nowMs = now();
      const at = isoTime(nowMs);
      const record: SiloRecord = {
        file_uuid: newSiloUuid(),
        file_name: input.file_name,
        region_name: input.region_name ?? 'api',
        is_public: input.is_public ?? false,
        created_at: at,
        updated_at: at,
        account,
        version: newVersion(),
        size,
      };
      await storage.putData(record.region_name, record, text);
      await storage.putMeta(record);
      await storage.index.add(account, { uuid: record.file_uuid, createdAtMs: nowMs });
      return record;
    },

    async list(account: string, page: number, perPage: number): Promise<SiloPage> {
      const pageNo = whole(page, 1, 1, Number.MAX_SAFE_INTEGER);
      const size = whole(perPage, 25, 1, MAX_PER_PAGE);
      const offset = (pageNo - 1) * size;
      const { total, uuids } = Number.isSafeInteger(offset)
        ? await storage.index.page(account, offset, size)
        : { total: (await storage.index.page(account, 0, 1)).total, uuids: [] };
      const records = await storage.getMetas(uuids);
      const silos = records.filter((r): r is SiloRecord => r !== undefined && r.account === account).map(metaOf);
      return { metadata: { total_items: total, per_page: size, page_no: pageNo }, silos };
    },

    async meta(account: string, uuid: string): Promise<SiloRecord> {
      return owned(account, idOf(uuid));
    },

    async read(account: string, uuid: string): Promise<SiloDataRecord> {
      return (await open(account, uuid)).load();
    },

    async update(account: string, uuid: string, input: UpdateSiloInput, ifMatch?: string): Promise<SiloDataRecord> {
      const id = idOf(uuid);
      // Cheap refusals before taking the lock: a stale If-Match can never become current again.
      checkIfMatch(await owned(account, id), ifMatch);
      const replacement = input.file_data === undefined ? undefined : await dataText(account, input.file_data);

      return storage.locks.withLock(siloLock(id), async () => {
        const current = await owned(account, id);
        checkIfMatch(current, ifMatch);
        let text = replacement?.text;
        if (text === undefined) {
          const data = await storage.getData(current.region_name, id);
          if (!data) throw new NotFoundError();
          text = data.text;
        }
        const record: SiloRecord = {
          ...current,
          file_name: input.file_name ?? current.file_name,
          region_name: input.region_name ?? current.region_name,
          is_public: input.is_public ?? current.is_public,
          updated_at: nextUpdatedAt(current.updated_at, now()),
          version: newVersion(),
          size: replacement?.size ?? current.size,
        };
        // A move copies first, switches the metadata, then deletes the old copy: a read that
        // already holds the old region's record still gets its data.
        await storage.putData(record.region_name, record, text);
        await storage.putMeta(record);
        if (record.region_name !== current.region_name) await storage.deleteData(current.region_name, id);
        return { record, text };
      });
    },

    async delete(account: string, uuid: string, ifMatch?: string): Promise<void> {
      const id = idOf(uuid);
      checkIfMatch(await owned(account, id), ifMatch);
      await storage.locks.withLock(siloLock(id), async () => {
        const current = await owned(account, id);
        checkIfMatch(current, ifMatch);
        // Its own region first (data access ends there), then any copy a crashed move left behind.
        await storage.deleteData(current.region_name, id);
        await Promise.all(REGIONS.filter((r) => r !== current.region_name).map((r) => storage.deleteData(r, id)));
        await storage.deleteMeta(id);
        await storage.index.remove(account, id);
      });
    },

    async readData(region: Region, uuid: string, account: string | undefined): Promise<SiloDataRecord> {
      return (await openData(region, uuid, account)).load();
    },

    open,
    openData,
  };
}
