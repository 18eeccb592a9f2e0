/**
 * The Silo over the configured storage, for the commands that work on accounts, keys and console
 * users: opened for one command, then closed.
 */
import type { AccountService, Silo } from 'koa-silo';
import { loadStorageConfig, type Flags } from '../config.js';
import { missingStoreMessage, storeIsMissing, storeLine } from '../command-store.js';
import { silentLogger } from '../log.js';
import { CommandError } from './errors.js';
import type { Io } from './io.js';

// The server code (and with it koa-silo's services) loads only when a command opens the Silo, so
// that `--help` and a bad flag answer at once.
const serveModule = () => import('../serve.js');

/**
 * Runs `fn` with the Silo over the configured storage, then closes it. Says on stderr which store
 * it opened; a command that only reads (or revokes) refuses to create a missing one.
 */
export async function withSilo<T>(command: string, values: Flags, io: Io, fn: (silo: Silo) => Promise<T>, opts: { needsStore: boolean }): Promise<T> {
  const storage = loadStorageConfig(io.env, values, io.cwd);
  const main = storage.store.main;
  const missing = storeIsMissing(main);
  if (missing && opts.needsStore && main.kind === 'sqlite') throw new CommandError(missingStoreMessage(main, values, io.env, io.cwd));
  const { openSilo } = await serveModule();
  const { silo, stores } = await openSilo(storage, silentLogger, undefined, undefined, 'command');
  io.stderr(`silo ${command}: ${storeLine(main, missing)}\n`);
  try {
    return await fn(silo);
  } finally {
    await silo.close().catch(() => {});
    await stores.close();
  }
}

/** withSilo for the commands that need only its accounts and keys. */
export async function withAccounts<T>(command: string, values: Flags, io: Io, fn: (accounts: AccountService) => Promise<T>, opts: { needsStore: boolean }): Promise<T> {
  return withSilo(command, values, io, (silo) => fn(silo.accounts), opts);
}
