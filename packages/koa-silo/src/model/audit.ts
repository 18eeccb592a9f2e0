/**
 * The audit log's vocabulary (contract §19): what an entry records of one management action, who
 * can act, and how long entries are kept. Types and constants only; imports nothing.
 *
 * An entry never holds a key value, a password or silo data: only who acted (a key's type and
 * name, a console user, the `silo` command), from where, on what (a silo's uuid and version, a
 * key's or webhook's name), and whether it succeeded.
 */

export const AUDIT_ACTIONS = [
  'silo.create',
  'silo.update',
  'silo.patch',
  'silo.restore',
  'silo.move',
  'silo.delete',
  'key.create',
  'key.revoke',
  'webhook.create',
  'webhook.delete',
  'console.sign_in',
  'console.sign_in_failed',
  'console.sign_out',
  'user.create',
  'user.delete',
  'import',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/**
 * Who acted: `manage` (a manage key, by its name; `access` keys never manage), `console` (a
 * console user), `command` (the `silo` command), `program` (the programmatic API of koa-silo, by
 * the embedding program).
 */
export const AUDIT_ACTOR_TYPES = ['manage', 'access', 'console', 'command', 'program'] as const;
export type AuditActorType = (typeof AUDIT_ACTOR_TYPES)[number];

export interface AuditActor {
  type: AuditActorType;
  name: string;
}

/** Who a service call acts for, and from where: the HTTP layer passes the caller's. */
export interface AuditSource {
  actor: AuditActor;
  /** The client's address (as the rate limits see it), or null when there is none (a command). */
  address?: string | null;
}

export type AuditOutcome = 'success' | 'failure';

/** One entry as the API shows it (contract §19). */
export interface AuditEntryInfo {
  time: string;
  action: AuditAction;
  actor: AuditActor;
  address: string | null;
  file_uuid?: string;
  version?: number;
  /** What else the action was on: a key (`manage:NAME`, `access:NAME`), a webhook's id, a user's name, a move's new region. */
  subject?: string;
  outcome: AuditOutcome;
}

/** An entry as stored: its id (unique, ordered by time) and its account. */
export interface AuditEntry extends AuditEntryInfo {
  id: string;
  account: string;
}

/** An entry before storage gives it its id. */
export type NewAuditEntry = Omit<AuditEntry, 'id'>;

/** One page of an account's audit log, newest first, paged as the silo list. */
export interface AuditPage {
  metadata: { total_items: number; per_page: number; page_no: number };
  entries: AuditEntryInfo[];
}

/** What a listing of the audit log asks for. */
export interface AuditQuery {
  page?: number;
  perPage?: number;
  /** Entries at or after this time (epoch ms). */
  since?: number;
  /** Entries of this silo only (a canonical uuid). */
  silo?: string;
  /** Entries of actors of this name only. */
  actor?: string;
}

/** Days an account's entries are kept unless its plan says otherwise. */
export const DEFAULT_AUDIT_DAYS = 90;

/** The actor of programmatic calls that name none. */
export const PROGRAM_ACTOR: AuditActor = { type: 'program', name: 'koa-silo' };

/** The actor of the `silo` command. */
export const COMMAND_ACTOR: AuditActor = { type: 'command', name: 'silo' };

/** The entry of a successful action: who, from where, on which silo and version or what else (contract §19). */
export function auditEntryOf(
  action: AuditAction,
  account: string,
  by: AuditSource,
  time: string,
  silo?: { file_uuid: string; version: number },
  subject?: string,
): NewAuditEntry {
  return {
    account,
    time,
    action,
    actor: by.actor,
    address: by.address ?? null,
    ...(silo ? { file_uuid: silo.file_uuid, version: silo.version } : {}),
    ...(subject !== undefined ? { subject } : {}),
    outcome: 'success',
  };
}

/** The API's shape of a stored entry: without its id and account. */
export function auditInfoOf(entry: AuditEntry): AuditEntryInfo {
  return {
    time: entry.time,
    action: entry.action,
    actor: { type: entry.actor.type, name: entry.actor.name },
    address: entry.address,
    ...(entry.file_uuid !== undefined ? { file_uuid: entry.file_uuid } : {}),
    ...(entry.version !== undefined ? { version: entry.version } : {}),
    ...(entry.subject !== undefined ? { subject: entry.subject } : {}),
    outcome: entry.outcome,
  };
}
