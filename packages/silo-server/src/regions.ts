/**
 * `envSuffix` turns a region code into the suffix of its environment variables:
 * `sg-01-api` → `SG_01_API` (`SILO_HOST_SG_01_API`, `SILO_STORE_URL_SG_01_API`). The region codes
 * themselves are koa-silo's (`REGIONS` of koa-silo/model): the server has no list of its own.
 */
import type { Region } from 'koa-silo/model';

export function envSuffix(region: Region): string {
  return region.toUpperCase().replace(/-/g, '_');
}
