/**
 * The export format (see README.md beside this file): one JSON object per line, each naming its
 * kind in `record`. Records are written with their fields in one fixed order, from the logical
 * facts only (never blob ids or tails), so that one logical store exports to the same lines
 * whichever engine holds it. Reading checks every field, so that a damaged file is refused with
 * the line that is wrong rather than half understood.
 */
import { isPasswordHash } from 'koa-silo';
import type { ImportedSilo, SiloHead, SiloStorage, StoredKey, VersionEntry } from 'koa-silo';
import { AUDIT_ACTIONS, AUDIT_ACTOR_TYPES, MANAGE_KEY_DURATIONS, REGIONS, WEBHOOK_EVENTS, type Account, type AuditEntry } from 'koa-silo/model';

export const FORMAT_NAME = 'silo-export';
/**
 * Still 1 with webhooks and console users: a file written before them (no `webhook` or `user`
 * line, no `webhooks` or `users` count) reads as it always did. A silo from before them refuses a
 * file of this one at its first `webhook` or `user` line, or at the counts line's `webhooks` or
 * `users`, rather than drop them.
 */
export const FORMAT_VERSION = 1;

/** A webhook as storage keeps it, signing secret included (koa-silo's StoredWebhook). */
export type StoredWebhook = Awaited<ReturnType<SiloStorage['listWebhooks']>>[number];

/** A console user as storage keeps it: the scrypt hash of the password, never the password (koa-silo's StoredUser). */
export type StoredUser = Awaited<ReturnType<SiloStorage['listUsers']>>[number];

export interface HeaderRecord {
  record: typeof FORMAT_NAME;
  version: number;
  /** How many silos follow, for progress only (the counts line is what an import verifies). */
  silos?: number;
}
export type AccountRecord = { record: 'account' } & Account;
export type KeyRecord = { record: 'key' } & StoredKey;
/** One webhook of an account, with its signing secret (receivers keep verifying with it). */
export type WebhookRecord = { record: 'webhook' } & StoredWebhook;
/** One console user, with the scrypt hash of its password (its old password keeps working). */
export type UserRecord = { record: 'user' } & StoredUser;
/** One audit log entry of an account (contract §19): never a key value, a password or silo data. */
export type AuditRecord = { record: 'audit' } & AuditEntry;
export type SiloLine = { record: 'silo' } & ImportedSilo;
/** One kept version of the silo of the `silo` line before it, with its data's exact JSON text. */
export type VersionLine = { record: 'version'; file_uuid: string; data: string } & Omit<VersionEntry, 'blob' | 'tail'>;
export interface Counts {
  accounts: number;
  keys: number;
  silos: number;
  versions: number;
  /** Absent from files written before webhooks: read as 0. */
  webhooks: number;
  /** Absent from files written before console users: read as 0. */
  users: number;
  /** Absent from files written before the audit log: read as 0. */
  audit: number;
}
export type CountsRecord = { record: 'counts' } & Counts;

/**
 * Every record of format 1. Console users (`user`) come after the webhooks and before the silos;
 * a reader from before them refuses them as unknown rather than skip them.
 */
export type TransferRecord = HeaderRecord | AccountRecord | KeyRecord | WebhookRecord | UserRecord | AuditRecord | SiloLine | VersionLine | CountsRecord;

export const emptyCounts = (): Counts => ({ accounts: 0, keys: 0, silos: 0, versions: 0, webhooks: 0, users: 0, audit: 0 });

/** A stored record has a field this format does not carry: exporting it would lose it silently. */
export class UnknownFieldError extends Error {}

/** Fields of each record in the order they are written; `?` marks one that may be absent. */
const FIELDS = {
  account: ['name', 'plan', 'created_at'],
  key: ['type', 'name', 'account', 'created_at', 'duration?', 'expires_at?', 'silos?', 'hash'],
  webhook: ['id', 'account', 'url', 'events', 'silos', 'created_at', 'disabled', 'failing_since', 'secret'],
  user: ['name', 'account', 'hash', 'created_at'],
  audit: ['id', 'account', 'time', 'action', 'actor', 'address', 'file_uuid?', 'version?', 'subject?', 'outcome'],
  silo: ['file_uuid', 'file_name', 'region_name', 'is_public', 'created_at', 'updated_at', 'account', 'size', 'version', 'etag', 'oldest'],
  version: ['file_uuid', 'version', 'updated_at', 'file_name', 'is_public', 'region_name', 'size', 'etag', 'data'],
  counts: ['accounts', 'keys', 'silos', 'versions', 'webhooks', 'users', 'audit'],
} as const;

/** Storage-internal fields: where data lies, which another engine names differently. */
const INTERNAL = new Set(['blob', 'tail']);

type Kind = keyof typeof FIELDS;

/** `source`'s fields in the order of `kind`, as one line (without its newline). */
function line(kind: Kind, source: object, what: () => string): string {
  const from = source as Record<string, unknown>;
  const names = FIELDS[kind].map((f) => f.replace('?', ''));
  for (const name of Object.keys(from)) {
    if (!names.includes(name) && !INTERNAL.has(name)) throw new UnknownFieldError(`${what()} has a field ${JSON.stringify(name)} that export format ${FORMAT_VERSION} does not carry`);
  }
  const out: Record<string, unknown> = { record: kind };
  for (const name of names) if (from[name] !== undefined) out[name] = from[name];
  return JSON.stringify(out);
}

export const headerLine = (silos: number): string => JSON.stringify({ record: FORMAT_NAME, version: FORMAT_VERSION, silos });
export const accountLine = (a: Account): string => line('account', a, () => `account ${JSON.stringify(a.name)}`);
export const keyLine = (k: StoredKey): string => line('key', k, () => `a key of account ${JSON.stringify(k.account)}`);
export const webhookLine = (w: StoredWebhook): string => line('webhook', w, () => `webhook ${JSON.stringify(w.id)} of account ${JSON.stringify(w.account)}`);
export const userLine = (u: StoredUser): string => line('user', u, () => `console user ${JSON.stringify(u.name)} of account ${JSON.stringify(u.account)}`);
export const auditLine = (e: AuditEntry): string => line('audit', e, () => `audit entry ${JSON.stringify(e.id)} of account ${JSON.stringify(e.account)}`);
export const siloLine = (h: SiloHead): string => line('silo', h, () => `silo ${h.file_uuid}`);
export const countsLine = (c: Counts): string => line('counts', c, () => 'counts');
export function versionLine(uuid: string, e: VersionEntry, data: string): string {
  return line('version', { file_uuid: uuid, ...e, data }, () => `version ${e.version} of silo ${uuid}`);
}

/** A line that is not a record of this format: the message says what is wrong (the caller adds the line number). */
export class RecordError extends Error {}

type Check = (v: unknown) => boolean;
const str: Check = (v) => typeof v === 'string';
const text: Check = (v) => typeof v === 'string' && v.length > 0;
const time: Check = (v) => typeof v === 'string' && !Number.isNaN(Date.parse(v));
const bool: Check = (v) => typeof v === 'boolean';
const count: Check = (v) => Number.isSafeInteger(v) && (v as number) >= 0;
const positive: Check = (v) => Number.isSafeInteger(v) && (v as number) >= 1;
const region: Check = (v) => (REGIONS as readonly unknown[]).includes(v);
const sha256: Check = (v) => typeof v === 'string' && /^[0-9a-f]{64}$/.test(v);
const texts = (v: unknown): v is string[] => Array.isArray(v) && v.every(text);
const events: Check = (v) => texts(v) && v.length > 0 && new Set(v).size === v.length && v.every((e) => (WEBHOOK_EVENTS as readonly string[]).includes(e));
const webhookUrl: Check = (v) => typeof v === 'string' && URL.canParse(v) && ['https:', 'http:'].includes(new URL(v).protocol);
/** `whsec_` and base64 (a bare base64 secret signs too): what koa-silo's signatures accept. */
const secret: Check = (v) => typeof v === 'string' && /^(whsec_)?[A-Za-z0-9+/]+={0,2}$/.test(v);
/** `scrypt$N$r$p$salt$hash` that koa-silo's passwords.ts verifies, at a cost it may take (out-of-range parameters made every sign-in a 500). */
const scryptHash: Check = (v) => typeof v === 'string' && isPasswordHash(v);

const CHECKS: Record<Kind, Record<string, Check>> = {
  account: { name: text, plan: text, created_at: time },
  key: {
    type: (v) => v === 'manage' || v === 'access',
    name: text,
    account: text,
    created_at: time,
    duration: (v) => v === undefined || (MANAGE_KEY_DURATIONS as readonly unknown[]).includes(v),
    expires_at: (v) => v === undefined || v === null || time(v),
    silos: (v) => v === undefined || (texts(v) && v.length > 0),
    hash: sha256,
  },
  webhook: {
    id: text,
    account: text,
    url: webhookUrl,
    events,
    silos: (v) => v === null || texts(v),
    created_at: time,
    disabled: bool,
    failing_since: (v) => v === null || time(v),
    secret,
  },
  user: { name: text, account: text, hash: scryptHash, created_at: time },
  audit: {
    id: (v) => typeof v === 'string' && /^[0-9a-z]{15}[A-Za-z0-9_-]+$/.test(v),
    account: text,
    time,
    action: (v) => (AUDIT_ACTIONS as readonly unknown[]).includes(v),
    actor: (v) => {
      if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
      const a = v as Record<string, unknown>;
      return Object.keys(a).every((k) => k === 'type' || k === 'name') && (AUDIT_ACTOR_TYPES as readonly unknown[]).includes(a.type) && str(a.name);
    },
    address: (v) => v === null || str(v),
    file_uuid: (v) => v === undefined || text(v),
    version: (v) => v === undefined || positive(v),
    subject: (v) => v === undefined || str(v),
    outcome: (v) => v === 'success' || v === 'failure',
  },
  silo: {
    file_uuid: text,
    file_name: str,
    region_name: region,
    is_public: bool,
    created_at: time,
    updated_at: time,
    account: text,
    size: count,
    version: positive,
    etag: text,
    oldest: positive,
  },
  version: { file_uuid: text, version: positive, updated_at: time, file_name: str, is_public: bool, region_name: region, size: count, etag: text, data: str },
  counts: {
    accounts: count,
    keys: count,
    silos: count,
    versions: count,
    webhooks: (v) => v === undefined || count(v),
    users: (v) => v === undefined || count(v),
    audit: (v) => v === undefined || count(v),
  },
};

/** Parses one line into a record of this format, or throws RecordError saying what is wrong. */
export function parseRecord(raw: string): TransferRecord {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw new RecordError(raw.trim() === '' ? 'an empty line' : 'not JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new RecordError('not a JSON object');
  const fields = value as Record<string, unknown>;
  const kind = fields.record;
  if (kind === FORMAT_NAME) {
    if (fields.version !== FORMAT_VERSION) throw new RecordError(`export format version ${JSON.stringify(fields.version)}, this silo reads version ${FORMAT_VERSION}`);
    if (fields.silos !== undefined && !count(fields.silos)) throw new RecordError('a header with an invalid silos');
    return value as HeaderRecord;
  }
  if (typeof kind !== 'string' || !Object.hasOwn(CHECKS, kind)) throw new RecordError(`unknown record type ${JSON.stringify(kind)}`);
  const checks = CHECKS[kind as Kind];
  for (const name of Object.keys(fields)) {
    if (name !== 'record' && !Object.hasOwn(checks, name)) throw new RecordError(`a ${kind} record with an unknown field ${JSON.stringify(name)}`);
  }
  for (const [name, check] of Object.entries(checks)) {
    if (!check(fields[name])) throw new RecordError(`a ${kind} record with ${fields[name] === undefined ? 'no' : 'an invalid'} ${name}`);
  }
  // A counts line from before webhooks, console users or the audit log: none of them.
  if (kind === 'counts' && (fields.webhooks === undefined || fields.users === undefined || fields.audit === undefined)) {
    const counts = value as Omit<CountsRecord, 'webhooks' | 'users' | 'audit'> & Partial<Pick<CountsRecord, 'webhooks' | 'users' | 'audit'>>;
    return { ...counts, webhooks: counts.webhooks ?? 0, users: counts.users ?? 0, audit: counts.audit ?? 0 };
  }
  return value as TransferRecord;
}

/** The head facts of a `silo` line (without `record`). */
export function siloOf(line: SiloLine): ImportedSilo {
  const silo: Partial<SiloLine> = { ...line };
  delete silo.record;
  return silo as ImportedSilo;
}
