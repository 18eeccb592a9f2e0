/**
 * `silo audit list`: an account's audit log (contract §19), newest first, paged as the API pages
 * it, with the API's filters. Reads only; what a command does is itself recorded with the actor
 * `{"type": "command", "name": "silo"}`.
 */
import type { AuditEntryInfo, AuditPage } from 'koa-silo/model';
import { parse } from './args.js';
import { UsageError } from './errors.js';
import type { Io } from './io.js';
import { withSilo } from './open-silo.js';
import { table } from './table.js';

/** The command's usage line, also in the main help. */
export const AUDIT_USAGE = 'silo audit list [--account NAME] [--since TIME] [--silo FILE_UUID] [--actor NAME] [--page N] [--per-page N] [--json]';

/** `silo audit --help` and `silo help audit`. */
export const AUDIT_HELP = `${AUDIT_USAGE}

  The account's audit log, newest first: every management action (silo create, update, patch,
  restore, move, delete; key create and revoke; webhook create and delete; console sign-in, failed
  sign-in, sign-out; console user create and delete; import), with its time, actor, address, silo,
  version and outcome. Entries are kept SILO_AUDIT_DAYS days (default 90).

  --account NAME     the account (default: default)
  --since TIME       only entries at or after this RFC 3339 time (2026-05-01T00:00:00Z)
  --silo FILE_UUID   only entries of this silo
  --actor NAME       only entries of actors of this name (a manage key, a console user, silo)
  --page N           the page (default 1)
  --per-page N       entries per page, 1 to 100 (default 25)
  --json             the API's answer as JSON: {"metadata": {...}, "entries": [...]}
`;

const TIME = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

function whole(cmd: string, flag: string, value: unknown, min: number, max: number): number | undefined {
  if (value === undefined) return undefined;
  const text = String(value);
  if (!/^[0-9]+$/.test(text) || Number(text) < min || Number(text) > max) throw new UsageError(`silo ${cmd}: --${flag} must be a whole number from ${min} to ${max}, got ${JSON.stringify(text)}`);
  return Number(text);
}

function row(entry: AuditEntryInfo): string[] {
  const on = [entry.file_uuid ? `${entry.file_uuid}${entry.version !== undefined ? ` v${entry.version}` : ''}` : '', entry.subject ?? ''].filter(Boolean).join(' ');
  return [entry.time, entry.action, `${entry.actor.type}:${entry.actor.name}`, entry.address ?? '-', on || '-', entry.outcome];
}

/** `silo audit ...`: its one command, `list`, and its help. */
export async function audit(args: string[], io: Io): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === undefined || sub === '--help' || sub === '-h' || (sub === 'list' && (rest.includes('--help') || rest.includes('-h')))) {
    if (sub === undefined) {
      io.stderr('silo audit: which command? list (see silo audit --help)\n');
      return 2;
    }
    io.stdout(AUDIT_HELP);
    return 0;
  }
  if (sub !== 'list') throw new UsageError(`silo audit: unknown command ${JSON.stringify(sub)} (see silo audit --help)`);
  const cmd = 'audit list';
  const { values } = parse(cmd, rest, {
    account: { type: 'string', default: 'default' },
    since: { type: 'string' },
    silo: { type: 'string' },
    actor: { type: 'string' },
    page: { type: 'string' },
    'per-page': { type: 'string' },
    json: { type: 'boolean' },
  }, 0);
  const account = String(values.account);
  const since = values.since === undefined ? undefined : String(values.since);
  if (since !== undefined && !(TIME.test(since) && !Number.isNaN(Date.parse(since)))) {
    throw new UsageError(`silo ${cmd}: --since must be an RFC 3339 time such as 2026-05-01T00:00:00Z, got ${JSON.stringify(since)}`);
  }
  const silo = values.silo === undefined ? undefined : String(values.silo);
  if (silo !== undefined && !/^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/.test(silo)) {
    throw new UsageError(`silo ${cmd}: --silo must be a file_uuid, got ${JSON.stringify(silo)}`);
  }
  const page = whole(cmd, 'page', values.page, 1, Number.MAX_SAFE_INTEGER) ?? 1;
  const perPage = whole(cmd, 'per-page', values['per-page'], 1, 100) ?? 25;
  const actor = values.actor === undefined ? undefined : String(values.actor);
  const answer: AuditPage = await withSilo(
    cmd,
    values,
    io,
    (s) =>
      s.audit.list(account, {
        page,
        perPage,
        ...(since !== undefined ? { since: Date.parse(since) } : {}),
        ...(silo !== undefined ? { silo } : {}),
        ...(actor !== undefined ? { actor } : {}),
      }),
    { writes: false },
  );
  if (values.json) {
    io.stdout(`${JSON.stringify(answer)}\n`);
    return 0;
  }
  const { total_items: total, page_no: pageNo, per_page: size } = answer.metadata;
  if (answer.entries.length === 0) {
    io.stdout(total === 0 ? `Account ${JSON.stringify(account)} has no audit entries${since || silo || actor ? ' that match' : ''}.\n` : `Page ${pageNo} is past the end: ${total} entries.\n`);
    return 0;
  }
  io.stdout(table([['TIME', 'ACTION', 'ACTOR', 'ADDRESS', 'ON', 'OUTCOME'], ...answer.entries.map(row)]));
  const pages = Math.ceil(total / size);
  if (pages > 1) io.stdout(`Page ${pageNo} of ${pages} (${total} entries): --page ${Math.min(pageNo + 1, pages)} for ${pageNo < pages ? 'the next' : 'the last'}.\n`);
  return 0;
}
