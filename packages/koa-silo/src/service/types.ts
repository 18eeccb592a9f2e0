/**
 * The domain model and the seam between the HTTP layer and the service layer.
 * The HTTP layer only ever talks to these interfaces; the service layer only ever talks to storage.
 */

import type { JsonPatchOperation } from '../patch/index.js';

export const REGIONS = ['api', 'sg-01-api', 'usc-01-api'] as const;
export type Region = (typeof REGIONS)[number];

export const MANAGE_KEY_DURATIONS = ['7d', '30d', '90d', '365d', 'never'] as const;
export type ManageKeyDuration = (typeof MANAGE_KEY_DURATIONS)[number];

export type KeyType = 'manage' | 'access';

/** A JSON object, or an array whose items are all objects. */
export type SiloData = Record<string, unknown> | Record<string, unknown>[];

/** The six metadata fields of the contract, as stored (never holds data). */
export interface SiloMeta {
  file_uuid: string;
  file_name: string;
  region_name: Region;
  is_public: boolean;
  created_at: string;
  updated_at: string;
}

/** Metadata plus what the server needs but never shows in a listing. */
export interface SiloRecord extends SiloMeta {
  account: string;
  /** 1 at create, one more on every successful write (contract §9). */
  version: number;
  /** Opaque, random per version: the strong ETag's tag. Reveals nothing of the server. */
  etag: string;
  /** Byte length of the stored JSON text of file_data. */
  size: number;
}

/** One version of a silo as history lists it (contract §9). */
export interface VersionInfo {
  version: number;
  updated_at: string;
  file_name: string;
  is_public: boolean;
  region_name: Region;
  size: number;
}

export interface VersionPage {
  metadata: { total_items: number; per_page: number; page_no: number };
  versions: VersionInfo[];
}

/** The data of one version in history. */
export interface VersionData {
  info: VersionInfo;
  /** The JSON text of that version's file_data, exactly as stored. */
  text: string;
}

/**
 * A partial update (contract §10): an RFC 7386 merge patch or a validated RFC 6902 operation
 * list, applied to the silo's document `{file_name, file_data, region_name, is_public}`. Given as
 * a value, or as its checked JSON text (a request body), parsed with numbers as written where the
 * patch is applied: on a worker thread when it is large.
 */
export type SiloPatch =
  | { type: 'merge'; patch: unknown }
  | { type: 'json-patch'; operations: readonly JsonPatchOperation[] }
  | { type: 'merge' | 'json-patch'; text: string };

/** The stored data of a silo: its exact JSON text, so a plain read sends it without re-serializing. */
export interface SiloDataRecord {
  record: SiloRecord;
  /** The JSON text of file_data exactly as stored. */
  text: string;
}

/**
 * `If-Match` as the service sees it: the opaque tags named (a write goes ahead only when the
 * current version's tag is among them); undefined when there is no precondition.
 */
export type IfMatch = readonly string[] | undefined;

/**
 * A silo found through its metadata, with its data read only when asked for: a reader that already
 * holds what it needs for `record.version` (a cache) skips the data record. `load()` returns the
 * data of `record`'s version, or of a newer one when history no longer holds it.
 */
export interface SiloHandle {
  record: SiloRecord;
  load(): Promise<SiloDataRecord>;
}

export interface CreateSiloInput {
  file_name: string;
  file_data: SiloData;
  region_name?: Region;
  is_public?: boolean;
}

export interface UpdateSiloInput {
  file_name?: string;
  file_data?: SiloData;
  region_name?: Region;
  is_public?: boolean;
}

export interface SiloPage {
  metadata: { total_items: number; per_page: number; page_no: number };
  silos: (SiloMeta & { version: number })[];
}

/** A silo's fields other than its data, as a create gives them. */
export type SiloFields = Omit<CreateSiloInput, 'file_data'>;

export interface Account {
  name: string;
  /** The plan that sets the account's size and rate limits; `default` unless chosen. */
  plan: string;
  created_at: string;
}

/** What is stored of a key: never its value. */
export interface KeyInfo {
  type: KeyType;
  name: string;
  account: string;
  created_at: string;
  /** Manage keys only: the chosen duration. */
  duration?: ManageKeyDuration;
  /** Manage keys only: RFC 3339, or null for `never`. */
  expires_at?: string | null;
  /** Access keys only: the silos it reads (a scoped key, contract §15); absent: every silo of the account. */
  silos?: string[];
}

/** A freshly created key: the only time its value exists outside the caller's hands. */
export interface CreatedKey extends KeyInfo {
  key: string;
}

/** Who is calling, once a key has been checked. */
export interface Principal {
  account: string;
  keyType: KeyType;
  keyName: string;
  /** A scoped access key's silos (canonical uuids); absent: every silo of the account. */
  silos?: readonly string[];
}

export interface CreateKeyInput {
  account: string;
  type: KeyType;
  name: string;
  /** Manage keys only; default `30d`. */
  duration?: ManageKeyDuration;
  /** Access keys only: scope the key to these silos (uuids, at most MAX_KEY_SILOS). */
  silos?: readonly string[];
}

/** Silos one scoped access key may name. */
export const MAX_KEY_SILOS = 100;

/** Accounts and keys: used by the HTTP auth step, the programmatic API and the `silo` command. */
export interface AccountService {
  createAccount(name: string, plan?: string): Promise<Account>;
  getAccount(name: string): Promise<Account | undefined>;
  /** The account's plan name (`default` for a missing account), as stored at most 5 s ago. */
  planOf(name: string): Promise<string>;
  listAccounts(): Promise<Account[]>;
  createKey(input: CreateKeyInput): Promise<CreatedKey>;
  listKeys(account: string): Promise<KeyInfo[]>;
  /** Throws BadRequestError when `confirm !== name`, NotFoundError when there is no such key. */
  revokeKey(input: { account: string; type: KeyType; name: string; confirm: string }): Promise<void>;
  /** Resolve a presented key value of the expected type; throws UnauthorizedError otherwise. */
  authenticate(value: string | undefined, type: KeyType): Promise<Principal>;
}

/** Silos of one account; every method throws NotFoundError for a silo the account cannot see. */
export interface SiloService {
  create(account: string, input: CreateSiloInput): Promise<SiloRecord>;
  /**
   * `create` with file_data as its exact JSON text, stored as it is (numbers as written): the
   * caller has checked that it is a JSON object or an array of objects, in compact form.
   */
  createText(account: string, input: SiloFields, text: string): Promise<SiloRecord>;
  list(account: string, page: number, perPage: number): Promise<SiloPage>;
  meta(account: string, uuid: string): Promise<SiloRecord>;
  /** The silo with its stored JSON text (for get-silo and for private data reads). */
  read(account: string, uuid: string): Promise<SiloDataRecord>;
  /** A mismatch of `ifMatch` throws PreconditionFailedError. */
  update(account: string, uuid: string, input: UpdateSiloInput, ifMatch?: IfMatch): Promise<SiloDataRecord>;
  /** `update` with new file_data (if any) as its exact JSON text, as for createText. */
  updateText(account: string, uuid: string, input: Partial<SiloFields>, text: string | undefined, ifMatch?: IfMatch): Promise<SiloDataRecord>;
  /** As update; PatchConflictError (409) when the patch cannot apply to the current document. */
  patch(account: string, uuid: string, patch: SiloPatch, ifMatch?: IfMatch): Promise<SiloDataRecord>;
  delete(account: string, uuid: string, ifMatch?: IfMatch): Promise<void>;
  /** History, newest first (contract §9). */
  versions(account: string, uuid: string, page: number, perPage: number): Promise<VersionPage>;
  /** One version in history; NotFoundError when pruned or never written. */
  version(account: string, uuid: string, version: number): Promise<VersionData>;
  /** One version's entry (its size known before its data is read) and a loader of its data; NotFoundError as `version`. */
  openVersion(account: string, uuid: string, version: number): Promise<{ info: VersionInfo; load(): Promise<string> }>;
  /** Writes a new version whose file_data is that of `version`. */
  restore(account: string, uuid: string, version: number, ifMatch?: IfMatch): Promise<SiloDataRecord>;
  /**
   * A data-access read on a region host: the silo only if it lives in `region`.
   * Public reads pass `account: undefined` and see public silos only.
   */
  readData(region: Region, uuid: string, account: string | undefined): Promise<SiloDataRecord>;
  /** `read` in two steps: the metadata now (404 as `read`), the data on `load()`. */
  open(account: string, uuid: string): Promise<SiloHandle>;
  /** `readData` in two steps: the metadata now (404 as `readData`), the data on `load()`. */
  openData(region: Region, uuid: string, account: string | undefined): Promise<SiloHandle>;
}
