/**
 * The `silo` command (contract section 8). It works directly on the configured storage, with the
 * same environment variables and flags as the server. Errors go to stderr as one line, with a
 * non-zero exit (1: the command failed; 2: it was used wrongly), never a stack trace.
 *
 * This file is the entry (bin/silo.js runs dist/cli.js): which command argv names, and how each
 * failure becomes a message and an exit code. The commands themselves are in cli/, one file per
 * group; their work on the storage loads only when they run.
 */
import { createRequire } from 'node:module';
import { ConfigError } from './config.js';
import { StartupError } from './stores.js';
import { TransferFailure } from './transfer/failure.js';
import { accountsCreate, accountsDelete, accountsList } from './cli/accounts.js';
import { CommandError, statusOf, UsageError } from './cli/errors.js';
import { help, isGroup } from './cli/help.js';
import { defaultIo, type Command, type Io } from './cli/io.js';
import { keysCreate, keysList, keysRevoke } from './cli/keys.js';
import { serve } from './cli/serve.js';
import { audit } from './cli/audit.js';
import { TRANSFER_COMMANDS } from './cli/transfer.js';
import { usersCreate, usersDelete, usersList } from './cli/users.js';
import { silosCreate, silosDelete, silosGet, silosList } from './cli/silos.js';
import { webhooksCreate, webhooksDelete, webhooksList } from './cli/webhooks.js';

export type { Io };

/** The commands of two words, in the order `silo keys` (without a second word) lists them. */
const COMMANDS: Record<string, Command> = {
  'accounts create': accountsCreate,
  'accounts list': accountsList,
  'accounts delete': accountsDelete,
  'keys create': keysCreate,
  'keys list': keysList,
  'keys revoke': keysRevoke,
  'users create': usersCreate,
  'users list': usersList,
  'users delete': usersDelete,
  'silos list': silosList,
  'silos get': silosGet,
  'silos create': silosCreate,
  'silos delete': silosDelete,
  'webhooks list': webhooksList,
  'webhooks create': webhooksCreate,
  'webhooks delete': webhooksDelete,
};

function version(): string {
  try {
    // Relative to dist/cli.js (and src/cli.ts): the package's own package.json.
    const pkg = createRequire(import.meta.url)('../package.json') as { version?: string };
    return pkg.version ?? 'unknown';
  } catch {
    return 'unknown';
  }
}

async function run(argv: string[], io: Io): Promise<number> {
  const [first, second, ...rest] = argv;
  if (first === undefined || first === '--help' || first === '-h') return help(undefined, io);
  if (first === 'help') return help(second === undefined ? undefined : rest[0] ? `${second} ${rest[0]}` : second, io);
  if (first === '--version' || first === '-v') {
    io.stdout(`silo ${version()}\n`);
    return 0;
  }
  if (first === 'serve') return serve(argv.slice(1), io);
  if (first === 'audit') return audit(argv.slice(1), io);
  if (first === 'export' || first === 'import' || first === 'migrate') return TRANSFER_COMMANDS[first](argv.slice(1), io);
  if (isGroup(first)) {
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
  if (isGroup(first) && second !== undefined && COMMANDS[`${first} ${second}`]) return `${first} ${second}`;
  return undefined;
}

/** `An account named "x" exists` → `an account named "x" exists`, to follow `silo COMMAND: `; `SILO_X ...` stays. */
function continued(message: string): string {
  return /^[A-Z][a-z ]/.test(message) ? `${message.charAt(0).toLowerCase()}${message.slice(1)}` : message;
}

/** A 422 for a limit the account reached, not for what the command was given. */
function reachedLimit(error: unknown): boolean {
  const detail = (error as { detail?: unknown } | null)?.detail;
  return Array.isArray(detail) && detail.some((issue) => ['too_many_keys', 'too_many_webhooks'].includes((issue as { type?: unknown }).type as string));
}

/**
 * A 422's problems as a command says them: where within what was given, without the API's
 * `body`/`query`/`path` (a command has none of those), then what is wrong.
 */
function validationLine(error: unknown): string | undefined {
  const detail = (error as { detail?: unknown } | null)?.detail;
  if (!Array.isArray(detail)) return undefined;
  return (detail as { loc: (string | number)[]; msg: string }[])
    .map(({ loc, msg }) => (loc.length > 1 ? `${loc.slice(1).join('.')}: ${msg}` : msg))
    .join('; ');
}

/**
 * Runs the command; resolves to the exit code. Never throws, never prints a stack trace. Every
 * message starts with `silo COMMAND: ` (`silo: ` before a command is known).
 */
export async function main(argv: string[], io: Io = defaultIo()): Promise<number> {
  try {
    return await run(argv, io);
  } catch (error) {
    const line = validationLine(error) ?? (error as Error)?.message?.split('\n')[0] ?? String(error);
    if (error instanceof UsageError) {
      io.stderr(`${line}\n`);
      return 2;
    }
    const name = commandName(argv);
    const report = (text: string) => io.stderr(`silo${name ? ` ${name}` : ''}: ${continued(text)}\n`);
    const status = statusOf(error);
    // A name or value that Silo refuses (too long, bad characters) is a wrong use, as a bad flag is;
    // a limit the account has reached (its keys, its webhooks) is a command that failed.
    if (status === 422 && reachedLimit(error)) {
      report(line);
      return 1;
    }
    if (status === 400 || status === 422) {
      report(`${line}${name ? ` (see silo ${name} --help)` : ''}`);
      return 2;
    }
    // A bad setting (a variable or a flag of the storage or the server) is a wrong use too.
    if (error instanceof ConfigError) {
      report(line);
      return 2;
    }
    if (error instanceof StartupError || error instanceof CommandError || error instanceof TransferFailure) {
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
