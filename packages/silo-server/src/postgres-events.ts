/**
 * The change feed's transport on PostgreSQL: NOTIFY on one channel, LISTEN on a connection of its
 * own (a listening connection must keep its session, so it is not taken from the pool) that comes
 * back by itself, at most 1 s after the database does. Events missed meanwhile are read from
 * history by each stream when it sees the next version.
 */
import { SharedBus, type BusTransport, type EventBus } from 'koa-silo';
import pg from 'pg';

/** NOTIFY's payload limit is 8000 bytes; an event is far smaller (metadata only). */
const CHANNEL = 'silo_events';
const RETRY_MS = 1000;

function postgresTransport(pool: pg.Pool): BusTransport {
  return {
    async send(text) {
      await pool.query('SELECT pg_notify($1, $2)', [CHANNEL, text]);
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
        client.on('notification', (message) => {
          if (message.channel === CHANNEL && message.payload !== undefined) hear(message.payload);
        });
        try {
          await client.connect();
          await client.query(`LISTEN ${CHANNEL}`);
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
