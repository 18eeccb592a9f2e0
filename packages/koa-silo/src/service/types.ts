/**
 * The seam between the HTTP layer and the service layer: what the services offer. The HTTP layer
 * only ever talks to these interfaces; the services only ever talk to storage.
 */
import type {
  Account,
  AuditSource,
  CreatedKey,
  CreateKeyInput,
  CreateSiloInput,
  IfMatch,
  KeyInfo,
  KeyType,
  Principal,
  Region,
  SiloDataRecord,
  SiloFields,
  SiloHandle,
  SiloPage,
  SiloPatch,
  SiloRecord,
  UpdateSiloInput,
  VersionData,
  VersionInfo,
  VersionPage,
} from '../model/index.js';

/** Accounts and keys: used by the HTTP auth step, the programmatic API and the `silo` command. */
export interface AccountService {
  createAccount(name: string, plan?: string): Promise<Account>;
  getAccount(name: string): Promise<Account | undefined>;
  /** The account's plan name (`default` for a missing account), as stored at most 5 s ago. */
  planOf(name: string): Promise<string>;
  listAccounts(): Promise<Account[]>;
  /** `by`: who acts, for the audit log (default: the programmatic API's actor). */
  createKey(input: CreateKeyInput, by?: AuditSource): Promise<CreatedKey>;
  listKeys(account: string): Promise<KeyInfo[]>;
  /** Throws BadRequestError when `confirm !== name`, NotFoundError when there is no such key. */
  revokeKey(input: { account: string; type: KeyType; name: string; confirm: string }, by?: AuditSource): Promise<void>;
  /**
   * Removes an account that holds nothing any more: its silos, webhooks, console users and keys are
   * the caller's to remove first (ConflictError while any is left). BadRequestError when
   * `confirm !== name`, NotFoundError when there is no such account.
   */
  deleteAccount(name: string, confirm: string): Promise<void>;
  /** Resolve a presented key value of the expected type; throws UnauthorizedError otherwise. */
  authenticate(value: string | undefined, type: KeyType): Promise<Principal>;
}

/**
 * Silos of one account; every method throws NotFoundError for a silo the account cannot see. A
 * write's `by` says who acts, for its audit entry (default: the programmatic API's actor).
 */
export interface SiloService {
  create(account: string, input: CreateSiloInput, by?: AuditSource): Promise<SiloRecord>;
  /**
   * `create` with file_data as its exact JSON text, stored as it is (numbers as written): the
   * caller has checked that it is a JSON object or an array of objects, in compact form.
   */
  createText(account: string, input: SiloFields, text: string, by?: AuditSource): Promise<SiloRecord>;
  list(account: string, page: number, perPage: number): Promise<SiloPage>;
  meta(account: string, uuid: string): Promise<SiloRecord>;
  /** The silo with its stored JSON text (for get-silo and for private data reads). */
  read(account: string, uuid: string): Promise<SiloDataRecord>;
  /** A mismatch of `ifMatch` throws PreconditionFailedError. */
  update(account: string, uuid: string, input: UpdateSiloInput, ifMatch?: IfMatch, by?: AuditSource): Promise<SiloDataRecord>;
  /** `update` with new file_data (if any) as its exact JSON text, as for createText. */
  updateText(account: string, uuid: string, input: Partial<SiloFields>, text: string | undefined, ifMatch?: IfMatch, by?: AuditSource): Promise<SiloDataRecord>;
  /** As update; PatchConflictError (409) when the patch cannot apply to the current document. */
  patch(account: string, uuid: string, patch: SiloPatch, ifMatch?: IfMatch, by?: AuditSource): Promise<SiloDataRecord>;
  /** `patch`, answering the record only: an append to an array that has had appends reads none of its data. */
  patchRecord(account: string, uuid: string, patch: SiloPatch, ifMatch?: IfMatch, by?: AuditSource): Promise<SiloRecord>;
  delete(account: string, uuid: string, ifMatch?: IfMatch, by?: AuditSource): Promise<void>;
  /** History, newest first (contract §9). */
  versions(account: string, uuid: string, page: number, perPage: number): Promise<VersionPage>;
  /** One version in history; NotFoundError when pruned or never written. */
  version(account: string, uuid: string, version: number): Promise<VersionData>;
  /** One version's entry (its size known before its data is read) and a loader of its data; NotFoundError as `version`. */
  openVersion(account: string, uuid: string, version: number): Promise<{ info: VersionInfo; load(): Promise<string> }>;
  /** Writes a new version whose file_data is that of `version`. */
  restore(account: string, uuid: string, version: number, ifMatch?: IfMatch, by?: AuditSource): Promise<SiloDataRecord>;
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
