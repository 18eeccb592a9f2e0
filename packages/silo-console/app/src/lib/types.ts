/** Shapes of the API's answers, as the contract and the console API brief give them. */
// The region codes and key durations are koa-silo's (koa-silo/model loads nothing else).
import { MANAGE_KEY_DURATIONS, REGIONS, WEBHOOK_EVENTS, type AuditEntryInfo, type ManageKeyDuration, type Region, type WebhookEventType } from 'koa-silo/model';

export { REGIONS, type Region };

export interface SiloMeta {
  file_uuid: string;
  file_name: string;
  is_public: boolean;
  region_name: Region;
  created_at: string;
  updated_at: string;
  version: number;
  /** The byte length of the stored data: in list items (an extra field of Silo's); else undefined. */
  size?: number;
}

export interface Page {
  total_items: number;
  per_page: number;
  page_no: number;
}

export interface SiloList {
  metadata: Page;
  silos: SiloMeta[];
}

export interface VersionItem {
  version: number;
  updated_at: string;
  file_name: string;
  is_public: boolean;
  region_name: Region;
  size: number;
}

export interface VersionList {
  metadata: Page;
  versions: VersionItem[];
}

export type KeyType = 'manage' | 'access';
export const DURATIONS = MANAGE_KEY_DURATIONS;
export type Duration = ManageKeyDuration;

export interface KeyInfo {
  type: KeyType;
  name: string;
  created_at: string;
  expires_at: string | null;
  silos: string[] | null;
}

export interface CreatedKey extends KeyInfo {
  key: string;
}

/** A webhook as the management API lists it (never its secret). */
export { WEBHOOK_EVENTS };
export type WebhookEvent = WebhookEventType;

export interface WebhookInfo {
  id: string;
  url: string;
  events: WebhookEvent[];
  silos: string[] | null;
  created_at: string;
  disabled: boolean;
  failing_since: string | null;
}

export interface CreatedWebhook extends WebhookInfo {
  secret: string;
}

/** One delivery attempt (contract §12). */
export interface Delivery {
  id: string;
  type: WebhookEvent;
  attempt: number;
  at: string;
  status: number | null;
  error: string | null;
  duration_ms: number;
  outcome: 'delivered' | 'retrying' | 'given up';
}

/** One entry of the audit log (contract §19): never a key value, a password or silo data. */
export type AuditEntry = AuditEntryInfo;

export interface AuditList {
  metadata: Page;
  entries: AuditEntry[];
}

/** What the audit log is narrowed to: a silo (file_uuid), an actor's name, entries at or after a time (RFC 3339). */
export interface AuditFilter {
  silo?: string;
  actor?: string;
  since?: string;
}

/** GET /console/api/session: who is signed in, if anyone (never a 401). */
export type SessionAnswer = ({ signed_in: true } & Me) | { signed_in: false };

export interface Me {
  user: string;
  account: string;
  /** Region host names, if the server reports them (not in the brief's API: optional). */
  hosts?: Partial<Record<Region, string>>;
}

export interface ValidationIssue {
  loc: (string | number)[];
  msg: string;
  type: string;
}
