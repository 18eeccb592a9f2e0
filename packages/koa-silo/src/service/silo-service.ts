/**
 * Silos: the contract's rules for create, list, meta, read, update, patch (with region moves),
 * delete, history and data access, over the storage facade. No HTTP here.
 *
 * Writes to one silo run under the silo's lock, so they apply one at a time on every instance
 * sharing the storage, each against the version it replaces: an If-Match compares with that
 * version, and concurrent patches without If-Match all apply, one after another. The lock is for
 * order only: storage commits a version only if the head it replaces is still current, so a
 * writer that lost its lock (paused past the lock's lifetime) cannot overwrite anyone's write.
 */
import { type AuditAction, type AuditActor, auditEntryOf, type AuditSource, type Clock, type CreateSiloInput, PROGRAM_ACTOR, DEFAULT_HISTORY_VERSIONS, DEFAULT_MAX_JSON_DEPTH, DEFAULT_PLAN, type IfMatch, isoTime, metaOf, nextUpdatedAt, NotFoundError, PayloadTooLargeError, type PendingDelivery, type PlanLimits, planNamed, type Plans, type Preconditions, PreconditionFailedError, type Region, type SiloDataRecord, type SiloEvent, type SiloFields, type SiloHandle, type SiloMeta, type SiloPage, type SiloPatch, type SiloRecord, StorageUnavailableError, systemClock, type UpdateSiloInput, type VersionData, type VersionInfo, type VersionPage, withDefaultPlan } from '../model/index.js';
import type { HeldLock, NewSilo, NextVersion, SiloHead, SiloStorage } from '../storage/index.js';
import { cachedPlanNames, type PlanNameOf } from './plan-names.js';
import { appendToElements, applySiloPatch, patchFieldsOnly, type Patched, type PatchLimits } from './silo-patch.js';
import { INLINE_CHARS } from '../limits/inline-work.js';

import { canonicalUuid, newSiloUuid } from './silo-ids.js';
import type { SiloService } from './types.js';
import { checkCreateBody, checkUpdateBody } from '../schemas/silo-checks.js';

/** A stand-in for file_data whose text was checked already, so that the schemas check the other fields. */
const CHECKED_DATA = {};

/**
 * Where a patch is applied to the stored text it has loaded (under the silo's lock): inline by
 * default; Silo gives the worker pool's (work/), which runs large patches off the event loop.
 */
export type PatchApplier = (
  account: string,
  uuid: string,
  etag: string,
  record: Pick<SiloRecord, 'file_name' | 'region_name' | 'is_public' | 'size'>,
  text: string,
  patch: SiloPatch,
  limits: PatchLimits,
) => Promise<Patched>;

export interface SiloServiceOptions {
  /** Size limits and history length by plan name; `default` (10 MB, 20 versions) is filled in when missing. */
  plans?: Plans;
  now?: Clock;
  /** Default: apply inline. */
  applyPatch?: PatchApplier;
  /** How deeply a patched document may nest (koa-silo's maxJsonDepth, as bodies). Default 1000. */
  maxJsonDepth?: number;
  /**
   * Charges `bytes` of data a write holds (a restored version's text) to the memory budget while
   * it is held; may wait, or refuse with a 503. Default: nothing charged.
   */
  charge?: (bytes: number) => Promise<{ release(): void }>;
  /** Where the account's plan name comes from; default: storage, cached (see plan-names.ts). */
  planOf?: PlanNameOf;
  /** Told of every committed write, after its commit (the change feed's source). Must not throw. */
  onCommit?: (event: SiloEvent) => void;
  /** The webhook deliveries a write owes, recorded in its commit (see webhooks/). Default: none. */
  outboxFor?: (event: SiloEvent) => Promise<PendingDelivery[]>;
  /** Who a write without an AuditSource acts as in the audit log. Default: the programmatic API's actor. */
  actor?: AuditActor;
}

export const MAX_PER_PAGE = 100;

/** How often a write tries again when another writer committed between its read and its commit. */
const WRITE_ATTEMPTS = 5;


/** What a write of `next` over `current` tells the change feed and webhooks, known before its commit. */
function writeEvent(current: SiloHead, next: NextVersion): SiloEvent {
  const moving = next.region_name !== current.region_name;
  return {
    type: moving ? 'move' : 'update',
    account: current.account,
    silo: {
      ...metaOf(current),
      file_name: next.file_name,
      region_name: next.region_name,
      is_public: next.is_public,
      updated_at: next.updated_at,
      version: current.version + 1,
    },
    ...(moving ? { from_region: current.region_name } : {}),
  };
}

/** A head as the layers above see it: without where storage keeps its data. */
function recordOf(head: SiloHead): SiloRecord {
  return {
    file_uuid: head.file_uuid,
    file_name: head.file_name,
    region_name: head.region_name,
    is_public: head.is_public,
    created_at: head.created_at,
    updated_at: head.updated_at,
    account: head.account,
    version: head.version,
    etag: head.etag,
    size: head.size,
  };
}

function infoOf(entry: VersionInfo): VersionInfo {
  return {
    version: entry.version,
    updated_at: entry.updated_at,
    file_name: entry.file_name,
    is_public: entry.is_public,
    region_name: entry.region_name,
    size: entry.size,
  };
}

function whole(value: number, fallback: number, min: number, max: number): number {
  if (!Number.isFinite(value)) return fallback;
  return Math.min(max, Math.max(min, Math.trunc(value)));
}

/** Page and page size, clamped as the silo list clamps them. */
function pageOf(page: number, perPage: number): { pageNo: number; size: number; offset: number } {
  const pageNo = whole(page, 1, 1, Number.MAX_SAFE_INTEGER);
  const size = whole(perPage, 25, 1, MAX_PER_PAGE);
  return { pageNo, size, offset: (pageNo - 1) * size };
}

function checkIfMatch(record: SiloRecord, ifMatch: IfMatch): void {
  if (ifMatch === undefined) return;
  const { match, noneMatch }: Preconditions = isTagList(ifMatch) ? { match: ifMatch } : ifMatch;
  if (match !== undefined && !match.includes(record.etag)) throw new PreconditionFailedError();
  if (noneMatch === '*') throw new PreconditionFailedError('If-None-Match: * writes only where there is no silo, and this one exists');
  if (noneMatch?.includes(record.etag)) throw new PreconditionFailedError('The silo is at a version If-None-Match names');
}

function isTagList(ifMatch: IfMatch): ifMatch is readonly string[] {
  return Array.isArray(ifMatch);
}

/** What a write makes of the current version: its next version, and file_data's text after it. */
type Change = (current: SiloHead, currentText: () => Promise<string>) => Promise<{ next: NextVersion; text?: string }>;

export function createSiloService(storage: SiloStorage, options: SiloServiceOptions = {}): SiloService {
  const plans = withDefaultPlan<PlanLimits>(options.plans, DEFAULT_PLAN);
  const now = options.now ?? systemClock;
  const planOf = options.planOf ?? cachedPlanNames((account) => storage.getAccount(account));
  const applyPatch: PatchApplier =
    options.applyPatch ?? ((_account, _uuid, _etag, record, text, patch, limits) => applySiloPatch(record, text, patch, limits));
  const maxDepth = options.maxJsonDepth ?? DEFAULT_MAX_JSON_DEPTH;
  const onCommit = options.onCommit ?? (() => undefined);
  const charge = options.charge ?? (async () => ({ release: () => undefined }));
  const outboxFor = options.outboxFor ?? (async () => []);
  const programmatic: AuditSource = { actor: options.actor ?? PROGRAM_ACTOR, address: null };

  /** The canonical uuid, or the same 404 as a missing silo. */
  function idOf(uuid: string): string {
    const id = canonicalUuid(uuid);
    if (id === undefined) throw new NotFoundError();
    return id;
  }

  /** The silo's head if `account` owns it; otherwise the 404 of a missing silo. */
  async function owned(account: string, id: string): Promise<SiloHead> {
    const head = await storage.getHead(id, account);
    if (!head) throw new NotFoundError();
    return head;
  }

  async function limits(account: string): Promise<PlanLimits> {
    return planNamed(plans, await planOf(account));
  }

  /** `text`'s UTF-8 size, refused with 413 when over the plan limit. */
  function sized(text: string, { maxDataBytes }: PlanLimits, known?: number): { text: string; size: number } {
    // UTF-8 never takes fewer bytes than UTF-16 code units, so a long text is refused uncounted.
    if (text.length > maxDataBytes) throw new PayloadTooLargeError(maxDataBytes);
    const size = known ?? Buffer.byteLength(text, 'utf8');
    if (size > maxDataBytes) throw new PayloadTooLargeError(maxDataBytes);
    return { text, size };
  }

  /**
   * The data of `head`'s version, or of a newer one when history lost it meanwhile, which must
   * pass `readable` again: a public read racing a write that made the silo private (or moved it)
   * must not get the new version's data.
   */
  async function load(head: SiloHead, readable?: (found: SiloHead) => boolean): Promise<SiloDataRecord> {
    const found = await storage.readData(head);
    if (!found || (found.head !== head && readable && !readable(found.head))) throw new NotFoundError();
    return { record: recordOf(found.head), text: found.text };
  }

  /**
   * A commit to silo `id` under its lock, against its current head: `attempt` commits (its result)
   * only if that head is still current when the commit lands, else says undefined and is tried
   * again with the new head. A stale If-Match is refused before the lock (it can never become
   * current again) and against every head tried.
   */
  async function underLock<T>(account: string, id: string, ifMatch: IfMatch, attempt: (current: SiloHead, fence: HeldLock['fence']) => Promise<T | undefined>): Promise<T> {
    if (ifMatch !== undefined) checkIfMatch(await owned(account, id), ifMatch);
    return storage.locks.withLock(storage.siloLock(account, id), async (lock) => {
      for (let tries = 0; tries < WRITE_ATTEMPTS; tries++) {
        if (tries > 0) await lock.contended();
        const current = await owned(account, id);
        checkIfMatch(current, ifMatch);
        const done = await attempt(current, lock.fence);
        if (done !== undefined) return done;
      }
      throw new StorageUnavailableError(new Error(`silo ${id} kept changing under ${WRITE_ATTEMPTS} attempts`));
    });
  }

  /**
   * One write of a silo: a new version made by `change` from the current one, recorded as `action`
   * (a move whatever it is). Its answer: the record, and the new data's text unless `textBack` is
   * false (a minimal answer: then an append to a large array reads none of its data).
   */
  function write(account: string, uuid: string, ifMatch: IfMatch, change: Change, action: AuditAction, by?: AuditSource): Promise<SiloDataRecord>;
  function write(account: string, uuid: string, ifMatch: IfMatch, change: Change, action: AuditAction, by: AuditSource | undefined, textBack: false): Promise<{ record: SiloRecord }>;
  async function write(
    account: string,
    uuid: string,
    ifMatch: IfMatch,
    change: Change,
    action: AuditAction,
    by: AuditSource = programmatic,
    textBack = true,
  ): Promise<{ record: SiloRecord; text?: string }> {
    const id = idOf(uuid);
    const { historyVersions = DEFAULT_HISTORY_VERSIONS } = await limits(account);
    return underLock(account, id, ifMatch, async (current, fence) => {
      let text: string | undefined;
      const currentText = async () => (text ??= (await load(current)).text);
      const planned = await change(current, currentText);
      // Every successful write is a new version with a new updated_at (contract §4 and §9), also
      // one that leaves every field as it was (an empty patch, the fields sent as they are).
      const event = writeEvent(current, planned.next);
      // The entry's time is the clock's (entries of every kind list in one order), not updated_at (kept growing per silo).
      const time = isoTime(now());
      const entry =
        event.type === 'move'
          ? auditEntryOf('silo.move', account, by, time, event.silo, planned.next.region_name)
          : auditEntryOf(action, account, by, time, event.silo);
      // A move's answer is read before its commit: after it, the old region's copies are freed.
      if (textBack && planned.next.data === undefined && planned.next.region_name !== current.region_name) await currentText();
      const head = await storage.writeVersion(current, planned.next, historyVersions, fence, await outboxFor(event), entry);
      if (!head) return undefined;
      onCommit(event);
      const record = recordOf(head);
      if (!textBack) return { record };
      // Read under the lock still: a later write may prune the blobs the current text is made of.
      const data = planned.next.data;
      const newText = planned.text ?? (data === undefined ? await currentText() : typeof data.text === 'string' ? data.text : await data.text());
      return { record, text: newText };
    });
  }

  function nextOf(current: SiloHead, fields: { file_name?: string; region_name?: Region; is_public?: boolean }): NextVersion {
    return {
      file_name: fields.file_name ?? current.file_name,
      region_name: fields.region_name ?? current.region_name,
      is_public: fields.is_public ?? current.is_public,
      updated_at: nextUpdatedAt(current.updated_at, now()),
    };
  }

  async function open(account: string, uuid: string): Promise<SiloHandle> {
    const head = await owned(account, idOf(uuid));
    return { record: recordOf(head), load: () => load(head) };
  }

  /** Metadata first (small), then the data only when asked for. */
  async function openData(region: Region, uuid: string, account: string | undefined): Promise<SiloHandle> {
    const id = canonicalUuid(uuid);
    if (id === undefined) throw new NotFoundError();
    const readable = (h: SiloHead) => h.region_name === region && (account !== undefined || h.is_public);
    const head = await storage.getHead(id, account);
    if (head === undefined || !readable(head)) throw new NotFoundError();
    return { record: recordOf(head), load: () => load(head, readable) };
  }

  /** `text`: file_data's JSON, checked already (the HTTP layer's body check); the other fields are checked here. */
  async function createText(account: string, input: SiloFields, text: string, by: AuditSource = programmatic): Promise<SiloRecord> {
    checkCreateBody({ ...input, file_data: CHECKED_DATA }, 'body');
    return createChecked(account, input, text, by);
  }

  /** A create whose fields and data were checked. */
  async function createChecked(account: string, input: SiloFields, text: string, by: AuditSource = programmatic): Promise<SiloRecord> {
    const { size } = sized(text, await limits(account));
    const at = isoTime(now());
    const silo: NewSilo = {
      file_uuid: newSiloUuid(),
      file_name: input.file_name,
      region_name: input.region_name ?? 'api',
      is_public: input.is_public ?? false,
      created_at: at,
      updated_at: at,
      account,
      size,
    };
    const event: SiloEvent = { type: 'create', account, silo: { ...metaOf(silo), version: 1 } };
    const head = await storage.createSilo(silo, text, await outboxFor(event), auditEntryOf('silo.create', account, by, at, event.silo));
    onCommit(event);
    return recordOf(head);
  }

  /** `text`: file_data's JSON when given, checked already; the other fields are checked here. */
  async function updateText(
    account: string,
    uuid: string,
    input: Partial<SiloFields>,
    text: string | undefined,
    ifMatch?: IfMatch,
    by?: AuditSource,
  ): Promise<SiloDataRecord> {
    checkUpdateBody(text === undefined ? input : { ...input, file_data: CHECKED_DATA }, 'body');
    return updateChecked(account, uuid, input, text, ifMatch, by);
  }

  /** An update whose fields and data were checked. */
  async function updateChecked(
    account: string,
    uuid: string,
    input: Partial<SiloFields>,
    text: string | undefined,
    ifMatch?: IfMatch,
    by?: AuditSource,
  ): Promise<SiloDataRecord> {
    const data = text === undefined ? undefined : sized(text, await limits(account));
    return write(
      account,
      uuid,
      ifMatch,
      async (current) => ({
        next: { ...nextOf(current, input), ...(data ? { data } : {}) },
      }),
      'silo.update',
      by,
    );
  }

  /** The change a patch makes: an append to an array known to hold elements without its text, any other on its text. */
  function patchChange(plan: PlanLimits, patch: SiloPatch): Change {
    const { maxDataBytes } = plan;
    return async (current, currentText) => {
      // A head with a tail is an array with elements: an append needs only its own text (kept small here).
      // Any other patch goes on as given (its text, not this parse): a large silo's patch must run on a
      // worker, so a small patch text may be parsed twice (once here, once there), never a large one.
      const small = !('text' in patch) || patch.text.length < INLINE_CHARS;
      const quick = current.tail?.length && small ? appendToElements(current, patch) : undefined;
      if (quick?.appended !== undefined) {
        if (quick.size! > maxDataBytes) throw new PayloadTooLargeError(maxDataBytes);
        const appended = quick.appended;
        let whole: Promise<string> | undefined;
        const text = () => (whole ??= currentText().then((t) => `${t.slice(0, -1)},${appended}]`));
        return { next: { ...nextOf(current, quick), data: { text, size: quick.size!, appended } } };
      }
      if (quick) return { next: nextOf(current, quick) };
      // A patch that leaves file_data alone (a rename, a move) reads none of it.
      const fields = small ? patchFieldsOnly(current, patch, { maxDataBytes, maxDepth }) : undefined;
      if (fields) return { next: nextOf(current, fields) };
      const patched = await applyPatch(current.account, current.file_uuid, current.etag, current, await currentText(), patch, { maxDataBytes, maxDepth });
      const data =
        patched.text === undefined
          ? undefined
          : { ...sized(patched.text, plan, patched.size), ...(patched.appended !== undefined ? { appended: patched.appended } : {}) };
      return { next: { ...nextOf(current, patched), ...(data ? { data } : {}) } };
    };
  }

  async function openVersion(account: string, uuid: string, version: number): Promise<{ info: VersionInfo; load(): Promise<string> }> {
    const head = await owned(account, idOf(uuid));
    const entry = await historyEntry(head, version);
    const missing = () => new NotFoundError(`Version ${version} is not in this silo's history`);
    if (!entry) throw missing();
    return {
      info: infoOf(entry),
      load: async () => {
        const text = await storage.getVersionData(head, entry);
        if (text === undefined) throw missing();
        return text;
      },
    };
  }

  async function historyEntry(head: SiloHead, version: number) {
    if (!Number.isSafeInteger(version) || version < head.oldest || version > head.version) return undefined;
    const [entry] = await storage.getVersions(head, [version]);
    return entry;
  }

  return {
    // The value forms are the programmatic API's: what a script gives is checked as a request's body is.
    async create(account: string, input: CreateSiloInput, by?: AuditSource): Promise<SiloRecord> {
      checkCreateBody(input, 'body');
      return createChecked(account, input, JSON.stringify(input.file_data), by);
    },

    createText,

    async list(account: string, page: number, perPage: number): Promise<SiloPage> {
      const { pageNo, size, offset } = pageOf(page, perPage);
      const { total, uuids } = Number.isSafeInteger(offset)
        ? await storage.index.page(account, offset, size)
        : { total: (await storage.index.page(account, 0, 1)).total, uuids: [] };
      const heads = await storage.getHeads(account, uuids);
      const silos = heads.filter((h): h is SiloHead => h !== undefined && h.account === account).map((h) => ({ ...metaOf(h), version: h.version, size: h.size }));
      return { metadata: { total_items: total, per_page: size, page_no: pageNo }, silos };
    },

    async meta(account: string, uuid: string): Promise<SiloRecord> {
      return recordOf(await owned(account, idOf(uuid)));
    },

    async read(account: string, uuid: string): Promise<SiloDataRecord> {
      return (await open(account, uuid)).load();
    },

    async update(account: string, uuid: string, input: UpdateSiloInput, ifMatch?: IfMatch, by?: AuditSource): Promise<SiloDataRecord> {
      checkUpdateBody(input, 'body');
      const text = input.file_data === undefined ? undefined : JSON.stringify(input.file_data);
      return updateChecked(account, uuid, input, text, ifMatch, by);
    },

    updateText,

    async patch(account: string, uuid: string, patch: SiloPatch, ifMatch?: IfMatch, by?: AuditSource): Promise<SiloDataRecord> {
      return write(account, uuid, ifMatch, patchChange(await limits(account), patch), 'silo.patch', by);
    },

    async patchRecord(account: string, uuid: string, patch: SiloPatch, ifMatch?: IfMatch, by?: AuditSource): Promise<SiloRecord> {
      return (await write(account, uuid, ifMatch, patchChange(await limits(account), patch), 'silo.patch', by, false)).record;
    },

    async delete(account: string, uuid: string, ifMatch?: IfMatch, by: AuditSource = programmatic): Promise<void> {
      await underLock(account, idOf(uuid), ifMatch, async (current, fence) => {
        const event: SiloEvent = { type: 'delete', account, silo: { ...metaOf(current), version: current.version } };
        const entry = auditEntryOf('silo.delete', account, by, isoTime(now()), event.silo);
        if (!(await storage.deleteSilo(current, fence, await outboxFor(event), entry))) return undefined;
        onCommit(event);
        return true;
      });
    },

    async versions(account: string, uuid: string, page: number, perPage: number): Promise<VersionPage> {
      const head = await owned(account, idOf(uuid));
      const { pageNo, size, offset } = pageOf(page, perPage);
      const total = head.version - head.oldest + 1;
      const wanted: number[] = [];
      for (let v = head.version - offset; v >= head.oldest && wanted.length < size; v--) wanted.push(v);
      const entries = Number.isSafeInteger(offset) ? await storage.getVersions(head, wanted) : [];
      const versions = entries.filter((e) => e !== undefined).map(infoOf);
      return { metadata: { total_items: total, per_page: size, page_no: pageNo }, versions };
    },

    async version(account: string, uuid: string, version: number): Promise<VersionData> {
      const { info, load } = await openVersion(account, uuid, version);
      return { info, text: await load() };
    },

    openVersion,

    async restore(account: string, uuid: string, version: number, ifMatch?: IfMatch, by?: AuditSource): Promise<SiloDataRecord> {
      const reservations: { release(): void }[] = [];
      try {
        return await write(account, uuid, ifMatch, async (current) => {
          const entry = await historyEntry(current, version);
          if (!entry) throw new NotFoundError(`Version ${version} is not in this silo's history`);
          // The version's text, as bytes and text, until the write is answered.
          reservations.push(await charge(2 * entry.size));
          const text = await storage.getVersionData(current, entry);
          if (text === undefined) throw new NotFoundError(`Version ${version} is not in this silo's history`);
          return { next: { ...nextOf(current, {}), data: { text, size: entry.size } } };
        }, 'silo.restore', by);
      } finally {
        for (const reservation of reservations) reservation.release();
      }
    },

    async readData(region: Region, uuid: string, account: string | undefined): Promise<SiloDataRecord> {
      return (await openData(region, uuid, account)).load();
    },

    open,
    openData,
  };
}
