/**
 * The help texts (`silo --help`, `silo help COMMAND`, `silo COMMAND --help`): what each command
 * does and takes, in one place so that the usage lines and the README can be checked side by side.
 */
import { settingsHelp } from '../config.js';
import { UsageError } from './errors.js';
import type { Io } from './io.js';

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

/** The groups of commands that take a second word (`silo keys create`). */
export type Group = 'keys' | 'accounts' | 'users';

/** The usage lines of the commands of a group (`silo keys --help`, `silo help keys`). */
function groupUsage(group: Group): string {
  return `${Object.keys(HELP).filter((k) => k.startsWith(`${group} `)).map((k) => HELP[k]!.split('\n')[0]).join('\n')}\n`;
}

/** Prints the help of `command` (a group's usage lines; everything when undefined): exit 0. */
export function help(command: string | undefined, io: Io): number {
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
