/**
 * A small reader of server-sent events over a fetch body (the HTML standard's event stream
 * format): lines end with CRLF, LF or CR; `event`, `data`, `id` and `retry` fields; comments; an
 * event is dispatched at a blank line. Used where there is no EventSource (Node) and wherever a
 * key must travel in a header (EventSource cannot send one).
 */

/** One dispatched event, as the stream wrote it. */
export interface RawEvent {
  /** `message` when the stream named none. */
  event: string;
  data: string;
  /** The `id` field of this event, when it had one. */
  id: string | undefined;
}

export interface SseReading {
  events: AsyncGenerator<RawEvent>;
  /** The last `retry:` the stream asked for, in milliseconds. */
  retryMs(): number | undefined;
}

/** The events of `body`, as they arrive. Ends when the body does; a read error is thrown. */
export function readEvents(body: ReadableStream<Uint8Array>): SseReading {
  let retry: number | undefined;
  async function* events(): AsyncGenerator<RawEvent> {
    const reader = body.getReader();
    const decoder = new TextDecoder();
    let buffer = '';
    let event = '';
    let data: string[] = [];
    let id: string | undefined;
    let sawData = false;
    /** A CR ended the last chunk: a LF at the start of the next one belongs to it. */
    let pendingCR = false;
    try {
      for (;;) {
        const { done, value } = await reader.read();
        buffer += done ? decoder.decode() : decoder.decode(value, { stream: true });
        if (pendingCR && buffer.startsWith('\n')) buffer = buffer.slice(1);
        pendingCR = false;
        let start = 0;
        for (let i = 0; i < buffer.length; i++) {
          const c = buffer.charCodeAt(i);
          if (c !== 0x0a && c !== 0x0d) continue;
          const line = buffer.slice(start, i);
          if (c === 0x0d) {
            if (i + 1 < buffer.length) {
              if (buffer.charCodeAt(i + 1) === 0x0a) i++;
            } else pendingCR = true;
          }
          start = i + 1;
          if (line === '') {
            if (sawData) yield { event: event || 'message', data: data.join('\n'), id };
            event = '';
            data = [];
            id = undefined;
            sawData = false;
            continue;
          }
          if (line.startsWith(':')) continue;
          const colon = line.indexOf(':');
          const field = colon < 0 ? line : line.slice(0, colon);
          let rest = colon < 0 ? '' : line.slice(colon + 1);
          if (rest.startsWith(' ')) rest = rest.slice(1);
          if (field === 'event') event = rest;
          else if (field === 'data') {
            data.push(rest);
            sawData = true;
          } else if (field === 'id') {
            if (!rest.includes('\0')) id = rest;
          } else if (field === 'retry' && /^\d+$/.test(rest)) retry = Number(rest);
        }
        buffer = buffer.slice(start);
        if (done) return;
      }
    } finally {
      await reader.cancel().catch(() => undefined);
    }
  }
  return { events: events(), retryMs: () => retry };
}
