import { REGIONS, type Region } from './types.js';

/** Splits "host:port" (or "[::1]:port") into its name and the ":port" suffix (or ""). */
function splitPort(host: string): { name: string; port: string } {
  const m = /^(\[[^\]]*\]|[^:]*)(:\d+)?$/.exec(host);
  return m ? { name: m[1] ?? host, port: m[2] ?? '' } : { name: host, port: '' };
}

/**
 * The host of each region for the playground's URL and curl line. `api` is the host the console
 * is on (it answers management and `api` data). The others: as the server reports them, else
 * derived from an `api.` host (`api.example.com` → `sg-01-api.example.com`), else
 * `<region>.localhost` (the defaults). The current port is kept: the regions share one listener.
 */
export function regionHosts(currentHost: string, reported: Partial<Record<Region, string>> = {}): Record<Region, string> {
  const { name, port } = splitPort(currentHost);
  const out = { api: currentHost } as Record<Region, string>;
  for (const region of REGIONS) {
    if (region === 'api') continue;
    const given = reported[region];
    if (given) out[region] = splitPort(given).name + port;
    else if (name.startsWith('api.')) out[region] = `${region}.${name.slice(4)}${port}`;
    else out[region] = `${region}.localhost${port}`;
  }
  return out;
}

/**
 * Reads the region hosts from the OpenAPI document's server description, which koa-silo writes
 * as "... (`api`: api.localhost, `sg-01-api`: sg-01-api.localhost, ...)". Best effort: a
 * description in another shape gives {} and the defaults apply.
 */
export function hostsFromOpenApi(doc: unknown): Partial<Record<Region, string>> {
  const servers = typeof doc === 'object' && doc !== null ? (doc as Record<string, unknown>)['servers'] : undefined;
  const first: unknown = Array.isArray(servers) ? servers[0] : undefined;
  const description = typeof first === 'object' && first !== null ? (first as Record<string, unknown>)['description'] : undefined;
  if (typeof description !== 'string') return {};
  const out: Partial<Record<Region, string>> = {};
  for (const m of description.matchAll(/`([a-z0-9-]+)`: ([A-Za-z0-9.\-:[\]]+?)(?=[,)]|$)/g)) {
    const region = m[1] as Region;
    if ((REGIONS as readonly string[]).includes(region) && m[2]) out[region] = m[2];
  }
  return out;
}
