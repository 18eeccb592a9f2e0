/**
 * The `silo` command (contract section 8). It works directly on the configured storage, with the
 * same environment variables and flags as the server. Errors go to stderr as one line, with a
 * non-zero exit (1: the command failed; 2: it was used wrongly), never a stack trace.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { createRequire } from 'node:module';
import { Readable, Writable } from 'node:stream';
import type { AccountService, KeyInfo, KeyType, Silo } from 'koa-silo';
import { ConfigError, loadConfig, loadPlanConfig, loadStorageConfig, settingOptions, settingsHelp, type Flags } from './config.js';
import { missingStoreMessage, storeIsMissing, storeLine } from './command-store.js';
import { createLogger, errorFields, silentLogger } from './log.js';
import { openStores, parseStoreUrl, StartupError } from './stores.js';
import type { TransferIo } from './transfer/commands.js';
import { TransferFailure } from './transfer/failure.js';

// The server and koa-silo load only when a command needs them, so that `--help` and a bad
// setting answer at once.
const serveModule = () => import('./serve.js');
const transferModule = () => import('./transfer/commands.js');
const MANAGE_KEY_DURATIONS = ['7d', '30d', '90d', '365d', 'never'] as const;

/** A failure the command reports as one line: a typed Silo error (it carries an HTTP status). */
class CommandError extends Error {}
function statusOf(error: unknown): number | undefined {
  const status = (error as { status?: unknown } | null)?.status;
  return error instanceof Error && typeof status === 'number' ? status : undefined;
}

export interface Io {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  env: Record<string, string | undefined>;
  cwd: string;
  /** Resolves when the server should stop (SIGTERM/SIGINT by default). */
  stopSignal?: () => Promise<string>;
  /** What `silo import` reads (default: nothing, an empty input). */
  stdin?: Readable;
  /** Where `silo export` writes with backpressure (default: through `stdout`). */
  stdoutStream?: Writable;
  /** stderr when it is a terminal, for progress bars (default: none, plain progress lines). */
  terminal?: NodeJS.WriteStream;
  /** Whether SIGINT and SIGTERM stop an import (true for the real process only). */
  signals?: boolean;
  /** `stdout` is this process's: the server's log lines may go to it asynchronously (pino). */
  processStdout?: boolean;
}

const defaultIo = (): Io => ({
  stdout: (t) => process.stdout.write(t),
  stderr: (t) => process.stderr.write(t),
  env: process.env,
  cwd: process.cwd(),
  stdin: process.stdin,
  stdoutStream: process.stdout,
  ...(process.stderr.isTTY ? { terminal: process.stderr } : {}),
  signals: true,
  processStdout: true,
});

/** A wrong use of the command: exit 2. */
class UsageError extends Error {}

const MAIN_HELP = `silo: self-hosted JSON hosting

Usage:
  silo serve [flags]                                   serve all three regions on PORT
  silo accounts create NAME [--json]                   create an account
  silo accounts list [--json]                          list accounts
  silo keys create --type manage|access --name NAME [--duration 7d|30d|90d|365d|never]
                   [--account NAME] [--json]           create a key; its value is shown once
  silo keys list [--account NAME] [--json]             list keys (never their values)
  silo keys revoke --type manage|access --name NAME --confirm NAME [--account NAME]
                                                       revoke a key (repeat its name to confirm)
  silo users create --name USER [--account NAME] [--password-stdin] [--json]
                                                       create a console user; its password is shown once
  silo users list [--account NAME] [--json]            list console users
  silo users delete --name USER --confirm USER         delete a console user (its sessions end)
  silo export [--out FILE]                             write the whole storage as JSON lines (stdout)
  silo import [--in FILE]                              load an export (stdin) into empty storage
  silo migrate --from URL --to URL                     copy one store into another, empty one
  silo help [COMMAND]  |  silo COMMAND --help  |  silo --version

--account defaults to "default". Every command works directly on the configured storage, found
as silo serve finds it (SILO_DATA_DIR: default ./.silo-data of the current directory), and names
it on stderr; keys list, accounts list and keys revoke never create a store that is not there.
Exit codes: 0 done, 1 the command failed, 2 it was used wrongly.

Settings: an environment variable or a flag (the flag wins). The storage ones (--data-dir,
--store-url*, --sqlite-sync) apply to every command, the others to serve:
`;

const HELP: Record<string, string> = {
  serve: `Usage: silo serve [flags]

Serves the management and data API of all three regions on PORT, with /healthz and /readyz.
On first start with empty storage, creates the account "default" and prints one manage key and
one access key, once. SIGTERM or SIGINT stop it gracefully.

Every setting is an environment variable or a flag (the flag wins):
`,
  'accounts create': 'Usage: silo accounts create NAME [--json]\n\nCreates an account (1 to 64 letters, digits, ".", "_", "-").\n',
  'accounts list': 'Usage: silo accounts list [--json]\n\nLists accounts and their plans.\n',
  'keys create': `Usage: silo keys create --type manage|access --name NAME [--duration D] [--silos UUID,...] [--account NAME] [--json]

Creates a key and prints its value: the only time it is ever shown.
  --type      manage (X-MAN-API, management) or access (X-SILO-KEY, private reads)
  --name      unique per account and type
  --duration  manage keys only: 7d, 30d (default), 90d, 365d or never
  --silos     access keys only: the silos it may read (comma-separated file_uuids, at most 100);
              any other silo answers 404 to it. Default: every silo of the account
  --account   default: default
  --json      print one JSON object: type, name, account, key, created_at (+ duration, expires_at, silos)
`,
  'keys list': `Usage: silo keys list [--account NAME] [--json]

Lists the account's keys: type, name, creation and expiry (with the time left). Never their values.
  --json      print a JSON array of {type, name, account, created_at, duration?, expires_at?}
`,
  export: `Usage: silo export [--out FILE]

Writes the whole storage (accounts, key hashes, webhooks, console users, silos with their kept
history) as JSON lines on stdout, or into FILE (written as FILE.partial and renamed once whole).
Progress goes to stderr: a bar on a terminal, plain lines otherwise. Key values are never in an
export (only their SHA-256 hashes, with which the same keys keep working), nor are console users'
passwords (only their scrypt hashes, with which the same passwords keep working), but silo data
is, and so are the webhooks' signing secrets (receivers keep verifying after an import) and the
password hashes: the file is as sensitive as the database; keep it as safe as the store. Pending
webhook deliveries and console sessions are not exported: the source delivers the former until
its servers stop; users sign in again. Export a store that no server is writing to: a silo
created or deleted meanwhile is an error.
  silo export > backup.jsonl
  SILO_STORE_URL=redis://127.0.0.1:6379/0 silo export --out backup.jsonl
`,
  import: `Usage: silo import [--in FILE]

Loads an export (from stdin, or FILE) into empty storage: no account, key or silo may be there
yet (import before the first silo serve, which creates the account "default" and the console
user "admin"). Silos keep their uuids, versions, ETags and times; keys, webhooks (with their
secrets) and console users (with their passwords) keep working. Every line is checked, each record
as the API would check it (names, uuids, plans, JSON data within SILO_MAX_DATA_BYTES, which this
command reads as silo serve does), and the counts at its end against what was read and written.
On any failure (line number given) the import removes what it wrote and exits 1; if even that
fails it says so, and the store must be emptied by hand.
  silo import < backup.jsonl
  SILO_STORE_URL=postgres://silo@db.internal/silo silo import --in backup.jsonl
`,
  migrate: `Usage: silo migrate --from URL --to URL

Copies the store at --from into the empty store at --to, as silo export piped into silo import
(in one process, nothing written to disk), with the same checks (SILO_MAX_DATA_BYTES included). URLs as SILO_STORE_URL takes
them: sqlite://PATH, redis://HOST:PORT/DB, postgres://USER@HOST:PORT/DB. Each URL holds all three
regions. Stop the servers on --from first; start them on --to once it is done.
  silo migrate --from sqlite://.silo-data/silo.sqlite --to postgres://silo@db.internal/silo
`,
  'users create': `Usage: silo users create --name USER [--account NAME] [--password-stdin] [--json]

Creates a console user who signs in at /console and acts for the account. Prints a generated
password once (or reads one from stdin with --password-stdin: 8 to 1024 characters, the first line).
  --account   default: default
  --json      print one JSON object: name, account, created_at, password (unless read from stdin)
`,
  'users list': `Usage: silo users list [--account NAME] [--json]

Lists console users (never their passwords): name, account, creation. Without --account, all.
`,
  'users delete': `Usage: silo users delete --name USER --confirm USER [--json]

Deletes a console user; its sessions end at their next request on every instance.
`,
  'keys revoke': `Usage: silo keys revoke --type manage|access --name NAME --confirm NAME [--account NAME] [--json]

Revokes a key at once on every server sharing the storage. --confirm must repeat the name.
`,
};

function version(): string {
  try {
    const pkg = createRequire(import.meta.url)('../package.json') as { version?: string };
    return pkg.version ?? 'unknown';
  } catch {
    return 'unknown';
  }
}

type Options = NonNullable<ParseArgsConfig['options']>;

function parse(command: string, args: string[], own: Options, positionals: number, storageOnly = true) {
  const options: Options = { ...settingOptions(storageOnly), ...own, help: { type: 'boolean', short: 'h' } };
  let parsed;
  try {
    parsed = parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (error) {
    const message = (error as Error).message.split('. ')[0]!.replace(/\.$/, '');
    throw new UsageError(`silo ${command}: ${message.charAt(0).toLowerCase()}${message.slice(1)} (see silo ${command} --help)`);
  }
  if (!parsed.values.help && parsed.positionals.length !== positionals) {
    const extra = parsed.positionals.slice(positionals);
    throw new UsageError(
      extra.length > 0
        ? `silo ${command}: unexpected argument ${JSON.stringify(extra[0])} (see silo ${command} --help)`
        : `silo ${command}: missing NAME (see silo ${command} --help)`,
    );
  }
  return { values: parsed.values as Flags, positionals: parsed.positionals };
}

function required(command: string, values: Flags, name: string, what: string): string {
  const value = values[name];
  if (typeof value !== 'string' || value === '') throw new UsageError(`silo ${command}: --${name} is required (${what})`);
  return value;
}

function keyType(command: string, values: Flags): KeyType {
  const type = required(command, values, 'type', 'manage or access');
  if (type !== 'manage' && type !== 'access') throw new UsageError(`silo ${command}: --type must be manage or access, got ${JSON.stringify(type)}`);
  return type;
}

const DAY_MS = 86_400_000;

/** A manage key's expiry for `keys list`: the instant, and how far off it is. */
function expiryText(expiresAt: string | null, now: number): string {
  if (expiresAt === null) return 'never';
  const left = Date.parse(expiresAt) - now;
  if (left <= 0) return `${expiresAt} (expired)`;
  if (left < DAY_MS) return `${expiresAt} (in less than a day)`;
  const days = Math.floor(left / DAY_MS);
  return `${expiresAt} (in ${days} day${days === 1 ? '' : 's'})`;
}

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) => r.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd()).join('\n') + '\n';
}

/**
 * Runs `fn` with the account service over the configured storage, then closes it. Says on stderr
 * which store it opened; a command that only reads (or revokes) refuses to create a missing one.
 */
async function withAccounts<T>(command: string, values: Flags, io: Io, fn: (accounts: AccountService) => Promise<T>, opts: { needsStore: boolean }): Promise<T> {
  return withSilo(command, values, io, (silo) => fn(silo.accounts), opts);
}

/** withAccounts for commands that need more of the Silo (console users). */
async function withSilo<T>(command: string, values: Flags, io: Io, fn: (silo: Silo) => Promise<T>, opts: { needsStore: boolean }): Promise<T> {
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

/** `default` is created on demand (as the server's first start would); other accounts must exist. */
async function ensureAccount(accounts: AccountService, name: string): Promise<void> {
  if (name === 'default' && !(await accounts.getAccount(name))) {
    await accounts.createAccount(name).catch((error: unknown) => {
      if (statusOf(error) !== 409) throw error;
    });
  }
}

function accountMissing(name: string): CommandError {
  return new CommandError(`account ${JSON.stringify(name)} does not exist (create it with: silo accounts create ${name})`);
}

async function keysCreate(args: string[], io: Io): Promise<number> {
  const cmd = 'keys create';
  const { values } = parse(cmd, args, {
    type: { type: 'string' },
    name: { type: 'string' },
    duration: { type: 'string' },
    silos: { type: 'string' },
    account: { type: 'string', default: 'default' },
    json: { type: 'boolean' },
  }, 0);
  if (values.help) return help(cmd, io);
  const type = keyType(cmd, values);
  const silos = values.silos === undefined ? undefined : String(values.silos).split(',').map((s) => s.trim()).filter(Boolean);
  if (silos !== undefined && type !== 'access') throw new UsageError(`silo ${cmd}: --silos applies to access keys only`);
  const name = required(cmd, values, 'name', 'the key name');
  const account = String(values.account);
  const duration = values.duration as string | undefined;
  if (duration !== undefined && type === 'access') throw new UsageError(`silo ${cmd}: --duration applies to manage keys only (access keys do not expire)`);
  if (duration !== undefined && !(MANAGE_KEY_DURATIONS as readonly string[]).includes(duration)) {
    throw new UsageError(`silo ${cmd}: --duration must be one of ${MANAGE_KEY_DURATIONS.join(', ')}, got ${JSON.stringify(duration)}`);
  }
  const key = await withAccounts(cmd, values, io, async (accounts) => {
    await ensureAccount(accounts, account);
    if (!(await accounts.getAccount(account))) throw accountMissing(account);
    return accounts.createKey({
      account,
      type,
      name,
      ...(duration ? { duration: duration as (typeof MANAGE_KEY_DURATIONS)[number] } : {}),
      ...(silos ? { silos } : {}),
    });
  }, { needsStore: false });
  if (values.json) {
    io.stdout(`${JSON.stringify(key)}\n`);
  } else {
    const expiry = key.type === 'manage' ? (key.expires_at ? `, expires ${key.expires_at}` : ', never expires') : '';
    const scope = key.silos ? `, reading only ${key.silos.length === 1 ? 'silo' : `these ${key.silos.length} silos:`} ${key.silos.join(', ')}` : '';
    io.stdout(
      `Created ${key.type} key ${JSON.stringify(key.name)} for account ${JSON.stringify(key.account)}${expiry}${scope}.\n` +
        `${key.key}\n` +
        `This value is shown once and never again: store it now. Send it as ${key.type === 'manage' ? 'X-MAN-API' : 'X-SILO-KEY'}.\n`,
    );
  }
  return 0;
}

async function keysList(args: string[], io: Io): Promise<number> {
  const cmd = 'keys list';
  const { values } = parse(cmd, args, { account: { type: 'string', default: 'default' }, json: { type: 'boolean' } }, 0);
  if (values.help) return help(cmd, io);
  const account = String(values.account);
  const keys = await withAccounts(cmd, values, io, async (accounts) => {
    if (!(await accounts.getAccount(account))) {
      if (account === 'default') return [] as KeyInfo[];
      throw accountMissing(account);
    }
    return accounts.listKeys(account);
  }, { needsStore: true });
  if (values.json) {
    io.stdout(`${JSON.stringify(keys)}\n`);
  } else if (keys.length === 0) {
    io.stdout(`Account ${JSON.stringify(account)} has no keys.\n`);
  } else {
    const now = Date.now();
    io.stdout(
      table([
        ['TYPE', 'NAME', 'CREATED', 'EXPIRES', 'SILOS'],
        ...keys.map((k) => [k.type, k.name, k.created_at, k.type === 'manage' ? expiryText(k.expires_at ?? null, now) : '-', k.silos ? k.silos.join(',') : 'all']),
      ]),
    );
  }
  return 0;
}

async function keysRevoke(args: string[], io: Io): Promise<number> {
  const cmd = 'keys revoke';
  const { values } = parse(cmd, args, {
    type: { type: 'string' },
    name: { type: 'string' },
    confirm: { type: 'string' },
    account: { type: 'string', default: 'default' },
    json: { type: 'boolean' },
  }, 0);
  if (values.help) return help(cmd, io);
  const type = keyType(cmd, values);
  const name = required(cmd, values, 'name', 'the key name');
  const confirm = required(cmd, values, 'confirm', "repeat the key's name to confirm");
  if (confirm !== name) throw new UsageError(`silo ${cmd}: --confirm ${JSON.stringify(confirm)} does not match --name ${JSON.stringify(name)}; nothing was revoked`);
  const account = String(values.account);
  await withAccounts(cmd, values, io, (accounts) => accounts.revokeKey({ account, type, name, confirm }), { needsStore: true });
  if (values.json) io.stdout(`${JSON.stringify({ revoked: true, type, name, account })}\n`);
  else io.stdout(`Revoked ${type} key ${JSON.stringify(name)} of account ${JSON.stringify(account)}.\n`);
  return 0;
}

/** The first line of stdin (for --password-stdin), without its line break. */
async function firstLine(io: Io): Promise<string> {
  let text = '';
  for await (const chunk of io.stdin ?? Readable.from([])) {
    text += String(chunk);
    if (text.includes('\n') || text.length > 4096) break;
  }
  return text.split(/\r?\n/)[0]!;
}

async function usersCreate(args: string[], io: Io): Promise<number> {
  const cmd = 'users create';
  const { values } = parse(cmd, args, {
    name: { type: 'string' },
    account: { type: 'string', default: 'default' },
    'password-stdin': { type: 'boolean' },
    json: { type: 'boolean' },
  }, 0);
  if (values.help) return help(cmd, io);
  const name = required(cmd, values, 'name', 'the user name');
  const account = String(values.account);
  const fromStdin = values['password-stdin'] === true;
  const password = fromStdin ? await firstLine(io) : undefined;
  const user = await withSilo(cmd, values, io, async (silo) => {
    await ensureAccount(silo.accounts, account);
    if (!(await silo.accounts.getAccount(account))) throw accountMissing(account);
    return silo.console.createUser({ account, name, ...(password !== undefined ? { password } : {}) });
  }, { needsStore: false });
  if (values.json) {
    const { password: generated, ...info } = user;
    io.stdout(`${JSON.stringify(fromStdin ? info : { ...info, password: generated })}\n`);
  } else if (fromStdin) {
    io.stdout(`Created console user ${JSON.stringify(user.name)} of account ${JSON.stringify(user.account)} with the password read from stdin.\n`);
  } else {
    io.stdout(
      `Created console user ${JSON.stringify(user.name)} of account ${JSON.stringify(user.account)}. Password (shown once):\n` +
        `${user.password}\n` +
        'Sign in at /console of the server.\n',
    );
  }
  return 0;
}

async function usersList(args: string[], io: Io): Promise<number> {
  const cmd = 'users list';
  const { values } = parse(cmd, args, { account: { type: 'string' }, json: { type: 'boolean' } }, 0);
  if (values.help) return help(cmd, io);
  const account = values.account === undefined ? undefined : String(values.account);
  const users = await withSilo(cmd, values, io, (silo) => silo.console.listUsers(account), { needsStore: true });
  if (values.json) io.stdout(`${JSON.stringify(users)}\n`);
  else if (users.length === 0) io.stdout(`No console users${account ? ` in account ${JSON.stringify(account)}` : ''}.\n`);
  else io.stdout(table([['NAME', 'ACCOUNT', 'CREATED'], ...users.map((u) => [u.name, u.account, u.created_at])]));
  return 0;
}

async function usersDelete(args: string[], io: Io): Promise<number> {
  const cmd = 'users delete';
  const { values } = parse(cmd, args, { name: { type: 'string' }, confirm: { type: 'string' }, json: { type: 'boolean' } }, 0);
  if (values.help) return help(cmd, io);
  const name = required(cmd, values, 'name', 'the user name');
  const confirm = required(cmd, values, 'confirm', "repeat the user's name to confirm");
  if (confirm !== name) throw new UsageError(`silo ${cmd}: --confirm ${JSON.stringify(confirm)} does not match --name ${JSON.stringify(name)}; nothing was deleted`);
  await withSilo(cmd, values, io, (silo) => silo.console.deleteUser(name, confirm), { needsStore: true });
  if (values.json) io.stdout(`${JSON.stringify({ deleted: true, name })}\n`);
  else io.stdout(`Deleted console user ${JSON.stringify(name)}; its sessions are over.\n`);
  return 0;
}

async function accountsCreate(args: string[], io: Io): Promise<number> {
  const cmd = 'accounts create';
  const { values, positionals } = parse(cmd, args, { json: { type: 'boolean' } }, 1);
  if (values.help) return help(cmd, io);
  const name = positionals[0]!;
  const account = await withAccounts(cmd, values, io, (accounts) => accounts.createAccount(name), { needsStore: false });
  if (values.json) io.stdout(`${JSON.stringify(account)}\n`);
  else io.stdout(`Created account ${JSON.stringify(account.name)} (plan ${account.plan}). Create its keys with: silo keys create --account ${account.name} --type manage --name NAME\n`);
  return 0;
}

async function accountsList(args: string[], io: Io): Promise<number> {
  const cmd = 'accounts list';
  const { values } = parse(cmd, args, { json: { type: 'boolean' } }, 0);
  if (values.help) return help(cmd, io);
  const list = await withAccounts(cmd, values, io, (accounts) => accounts.listAccounts(), { needsStore: true });
  if (values.json) io.stdout(`${JSON.stringify(list)}\n`);
  else if (list.length === 0) io.stdout('No accounts yet.\n');
  else io.stdout(table([['NAME', 'PLAN', 'CREATED'], ...list.map((a) => [a.name, a.plan, a.created_at])]));
  return 0;
}

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
    logger.error('uncaught exception: exiting', errorFields(error));
    logger.flush();
    process.exit(1);
  });
}

async function serve(args: string[], io: Io): Promise<number> {
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
  let startServer;
  try {
    ({ startServer } = await serveModule());
  } catch (error) {
    await stores.close();
    throw error;
  }
  // The banner holds key values: stderr (contract §8), never the JSON log lines on stdout.
  const running = await startServer(config, { logger, printBanner: io.stderr, stores });
  const signal = await stop;
  logger.info('signal', { signal });
  await running.close();
  logger.flush();
  return 0;
}

/** The usage lines of the commands of a group (`silo keys --help`, `silo help keys`). */
function groupUsage(group: 'keys' | 'accounts' | 'users'): string {
  return `${Object.keys(HELP).filter((k) => k.startsWith(`${group} `)).map((k) => HELP[k]!.split('\n')[0]).join('\n')}\n`;
}

function help(command: string | undefined, io: Io): number {
  if (command === undefined) {
    io.stdout(`${MAIN_HELP}${settingsHelp()}\n`);
    return 0;
  }
  if (command === 'keys' || command === 'accounts' || command === 'users') {
    io.stdout(groupUsage(command));
    return 0;
  }
  const text = HELP[command];
  if (!text) throw new UsageError(`silo: unknown command ${JSON.stringify(command)} (see silo --help)`);
  io.stdout(command === 'serve' ? `${text}${settingsHelp()}\n` : `${text}\nStorage (as for the server):\n${settingsHelp().split('\n').filter((l) => /SILO_DATA_DIR|SILO_STORE_URL|SILO_SQLITE_SYNC/.test(l)).join('\n')}\n`);
  return 0;
}

/** The transfer commands' streams and stop signal, from the command's Io. */
function transferIo(io: Io): TransferIo & { release(): void } {
  const stdout = io.stdoutStream ?? new Writable({ write: (chunk: Buffer, _enc, done) => (io.stdout(chunk.toString()), done()) });
  const controller = new AbortController();
  const stop = () => controller.abort();
  if (io.signals) {
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  }
  return {
    stderr: io.stderr,
    stdin: io.stdin ?? (Readable.from([]) as Readable),
    stdout,
    terminal: io.terminal,
    signal: controller.signal,
    release() {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
    },
  };
}

async function transfer(command: 'export' | 'import' | 'migrate', io: Io, fn: (t: TransferIo, m: Awaited<ReturnType<typeof transferModule>>) => Promise<unknown>): Promise<number> {
  const m = await transferModule();
  const t = transferIo(io);
  try {
    await fn(t, m);
    return 0;
  } finally {
    t.release();
  }
}

const TRANSFER: Record<'export' | 'import' | 'migrate', (args: string[], io: Io) => Promise<number>> = {
  async export(args, io) {
    const { values } = parse('export', args, { out: { type: 'string' } }, 0);
    if (values.help) return help('export', io);
    const storage = loadStorageConfig(io.env, values, io.cwd);
    const out = values.out as string | undefined;
    if (out === '') throw new UsageError('silo export: --out needs a file name');
    return transfer('export', io, (t, m) => m.runExport({ locations: storage.store, sqliteSynchronous: storage.sqliteSynchronous, ...(out ? { out } : {}) }, t));
  },
  async import(args, io) {
    const { values } = parse('import', args, { in: { type: 'string' } }, 0);
    if (values.help) return help('import', io);
    const storage = loadStorageConfig(io.env, values, io.cwd);
    const plans = loadPlanConfig(io.env, values);
    const input = values.in as string | undefined;
    if (input === '') throw new UsageError('silo import: --in needs a file name');
    return transfer('import', io, (t, m) => m.runImport({ locations: storage.store, sqliteSynchronous: storage.sqliteSynchronous, plans, ...(input ? { in: input } : {}) }, t));
  },
  async migrate(args, io) {
    const { values } = parse('migrate', args, { from: { type: 'string' }, to: { type: 'string' } }, 0);
    if (values.help) return help('migrate', io);
    const from = parseStoreUrl(required('migrate', values, 'from', 'the store URL to copy from'), io.cwd);
    const to = parseStoreUrl(required('migrate', values, 'to', 'the empty store URL to copy into'), io.cwd);
    const { sqliteSynchronous } = loadStorageConfig(io.env, values, io.cwd);
    const plans = loadPlanConfig(io.env, values);
    return transfer('migrate', io, (t, m) => m.runMigrate({ from, to, sqliteSynchronous, plans }, t));
  },
};

const COMMANDS: Record<string, (args: string[], io: Io) => Promise<number>> = {
  serve,
  'accounts create': accountsCreate,
  'accounts list': accountsList,
  'keys create': keysCreate,
  'keys list': keysList,
  'keys revoke': keysRevoke,
  'users create': usersCreate,
  'users list': usersList,
  'users delete': usersDelete,
};

async function run(argv: string[], io: Io): Promise<number> {
  const [first, second, ...rest] = argv;
  if (first === undefined || first === '--help' || first === '-h') return help(undefined, io);
  if (first === 'help') return help(second === undefined ? undefined : rest[0] ? `${second} ${rest[0]}` : second, io);
  if (first === '--version' || first === '-v') {
    io.stdout(`silo ${version()}\n`);
    return 0;
  }
  if (first === 'serve') return serve(argv.slice(1), io);
  if (first === 'export' || first === 'import' || first === 'migrate') return TRANSFER[first](argv.slice(1), io);
  if (first === 'accounts' || first === 'keys' || first === 'users') {
    if (second === undefined || second === '--help' || second === '-h') {
      if (second !== undefined) return help(first, io);
      const subs = Object.keys(COMMANDS).filter((k) => k.startsWith(`${first} `)).map((k) => k.slice(first.length + 1));
      io.stderr(`silo ${first}: which command? ${subs.slice(0, -1).join(', ')} or ${subs.at(-1)} (see silo ${first} --help)\n`);
      return 2;
    }
    const command = COMMANDS[`${first} ${second}`];
    if (!command) throw new UsageError(`silo ${first}: unknown command ${JSON.stringify(second)} (see silo --help)`);
    return command(rest, io);
  }
  throw new UsageError(`silo: unknown command ${JSON.stringify(first)} (see silo --help)`);
}

/** The command that `argv` names (`keys create`), for the start of its messages; undefined when none. */
function commandName(argv: string[]): string | undefined {
  const [first, second] = argv;
  if (first === 'serve' || first === 'export' || first === 'import' || first === 'migrate') return first;
  if ((first === 'keys' || first === 'accounts' || first === 'users') && second !== undefined && COMMANDS[`${first} ${second}`]) return `${first} ${second}`;
  return undefined;
}

/** `An account named "x" exists` → `an account named "x" exists`, to follow `silo COMMAND: `; `SILO_X ...` stays. */
function continued(message: string): string {
  return /^[A-Z][a-z ]/.test(message) ? `${message.charAt(0).toLowerCase()}${message.slice(1)}` : message;
}

/**
 * Runs the command; resolves to the exit code. Never throws, never prints a stack trace. Every
 * message starts with `silo COMMAND: ` (`silo: ` before a command is known).
 */
export async function main(argv: string[], io: Io = defaultIo()): Promise<number> {
  try {
    return await run(argv, io);
  } catch (error) {
    const line = (error as Error)?.message?.split('\n')[0] ?? String(error);
    if (error instanceof UsageError) {
      io.stderr(`${line}\n`);
      return 2;
    }
    const name = commandName(argv);
    const report = (text: string) => io.stderr(`silo${name ? ` ${name}` : ''}: ${continued(text)}\n`);
    const status = statusOf(error);
    // A name or value that Silo refuses (too long, bad characters) is a wrong use, as a bad flag is.
    if (status === 400 || status === 422) {
      report(`${line}${name ? ` (see silo ${name} --help)` : ''}`);
      return 2;
    }
    if (error instanceof ConfigError || error instanceof StartupError || error instanceof CommandError || error instanceof TransferFailure) {
      report(line);
      return 1;
    }
    if (status !== undefined) {
      report(status === 503 ? 'the storage is unavailable' : line);
      return 1;
    }
    report(`unexpected error: ${line}${io.env.SILO_DEBUG ? `\n${(error as Error)?.stack ?? ''}` : ' (set SILO_DEBUG=1 for details)'}`);
    return 1;
  }
}
