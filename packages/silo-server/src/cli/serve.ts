/**
 * `silo serve`: the server in the foreground until SIGTERM or SIGINT (or the Io's stop signal),
 * then a graceful stop.
 */
import { loadConfig } from '../config.js';
import { createLogger, errorFields } from '../log.js';
import { openStores } from '../stores.js';
import { parse } from './args.js';
import { help } from './help.js';
import type { Io } from './io.js';
import { expiryWarnings } from './keys.js';
import type { AccountService } from 'koa-silo';

/** The warnings of keys list, for every account: keys that expire within 7 days (or have). */
export async function expiringKeys(accounts: AccountService, now = Date.now()): Promise<string[]> {
  const lines: string[] = [];
  for (const account of await accounts.listAccounts()) lines.push(...expiryWarnings(await accounts.listKeys(account.name), now));
  return lines;
}

// The server code loads only once the settings are read and the storage is open, so that
// `--help`, a bad setting and an unreachable store answer at once.
const serveModule = () => import('../serve.js');

/** Signals this soon after the first are the same stop request delivered twice. */
const DUPLICATE_SIGNAL_MS = 500;

function waitForSignal(): Promise<string> {
  return new Promise((resolve) => {
    // One handler for good: removing it and adding another would leave a moment in which a
    // signal has its default action and kills the process with no shutdown at all.
    let firstAt: number | undefined;
    const on = (signal: NodeJS.Signals) => {
      if (firstAt === undefined) {
        firstAt = Date.now();
        resolve(signal);
        return;
      }
      // A second signal while shutting down stops at once. Not one within the first moment: Ctrl-C
      // under `npm start` arrives twice (from the terminal to the process group, then forwarded by npm).
      if (Date.now() - firstAt > DUPLICATE_SIGNAL_MS) process.exit(130);
    };
    process.on('SIGTERM', on);
    process.on('SIGINT', on);
  });
}

/**
 * A stray rejected promise is logged and the server goes on; an uncaught exception leaves the
 * process in an unknown state, so it is logged and the process exits 1. Either way as a JSON log
 * line, not a bare stack trace.
 */
function guardProcess(logger: ReturnType<typeof createLogger>): void {
  process.on('unhandledRejection', (reason) => logger.error('unhandled rejection', errorFields(reason)));
  process.on('uncaughtException', (error) => {
    // Written at once when the reader keeps up (a stream write is tried before it is queued); the
    // process exits without waiting for a slow one: in an unknown state it must serve nothing more.
    logger.error('uncaught exception: exiting', errorFields(error));
    process.exit(1);
  });
}

export async function serve(args: string[], io: Io): Promise<number> {
  const { values } = parse('serve', args, {}, 0, false);
  if (values.help) return help('serve', io);
  const config = loadConfig(io.env, values, io.cwd);
  const logging = { level: config.logLevel, format: config.logFormat };
  const logger = createLogger(io.processStdout ? logging : { ...logging, write: io.stdout });
  const stop = (io.stopSignal ?? waitForSignal)();
  if (!io.stopSignal) guardProcess(logger);
  // Storage first: an unreachable Redis is reported before the server code even loads.
  const stores = await openStores({
    main: config.store.main,
    regions: config.store.regions,
    sqliteSynchronous: config.sqliteSynchronous,
    log: (level, msg, fields) => logger[level](msg, fields),
  });
  let startServer: Awaited<ReturnType<typeof serveModule>>['startServer'];
  try {
    ({ startServer } = await serveModule());
  } catch (error) {
    await stores.close();
    throw error;
  }
  // The banner holds key values: stderr (contract §8), never the JSON log lines on stdout.
  const running = await startServer(config, { logger, printBanner: io.stderr, stores });
  // Beside the log's warn lines: a key about to stop working, said to the person who starts the server.
  const expiring = await expiringKeys(running.silo.accounts).catch(() => []);
  if (expiring.length > 0) io.stderr(`\n${expiring.map((line) => `Silo: ${line}`).join('\n')}\n\n`);
  const signal = await stop;
  logger.info('signal', { signal });
  await running.close();
  await logger.flush();
  return 0;
}
