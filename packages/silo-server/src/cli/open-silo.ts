/**
 * The Silo over the configured storage, for the commands that work on accounts, keys, console
 * users, silos and webhooks: opened for one command, then closed.
 */
import type { AccountService, Silo } from 'koa-silo';
import { loadPlanConfig, loadStorageConfig, type Flags } from '../config.js';
import { missingStoreMessage, storeIsMissing, storeLine } from '../command-store.js';
import { silentLogger } from '../log.js';
import { CommandError } from './errors.js';
import type { Io } from './io.js';
import { SPECS } from './spec.js';

// The server code (and with it koa-silo's services) loads only when a command opens the Silo, so
// that `--help` and a bad flag answer at once.
const serveModule = () => import('../serve.js');

const TRUE = new Set(['1', 'true', 'yes', 'on']);

/**
 * Runs `fn` with the Silo over the configured storage, then closes it. Says on stderr which store
 * it opened. A store that is not there is an error (a command run from the wrong directory would
 * otherwise make one nobody's server uses), unless the command was given `--create`.
 *
 * The Silo has the server's plan settings (SILO_MAX_DATA_BYTES, SILO_HISTORY_VERSIONS, ...) and
 * SILO_WEBHOOK_ALLOW_PRIVATE (or `--webhook-allow-private`), so a silo or webhook made here meets
 * the same rules as one made over the API.
 */
export async function withSilo<T>(command: string, values: Flags, io: Io, fn: (silo: Silo) => Promise<T>, opts: { writes: boolean }): Promise<T> {
  const storage = loadStorageConfig(io.env, values, io.cwd);
  const plans = loadPlanConfig(io.env, {});
  const allowPrivate = values['webhook-allow-private'] === true || TRUE.has(String(io.env.SILO_WEBHOOK_ALLOW_PRIVATE ?? '').trim().toLowerCase());
  const main = storage.store.main;
  const missing = storeIsMissing(main);
  if (missing && values.create !== true && main.kind === 'sqlite') {
    throw new CommandError(missingStoreMessage(main, values, io.env, io.cwd, { writes: opts.writes, canCreate: SPECS[command]?.options.create !== undefined }));
  }
  const { openSilo } = await serveModule();
  const { silo, stores } = await openSilo({ ...storage, ...plans, webhookAllowPrivate: allowPrivate }, silentLogger, undefined, undefined, 'command');
  io.stderr(`silo ${command}: ${storeLine(main, missing)}\n`);
  try {
    return await fn(silo);
  } finally {
    await silo.close().catch(() => {});
    await stores.close();
  }
}

/** withSilo for the commands that need only its accounts and keys. */
export async function withAccounts<T>(command: string, values: Flags, io: Io, fn: (accounts: AccountService) => Promise<T>, opts: { writes: boolean }): Promise<T> {
  return withSilo(command, values, io, (silo) => fn(silo.accounts), opts);
}
