/**
 * The headers every console response carries. The CSP allows nothing but this origin: scripts
 * and styles come from the built files, requests go to the same origin (the console API, the
 * management API and its event stream). CodeMirror injects its styles through constructable
 * stylesheets (adoptedStyleSheets), which `style-src 'self'` does not block, so no
 * 'unsafe-inline' is needed.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy': CONTENT_SECURITY_POLICY,
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
};

/** Hashed asset names change with their content, so a browser may keep them for a year. */
export const CACHE_ASSET = 'public, max-age=31536000, immutable';
/** index.html names the current assets: always revalidated, so a new build is picked up at once. */
export const CACHE_INDEX = 'no-cache';
