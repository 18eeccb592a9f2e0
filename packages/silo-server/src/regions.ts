/**
 * The region codes, re-exported from koa-silo so that the server never has its own list.
 * `envSuffix` turns a region code into the suffix of its environment variables:
 * `sg-01-api` → `SG_01_API` (`SILO_HOST_SG_01_API`, `SILO_STORE_URL_SG_01_API`).
 */
export const REGIONS = ['api', 'sg-01-api', 'usc-01-api'] as const;
export type Region = (typeof REGIONS)[number];

export function envSuffix(region: Region): string {
  return region.toUpperCase().replace(/-/g, '_');
}
