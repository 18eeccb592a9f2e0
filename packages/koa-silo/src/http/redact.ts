/**
 * Key values (and webhook signing secrets) out of log lines. A client may paste a key where none belongs (a path segment, the
 * Host header, a query string), and log lines travel further than responses do (files, shippers,
 * dashboards). Anything shaped like a Silo key value is cut to its readable prefix, also when
 * some of its characters are percent-encoded (`silo%5Fman%5F…`, once or several times over).
 */

import { canonicalUuid } from '../service/silo-ids.js';

/** One character of a key value as it may appear in a URL: itself, or `%XX`, `%25XX`, ... */
function encodable(char: string): string {
  const hex = char.charCodeAt(0).toString(16).toUpperCase();
  const literal = /[A-Za-z0-9]/.test(char) ? char : `\\${char}`;
  return `(?:${literal}|%(?:25)*${hex[0]}[${hex[1]}${hex[1]!.toLowerCase()}])`;
}

const spelled = (word: string) => [...word].map(encodable).join('');

/** A base64url character as a URL may carry it: itself, or percent-encoded (once or several times over). */
const URL_CHAR = '(?:[A-Za-z0-9_-]|%(?:25)*[0-9A-Fa-f]{2})';

/**
 * `silo_man_` or `silo_acc_` and the random part (base64url), any character of which may be
 * percent-encoded; an escape of anything else inside a key is over-redacted, which is harmless.
 */
const KEY_VALUE = new RegExp(
  `${spelled('silo_')}(${spelled('man')}|${spelled('acc')})${spelled('_')}${URL_CHAR}+`,
  'g',
);

/** A webhook signing secret: `whsec_` and base64 (whose `+`, `/` and `=` a URL may escape). */
const WEBHOOK_SECRET = new RegExp(`${spelled('whsec_')}(?:[A-Za-z0-9+/=]|%(?:25)*[0-9A-Fa-f]{2})+`, 'g');

/**
 * A key's random part pasted without its prefix (43 characters of base64url, any of them perhaps
 * percent-encoded), or any other run of 32 or more such characters: no path or host of Silo's has
 * one but a uuid, which is kept.
 */
const OPAQUE_RUN = new RegExp(`(?<![A-Za-z0-9_%-])${URL_CHAR}{32,}`, 'g');

/**
 * `text` with every Silo key value replaced by `silo_man_…` or `silo_acc_…`, every webhook secret
 * by `whsec_…`, and every other opaque run of 32 characters or more (a key without its prefix) by `…`.
 */
export function redactKeyValues(text: string): string {
  let out = text;
  // Every key value and secret has an underscore, itself or percent-encoded: most paths have neither.
  if (out.includes('_') || out.includes('%')) {
    out = out
      .replace(KEY_VALUE, (_match, type: string) => `silo_${/m|%(25)*6d/i.test(type) ? 'man' : 'acc'}_…`)
      .replace(WEBHOOK_SECRET, 'whsec_…');
  }
  return out.length < 32 ? out : out.replace(OPAQUE_RUN, (run) => (canonicalUuid(run) === undefined ? '…' : run));
}
