/**
 * The check that a list of silos names only the caller's account's (a webhook's filter, a scoped
 * access key's scope): one 422 issue, `silo_not_found`, per silo that is not the account's.
 */
import type { ValidationIssue } from '../model/index.js';
import type { SiloStorage } from '../storage/index.js';
import { canonicalUuid } from './silo-ids.js';

/**
 * The issues of listed silos that are not `account`'s: a filter or scope naming another account's
 * silo would only ever be a probe. A missing silo gets the same issue as another account's, so
 * that the answer never tells whether a silo exists to someone who may not see it (contract §3).
 */
export async function foreignSilos(storage: SiloStorage, account: string, silos: readonly string[]): Promise<ValidationIssue[]> {
  // Only canonical uuids become storage keys; anything else names no silo (the programmatic API has no schema).
  const uuids = silos.map((silo) => canonicalUuid(silo));
  const wanted = uuids.filter((uuid): uuid is string => uuid !== undefined);
  const heads = wanted.length === 0 ? [] : await storage.getHeads(account, wanted);
  const mine = new Set(heads.flatMap((head) => (head?.account === account ? [head.file_uuid] : [])));
  return uuids.flatMap((uuid, i) =>
    uuid !== undefined && mine.has(uuid) ? [] : [{ loc: ['body', 'silos', i], msg: 'No silo of this account has this file_uuid', type: 'silo_not_found' }],
  );
}
