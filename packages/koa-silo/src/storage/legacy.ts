/**
 * Silos written before versions existed (a metadata record and one data record with a header
 * line, see storage-keys.ts) become version 1 of a versioned silo the first time they are read:
 * their data goes into a blob, then one commit writes the head and history entry and removes the
 * metadata record, then the old data records are removed. A crash in between leaves the old
 * records (upgraded again on the next read) and at most an orphan blob.
 *
 * When an update of the old model was cut short, its data record (written first) may be newer than
 * the metadata: the data record's own header describes it whole, so it wins.
 */
import { type Region, REGIONS, type SiloRecord } from '../model/index.js';
import type { Atomic } from './atomic.js';
import { newBlobId, newEtag } from './ids.js';
import type { KeyvTextStore } from './keyv-text-store.js';
import type { StorageKeys } from './storage-keys.js';
import type { SiloHead, VersionEntry } from './types.js';

interface LegacyDeps {
  main: KeyvTextStore;
  regions: Record<Region, KeyvTextStore>;
  keys: StorageKeys;
  atomic: Atomic;
}

/** What the old model stored: a version string, no history. */
type LegacyRecord = Omit<SiloRecord, 'version' | 'etag'> & { version: unknown };

function decodeDataRecord(raw: string): { record: LegacyRecord; text: string } | undefined {
  const newline = raw.indexOf('\n');
  if (newline < 0) return undefined;
  return { record: JSON.parse(raw.slice(0, newline)) as LegacyRecord, text: raw.slice(newline + 1) };
}

/** The upgraded head of `uuid`, or undefined when there is neither a head nor an old record. */
export async function upgradeLegacySilo(deps: LegacyDeps, uuid: string, attempts = 3): Promise<SiloHead | undefined> {
  const { main, regions, keys, atomic } = deps;
  // Only ever on a store whose keys are not placed by account (see storage-keys.ts).
  const at = keys.silo('', uuid);
  for (let attempt = 0; attempt < attempts; attempt++) {
    const metaText = await main.get(keys.legacyMeta(uuid));
    if (metaText === undefined) {
      // Upgraded meanwhile by another reader, or never there.
      const raw = await main.get(at.head);
      return raw === undefined ? undefined : (JSON.parse(raw) as SiloHead);
    }
    const meta = JSON.parse(metaText) as LegacyRecord;
    const region = meta.region_name;
    const raw = await regions[region].get(keys.legacyData(region, uuid));
    const data = raw === undefined ? undefined : decodeDataRecord(raw);
    const whole = data && data.record.account === meta.account && data.record.region_name === region ? data.record : meta;
    if (!data) {
      // Metadata without data: a create of the old model that never finished. Nothing to keep.
      await atomic.apply({ expect: [[keys.legacyMeta(uuid), metaText]], set: [], delete: [keys.legacyMeta(uuid)], indexAdd: [], indexRemove: [[keys.index(meta.account), uuid]] });
      return undefined;
    }
    const head: SiloHead = {
      file_uuid: uuid,
      file_name: whole.file_name,
      region_name: region,
      is_public: whole.is_public,
      created_at: meta.created_at,
      updated_at: whole.updated_at,
      account: meta.account,
      size: Buffer.byteLength(data.text, 'utf8'),
      version: 1,
      etag: newEtag(),
      blob: newBlobId(1),
      oldest: 1,
    };
    const entry: VersionEntry = {
      version: 1,
      updated_at: head.updated_at,
      file_name: head.file_name,
      is_public: head.is_public,
      region_name: head.region_name,
      size: head.size,
      etag: head.etag,
      blob: head.blob,
    };
    await regions[region].set(at.blob(region, head.blob), data.text);
    const committed = await atomic.apply({
      expect: [
        [at.head, undefined],
        [keys.legacyMeta(uuid), metaText],
      ],
      set: [
        [at.head, JSON.stringify(head)],
        [at.version(1), JSON.stringify(entry)],
      ],
      delete: [keys.legacyMeta(uuid)],
      indexAdd: [[keys.index(head.account), -Date.parse(head.created_at), uuid]],
      indexRemove: [],
    });
    if (!committed) {
      await regions[region].delete(at.blob(region, head.blob));
      continue;
    }
    await Promise.all(REGIONS.map((r) => regions[r].delete(keys.legacyData(r, uuid)).catch(() => undefined)));
    return head;
  }
  return undefined;
}
