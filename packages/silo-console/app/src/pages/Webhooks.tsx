import { Fragment } from 'preact';
import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import { api } from '../api/endpoints.js';
import { focusLater, useAction, useLoad } from '../hooks.js';
import { formatTime } from '../lib/format.js';
import { WEBHOOK_EVENTS, type CreatedWebhook, type Delivery, type WebhookEvent, type WebhookInfo } from '../lib/types.js';
import { CopyButton } from '../components/CopyButton.js';
import { CardTable } from '../components/CardTable.js';
import { describedBy, ErrorText, Field, StatusText, Time } from '../components/ui.js';

const EVENT_WORDS: Record<WebhookEvent, string> = {
  'silo.created': 'silo.created: a silo is created',
  'silo.updated': 'silo.updated: a silo is changed (data, name, visibility, region)',
  'silo.deleted': 'silo.deleted: a silo is deleted',
};

/** A webhook's state in words: never colour alone. */
export function stateOf(hook: Pick<WebhookInfo, 'disabled' | 'failing_since'>): { text: string; kind: 'ok' | 'failing' | 'disabled' } {
  if (hook.disabled) return { text: 'Disabled: every attempt failed for 5 days', kind: 'disabled' };
  if (hook.failing_since) return { text: `Failing since ${formatTime(hook.failing_since)}: retrying`, kind: 'failing' };
  return { text: 'Active', kind: 'ok' };
}

/**
 * Webhooks: list with their state, create (the signing secret shown once, held only in this
 * page's memory), delete, and each one's recent deliveries with a retry-now.
 */
export function Webhooks() {
  const list = useLoad(() => api.webhooks(), []);
  const silos = useLoad(() => api.silos(1, 100), []);
  const names = new Map((silos.value?.silos ?? []).map((s) => [s.file_uuid, s.file_name]));
  const [created, setCreated] = useState<CreatedWebhook>();
  const [status, setStatus] = useState<string>();
  return (
    <>
      <h1>Webhooks</h1>
      <p>
        Silo POSTs each change of your silos to these URLs, signed as the Standard Webhooks specification says (headers{' '}
        <code>webhook-id</code>, <code>webhook-timestamp</code>, <code>webhook-signature</code>); a failed delivery is retried for 72 hours.
      </p>
      {created ? <NewSecret created={created} onDone={() => setCreated(undefined)} /> : null}
      <StatusText message={status} />
      <ErrorText message={list.error} />
      {list.value ? (
        list.value.webhooks.length === 0 ? (
          <p>No webhooks yet: create one below.</p>
        ) : (
          <HookTable
            hooks={list.value.webhooks}
            names={names}
            onDeleted={(h) => {
              setStatus(`The webhook to ${h.url} is deleted; its pending deliveries are dropped.`);
              list.reload();
            }}
          />
        )
      ) : list.loading ? (
        <p role="status">Loading webhooks…</p>
      ) : null}
      <CreateWebhook
        silos={silos.value?.silos ?? []}
        onCreated={(h) => {
          setCreated(h);
          setStatus(undefined);
          list.reload();
        }}
      />
    </>
  );
}

function NewSecret({ created, onDone }: { created: CreatedWebhook; onDone: () => void }) {
  // It appears above the form: the focus goes to it, so a keyboard or screen reader user is there.
  const box = useRef<HTMLElement>(null);
  useLayoutEffect(() => box.current?.focus(), [created.id]);
  return (
    <section class="once" aria-labelledby="new-secret-heading" ref={box} tabIndex={-1}>
      <h2 id="new-secret-heading">New webhook to {created.url}</h2>
      <p>
        <strong>Copy its signing secret now: it is shown this once and never again.</strong> Your receiver verifies each delivery with it.
      </p>
      <div class="row">
        <code class="key-value" aria-label="Signing secret">
          {created.secret}
        </code>
        <CopyButton text={created.secret} label="Copy signing secret" />
      </div>
      <button type="button" onClick={onDone}>
        I have stored it: hide the secret
      </button>
    </section>
  );
}

const COLUMNS = ['URL', 'Events', 'Silos', 'State', 'Created', { offscreen: 'Actions' }] as const;
const DELIVERY_COLUMNS = ['Time', 'Event', 'Attempt', 'Answer', 'Took', 'Outcome'] as const;

function HookTable({ hooks, names, onDeleted }: { hooks: WebhookInfo[]; names: Map<string, string>; onDeleted: (h: WebhookInfo) => void }) {
  const [open, setOpen] = useState<{ id: string; what: 'deliveries' | 'delete' }>();
  const toggle = (id: string, what: 'deliveries' | 'delete') => setOpen((o) => (o?.id === id && o.what === what ? undefined : { id, what }));
  return (
    <CardTable caption={`${hooks.length} webhook${hooks.length === 1 ? '' : 's'}`} columns={COLUMNS}>
      {hooks.map((h) => {
        const state = stateOf(h);
        const shown = open?.id === h.id ? open.what : undefined;
        return (
          <Fragment key={h.id}>
            <tr role="row">
              <th scope="row" role="rowheader" data-label="URL" class="url-cell">
                {h.url}
              </th>
              <td role="cell" data-label="Events">{h.events.join(', ')}</td>
              <td role="cell" data-label="Silos">{h.silos === null ? 'all silos' : h.silos.map((u) => names.get(u) ?? `${u.slice(0, 8)}…`).join(', ')}</td>
              <td role="cell" data-label="State">
                <span class={`state state-${state.kind}`}>{state.text}</span>
              </td>
              <td role="cell" data-label="Created"><Time iso={h.created_at} /></td>
              <td role="cell" class="actions">
                <button type="button" aria-expanded={shown === 'deliveries'} aria-label={`Deliveries of the webhook to ${h.url}`} onClick={() => toggle(h.id, 'deliveries')}>
                  Deliveries
                </button>{' '}
                <button
                  type="button"
                  class="danger"
                  id={`delete-${h.id}`}
                  aria-expanded={shown === 'delete'}
                  aria-label={`Delete the webhook to ${h.url}`}
                  onClick={() => toggle(h.id, 'delete')}
                >
                  Delete…
                </button>
              </td>
            </tr>
            {shown ? (
              <tr role="row" class="confirm-row">
                <td role="cell" colSpan={COLUMNS.length}>
                  {shown === 'delete' ? (
                    <ConfirmDelete hook={h} onCancel={() => (setOpen(undefined), focusLater(`delete-${h.id}`))} onDeleted={() => (setOpen(undefined), onDeleted(h))} />
                  ) : (
                    <Deliveries hook={h} />
                  )}
                </td>
              </tr>
            ) : null}
          </Fragment>
        );
      })}
    </CardTable>
  );
}

function ConfirmDelete({ hook, onCancel, onDeleted }: { hook: WebhookInfo; onCancel: () => void; onDeleted: () => void }) {
  const action = useAction();
  const cancel = useRef<HTMLButtonElement>(null);
  // It appeared after a click on "Delete…": keyboard users continue here, on Cancel (a second
  // Enter must not delete); Escape cancels.
  useLayoutEffect(() => cancel.current?.focus(), []);
  return (
    <div class="stack" onKeyDown={(e) => e.key === 'Escape' && onCancel()}>
      <p>
        Delete the webhook to <code>{hook.url}</code>? Its pending deliveries are dropped; this cannot be undone.
      </p>
      <div class="row">
        <button
          type="button"
          class="danger"
          disabled={action.busy}
          onClick={() =>
            void action.run(async () => {
              await api.removeWebhook(hook.id);
              onDeleted();
            })
          }
        >
          Delete webhook
        </button>
        <button type="button" ref={cancel} onClick={onCancel}>
          Cancel
        </button>
      </div>
      <ErrorText message={action.error} />
    </div>
  );
}

/** Outcome and answer of an attempt in words. */
function resultOf(d: Delivery): string {
  if (d.status !== null) return `HTTP ${d.status}`;
  return d.error ?? 'no answer';
}

function Deliveries({ hook }: { hook: WebhookInfo }) {
  const list = useLoad(() => api.deliveries(hook.id), [hook.id]);
  const [status, setStatus] = useState<string>();
  const retry = useAction();
  // Waiting for a retry: an event whose newest attempt (the list is newest first) failed and will be retried.
  const newest = new Map<string, Delivery>();
  for (const d of list.value?.deliveries ?? []) if (!newest.has(d.id)) newest.set(d.id, d);
  const waiting = [...newest.values()].some((d) => d.outcome === 'retrying');
  return (
    <section class="deliveries" aria-label={`Recent deliveries to ${hook.url}`}>
      <h2 class="small">Recent deliveries</h2>
      <ErrorText message={list.error} />
      {list.value ? (
        list.value.deliveries.length === 0 ? (
          <p>No deliveries yet: they appear here after the next change of a silo it listens to.</p>
        ) : (
          <CardTable caption={`The last ${list.value.deliveries.length} attempts, newest first`} columns={DELIVERY_COLUMNS}>
            {list.value.deliveries.map((d, i) => (
              <tr key={`${d.id}:${d.attempt}:${i}`} role="row">
                <td role="cell" data-label="Time"><Time iso={d.at} /></td>
                <td role="cell" data-label="Event">{d.type}</td>
                <td role="cell" data-label="Attempt">{d.attempt}</td>
                <td role="cell" data-label="Answer">{resultOf(d)}</td>
                <td role="cell" data-label="Took">{d.duration_ms} ms</td>
                <td role="cell" data-label="Outcome">
                  <span class={`outcome outcome-${d.outcome.replace(' ', '-')}`}>{d.outcome}</span>
                </td>
              </tr>
            ))}
          </CardTable>
        )
      ) : list.loading ? (
        <p role="status">Loading deliveries…</p>
      ) : null}
      <div class="row">
        <button
          type="button"
          disabled={retry.busy || !waiting}
          onClick={() =>
            void retry.run(async () => {
              const { rescheduled } = await api.retryDeliveries(hook.id);
              setStatus(
                rescheduled === 0
                  ? 'Nothing was waiting for a retry (a delivery being attempted right now is left alone).'
                  : `${rescheduled} deliver${rescheduled === 1 ? 'y' : 'ies'} waiting for a retry will be attempted within a second.`,
              );
              setTimeout(list.reload, 1500);
            })
          }
        >
          Retry now
        </button>
        <button type="button" onClick={() => (setStatus(undefined), list.reload())} disabled={list.loading}>
          Refresh
        </button>
        {!waiting && list.value ? <span class="hint">Nothing is waiting for a retry.</span> : null}
      </div>
      <StatusText message={status} />
      <ErrorText message={retry.error} />
    </section>
  );
}

function CreateWebhook({ silos, onCreated }: { silos: { file_uuid: string; file_name: string }[]; onCreated: (h: CreatedWebhook) => void }) {
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState<Set<WebhookEvent>>(new Set(WEBHOOK_EVENTS));
  const [scoped, setScoped] = useState(false);
  const [chosen, setChosen] = useState<Set<string>>(new Set());
  const action = useAction();
  const urlError = action.fields['url'];
  const eventsError = action.fields['events'];
  const silosError = action.fields['silos'];
  const flip = <T,>(set: Set<T>, item: T, on: boolean) => {
    const next = new Set(set);
    if (on) next.add(item);
    else next.delete(item);
    return next;
  };
  return (
    <form
      class="stack card"
      aria-labelledby="create-webhook-heading"
      onSubmit={(e) => {
        e.preventDefault();
        void action.run(async () => {
          if (events.size === 0) throw new Error('Choose at least one event.');
          if (scoped && chosen.size === 0) throw new Error('Choose at least one silo, or let it hear every silo.');
          const body = { url: url.trim(), events: WEBHOOK_EVENTS.filter((ev) => events.has(ev)), ...(scoped ? { silos: [...chosen] } : {}) };
          onCreated(await api.createWebhook(body));
          setUrl('');
          setChosen(new Set());
        });
      }}
    >
      <h2 id="create-webhook-heading">Create a webhook</h2>
      <Field id="webhook-url" label="URL" error={urlError} hint="http or https, reachable from the server. Private and loopback addresses need the server's SILO_WEBHOOK_ALLOW_PRIVATE=true.">
        <input
          id="webhook-url"
          type="url"
          value={url}
          required
          autocomplete="off"
          spellcheck={false}
          placeholder="https://example.com/silo-hook"
          onInput={(e) => setUrl(e.currentTarget.value)}
          aria-invalid={urlError ? 'true' : undefined}
          aria-describedby={describedBy('webhook-url', { hint: true, error: urlError })}
        />
      </Field>
      <fieldset>
        <legend>Events</legend>
        {WEBHOOK_EVENTS.map((ev) => (
          <div class="check" key={ev}>
            <input id={`event-${ev}`} type="checkbox" checked={events.has(ev)} onChange={(e) => setEvents((s) => flip(s, ev, e.currentTarget.checked))} />
            <label for={`event-${ev}`}>{EVENT_WORDS[ev]}</label>
          </div>
        ))}
        <ErrorText message={eventsError} />
      </fieldset>
      <fieldset>
        <legend>Of the silos</legend>
        <div class="check">
          <input id="webhook-all" type="radio" name="webhook-scope" checked={!scoped} onChange={() => setScoped(false)} />
          <label for="webhook-all">Every silo of the account</label>
        </div>
        <div class="check">
          <input id="webhook-some" type="radio" name="webhook-scope" checked={scoped} onChange={() => setScoped(true)} />
          <label for="webhook-some">Only the silos chosen below</label>
        </div>
        {scoped ? (
          <div class="silo-choice" role="group" aria-label="Silos the webhook hears">
            {silos.length === 0 ? <p>No silos yet.</p> : null}
            {silos.map((s) => (
              <div class="check" key={s.file_uuid}>
                <input
                  id={`hook-silo-${s.file_uuid}`}
                  type="checkbox"
                  checked={chosen.has(s.file_uuid)}
                  onChange={(e) => setChosen((c) => flip(c, s.file_uuid, e.currentTarget.checked))}
                />
                <label for={`hook-silo-${s.file_uuid}`}>{s.file_name}</label>
              </div>
            ))}
          </div>
        ) : null}
        <ErrorText message={silosError} />
      </fieldset>
      {/* A refusal of a field is said beside it; anything else here. */}
      <ErrorText message={Object.keys(action.fields).length > 0 ? undefined : action.error} />
      <div>
        <button type="submit" class="primary" disabled={action.busy}>
          Create webhook
        </button>
      </div>
    </form>
  );
}
