/**
 * Which store a `silo` command works on. The data directory resolves as for `silo serve`
 * (SILO_DATA_DIR, default ./.silo-data of the current directory), so the command run from another
 * directory names another store: a command refuses one that does not exist (rather than create it
 * and answer "no keys", or make a key nobody's server knows), unless told `--create`, and every
 * command says which store it opened.
 */
import fs from 'node:fs';
import path from 'node:path';
import { STORE_FILE, type Env, type Flags } from './config.js';
import { describeLocation, type StoreLocation } from './stores.js';

/** True when opening `location` would create it (a SQLite file not there yet). */
export function storeIsMissing(location: StoreLocation): boolean {
  return location.kind === 'sqlite' && location.path !== ':memory:' && !fs.existsSync(location.path);
}

/**
 * For a command about to create the SQLite store at `location` (storeIsMissing): undoes that
 * creation, removing what appeared in its directory since (the database, its WAL and shared-memory
 * files) and the directory itself when it was not there. A failed import leaves no empty store
 * behind, which later commands would take for the server's.
 */
export function undoCreation(location: StoreLocation): () => void {
  if (location.kind !== 'sqlite' || location.path === ':memory:') return () => undefined;
  const dir = path.dirname(path.resolve(location.path));
  const dirExisted = fs.existsSync(dir);
  const before = new Set(dirExisted ? fs.readdirSync(dir) : []);
  return () => {
    if (!fs.existsSync(dir)) return;
    for (const name of fs.readdirSync(dir)) if (!before.has(name)) fs.rmSync(path.join(dir, name), { recursive: true, force: true });
    if (!dirExisted && fs.readdirSync(dir).length === 0) fs.rmdirSync(dir);
  };
}

/** The one stderr line that says which store a command opened. */
export function storeLine(location: StoreLocation, created: boolean): string {
  return `store ${describeLocation(location)}${created ? ' (new and empty: created now)' : ''}`;
}

/** The setting that chose the store, as the user wrote it (a flag wins over the environment); undefined: the default. */
function chosenBy(flags: Flags, env: Env): string | undefined {
  if (flags['store-url']) return '--store-url';
  if (env.SILO_STORE_URL) return 'SILO_STORE_URL';
  if (flags['data-dir']) return '--data-dir';
  if (env.SILO_DATA_DIR) return 'SILO_DATA_DIR';
  return undefined;
}

/** The nearest directory above `cwd` that holds a default store (where `npm start` was likely run). */
function defaultStoreAbove(cwd: string): string | undefined {
  for (let dir = path.dirname(cwd); ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, '.silo-data');
    if (fs.existsSync(path.join(candidate, STORE_FILE))) return candidate;
    if (dir === path.dirname(dir)) return undefined;
  }
}

/**
 * Why a command stops, in one line: where it looked and how to point it at the right store. A
 * command that writes says that nothing was written; one that may make the store says how.
 */
export function missingStoreMessage(location: StoreLocation & { kind: 'sqlite' }, flags: Flags, env: Env, cwd: string, command: { writes: boolean; canCreate: boolean } = { writes: false, canCreate: false }): string {
  const source = chosenBy(flags, env);
  const stop = command.writes ? 'nothing written' : 'nothing to read';
  const orCreate = command.canCreate ? ' (or pass --create to make a new, empty store there)' : '';
  if (source) return `no store at ${location.path} (set by ${source}), ${stop}: point ${source} at the store the server uses${orCreate}`;
  const found = defaultStoreAbove(cwd);
  const hint = found
    ? `there is one in ${found}: run the command from ${path.dirname(found)}, or set SILO_DATA_DIR=${found} (or --data-dir)`
    : 'run the command from the directory where the server runs, or set SILO_DATA_DIR (or --data-dir, SILO_STORE_URL) as the server has it';
  return `no store at ${location.path} (SILO_DATA_DIR unset: ./.silo-data of the current directory), ${stop}: ${hint}${orCreate}`;
}
