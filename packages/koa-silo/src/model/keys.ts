/**
 * Accounts and keys: key types and durations, what is stored of a key (never its value), who a
 * checked key says is calling, and where each key type travels. Imports nothing.
 */

export const MANAGE_KEY_DURATIONS = ['7d', '30d', '90d', '365d', 'never'] as const;
export type ManageKeyDuration = (typeof MANAGE_KEY_DURATIONS)[number];

export type KeyType = 'manage' | 'access';

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
  /** The chosen duration: every manage key's; an access key's only when it was given one. */
  duration?: ManageKeyDuration;
  /** When the key stops working: RFC 3339, or null for `never`; absent on an access key without a duration. */
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
  /** Manage keys: default `30d`. Access keys: none by default (they never expire), or one of the same durations. */
  duration?: ManageKeyDuration;
  /** Access keys only: scope the key to these silos (uuids, at most MAX_KEY_SILOS). */
  silos?: readonly string[];
}

/** Silos one scoped access key may name. */
export const MAX_KEY_SILOS = 100;

/** The readable start of each key type's values. */
export const KEY_PREFIX: Record<KeyType, string> = { manage: 'silo_man_', access: 'silo_acc_' };

/** The header that carries each key type (named in 401 messages, never the value). */
export const KEY_HEADER: Record<KeyType, string> = { manage: 'X-MAN-API', access: 'X-SILO-KEY' };
