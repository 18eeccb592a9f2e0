/**
 * A silo written whole from an export (`silo import`, `silo migrate`): its head and every kept
 * history entry exactly as given, its data in blobs of its region, and its listing entry, as one
 * commit, as createSilo writes version 1 (see versions.ts).
 *
 * Consecutive versions with the same data share one blob, as metadata-only writes do; tails are
 * not rebuilt (each distinct text is one whole blob: reads join nothing). Blobs of a region whose
 * store the main store's transaction cannot reach are put before the commit and removed again
 * when it does not happen (their ids are fresh: nobody names them).
 */
import type { Region } from '../model/index.js';
import type { Atomic } from './atomic.js';
import { newBlobId } from './ids.js';
import type { KeyvTextStore } from './keyv-text-store.js';
import type { SiloOwners } from './silo-owners.js';
import type { StorageKeys } from './storage-keys.js';
import type { ImportedSilo, ImportedVersion, SiloHead, VersionEntry } from './types.js';

export interface ImportSiloDeps {
  main: KeyvTextStore;
  regions: Record<Region, KeyvTextStore>;
  keys: StorageKeys;
  atomic: Atomic;
  owners: SiloOwners | undefined;
}

/** Why the versions given cannot be the kept history of the silo given; undefined when they can. */
function historyProblem(silo: ImportedSilo, versions: ImportedVersion[]): string | undefined {
  if (!(Number.isSafeInteger(silo.oldest) && silo.oldest >= 1 && silo.oldest <= silo.version)) return `oldest ${silo.oldest} is not within 1..${silo.version}`;
  if (versions.length !== silo.version - silo.oldest + 1) return `it has ${versions.length} versions, not ${silo.oldest}..${silo.version}`;
  const wrong = versions.findIndex((v, i) => v.entry.version !== silo.oldest + i);
  if (wrong >= 0) return `version ${versions[wrong]!.entry.version} where ${silo.oldest + wrong} belongs`;
  const last = versions.at(-1)!.entry;
  if (last.etag !== silo.etag || last.size !== silo.size || last.updated_at !== silo.updated_at) return `its version ${last.version} is not its head's`;
  return undefined;
}

export function createImportSilo(deps: ImportSiloDeps): (silo: ImportedSilo, versions: ImportedVersion[]) => Promise<SiloHead> {
  const { main, regions, keys, atomic, owners } = deps;

  return async function importSilo(silo, versions) {
    const problem = historyProblem(silo, versions);
    if (problem) throw new TypeError(`silo ${silo.file_uuid} cannot be imported: ${problem}`);
    const uuid = silo.file_uuid;
    const region = silo.region_name;
    const at = keys.silo(silo.account, uuid);

    const entries: VersionEntry[] = [];
    const blobTexts: [blob: string, text: string][] = [];
    let previous: ImportedVersion | undefined;
    for (const version of versions) {
      const shared = previous !== undefined && previous.text === version.text;
      if (!shared) blobTexts.push([newBlobId(version.entry.version), version.text]);
      entries.push({ ...version.entry, blob: blobTexts.at(-1)![0] });
      previous = version;
    }
    const head: SiloHead = { ...silo, blob: entries.at(-1)!.blob };

    // Where the blobs go: into the batch (main store, or a store its transaction reaches), or before it.
    const store = regions[region];
    const blobSets = blobTexts.map(([blob, text]): [string, string] => [at.blob(region, blob), text]);
    const inMain = store === main;
    const joined = !inMain && atomic.joins(store);
    const before = !inMain && !joined;
    if (before) await Promise.all(blobSets.map(([key, text]) => store.set(key, text)));
    await owners?.record(uuid, silo.account);

    const committed = await atomic.apply({
      expect: [[at.head, undefined]],
      set: [
        ...(inMain ? blobSets : []),
        [at.head, JSON.stringify(head)],
        ...entries.map((entry): [string, string] => [at.version(entry.version), JSON.stringify(entry)]),
      ],
      delete: [],
      indexAdd: [[keys.index(silo.account), -Date.parse(silo.created_at), uuid]],
      indexRemove: [],
      ...(joined ? { joined: [{ store, set: blobSets, delete: [] }] } : {}),
    });
    if (!committed) {
      if (before) await Promise.all(blobSets.map(([key]) => store.delete(key).catch(() => undefined)));
      throw new Error(`a silo ${uuid} exists already`);
    }
    return head;
  };
}
