/** Shapes of the API's answers, as the contract and the console API brief give them. */
// The region codes and key durations are koa-silo's (koa-silo/model loads nothing else).
import { MANAGE_KEY_DURATIONS, REGIONS, type ManageKeyDuration, type Region } from 'koa-silo/model';

export { REGIONS, type Region };

export interface SiloMeta {
  file_uuid: string;
  file_name: string;
  is_public: boolean;
  region_name: Region;
  created_at: string;
  updated_at: string;
  version: number;
  /** Not in the contract's list items; shown when the server sends it. */
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
