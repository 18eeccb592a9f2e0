/** The playground's parameters: a query (idx, path, output) or a search (q, value, op, then path). */
export interface QueryForm {
  mode: 'query' | 'search';
  idx: string;
  path: string;
  output: string;
  q: string;
  value: string;
  op: string;
}

export const EMPTY_FORM: QueryForm = { mode: 'query', idx: '', path: '', output: '', q: '', value: '', op: 'eq' };

/**
 * The query string the data API takes, in the order the hosted service demands (idx, path,
 * output / q, value, op, path), so the line also works against it. Empty fields are left out,
 * except `value`, which may be the empty string in a search.
 */
export function queryString(form: QueryForm): string {
  const p = new URLSearchParams();
  if (form.mode === 'query') {
    if (form.idx !== '') p.append('idx', form.idx);
    if (form.path !== '') p.append('path', form.path);
    if (form.output !== '' && form.output !== 'json') p.append('output', form.output);
  } else {
    p.append('q', form.q);
    p.append('value', form.value);
    if (form.op !== '' && form.op !== 'eq') p.append('op', form.op);
    if (form.path !== '') p.append('path', form.path);
  }
  return p.toString();
}

/** The private data address of a silo on its region's host. */
export function dataUrl(protocol: string, host: string, uuid: string, qs: string): string {
  return `${protocol}//${host}/${encodeURIComponent(uuid)}${qs === '' ? '' : `?${qs}`}`;
}

/** Quotes a word for a POSIX shell: single quotes, with any single quote written as '\''. */
export function shellQuote(s: string): string {
  return `'${s.replaceAll("'", `'\\''`)}'`;
}

/** The curl line for a data URL; the key stays a placeholder (a real value never appears on a page). */
export function curlLine(url: string): string {
  return `curl -s ${shellQuote(url)} -H ${shellQuote('X-SILO-KEY: <your access key>')}`;
}
