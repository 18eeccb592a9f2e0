import { useMemo, useState } from 'preact/hooks';
import { api } from '../api/endpoints.js';
import { go, useAction, useLoad } from '../hooks.js';
import { lineDiff } from '../lib/diff.js';
import { formatBytes } from '../lib/format.js';
import { dataFromGetSilo } from '../lib/json.js';
import { href } from '../lib/routes.js';
import { CardTable } from '../components/CardTable.js';
import { DiffView } from '../components/DiffView.js';
import { LazyJsonEditor as JsonEditor } from '../components/LazyJsonEditor.js';
import { ErrorText, StatusText, Time } from '../components/ui.js';

const COLUMNS = ['Version', 'Saved', 'Name', 'Visibility', 'Region', 'Size'] as const;

/** The kept versions of a silo, newest first (the server keeps the last 20 by default). */
export function History({ uuid, version }: { uuid: string; version: number | undefined }) {
  const list = useLoad(() => Promise.all([api.meta(uuid), api.versions(uuid)]), [uuid]);
  const [status, setStatus] = useState<string>();
  const [meta, versions] = list.value ?? [];
  return (
    <>
      <h1>History{meta ? <span class="name"> of {meta.file_name}</span> : null}</h1>
      <p class="row">
        <a href={href({ page: 'silo', uuid })}>Back to the silo</a>
      </p>
      <StatusText message={status} />
      <ErrorText message={list.error} />
      {versions ? (
        <CardTable
          caption={`${versions.metadata.total_items} kept version${versions.metadata.total_items === 1 ? '' : 's'}, newest first`}
          columns={COLUMNS}
        >
          {versions.versions.map((v) => (
            <tr key={v.version} role="row" class={v.version === version ? 'selected' : undefined}>
              <th scope="row" role="rowheader">
                <a
                  href={href({ page: 'history', uuid, version: v.version })}
                  aria-current={v.version === version ? 'true' : undefined}
                  aria-label={`View version ${v.version}`}
                >
                  {v.version}
                  {meta && v.version === meta.version ? ' (current)' : ''}
                </a>
              </th>
              <td role="cell" data-label="Saved"><Time iso={v.updated_at} /></td>
              <td role="cell" data-label="Name">{v.file_name}</td>
              <td role="cell" data-label="Visibility">{v.is_public ? 'public' : 'private'}</td>
              <td role="cell" data-label="Region">{v.region_name}</td>
              <td role="cell" data-label="Size">{formatBytes(v.size)}</td>
            </tr>
          ))}
        </CardTable>
      ) : list.loading ? (
        <p role="status">Loading versions…</p>
      ) : null}
      {version !== undefined && meta ? (
        <VersionView
          key={`${uuid}:${version}:${meta.version}`}
          uuid={uuid}
          version={version}
          current={meta.version}
          onRestored={(v) => {
            // The restore wrote a new version: show that one (the current), not the old one as if nothing happened.
            setStatus(`Restored: version ${v} now holds the data of version ${version}.`);
            go(href({ page: 'history', uuid, version: v }));
            list.reload();
          }}
        />
      ) : null}
    </>
  );
}

function VersionView(props: { uuid: string; version: number; current: number; onRestored: (newVersion: number) => void }) {
  const { uuid, version } = props;
  const texts = useLoad(
    async () => {
      const [old, now] = await Promise.all([api.versionText(uuid, version), api.dataText(uuid)]);
      return { old: dataFromGetSilo(old), now: dataFromGetSilo(now) };
    },
    [uuid, version],
  );
  const diff = useMemo(() => (texts.value ? lineDiff(texts.value.now, texts.value.old) : undefined), [texts.value]);
  const restore = useAction();
  return (
    <section aria-labelledby="version-heading">
      <h2 id="version-heading">Version {version}</h2>
      <ErrorText message={texts.error} />
      {texts.value && diff ? (
        <>
          <JsonEditor value={texts.value.old} readOnly label={`Data of version ${version} (read only)`} />
          {version === props.current ? (
            <p>This is the current version.</p>
          ) : texts.value.old === texts.value.now ? (
            <p>Its data is the same as the current version's ({props.current}): there is nothing to restore.</p>
          ) : (
            <>
              <DiffView lines={diff} caption={`From the current version (${props.current}) to version ${version}`} />
              <div class="row">
                <button
                  type="button"
                  class="primary"
                  disabled={restore.busy}
                  onClick={() =>
                    void restore.run(async () => {
                      const m = await api.restore(uuid, version);
                      props.onRestored(m.version);
                    })
                  }
                >
                  Restore version {version}
                </button>
                <span class="hint">Restoring writes a new version with this data; nothing is lost.</span>
              </div>
              <ErrorText message={restore.error} />
            </>
          )}
        </>
      ) : texts.loading ? (
        <p role="status">Loading version {version}…</p>
      ) : null}
    </section>
  );
}
