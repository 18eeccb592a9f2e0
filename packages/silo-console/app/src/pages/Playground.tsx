import { useMemo, useState } from 'preact/hooks';
import { compile, OPS, OUTPUTS, SiloQueryError, type JsonValue } from 'silo-query';
import { api } from '../api/endpoints.js';
import { go, useLoad } from '../hooks.js';
import { issueField } from '../lib/errors.js';
import { dataMember, formatJson, parseExact } from '../lib/json.js';
import { curlParts, dataUrl, EMPTY_FORM, queryString, type QueryForm } from '../lib/query-url.js';
import { href } from '../lib/routes.js';
import { useSession } from '../session.js';
import { CommandLine } from '../components/CommandLine.js';
import { describedBy, ErrorText, Field } from '../components/ui.js';

const OP_WORDS: Record<string, string> = {
  eq: 'eq: equals',
  ne: 'ne: does not equal',
  gt: 'gt: greater than',
  lt: 'lt: less than',
  lk: 'lk: LIKE (case-sensitive, % and _)',
  il: 'il: ILIKE (any case, % and _)',
};

type Outcome = { ok: true; text: string; total?: number } | { ok: false; message: string; fields: Record<string, string> };

/**
 * Runs silo-query in the browser, on the silo's data as stored (exact numbers), with the same
 * parameters the data API takes, and shows the URL and curl line that give the same answer.
 */
export function Playground({ uuid }: { uuid: string | undefined }) {
  const session = useSession();
  const silos = useLoad(() => api.silos(1, 100), []);
  const data = useLoad(async () => (uuid ? parseData(await api.dataText(uuid)) : undefined), [uuid]);
  const [form, setForm] = useState<QueryForm>(EMPTY_FORM);
  const [outcome, setOutcome] = useState<Outcome>();
  const set = (patch: Partial<QueryForm>) => {
    setForm((f) => ({ ...f, ...patch }));
    setOutcome(undefined);
  };
  const silo = silos.value?.silos.find((s) => s.file_uuid === uuid);
  const qs = queryString(form);
  const url = useMemo(
    () => (uuid ? dataUrl(location.protocol, session.hosts[silo?.region_name ?? 'api'], uuid, qs) : ''),
    [uuid, qs, silo?.region_name, session.hosts],
  );

  const run = (e: Event) => {
    e.preventDefault();
    if (data.value === undefined) return;
    try {
      const query = compile(qs);
      const result = query.run(data.value);
      // The count the API sends as X-Total-Count: the matches before offset and limit.
      setOutcome({ ok: true, text: formatJson(result.value), ...(query.reportsTotal && result.total !== undefined ? { total: result.total } : {}) });
    } catch (err) {
      if (err instanceof SiloQueryError) {
        const fields: Record<string, string> = {};
        for (const d of err.detail) fields[issueField(d)] = d.msg;
        setOutcome({ ok: false, message: `422: ${err.detail.map((d) => `${issueField(d)}: ${d.msg}`).join('; ')}`, fields });
      } else setOutcome({ ok: false, message: err instanceof Error ? err.message : String(err), fields: {} });
    }
  };
  const fieldError = (name: string) => (outcome && !outcome.ok ? outcome.fields[name] : undefined);
  const input = (name: 'idx' | 'path' | 'q' | 'value' | 'filter' | 'sort' | 'limit' | 'offset' | 'fields', label: string, hint?: string, wide = false) => (
    <Field id={`pg-${name}`} label={label} error={fieldError(name)} wide={wide} {...(hint ? { hint } : {})}>
      <input
        id={`pg-${name}`}
        value={form[name]}
        autocomplete="off"
        spellcheck={false}
        onInput={(e) => set({ [name]: e.currentTarget.value })}
        aria-invalid={fieldError(name) ? 'true' : undefined}
        aria-describedby={describedBy(`pg-${name}`, { hint: Boolean(hint), error: fieldError(name) })}
      />
    </Field>
  );

  return (
    <>
      <h1>Query playground</h1>
      <p>
        Try the data API's parameters on a silo. The query runs here, in the browser, with the same engine the server uses; the URL and
        curl line below give the same answer from the server with an access key.
      </p>
      <ErrorText message={silos.error} />
      <Field id="pg-silo" label="Silo">
        <select id="pg-silo" value={uuid ?? ''} onChange={(e) => go(href({ page: 'playground', uuid: e.currentTarget.value || undefined }))}>
          <option value="">Choose a silo…</option>
          {silos.value?.silos.map((s) => (
            <option key={s.file_uuid} value={s.file_uuid}>
              {s.file_name} ({s.region_name})
            </option>
          ))}
        </select>
      </Field>
      <ErrorText message={data.error} />
      <form class="stack" onSubmit={run}>
        <fieldset>
          <legend>Kind</legend>
          <div class="check">
            <input id="pg-mode-query" type="radio" name="pg-mode" checked={form.mode === 'query'} onChange={() => set({ mode: 'query' })} />
            <label for="pg-mode-query">Query: idx, path, output</label>
          </div>
          <div class="check">
            <input id="pg-mode-search" type="radio" name="pg-mode" checked={form.mode === 'search'} onChange={() => set({ mode: 'search' })} />
            <label for="pg-mode-search">Search: q, value, op, filter, sort, paging, then path or fields</label>
          </div>
        </fieldset>
        {form.mode === 'query' ? (
          <div class="columns">
            {input('idx', 'idx (array element)', 'A whole number from 0; empty for none.')}
            {input('path', 'path (dot notation)', 'For example address.city or tags.0.')}
            <Field id="pg-output" label="output" error={fieldError('output')}>
              <select id="pg-output" value={form.output || 'json'} onChange={(e) => set({ output: e.currentTarget.value })}>
                {OUTPUTS.map((o) => (
                  <option key={o} value={o}>
                    {o}
                  </option>
                ))}
              </select>
            </Field>
          </div>
        ) : (
          <div class="columns">
            {input('q', 'q (field to compare)', 'A path in each element, such as age or address.city.')}
            {input('value', 'value')}
            <Field id="pg-op" label="op" error={fieldError('op')}>
              <select id="pg-op" value={form.op} onChange={(e) => set({ op: e.currentTarget.value })}>
                {OPS.map((o) => (
                  <option key={o} value={o}>
                    {OP_WORDS[o] ?? o}
                  </option>
                ))}
              </select>
            </Field>
            {input(
              'filter',
              'filter',
              'For example: price gt 100 and category eq "tools". Words: and, or, not, eq ne gt lt ge le lk il, in (…), has, exists.',
              true,
            )}
            {input('sort', 'sort', 'Paths, comma-separated; a minus sorts descending: -price,name.')}
            {input('limit', 'limit', 'At most this many (0 to 10 000).')}
            {input('offset', 'offset', 'Skip this many first.')}
            {input('fields', 'fields', 'Keep only these paths: name,price.')}
            {input('path', 'path (of each match)', 'Or: return this path of each match.')}
          </div>
        )}
        <div class="row">
          <button type="submit" class="primary" disabled={data.value === undefined}>
            Run
          </button>
          {!uuid ? <span class="hint">Choose a silo first.</span> : data.loading ? <span role="status">Loading the silo…</span> : null}
        </div>
      </form>
      {outcome ? (
        <section aria-labelledby="pg-result-heading">
          <h2 id="pg-result-heading">Result</h2>
          {outcome.ok ? (
            <>
              {outcome.total !== undefined ? (
                <p role="status" aria-label="Match count">
                  {outcome.total} {outcome.total === 1 ? 'match' : 'matches'} in all (X-Total-Count)
                </p>
              ) : null}
              <pre class="result" tabIndex={0} aria-label="Query result">
                {outcome.text}
              </pre>
            </>
          ) : (
            <ErrorText message={outcome.message} />
          )}
        </section>
      ) : null}
      {uuid ? (
        <section aria-labelledby="pg-request-heading">
          <h2 id="pg-request-heading">The same request over HTTP</h2>
          <CommandLine words={[url]} label="Request URL" />
          <CommandLine words={curlParts(url)} label="curl command" />
          <p class="hint">
            Put an access key in place of <code>&lt;your access key&gt;</code>: create one under <a href="#/keys">Keys</a>.
          </p>
        </section>
      ) : null}
    </>
  );
}

/** The silo's data from the get-silo answer, parsed with exact numbers as the server parses it. */
function parseData(raw: string): JsonValue {
  return dataMember(parseExact(raw));
}
