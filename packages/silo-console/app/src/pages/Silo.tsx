import { useEffect, useState } from 'preact/hooks';
import { api } from '../api/endpoints.js';
import { focusLater, go, useAction, useLoad, useUnsavedGuard } from '../hooks.js';
import { formatBytes, formatTime } from '../lib/format.js';
import { curlParts, dataUrl, publicUrl } from '../lib/query-url.js';
import { CommandLine } from '../components/CommandLine.js';
import { checkSiloData, dataFromGetSilo } from '../lib/json.js';
import { href } from '../lib/routes.js';
import type { Region, SiloMeta } from '../lib/types.js';
import { useSession } from '../session.js';
import { ConfirmByName } from '../components/ConfirmByName.js';
import { LazyJsonEditor as JsonEditor } from '../components/LazyJsonEditor.js';
import { describedBy, ErrorText, Field, RegionSelect, StatusText } from '../components/ui.js';

async function loadSilo(uuid: string): Promise<{ meta: SiloMeta; text: string; size: number | undefined }> {
  const [meta, raw, size] = await Promise.all([api.meta(uuid), api.dataText(uuid), sizeOf(uuid)]);
  return { meta, text: dataFromGetSilo(raw), size };
}

/** The size of the stored data: the current version's, as history lists it. */
async function sizeOf(uuid: string): Promise<number | undefined> {
  const page = await api.versions(uuid, 1, 1);
  return page.versions[0]?.size;
}

/** One silo: its data in the editor, its name, visibility and region, and delete. */
export function SiloPage({ uuid }: { uuid: string }) {
  const loaded = useLoad(() => loadSilo(uuid), [uuid]);
  const [meta, setMeta] = useState<SiloMeta>();
  const [text, setText] = useState('');
  const [saved, setSaved] = useState('');
  const [size, setSize] = useState<number>();
  // Bumped whenever the editor must show text it did not type itself (a load, a discard).
  const [editorKey, setEditorKey] = useState(0);
  useEffect(() => {
    if (loaded.value) {
      setMeta(loaded.value.meta);
      setText(loaded.value.text);
      setSaved(loaded.value.text);
      setSize(loaded.value.size);
      setEditorKey((k) => k + 1);
    }
  }, [loaded.value]);

  if (loaded.error) {
    return (
      <>
        <h1>Silo</h1>
        <ErrorText message={loaded.error} />
        <a href="#/silos">Back to silos</a>
      </>
    );
  }
  if (!meta) return <p role="status">Loading the silo…</p>;
  return (
    <>
      <h1>
        Silo <span class="name">{meta.file_name}</span>
      </h1>
      <dl class="meta">
        <dt>UUID</dt>
        <dd>
          <code>{meta.file_uuid}</code>
        </dd>
        <dt>Version</dt>
        <dd>{meta.version}</dd>
        <dt>Visibility</dt>
        <dd>{meta.is_public ? 'public' : 'private'}</dd>
        <dt>Region</dt>
        <dd>{meta.region_name}</dd>
        <dt>Size</dt>
        <dd>{formatBytes(size)}</dd>
        <dt>Created</dt>
        <dd>{formatTime(meta.created_at)}</dd>
        <dt>Updated</dt>
        <dd>{formatTime(meta.updated_at)}</dd>
      </dl>
      <p class="row">
        <a href={href({ page: 'history', uuid })}>History and restore</a>
        <a href={href({ page: 'playground', uuid })}>Query in the playground</a>
        <a href={href({ page: 'audit', pageNo: 1, filter: { silo: uuid } })}>Its audit log</a>
        <a href="#/silos">All silos</a>
      </p>
      <DataSection
        uuid={uuid}
        text={text}
        saved={saved}
        editorKey={editorKey}
        setText={setText}
        onDiscard={() => (setText(saved), setEditorKey((k) => k + 1))}
        onSaved={(m, t) => {
          setMeta(m);
          setSaved(t);
          void sizeOf(uuid).then(setSize, () => undefined);
        }}
      />
      <ReadSection meta={meta} />
      <SettingsSection meta={meta} onChanged={setMeta} />
      <section aria-labelledby="delete-heading">
        <h2 id="delete-heading">Delete</h2>
        <p>Deleting removes the silo and its history at once, from every address.</p>
        <ConfirmByName
          name={meta.file_name}
          what="silo"
          action="Delete silo"
          onConfirm={async () => {
            await api.remove(uuid);
            go('#/silos');
          }}
        />
      </section>
    </>
  );
}

/** Where the silo is read over HTTP: its region's host, privately with a key, publicly without. */
function ReadSection({ meta }: { meta: SiloMeta }) {
  const session = useSession();
  const host = session.hosts[meta.region_name];
  const privateAddress = dataUrl(location.protocol, host, meta.file_uuid, '');
  const publicAddress = publicUrl(location.protocol, host, meta.file_uuid);
  return (
    <section aria-labelledby="read-heading">
      <h2 id="read-heading">Read it over HTTP</h2>
      <p>
        Region <strong>{meta.region_name}</strong> serves it, at <code>{host}</code>; the other regions' hosts answer 404. A region move
        changes these addresses.
      </p>
      <h3>With an access key</h3>
      <CommandLine words={[privateAddress]} label="Private URL" />
      <CommandLine words={curlParts(privateAddress)} label="Private curl command" />
      <p class="hint">
        Put an access key in place of <code>&lt;your access key&gt;</code>: create one under <a href="#/keys">Keys</a>.
      </p>
      <h3>Public, without a key</h3>
      {meta.is_public ? (
        <>
          <CommandLine words={[publicAddress]} label="Public URL" />
          <CommandLine words={curlParts(publicAddress, false)} label="Public curl command" />
        </>
      ) : (
        <p>This silo is private: make it public under Settings to read it at {publicAddress} without a key.</p>
      )}
    </section>
  );
}

function DataSection(props: {
  uuid: string;
  text: string;
  saved: string;
  editorKey: number;
  setText: (t: string) => void;
  onDiscard: () => void;
  onSaved: (meta: SiloMeta, text: string) => void;
}) {
  const [dataError, setDataError] = useState<string>();
  const [status, setStatus] = useState<string>();
  const action = useAction();
  const message = dataError ?? action.fields['file_data'] ?? action.error;
  const dirty = props.text !== props.saved;
  useUnsavedGuard(dirty, 'Leave this silo? Your unsaved changes to its data will be lost.');
  return (
    <section aria-labelledby="data-heading">
      <h2 id="data-heading">Data</h2>
      <form
        class="stack"
        onSubmit={(e) => {
          e.preventDefault();
          setStatus(undefined);
          const check = checkSiloData(props.text);
          if (!check.ok) {
            setDataError(check.message);
            return;
          }
          setDataError(undefined);
          void action.run(async () => {
            const meta = await api.updateData(props.uuid, props.text);
            props.onSaved(meta, props.text);
            setStatus(`Saved as version ${meta.version}.`);
          });
        }}
      >
        <JsonEditor
          key={props.editorKey}
          value={props.text}
          onChange={(t) => {
            props.setText(t);
            setDataError(undefined);
            setStatus(undefined);
          }}
          label="Silo data (JSON)"
          describedBy={message ? 'data-error' : undefined}
          invalid={Boolean(message)}
        />
        <ErrorText id="data-error" message={message} />
        <div class="row">
          <button type="submit" class="primary" disabled={!dirty || action.busy}>
            Save data
          </button>
          <button type="button" disabled={!dirty || action.busy} onClick={() => (props.onDiscard(), setDataError(undefined))}>
            Discard changes
          </button>
          <StatusText message={status ?? (dirty ? 'Unsaved changes.' : undefined)} />
        </div>
      </form>
    </section>
  );
}

function SettingsSection({ meta, onChanged }: { meta: SiloMeta; onChanged: (m: SiloMeta) => void }) {
  const session = useSession();
  const [name, setName] = useState(meta.file_name);
  const [region, setRegion] = useState<Region>(meta.region_name);
  const [status, setStatus] = useState<string>();
  const rename = useAction();
  const visibility = useAction();
  const move = useAction();
  // A move changes every read address: asked once more before it is made.
  const [confirmMove, setConfirmMove] = useState(false);
  useEffect(() => {
    setName(meta.file_name);
    setRegion(meta.region_name);
  }, [meta.file_uuid, meta.file_name, meta.region_name]);
  const publicAddress = publicUrl(location.protocol, session.hosts[meta.region_name], meta.file_uuid);
  const nameError = rename.fields['file_name'] ?? rename.error;
  return (
    <section aria-labelledby="settings-heading">
      <h2 id="settings-heading">Settings</h2>
      <StatusText message={status} />
      <form
        class="inline"
        onSubmit={(e) => {
          e.preventDefault();
          void rename.run(async () => {
            const m = await api.update(meta.file_uuid, { file_name: name });
            onChanged(m);
            setStatus(`Renamed to “${m.file_name}”.`);
          });
        }}
      >
        <Field id="silo-name" label="Name" error={nameError}>
          <input
            id="silo-name"
            value={name}
            maxLength={255}
            onInput={(e) => setName(e.currentTarget.value)}
            aria-invalid={nameError ? 'true' : undefined}
            aria-describedby={describedBy('silo-name', { error: nameError })}
          />
        </Field>
        <button type="submit" disabled={rename.busy || name === meta.file_name}>
          Rename
        </button>
      </form>

      <div class="inline">
        <p>
          This silo is <strong>{meta.is_public ? 'public' : 'private'}</strong>.{' '}
          {meta.is_public ? (
            <>
              Anyone can read it at <code>{publicAddress}</code>
            </>
          ) : (
            'Reading it needs an access key.'
          )}
        </p>
        <button
          type="button"
          disabled={visibility.busy}
          onClick={() =>
            void visibility.run(async () => {
              const m = await api.update(meta.file_uuid, { is_public: !meta.is_public });
              onChanged(m);
              setStatus(m.is_public ? 'The silo is now public.' : 'The silo is now private.');
            })
          }
        >
          {meta.is_public ? 'Make private' : 'Make public'}
        </button>
        <ErrorText message={visibility.error} />
      </div>

      <form
        class="inline"
        onSubmit={(e) => {
          e.preventDefault();
          if (!confirmMove) {
            setConfirmMove(true);
            focusLater('move-confirm');
            return;
          }
          void move.run(async () => {
            const m = await api.update(meta.file_uuid, { region_name: region });
            setConfirmMove(false);
            onChanged(m);
            setStatus(`Moved to region ${m.region_name}: it is now served by ${session.hosts[m.region_name]}.`);
          });
        }}
        onKeyDown={(e) => {
          if (e.key === 'Escape' && confirmMove) {
            setConfirmMove(false);
            focusLater('move-start');
          }
        }}
      >
        <Field id="silo-region" label="Region" error={move.fields['region_name'] ?? move.error}>
          <RegionSelect
            id="silo-region"
            value={region}
            onChange={(r) => {
              setRegion(r);
              setConfirmMove(false);
            }}
          />
        </Field>
        {confirmMove ? (
          <div class="stack">
            <p id="move-warning">
              Moving changes every address of this silo: its data will be served by <code>{session.hosts[region]}</code> only, and clients
              reading it at <code>{session.hosts[meta.region_name]}</code> (its public URL too) get 404.
            </p>
            <div class="row">
              <button type="submit" id="move-confirm" class="primary" disabled={move.busy} aria-describedby="move-warning">
                Move to {region}
              </button>
              <button type="button" onClick={() => (setConfirmMove(false), focusLater('move-start'))}>
                Cancel
              </button>
            </div>
          </div>
        ) : (
          <button type="submit" id="move-start" disabled={move.busy || region === meta.region_name}>
            Move to region…
          </button>
        )}
      </form>
    </section>
  );
}
