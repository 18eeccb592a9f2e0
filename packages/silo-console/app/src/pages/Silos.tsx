import { api } from '../api/endpoints.js';
import { useLoad } from '../hooks.js';
import { formatBytes, pageCount } from '../lib/format.js';
import { href } from '../lib/routes.js';
import { CardTable } from '../components/CardTable.js';
import { ErrorText, Time } from '../components/ui.js';

const PER_PAGE = 25;
const COLUMNS = ['Name', 'Visibility', 'Region', 'Size', 'Updated', { offscreen: 'Actions' }] as const;

/** The account's silos, newest first, a page at a time. */
export function Silos({ pageNo }: { pageNo: number }) {
  const list = useLoad(() => api.silos(pageNo, PER_PAGE), [pageNo]);
  const total = list.value?.metadata.total_items ?? 0;
  const pages = pageCount(total, PER_PAGE);
  return (
    <>
      <div class="heading-row">
        <h1>Silos</h1>
        <a class="button primary" href="#/silos/new">
          New silo
        </a>
      </div>
      <ErrorText message={list.error} />
      {list.loading && !list.value ? <p role="status">Loading silos…</p> : null}
      {list.value ? (
        <>
          <CardTable caption={`${total} silo${total === 1 ? '' : 's'}, page ${pageNo} of ${pages}`} columns={COLUMNS}>
            {list.value.silos.map((s) => (
              <tr key={s.file_uuid} role="row">
                <th scope="row" role="rowheader">
                  <a href={href({ page: 'silo', uuid: s.file_uuid })}>{s.file_name}</a>
                </th>
                <td role="cell" data-label="Visibility">{s.is_public ? 'public' : 'private'}</td>
                <td role="cell" data-label="Region">{s.region_name}</td>
                <td role="cell" data-label="Size">{formatBytes(s.size)}</td>
                <td role="cell" data-label="Updated"><Time iso={s.updated_at} /></td>
                <td role="cell" class="actions">
                  <a href={href({ page: 'history', uuid: s.file_uuid })} aria-label={`History of ${s.file_name}`}>
                    History
                  </a>{' '}
                  <a href={href({ page: 'playground', uuid: s.file_uuid })} aria-label={`Query ${s.file_name} in the playground`}>
                    Query
                  </a>
                </td>
              </tr>
            ))}
          </CardTable>
          {list.value.silos.length === 0 ? (
            <p>{pageNo > 1 ? 'This page is past the end of the list.' : 'No silos yet: create one with “New silo”.'}</p>
          ) : null}
          <nav class="pager" aria-label="Pages of silos">
            {pageNo > 1 ? <a href={href({ page: 'silos', pageNo: pageNo - 1 })}>Previous page</a> : null}
            <span>
              Page {pageNo} of {pages}
            </span>
            {pageNo < pages ? <a href={href({ page: 'silos', pageNo: pageNo + 1 })}>Next page</a> : null}
          </nav>
        </>
      ) : null}
    </>
  );
}
