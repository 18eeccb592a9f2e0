/** Contract §1: the region of a request is the region whose host equals its Host (port ignored); otherwise `api`. */
import type { Context } from 'koa';
import { normalizeHost, type Region, REGIONS } from '../model/index.js';

export type RegionOf = (ctx: Context) => Region;

export function regionResolver(hosts: Record<Region, string>): RegionOf {
  const byHost = new Map<string, Region>();
  // Listed in REGIONS order, so when two regions share a host name the first one wins.
  for (const region of [...REGIONS].reverse()) byHost.set(hosts[region], region);
  return (ctx) => byHost.get(normalizeHost(ctx.get('Host'))) ?? 'api';
}
