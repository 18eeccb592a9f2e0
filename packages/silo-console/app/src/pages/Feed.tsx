import { useEffect, useState } from 'preact/hooks';
import { api, EVENTS_URL } from '../api/endpoints.js';
import { SESSION_ENDED } from '../lib/errors.js';
import { endSession } from '../api/client.js';
import { addEvent, readEvent, type FeedEvent } from '../lib/feed.js';
import { href } from '../lib/routes.js';
import { ErrorText, Time } from '../components/ui.js';

const TYPES = ['create', 'update', 'delete'] as const;

/**
 * The account's change feed (server-sent events with the session cookie). EventSource reconnects
 * by itself after a network error; when it gives up (the server refused the stream), the session
 * is checked, so a lost session goes back to sign-in like any other 401.
 */
export function Feed() {
  const [events, setEvents] = useState<FeedEvent[]>([]);
  const [state, setState] = useState<'connecting' | 'open' | 'retrying' | 'closed'>('connecting');
  const [error, setError] = useState<string>();

  useEffect(() => {
    let seq = 0;
    const source = new EventSource(EVENTS_URL);
    source.onopen = () => {
      setState('open');
      setError(undefined);
    };
    source.onerror = () => {
      if (source.readyState === EventSource.CLOSED) {
        setState('closed');
        // Why? A lost session goes back to sign-in like any other; else the server ended the stream.
        api.session().then(
          (s) => (s.signed_in ? setError('The server ended the live feed. Reload the page to connect again.') : (setError(SESSION_ENDED), endSession())),
          (e: unknown) => setError(e instanceof Error ? e.message : String(e)),
        );
      } else setState('retrying');
    };
    for (const type of TYPES) {
      source.addEventListener(type, (e) => {
        const ev = readEvent(type, (e as MessageEvent<string>).data, seq++);
        setEvents((prev) => addEvent(prev, ev));
      });
    }
    return () => source.close();
  }, []);

  const words = { connecting: 'Connecting…', open: 'Connected: changes appear here as they happen.', retrying: 'Connection lost: reconnecting…', closed: 'Disconnected.' };
  return (
    <>
      <h1>Live feed</h1>
      <p role="status" class={state === 'open' ? 'status ok' : 'status'}>
        {words[state]}
      </p>
      <ErrorText message={error} />
      <div class="row">
        <button type="button" onClick={() => setEvents([])} disabled={events.length === 0}>
          Clear the list
        </button>
      </div>
      <div role="log" aria-label="Changes to your silos, newest first" aria-live="polite">
        <ol class="feed">
        {events.length === 0 ? <li class="hint">No changes yet. Create, edit or delete a silo (here or over the API) to see it.</li> : null}
        {events.map((ev) => (
          <li key={ev.seq}>
            <span class={`tag tag-${ev.type}`}>{ev.type}</span> <Time iso={ev.at} />{' '}
            {ev.gone || !ev.uuid ? (
              <span>
                {ev.name ?? ev.uuid}
                {ev.gone && ev.type !== 'delete' ? <span class="hint"> (deleted since)</span> : null}
              </span>
            ) : (
              <a href={href({ page: 'silo', uuid: ev.uuid })}>{ev.name ?? ev.uuid}</a>
            )}
            {ev.version !== undefined ? ` · version ${ev.version}` : ''}
          </li>
        ))}
        </ol>
      </div>
    </>
  );
}
