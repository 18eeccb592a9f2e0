/**
 * The change feed's bus on PostgreSQL: NOTIFY on one channel per store, LISTEN on a connection of
 * its own (a listening connection must stay with its session, so it is not taken from the pool).
 * An instance delivers its own events at once and ignores their echo; the listener reconnects by
 * itself (at most 1 s apart) after the database went away, and events it missed meanwhile are
 * read from history by each stream when it sees the next version.
 */
import { randomBytes } from 'node:crypto';
import { LocalBus, type EventBus, type EventListener, type SiloEvent } from 'koa-silo';
import pg from 'pg';

/** NOTIFY's payload limit is 8000 bytes; an event is far smaller (metadata only). */
const CHANNEL = 'silo_events';
const RETRY_MS = 1000;

interface Envelope {
  from: string;
  event: SiloEvent;
}

export class PostgresBus implements EventBus {
  readonly #local = new LocalBus();
  readonly #id = randomBytes(8).toString('base64url');
  #listener: pg.Client | undefined;
  #listening = false;
  #closed = false;

  constructor(
    private readonly pool: pg.Pool,
    private readonly log: (message: string, fields: Record<string, unknown>) => void = () => undefined,
  ) {}

  publish(event: SiloEvent): void {
    this.#local.deliver(event);
    const envelope: Envelope = { from: this.#id, event };
    this.pool.query('SELECT pg_notify($1, $2)', [CHANNEL, JSON.stringify(envelope)]).catch((error: unknown) => {
      this.log('an event could not be published to the other instances', { error: (error as Error).message });
    });
  }

  subscribe(listener: EventListener): () => void {
    if (!this.#listening) {
      this.#listening = true;
      void this.#listen();
    }
    return this.#local.subscribe(listener);
  }

  async #listen(): Promise<void> {
    if (this.#closed) return;
    // The pool's own settings (URL, TLS, timeouts), for one connection outside it.
    const client = new pg.Client(this.pool.options);
    this.#listener = client;
    const retry = () => {
      if (this.#listener !== client || this.#closed) return;
      this.#listener = undefined;
      client.end().catch(() => undefined);
      setTimeout(() => void this.#listen(), RETRY_MS).unref();
    };
    client.on('error', retry);
    client.on('end', retry);
    client.on('notification', (message) => {
      if (message.channel !== CHANNEL || message.payload === undefined) return;
      try {
        const envelope = JSON.parse(message.payload) as Envelope;
        if (envelope.from !== this.#id) this.#local.deliver(envelope.event);
      } catch {
        // Not ours: another program notifying on the channel.
      }
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANNEL}`);
    } catch {
      retry();
    }
  }

  async close(): Promise<void> {
    this.#closed = true;
    const client = this.#listener;
    this.#listener = undefined;
    await client?.end().catch(() => undefined);
    await this.#local.close();
  }
}
