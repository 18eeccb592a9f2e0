import { Fragment } from 'preact';
import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import { api } from '../api/endpoints.js';
import { focusLater, useAction, useLoad } from '../hooks.js';
import { expiresSoon, timeLeft } from '../lib/expiry.js';
import { DURATIONS, type CreatedKey, type Duration, type KeyInfo } from '../lib/types.js';
import { ConfirmByName } from '../components/ConfirmByName.js';
import { CopyButton } from '../components/CopyButton.js';
import { CardTable } from '../components/CardTable.js';
import { describedBy, ErrorText, Field, StatusText, Time } from '../components/ui.js';

/**
 * Keys: list, create (the value is shown once, held only in this page's memory, gone on reload
 * or when dismissed), revoke by typing the name.
 */
export function Keys() {
  const list = useLoad(() => api.keys(), []);
  // The silos' names, for the keys that read only some (a uuid alone says little).
  const silos = useLoad(() => api.silos(1, 100), []);
  const names = new Map((silos.value?.silos ?? []).map((s) => [s.file_uuid, s.file_name]));
  const [created, setCreated] = useState<CreatedKey>();
  const [status, setStatus] = useState<string>();
  const onCreated = (k: CreatedKey) => {
    setCreated(k);
    setStatus(undefined);
    list.reload();
  };
  return (
    <>
      <h1>Keys</h1>
      <p>
        Manage keys (<code>X-MAN-API</code>) create and change silos; access keys (<code>X-SILO-KEY</code>) read private silos, all of
        them or only chosen ones.
      </p>
      {created ? <NewKeyValue created={created} onDone={() => setCreated(undefined)} /> : null}
      <StatusText message={status} />
      <ErrorText message={list.error} />
      {list.value ? (
        <KeyTable
          keys={list.value.keys}
          names={names}
          onRevoked={(k) => {
            setStatus(`The ${k.type} key “${k.name}” is revoked: it stops working within a second.`);
            list.reload();
          }}
        />
      ) : list.loading ? (
        <p role="status">Loading keys…</p>
      ) : null}
      <div class="columns">
        <CreateManageKey onCreated={onCreated} />
        <CreateAccessKey onCreated={onCreated} />
      </div>
    </>
  );
}

function NewKeyValue({ created, onDone }: { created: CreatedKey; onDone: () => void }) {
  // It appears above the forms: the focus goes to it, so a keyboard or screen reader user is there.
  const box = useRef<HTMLElement>(null);
  useLayoutEffect(() => box.current?.focus(), [created.key]);
  return (
    <section class="once" aria-labelledby="new-key-heading" ref={box} tabIndex={-1}>
      <h2 id="new-key-heading">
        New {created.type} key “{created.name}”
      </h2>
      <p>
        <strong>Copy it now: it is shown this once and never again.</strong> Only a hash is stored.
      </p>
      <p class="row">
        <code class="key-value" aria-label="Key value">
          {created.key}
        </code>
        <CopyButton text={created.key} label="Copy key value" />
      </p>
      <button type="button" onClick={onDone}>
        I have stored it: hide the value
      </button>
    </section>
  );
}

/** What a key reads: every silo, or the named ones (a silo deleted since is said so). */
function scope(k: KeyInfo, names: Map<string, string>): string {
  if (k.type === 'manage') return 'all silos (manage)';
  if (k.silos === null) return 'all silos';
  const named = k.silos.map((uuid) => names.get(uuid) ?? (names.size > 0 ? `${uuid.slice(0, 8)}… (deleted)` : uuid));
  return `${k.silos.length === 1 ? 'only' : `only these ${k.silos.length}:`} ${named.join(', ')}`;
}

const COLUMNS = ['Name', 'Type', 'Created', 'Expires', 'Reads', { offscreen: 'Actions' }] as const;

function KeyTable({ keys, names, onRevoked }: { keys: KeyInfo[]; names: Map<string, string>; onRevoked: (k: KeyInfo) => void }) {
  const [revoking, setRevoking] = useState<string>();
  const now = Date.now();
  return (
    <CardTable caption={`${keys.length} key${keys.length === 1 ? '' : 's'}`} columns={COLUMNS}>
      {keys.map((k) => {
        const id = `${k.type}/${k.name}`;
        const soon = expiresSoon(k.expires_at, now);
        const left = timeLeft(k.expires_at, now);
        return (
          <Fragment key={id}>
            <tr role="row" class={soon ? 'expiring' : undefined}>
              <th scope="row" role="rowheader" data-label="Name">{k.name}</th>
              <td role="cell" data-label="Type">{k.type}</td>
              <td role="cell" data-label="Created"><Time iso={k.created_at} /></td>
              <td role="cell" data-label="Expires">
                <Time iso={k.expires_at} />
                {k.expires_at ? (
                  <span class={soon ? 'soon' : 'hint'}>
                    {' '}
                    ({soon ? (left === 'expired' ? 'expired: replace it' : `${left}: replace it soon`) : left})
                  </span>
                ) : null}
              </td>
              <td role="cell" data-label="Reads" class="scope">{scope(k, names)}</td>
              <td role="cell" class="actions">
                <button
                  type="button"
                  class="danger"
                  id={`revoke-${id}`}
                  aria-label={`Revoke ${k.type} key ${k.name}`}
                  aria-expanded={revoking === id}
                  onClick={() => setRevoking(id)}
                >
                  Revoke…
                </button>
              </td>
            </tr>
            {revoking === id ? (
              // The confirmation gets a row of its own, across the table: the row above keeps its shape.
              <tr role="row" class="confirm-row">
                <td role="cell" colSpan={COLUMNS.length}>
                  <div class="row" onKeyDown={(e) => e.key === 'Escape' && (setRevoking(undefined), focusLater(`revoke-${id}`))}>
                    <ConfirmByName
                      name={k.name}
                      what={`${k.type} key`}
                      action="Revoke key"
                      autoFocus
                      onConfirm={async () => {
                        await api.revokeKey(k.type, k.name);
                        setRevoking(undefined);
                        onRevoked(k);
                      }}
                    />
                    <button type="button" onClick={() => (setRevoking(undefined), focusLater(`revoke-${id}`))}>
                      Cancel
                    </button>
                  </div>
                </td>
              </tr>
            ) : null}
          </Fragment>
        );
      })}
    </CardTable>
  );
}

function CreateManageKey({ onCreated }: { onCreated: (k: CreatedKey) => void }) {
  const [name, setName] = useState('');
  const [duration, setDuration] = useState<Duration>('30d');
  const action = useAction();
  const nameError = action.fields['name'];
  return (
    <form
      class="stack card"
      aria-labelledby="create-manage-heading"
      onSubmit={(e) => {
        e.preventDefault();
        void action.run(async () => {
          onCreated(await api.createKey({ type: 'manage', name, duration }));
          setName('');
        });
      }}
    >
      <h2 id="create-manage-heading">Create a manage key</h2>
      <Field id="manage-name" label="Manage key name" error={nameError}>
        <input
          id="manage-name"
          value={name}
          required
          autocomplete="off"
          onInput={(e) => setName(e.currentTarget.value)}
          aria-invalid={nameError ? 'true' : undefined}
          aria-describedby={describedBy('manage-name', { error: nameError })}
        />
      </Field>
      <Field id="manage-duration" label="Manage key expires after" error={action.fields['duration']}>
        <select id="manage-duration" value={duration} onChange={(e) => setDuration(e.currentTarget.value as Duration)}>
          {DURATIONS.map((d) => (
            <option key={d} value={d}>
              {d === 'never' ? 'never' : `${d.slice(0, -1)} days`}
            </option>
          ))}
        </select>
      </Field>
      <ErrorText message={action.error} />
      <div>
        <button type="submit" class="primary" disabled={action.busy}>
          Create manage key
        </button>
      </div>
    </form>
  );
}

function CreateAccessKey({ onCreated }: { onCreated: (k: CreatedKey) => void }) {
  const [name, setName] = useState('');
  const [duration, setDuration] = useState<Duration>('never');
  const [scoped, setScoped] = useState(false);
  const [chosen, setChosen] = useState<Set<string>>(new Set());
  const silos = useLoad(() => (scoped ? api.silos(1, 100) : Promise.resolve(undefined)), [scoped]);
  const action = useAction();
  const nameError = action.fields['name'];
  const silosError = action.fields['silos'];
  const toggle = (uuid: string, on: boolean) =>
    setChosen((prev) => {
      const next = new Set(prev);
      if (on) next.add(uuid);
      else next.delete(uuid);
      return next;
    });
  return (
    <form
      class="stack card"
      aria-labelledby="create-access-heading"
      onSubmit={(e) => {
        e.preventDefault();
        void action.run(async () => {
          if (scoped && chosen.size === 0) throw new Error('Choose at least one silo, or let the key read all silos.');
          const expiry = duration === 'never' ? {} : { duration };
          onCreated(await api.createKey(scoped ? { type: 'access', name, silos: [...chosen], ...expiry } : { type: 'access', name, ...expiry }));
          setName('');
          setChosen(new Set());
        });
      }}
    >
      <h2 id="create-access-heading">Create an access key</h2>
      <Field id="access-name" label="Access key name" error={nameError}>
        <input
          id="access-name"
          value={name}
          required
          autocomplete="off"
          onInput={(e) => setName(e.currentTarget.value)}
          aria-invalid={nameError ? 'true' : undefined}
          aria-describedby={describedBy('access-name', { error: nameError })}
        />
      </Field>
      <Field id="access-duration" label="Access key expires after" error={action.fields['duration']}>
        <select id="access-duration" value={duration} onChange={(e) => setDuration(e.currentTarget.value as Duration)}>
          {DURATIONS.map((d) => (
            <option key={d} value={d}>
              {d === 'never' ? 'never (until revoked)' : `${d.slice(0, -1)} days`}
            </option>
          ))}
        </select>
      </Field>
      <fieldset>
        <legend>The key reads</legend>
        <div class="check">
          <input id="access-all" type="radio" name="access-scope" checked={!scoped} onChange={() => setScoped(false)} />
          <label for="access-all">All silos of the account</label>
        </div>
        <div class="check">
          <input id="access-some" type="radio" name="access-scope" checked={scoped} onChange={() => setScoped(true)} />
          <label for="access-some">Only the silos chosen below</label>
        </div>
        {scoped ? (
          <div class="silo-choice" role="group" aria-label="Silos the key reads">
            <ErrorText message={silos.error} />
            {silos.value?.silos.length === 0 ? <p>No silos yet.</p> : null}
            {silos.value?.silos.map((s) => (
              <div class="check" key={s.file_uuid}>
                <input
                  id={`scope-${s.file_uuid}`}
                  type="checkbox"
                  checked={chosen.has(s.file_uuid)}
                  onChange={(e) => toggle(s.file_uuid, e.currentTarget.checked)}
                />
                <label for={`scope-${s.file_uuid}`}>
                  {s.file_name} <span class="hint">({s.file_uuid})</span>
                </label>
              </div>
            ))}
            {silos.value && silos.value.metadata.total_items > 100 ? <p class="hint">Showing the 100 newest silos.</p> : null}
          </div>
        ) : null}
        <ErrorText message={silosError} />
      </fieldset>
      <ErrorText message={action.error} />
      <div>
        <button type="submit" class="primary" disabled={action.busy}>
          Create access key
        </button>
      </div>
    </form>
  );
}
