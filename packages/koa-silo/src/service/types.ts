/**
 * The domain model and the seam between the HTTP layer and the service layer.
 * The HTTP layer only ever talks to these interfaces; the service layer only ever talks to storage.
 */

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
  /** Changes on every write of the silo; the strong ETag is derived from it. */
  version: string;
  /** Byte length of the stored JSON text of file_data. */
  size: number;
}

/** The stored data of a silo: its exact JSON text, so a plain read sends it without re-serializing. */
export interface SiloDataRecord {
  record: SiloRecord;
  /** The JSON text of file_data exactly as stored. */
  text: string;
}

/**
 * A silo found through its metadata, with its data read only when asked for: a reader that already
 * holds what it needs for `record.version` (a cache) skips the data record. `load()` may return a
 * newer version than `record` (data is written before metadata), never an older one; it applies
 * the same access rules again to the record it reads.
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
  silos: SiloMeta[];
}

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
}

export interface CreateKeyInput {
  account: string;
  type: KeyType;
  name: string;
  /** Manage keys only; default `30d`. */
  duration?: ManageKeyDuration;
}

/** Accounts and keys: used by the HTTP auth step, the programmatic API and the `silo` command. */
export interface AccountService {
  createAccount(name: string, plan?: string): Promise<Account>;
  getAccount(name: string): Promise<Account | undefined>;
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
  list(account: string, page: number, perPage: number): Promise<SiloPage>;
  meta(account: string, uuid: string): Promise<SiloRecord>;
  /** The silo with its stored JSON text (for get-silo and for private data reads). */
  read(account: string, uuid: string): Promise<SiloDataRecord>;
  /** `ifMatch` is a version; a mismatch throws PreconditionFailedError. */
  update(account: string, uuid: string, input: UpdateSiloInput, ifMatch?: string): Promise<SiloDataRecord>;
  delete(account: string, uuid: string, ifMatch?: string): Promise<void>;
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
