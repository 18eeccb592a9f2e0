/**
 * A server-sent events client for tests, on node:http: the response's status and headers, then its
 * events one by one as the text/event-stream format defines them (`event`, `id`, `data` lines, a
 * blank line ends an event, lines starting with `:` are comments).
 */
import http from 'node:http';

export interface SseEvent {
  event: string;
  id?: string;
  data: string;
}

export interface SseStream {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** The body when the answer was not a stream (an error). */
  text(): Promise<string>;
  /** The next event; rejects when none comes within `timeoutMs` or the stream ends first. */
  next(timeoutMs?: number): Promise<SseEvent>;
  /** Resolves when the server ends the stream. */
  ended: Promise<void>;
  /** Comments received so far (keep-alives). */
  comments: number;
  close(): void;
}

export function openSse(port: number, path: string, headers: Record<string, string> = {}): Promise<SseStream> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path, headers: { accept: 'text/event-stream', ...headers }, agent: false }, (res) => {
      res.setEncoding('utf8');
      const queue: SseEvent[] = [];
      const waiters: ((event: SseEvent | undefined) => void)[] = [];
      let buffer = '';
      let body = '';
      let done = false;
      let endedResolve!: () => void;
      const ended = new Promise<void>((r) => (endedResolve = r));
      const stream: SseStream = {
        status: res.statusCode!,
        headers: res.headers,
        comments: 0,
        ended,
        text: () => ended.then(() => body),
        next(timeoutMs = 3000) {
          const ready = queue.shift();
          if (ready) return Promise.resolve(ready);
          if (done) return Promise.reject(new Error('the stream has ended'));
          return new Promise((resolveNext, rejectNext) => {
            const timer = setTimeout(() => {
              waiters.splice(waiters.indexOf(waiter), 1);
              rejectNext(new Error(`no event within ${timeoutMs} ms`));
            }, timeoutMs);
            const waiter = (event: SseEvent | undefined) => {
              clearTimeout(timer);
              if (event) resolveNext(event);
              else rejectNext(new Error('the stream has ended'));
            };
            waiters.push(waiter);
          });
        },
        close: () => req.destroy(),
      };
      const emit = (event: SseEvent) => {
        const waiter = waiters.shift();
        if (waiter) waiter(event);
        else queue.push(event);
      };
      let endsWithNewline = false;
      res.on('data', (chunk: string) => {
        body += chunk;
        // No event ends in this chunk: keep it without searching the whole buffer (a search
        // flattens it, and an event of 5 MB arriving in 16 KiB chunks made that quadratic).
        const ends = chunk.includes('\n\n') || (endsWithNewline && chunk.startsWith('\n'));
        endsWithNewline = chunk.endsWith('\n');
        buffer += chunk;
        if (!ends) return;
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const event: SseEvent = { event: 'message', data: '' };
          let fields = 0;
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) {
              stream.comments++;
              continue;
            }
            const colon = line.indexOf(':');
            const name = colon < 0 ? line : line.slice(0, colon);
            const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
            fields++;
            if (name === 'event') event.event = value;
            else if (name === 'id') event.id = value;
            else if (name === 'data') event.data = event.data === '' ? value : `${event.data}\n${value}`;
          }
          if (fields > 0) emit(event);
        }
      });
      const finish = () => {
        if (done) return;
        done = true;
        for (const waiter of waiters.splice(0)) waiter(undefined);
        endedResolve();
      };
      res.on('end', finish);
      res.on('close', finish);
      res.on('error', finish);
      resolve(stream);
    });
    req.on('error', reject);
    req.end();
  });
}
