/**
 * The Content-Security-Policy of every console response. It allows nothing but this origin:
 * scripts and styles come from the built files, requests go to the same origin (the console
 * API, the management API and its event stream). CodeMirror writes its generated theme into a
 * <style> element in the document's head (style-mod uses constructable stylesheets only inside
 * shadow roots), so index.html gets a fresh nonce for styles with each response instead of
 * 'unsafe-inline'; scripts need none.
 */
export function contentSecurityPolicy(styleNonce?: string): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    styleNonce ? `style-src 'self' 'nonce-${styleNonce}'` : "style-src 'self'",
    "connect-src 'self'",
    "img-src 'self' data:",
    "font-src 'self'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** The policy of responses without a page (assets, errors): no nonce. */
export const CONTENT_SECURITY_POLICY = contentSecurityPolicy();

export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy': CONTENT_SECURITY_POLICY,
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
};

/** Hashed asset names change with their content, so a browser may keep them for a year. */
export const CACHE_ASSET = 'public, max-age=31536000, immutable';
/** index.html names the current assets and carries a fresh nonce: fetched anew every time. */
export const CACHE_INDEX = 'no-cache';

/** The placeholder in the built index.html that each response replaces with its nonce. */
export const NONCE_PLACEHOLDER = '__SILO_CSP_NONCE__';
