/**
 * The help texts (`silo --help`, `silo help COMMAND`, `silo COMMAND --help`): what each command
 * does and takes. The commands of a group (`silo keys create`) have theirs made from their tables
 * in spec.ts, every option with its values and default; serve and the transfer commands' are here.
 */
import { settingsHelp } from '../config.js';
import { AUDIT_HELP, AUDIT_USAGE } from './audit.js';
import { UsageError } from './errors.js';
import type { Io } from './io.js';
import { commandHelp, SPECS, usageLine } from './spec.js';

/** The main help's head; the commands' usage lines follow, made from their tables (spec.ts). */
const MAIN_HEAD = `silo: self-hosted JSON hosting

Usage:
  silo serve [flags]                  serve all three regions on PORT
  silo export [--out FILE]            write the whole storage as JSON lines (stdout)
  silo import [--in FILE]             load an export (stdin) into empty storage
  silo migrate [--from URL] --to URL  copy the storage (or --from) into an empty store
  silo help [COMMAND]  |  silo COMMAND --help  |  silo --version
`;

const MAIN_TAIL = `
--account defaults to "default" on every command that takes it; --json prints JSON instead of
text. Every command works directly on the configured storage, found as silo serve finds it
(SILO_DATA_DIR: default ./.silo-data of the current directory), names it on stderr, and refuses
a store that does not exist (the server's is elsewhere: run the command where the server runs, or
set SILO_DATA_DIR), unless a command that writes is given --create to make a new one.
Exit codes: 0 done, 1 the command failed, 2 it was used wrongly.

Settings: an environment variable or a flag (the flag wins). The storage ones (--data-dir,
--store-url*, --sqlite-sync) apply to every command; the plan's limits (SILO_MAX_KEYS,
SILO_MAX_DATA_BYTES, SILO_HISTORY_VERSIONS...) to the commands that create keys or write silos
too: give a command the environment the server runs with. The others apply to serve:
`;

/** One line per group of commands: what it is for. */
const GROUPS_ABOUT: Record<Group, string> = {
  accounts: 'Accounts (each with its own keys, silos, webhooks and console users):',
  keys: 'Keys (manage: X-MAN-API; access: X-SILO-KEY); a value is shown once, at create:',
  users: 'Console users (they sign in at /console); a password is shown once, at create:',
  silos: 'Silos, with the API\'s rules (for scripts and operators without the API):',
  webhooks: 'Webhooks (the running server delivers them); a signing secret is shown once:',
};

function mainHelp(): string {
  const groups = GROUPS.map((group) => [
    '',
    GROUPS_ABOUT[group],
    ...Object.keys(SPECS).filter((c) => c.startsWith(`${group} `)).map((c) => `  ${usageLine(c, SPECS[c]!)}`),
  ].join('\n'));
  const audit = ['', 'Audit log (every management action, newest first; kept SILO_AUDIT_DAYS days):', `  ${AUDIT_USAGE}`].join('\n');
  return `${MAIN_HEAD}${groups.join('\n')}\n${audit}\n${MAIN_TAIL}`;
}

const HELP: Record<string, string> = {
  serve: `Usage: silo serve [flags]

Serves the management and data API of all three regions on PORT, with /healthz and /readyz.
On first start with empty storage, creates the account "default" and prints one manage key and
one access key, once. SIGTERM or SIGINT stop it gracefully.

Every setting is an environment variable or a flag (the flag wins):
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

Options:
  --out FILE  write into FILE (default: stdout)
  --help      this help

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

Options:
  --in FILE  read FILE (default: stdin)
  --help     this help

  silo import < backup.jsonl
  SILO_STORE_URL=postgres://silo@db.internal/silo silo import --in backup.jsonl
`,
  migrate: `Usage: silo migrate [--from URL] --to URL

Copies the configured storage (found as silo export finds it, region stores
SILO_STORE_URL_<REGION> included), or the store at --from, into the empty store at --to, as silo
export piped into silo import (in one process, nothing written to disk), with the same checks
(SILO_MAX_DATA_BYTES included). URLs as SILO_STORE_URL takes them: sqlite://PATH,
redis://HOST:PORT/DB, postgres://USER@HOST:PORT/DB; --from and --to each hold all three regions.
Stop the servers on the source first; start them on --to once it is done.

Options:
  --from URL  the store to copy (default: the configured storage)
  --to URL    the empty store to copy into (required)
  --help      this help

  silo migrate --from sqlite://.silo-data/silo.sqlite --to postgres://silo@db.internal/silo
`,
};

/** The groups of commands that take a second word (`silo keys create`). */
export const GROUPS = ['accounts', 'keys', 'users', 'silos', 'webhooks'] as const;
export type Group = (typeof GROUPS)[number];

export function isGroup(word: string | undefined): word is Group {
  return (GROUPS as readonly string[]).includes(word ?? '');
}

/** The storage settings, as every command but serve takes them. */
function storageHelp(): string {
  return `Storage (as for the server):\n${settingsHelp().split('\n').filter((l) => /SILO_DATA_DIR|SILO_STORE_URL|SILO_SQLITE_SYNC/.test(l)).join('\n')}\n`;
}

/**
 * Prints the help of `command`: everything when undefined; a group's commands (`silo help keys`),
 * each with every option; one command. Exit 0.
 */
export function help(command: string | undefined, io: Io): number {
  if (command === undefined) {
    io.stdout(`${mainHelp()}${settingsHelp()}\n`);
    return 0;
  }
  if (isGroup(command)) {
    const commands = Object.keys(SPECS).filter((c) => c.startsWith(`${command} `));
    io.stdout(`${commands.map((c) => commandHelp(c, SPECS[c]!)).join('\n')}\n${storageHelp()}`);
    return 0;
  }
  const spec = SPECS[command];
  if (spec) {
    io.stdout(`${commandHelp(command, spec)}\n${storageHelp()}`);
    return 0;
  }
  const text = command === 'audit' || command === 'audit list' ? AUDIT_HELP : HELP[command];
  if (!text) throw new UsageError(`silo: unknown command ${JSON.stringify(command)} (see silo --help)`);
  io.stdout(command === 'serve' ? `${text}${settingsHelp()}\n` : `${text}\n${storageHelp()}`);
  return 0;
}
