import { useEffect, useState } from 'preact/hooks';
import { api, EVENTS_URL } from '../api/endpoints.js';
import { formatTime } from '../lib/format.js';
import { href } from '../lib/routes.js';
import { ErrorText } from '../components/ui.js';

interface FeedEvent {
  /** Arrival order, for keys. */
  seq: number;
  type: string;
  at: string;
  uuid: string;
  name: string | undefined;
  version: number | undefined;
}

const KEEP = 200;
const TYPES = ['create', 'update', 'delete'] as const;

function readEvent(type: string, data: string, seq: number): FeedEvent {
  let parsed: Record<string, unknown> = {};
  try {
    const v: unknown = JSON.parse(data);
    if (typeof v === 'object' && v !== null) parsed = v as Record<string, unknown>;
  } catch {
    // A line that is not JSON is still shown, by its type.
  }
  const str = (k: string) => (typeof parsed[k] === 'string' ? (parsed[k] as string) : undefined);
  return {
    seq,
    type,
    at: str('updated_at') ?? new Date().toISOString(),
    uuid: str('file_uuid') ?? '',
    name: str('file_name'),
    version: typeof parsed['version'] === 'number' ? parsed['version'] : undefined,
  };
}

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
        api.me().then(
          () => setError('The server ended the live feed. Reload the page to connect again.'),
          (e: unknown) => setError(e instanceof Error ? e.message : String(e)),
        );
      } else setState('retrying');
    };
    for (const type of TYPES) {
      source.addEventListener(type, (e) => {
        const ev = readEvent(type, (e as MessageEvent<string>).data, seq++);
        setEvents((prev) => [ev, ...prev].slice(0, KEEP));
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
            <span class={`tag tag-${ev.type}`}>{ev.type}</span> {formatTime(ev.at)}{' '}
            {ev.type === 'delete' || !ev.uuid ? (
              <span>{ev.name ?? ev.uuid}</span>
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
