/**
 * The change feed's transport on PostgreSQL: NOTIFY on the channel of the deployment's schema
 * (NOTIFY reaches every session of the database, whatever its search_path, so two deployments in
 * two schemas of one database must not share a channel), LISTEN on a connection of its
 * own (a listening connection must keep its session, so it is not taken from the pool) that comes
 * back by itself, at most 1 s after the database does. Events missed meanwhile are read from
 * history by each stream when it sees the next version.
 */
import { SharedBus, TurnBatch, type BusTransport, type EventBus } from 'koa-silo';
import { createHash } from 'node:crypto';
import pg from 'pg';

const RETRY_MS = 1000;
/** NOTIFY's limit on a payload, in bytes. */
const NOTIFY_BYTES = 8000;

/**
 * `silo_events_` and a digest of the schema the pool's tables are in: a plain identifier whatever
 * the schema's name (LISTEN takes an identifier, of at most 63 bytes). NOTIFY's payload limit is
 * 8000 bytes; an event is far smaller (metadata only).
 */
export function channelOf(schema: string): string {
  return `silo_events_${createHash('sha256').update(schema).digest('hex').slice(0, 16)}`;
}

function postgresTransport(pool: pg.Pool): BusTransport {
  let channel: Promise<string> | undefined;
  // Asked once, of the pool (the listener's connection has the same settings, search_path included).
  const channelName = () =>
    (channel ??= pool.query<{ schema: string | null }>('SELECT current_schema() AS schema').then(
      ({ rows }) => channelOf(rows[0]?.schema ?? ''),
      (error: unknown) => {
        channel = undefined;
        throw error;
      },
    ));
  // The notices of one turn's writes in one statement, in their order: the scan of the array runs
  // in its order, and a transaction's notifications are delivered in the order they were made
  // (two identical texts in one would be delivered once, but every event names its own version).
  const notifyOne = async (text: string) => {
    await pool.query('SELECT pg_notify($1, $2)', [await channelName(), text]);
  };
  const notices = new TurnBatch<string, void>(async (texts) => {
    if (texts.length === 1) await notifyOne(texts[0]!);
    else await pool.query('SELECT pg_notify($1, t) FROM unnest($2::text[]) AS t', [await channelName(), texts]);
    return texts.map(() => undefined);
  });
  return {
    async send(text) {
      // A notice PostgreSQL refuses (over 8000 bytes) fails alone, not the turn's batch with it.
      if (Buffer.byteLength(text) >= NOTIFY_BYTES) await notifyOne(text);
      else await notices.call(text);
    },
    async listen(hear) {
      let stopped = false;
      let current: pg.Client | undefined;
      const connect = async (): Promise<void> => {
        if (stopped) return;
        // The pool's own settings (URL, TLS, timeouts), for one connection outside it.
        const client = new pg.Client(pool.options);
        current = client;
        const again = () => {
          if (current !== client || stopped) return;
          current = undefined;
          client.end().catch(() => undefined);
          setTimeout(() => void connect(), RETRY_MS).unref();
        };
        client.on('error', again);
        client.on('end', again);
        try {
          const name = await channelName();
          client.on('notification', (message) => {
            if (message.channel === name && message.payload !== undefined) hear(message.payload);
          });
          await client.connect();
          await client.query(`LISTEN ${name}`);
        } catch {
          again();
        }
      };
      await connect();
      return async () => {
        stopped = true;
        await current?.end().catch(() => undefined);
      };
    },
  };
}

/** The bus of every instance on the database of `pool`. */
export function postgresBus(pool: pg.Pool, log: (message: string, fields: Record<string, unknown>) => void): EventBus {
  return new SharedBus(postgresTransport(pool), (message, error) => log(message, { error: (error as Error).message }));
}
