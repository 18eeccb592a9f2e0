import { useLayoutEffect, useState } from 'preact/hooks';
import { api } from '../api/endpoints.js';
import { go, useLoad } from '../hooks.js';
import { actorText, filterParams, siloLinkable, sinceFromInput, sinceToInput } from '../lib/audit.js';
import { pageCount } from '../lib/format.js';
import { href } from '../lib/routes.js';
import type { AuditEntry, AuditFilter } from '../lib/types.js';
import { CardTable } from '../components/CardTable.js';
import { describedBy, ErrorText, Field, Time } from '../components/ui.js';

const PER_PAGE = 25;
const COLUMNS = ['Time', 'Action', 'Actor', 'Address', 'Silo', 'Subject', 'Outcome'] as const;
/** The filters a 422 may name: said beside their inputs rather than above the page. */
const FILTER_FIELDS = ['silo', 'actor', 'since'] as const;

/** The account's audit log, newest first, a page at a time, narrowed by silo, actor and time. */
export function Audit({ pageNo, filter }: { pageNo: number; filter: AuditFilter }) {
  const list = useLoad(() => api.audit(pageNo, PER_PAGE, filter), [pageNo, filter.silo, filter.actor, filter.since]);
  const total = list.value?.metadata.total_items ?? 0;
  const pages = pageCount(total, PER_PAGE);
  const filtered = filterParams(filter).length > 0;
  const onFields = FILTER_FIELDS.some((f) => list.fields[f] !== undefined);
  const summary = `${total} entr${total === 1 ? 'y' : 'ies'}${filtered ? ' matching the filters' : ''}, newest first, page ${pageNo} of ${pages}`;
  return (
    <>
      <h1>Audit log</h1>
      <p>
        Every management action of the account: who did it (a manage key, a console user, the <code>silo</code> command), from which address,
        on which silo and version, and whether it succeeded. Never a key value, a password or silo data.
      </p>
      <AuditFilters filter={filter} errors={list.fields} />
      {onFields ? null : <ErrorText message={list.error} />}
      {list.loading && !list.value ? <p role="status">Loading the audit log…</p> : null}
      {list.value ? (
        <>
          {/* Said after each load, so a screen reader hears what a filter found. */}
          <p role="status" class="offscreen">
            {list.loading ? '' : summary}
          </p>
          <CardTable caption={summary} columns={COLUMNS}>
            {list.value.entries.map((e, i) => (
              <EntryRow key={`${e.time}:${e.action}:${i}`} entry={e} />
            ))}
          </CardTable>
          {list.value.entries.length === 0 ? (
            <p>
              {pageNo > 1
                ? 'This page is past the end of the list.'
                : filtered
                  ? 'No entry matches these filters.'
                  : 'No entries yet: they appear with the first change to a silo, key or webhook.'}
            </p>
          ) : null}
          <nav class="pager" aria-label="Pages of the audit log">
            {pageNo > 1 ? <a href={href({ page: 'audit', pageNo: pageNo - 1, filter })}>Previous page</a> : null}
            <span>
              Page {pageNo} of {pages}
            </span>
            {pageNo < pages ? <a href={href({ page: 'audit', pageNo: pageNo + 1, filter })}>Next page</a> : null}
          </nav>
        </>
      ) : null}
    </>
  );
}

/** A missing value in words (an empty cell would read as nothing at all, and as a bare label on a phone's card). */
function None() {
  return <span class="hint">none</span>;
}

function EntryRow({ entry: e }: { entry: AuditEntry }) {
  return (
    <tr role="row">
      <th scope="row" role="rowheader" data-label="Time" class="when">
        <Time iso={e.time} />
      </th>
      <td role="cell" data-label="Action">{e.action}</td>
      <td role="cell" data-label="Actor" class="actor">{actorText(e)}</td>
      <td role="cell" data-label="Address" class="address">{e.address ?? <None />}</td>
      <td role="cell" data-label="Silo" class="uuid-cell">
        {e.file_uuid === undefined ? (
          <None />
        ) : (
          <>
            {siloLinkable(e) ? <a href={href({ page: 'silo', uuid: e.file_uuid })}>{e.file_uuid}</a> : <code>{e.file_uuid}</code>}
            {e.version !== undefined ? <span class="hint version"> version {e.version}</span> : null}
          </>
        )}
      </td>
      <td role="cell" data-label="Subject">{e.subject ?? <None />}</td>
      <td role="cell" data-label="Outcome">
        <span class={`outcome outcome-${e.outcome}`}>{e.outcome}</span>
      </td>
    </tr>
  );
}

/** The filters, as a search form: applying one is a new address (#/audit?silo=...), so back undoes it. */
function AuditFilters({ filter, errors }: { filter: AuditFilter; errors: Record<string, string> }) {
  const [silo, setSilo] = useState(filter.silo ?? '');
  const [actor, setActor] = useState(filter.actor ?? '');
  const [since, setSince] = useState(sinceToInput(filter.since));
  // The address changed by a link or the back button: the inputs show what is applied (before
  // the next paint, so that nothing typed in between is overwritten).
  useLayoutEffect(() => {
    setSilo(filter.silo ?? '');
    setActor(filter.actor ?? '');
    setSince(sinceToInput(filter.since));
  }, [filter.silo, filter.actor, filter.since]);
  const applied = filterParams(filter).length > 0;
  return (
    <form
      class="stack filters"
      role="search"
      aria-label="Filter the audit log"
      onSubmit={(e) => {
        e.preventDefault();
        const next: AuditFilter = { silo, actor };
        const instant = sinceFromInput(since);
        if (instant) next.since = instant;
        go(href({ page: 'audit', pageNo: 1, filter: next }));
      }}
    >
      <div class="columns">
        <Field id="audit-silo" label="Silo" hint="Its file_uuid." error={errors['silo']}>
          <input
            id="audit-silo"
            value={silo}
            autocomplete="off"
            spellcheck={false}
            onInput={(e) => setSilo(e.currentTarget.value)}
            aria-invalid={errors['silo'] ? 'true' : undefined}
            aria-describedby={describedBy('audit-silo', { hint: true, error: errors['silo'] })}
          />
        </Field>
        <Field id="audit-actor" label="Actor name" hint="A manage key's name, a console user, or silo (the command); as the table shows it (console:admin) too." error={errors['actor']}>
          <input
            id="audit-actor"
            value={actor}
            autocomplete="off"
            spellcheck={false}
            onInput={(e) => setActor(e.currentTarget.value)}
            aria-invalid={errors['actor'] ? 'true' : undefined}
            aria-describedby={describedBy('audit-actor', { hint: true, error: errors['actor'] })}
          />
        </Field>
        <Field id="audit-since" label="Since (UTC)" hint="Entries at or after this time, as the times below." error={errors['since']}>
          <input
            id="audit-since"
            type="datetime-local"
            value={since}
            onInput={(e) => setSince(e.currentTarget.value)}
            aria-invalid={errors['since'] ? 'true' : undefined}
            aria-describedby={describedBy('audit-since', { hint: true, error: errors['since'] })}
          />
        </Field>
      </div>
      <div class="row">
        <button type="submit" class="primary">
          Apply filters
        </button>
        {applied ? (
          <a class="button" href={href({ page: 'audit', pageNo: 1, filter: {} })}>
            Clear filters
          </a>
        ) : null}
      </div>
    </form>
  );
}
