/**
 * Host names and browser origins: each region's default host, and the one normal form every
 * comparison uses. Imports nothing but the regions.
 */
import type { Region } from './silo.js';

export const DEFAULT_HOSTS: Record<Region, string> = {
  api: 'api.localhost',
  'sg-01-api': 'sg-01-api.localhost',
  'usc-01-api': 'usc-01-api.localhost',
};

/** `Api.Localhost.:8080` → `api.localhost`: lower case, no port, no trailing dot. */
export function normalizeHost(host: string): string {
  let h = host.trim().toLowerCase();
  if (h.startsWith('[')) {
    const end = h.indexOf(']');
    h = end === -1 ? h : h.slice(0, end + 1);
  } else {
    const colon = h.indexOf(':');
    if (colon !== -1) h = h.slice(0, colon);
  }
  while (h.endsWith('.')) h = h.slice(0, -1);
  return h;
}

/** `'*'`: every origin; a list: exactly these serialized origins (`https://app.example.com`). */
export type CorsOrigins = '*' | readonly string[];

/**
 * `https://App.example.com/` → `https://app.example.com`, the form browsers send in `Origin`.
 * Throws a TypeError for anything that is not a bare origin.
 */
export function normalizeOrigin(origin: string): string {
  let url: URL;
  try {
    url = new URL(origin.trim());
  } catch {
    throw new TypeError(`corsOrigins: not an origin such as https://app.example.com: ${JSON.stringify(origin)}`);
  }
  if (url.origin === 'null' || url.pathname !== '/' || url.search !== '' || url.hash !== '' || url.username !== '' || url.password !== '') {
    throw new TypeError(`corsOrigins: not an origin such as https://app.example.com (scheme, host and port only): ${JSON.stringify(origin)}`);
  }
  return url.origin;
}
