/** Shapes of the API's answers, as the contract and the console API brief give them. */
export const REGIONS = ['api', 'sg-01-api', 'usc-01-api'] as const;
export type Region = (typeof REGIONS)[number];

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
export const DURATIONS = ['7d', '30d', '90d', '365d', 'never'] as const;
export type Duration = (typeof DURATIONS)[number];

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
