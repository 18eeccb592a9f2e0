/**
 * The playground's parameters: a query (idx, path, output) or a search: the seed's q, value, op
 * and the query language's filter (both must hold), then sort, offset, limit, then path or fields.
 */
export interface QueryForm {
  mode: 'query' | 'search';
  idx: string;
  path: string;
  output: string;
  q: string;
  value: string;
  op: string;
  filter: string;
  sort: string;
  limit: string;
  offset: string;
  fields: string;
}

export const EMPTY_FORM: QueryForm = {
  mode: 'query',
  idx: '',
  path: '',
  output: '',
  q: '',
  value: '',
  op: 'eq',
  filter: '',
  sort: '',
  limit: '',
  offset: '',
  fields: '',
};

/**
 * The query string the data API takes, in the order the hosted service demands (idx, path,
 * output / q, value, op, path), so the line also works against it; the query language's
 * parameters follow. Empty fields are left out, except `value` beside a `q`, which may be the
 * empty string.
 */
export function queryString(form: QueryForm): string {
  const p = new URLSearchParams();
  if (form.mode === 'query') {
    if (form.idx !== '') p.append('idx', form.idx);
    if (form.path !== '') p.append('path', form.path);
    if (form.output !== '' && form.output !== 'json') p.append('output', form.output);
  } else {
    if (form.q !== '') {
      p.append('q', form.q);
      p.append('value', form.value);
      if (form.op !== '' && form.op !== 'eq') p.append('op', form.op);
    }
    if (form.path !== '') p.append('path', form.path);
    for (const name of ['filter', 'sort', 'limit', 'offset', 'fields'] as const) if (form[name] !== '') p.append(name, form[name]);
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

/** The public data address of a silo on its region's host (no key). */
export function publicUrl(protocol: string, host: string, uuid: string): string {
  return `${protocol}//${host}/public/${encodeURIComponent(uuid)}`;
}

/**
 * The words of a curl line, for a page that lets it wrap only between them (never inside the
 * header): joined, they are exactly `curlLine`. The key stays a placeholder.
 */
export function curlParts(url: string, withKey = true): string[] {
  return ['curl -s', shellQuote(url), ...(withKey ? [`-H ${shellQuote('X-SILO-KEY: <your access key>')}`] : [])];
}

/** The curl line for a data URL; the key stays a placeholder (a real value never appears on a page). */
export function curlLine(url: string, withKey = true): string {
  return curlParts(url, withKey).join(' ');
}
