/**
 * Silos as every layer sees them: regions, metadata, versions, data records, inputs and patches,
 * and the projections the API answers with. Types and constants only; imports nothing.
 */

export const REGIONS = ['api', 'sg-01-api', 'usc-01-api'] as const;
export type Region = (typeof REGIONS)[number];

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
/** One RFC 6902 operation, its shape checked (patch/check.ts). */
export type JsonPatchOperation =
  | { op: 'add' | 'replace' | 'test'; path: string; value: unknown }
  | { op: 'remove'; path: string }
  | { op: 'move' | 'copy'; from: string; path: string };

/** Operations one JSON Patch may have, unless configured otherwise (contract §17). */
export const DEFAULT_MAX_PATCH_OPERATIONS = 1000;

export type SiloPatch =
  | { type: 'merge'; patch: unknown }
  | { type: 'json-patch'; operations: readonly JsonPatchOperation[] }
  | {
      type: 'merge' | 'json-patch';
      text: string;
      /** Where a worker keeps this text's parse from its check (work/), so that it is not parsed again; absent for small ones. */
      kept?: string;
    };

/** The stored data of a silo: its exact JSON text, so a plain read sends it without re-serializing. */
export interface SiloDataRecord {
  record: SiloRecord;
  /** The JSON text of file_data exactly as stored. */
  text: string;
}

/**
 * A write's preconditions as the service sees them: `match`, If-Match's opaque tags (the write goes
 * ahead only when the current version's tag is among them), and `noneMatch`, If-None-Match's (only
 * when it is not; `*`: never, since the silo exists). A plain list is If-Match's alone; undefined
 * when there is no precondition.
 */
export type IfMatch = readonly string[] | Preconditions | undefined;

export interface Preconditions {
  readonly match?: readonly string[];
  readonly noneMatch?: readonly string[] | '*';
}

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
  /** `size`: the byte length of the silo's stored file_data text (beyond the contract: an extra field). */
  silos: (SiloMeta & { version: number; size: number })[];
}

/** A silo's fields other than its data, as a create gives them. */
export type SiloFields = Omit<CreateSiloInput, 'file_data'>;

/** The six metadata fields, in the contract's order, and nothing else (a listing's item). */
export function metaOf(r: SiloMeta): SiloMeta {
  return {
    file_name: r.file_name,
    file_uuid: r.file_uuid,
    created_at: r.created_at,
    updated_at: r.updated_at,
    is_public: r.is_public,
    region_name: r.region_name,
  };
}

/** The metadata fields and the version (contract §9), as create, meta and the list answer. */
export function versionedMetaOf(r: SiloMeta & { version: number }): SiloMeta & { version: number } {
  return { ...metaOf(r), version: r.version };
}
