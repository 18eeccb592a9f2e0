/**
 * Key values out of log lines. A client may paste a key where none belongs (a path segment, the
 * Host header, a query string), and log lines travel further than responses do (files, shippers,
 * dashboards). Anything shaped like a Silo key value is cut to its readable prefix.
 */
const KEY_VALUE = /silo_(man|acc)_[A-Za-z0-9_-]+/g;

/** `text` with every Silo key value replaced by `silo_man_…` or `silo_acc_…`. */
export function redactKeyValues(text: string): string {
  return text.replace(KEY_VALUE, 'silo_$1_…');
}
