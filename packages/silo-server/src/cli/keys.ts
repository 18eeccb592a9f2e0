/** `silo keys create`, `silo keys list` and `silo keys revoke`. */
import { KEY_HEADER, MANAGE_KEY_DURATIONS, type KeyInfo, type KeyType, type ManageKeyDuration } from 'koa-silo/model';
import type { Flags } from '../config.js';
import { DAY_MS, EXPIRY_WARNING_DAYS, inDays } from '../key-expiry.js';
import { accountMissing, existingAccount } from './accounts.js';
import { confirmed, list, parseCommand, required } from './args.js';
import { UsageError } from './errors.js';
import { help } from './help.js';
import type { Io } from './io.js';
import { withAccounts } from './open-silo.js';
import { table } from './table.js';

function keyType(command: string, values: Flags): KeyType {
  const type = required(command, values, 'type', 'manage or access');
  if (type !== 'manage' && type !== 'access') throw new UsageError(`silo ${command}: --type must be manage or access, got ${JSON.stringify(type)}`);
  return type;
}

function isDuration(text: string): text is ManageKeyDuration {
  return (MANAGE_KEY_DURATIONS as readonly string[]).includes(text);
}

/** A key's expiry for `keys list`: the instant, and how far off it is. */
export function expiryText(expiresAt: string | null | undefined, now: number): string {
  if (expiresAt === null || expiresAt === undefined) return 'never';
  const left = Date.parse(expiresAt) - now;
  if (left <= 0) return `${expiresAt} (expired)`;
  return `${expiresAt} (${inDays(left)})`;
}

/** True when the key has expired, or will within EXPIRY_WARNING_DAYS. */
export function expiresSoon(key: Pick<KeyInfo, 'expires_at'>, now: number): boolean {
  return typeof key.expires_at === 'string' && Date.parse(key.expires_at) - now < EXPIRY_WARNING_DAYS * DAY_MS;
}

/** The lines that call out keys expiring soon, with what to do: empty when none does. */
export function expiryWarnings(keys: KeyInfo[], now: number): string[] {
  return keys
    .filter((k) => expiresSoon(k, now))
    .map((k) => {
      const left = Date.parse(k.expires_at!) - now;
      const when = left <= 0 ? 'has expired' : `expires ${inDays(left)}`;
      return `Warning: ${k.type} key ${JSON.stringify(k.name)} ${when} (${k.expires_at}): replace it with silo keys create --account ${k.account} --type ${k.type} --name NAME --duration 90d, then revoke it.`;
    });
}

export async function keysCreate(args: string[], io: Io): Promise<number> {
  const cmd = 'keys create';
  const { values } = parseCommand(cmd, args);
  if (values.help) return help(cmd, io);
  const type = keyType(cmd, values);
  const silos = values.silos === undefined ? undefined : list(values.silos);
  if (silos !== undefined && type !== 'access') throw new UsageError(`silo ${cmd}: --silos applies to access keys only`);
  const name = required(cmd, values, 'name', 'the key name');
  const account = String(values.account);
  const duration = values.duration as string | undefined;
  if (duration !== undefined && !isDuration(duration)) {
    throw new UsageError(`silo ${cmd}: --duration must be one of ${MANAGE_KEY_DURATIONS.join(', ')}, got ${JSON.stringify(duration)}`);
  }
  const key = await withAccounts(cmd, values, io, async (accounts) => {
    await existingAccount(accounts, account, true);
    return accounts.createKey({
      account,
      type,
      name,
      ...(duration ? { duration } : {}),
      ...(silos ? { silos } : {}),
    });
  }, { writes: true });
  if (values.json) {
    io.stdout(`${JSON.stringify(key)}\n`);
  } else {
    const expiry = key.expires_at ? `, expires ${key.expires_at}` : key.type === 'manage' ? ', never expires' : '';
    const scope = key.silos ? `, reading only ${key.silos.length === 1 ? 'silo' : `these ${key.silos.length} silos:`} ${key.silos.join(', ')}` : '';
    io.stdout(
      `Created ${key.type} key ${JSON.stringify(key.name)} for account ${JSON.stringify(key.account)}${expiry}${scope}.\n` +
        `${key.key}\n` +
        `This value is shown once and never again: store it now. Send it as ${KEY_HEADER[key.type]}.\n`,
    );
  }
  return 0;
}

export async function keysList(args: string[], io: Io): Promise<number> {
  const cmd = 'keys list';
  const { values } = parseCommand(cmd, args);
  if (values.help) return help(cmd, io);
  const account = String(values.account);
  const keys = await withAccounts(cmd, values, io, async (accounts) => {
    if (!(await accounts.getAccount(account))) {
      if (account === 'default') return [] as KeyInfo[];
      throw accountMissing(account);
    }
    return accounts.listKeys(account);
  }, { writes: false });
  const now = Date.now();
  const warnings = expiryWarnings(keys, now);
  if (values.json) {
    io.stdout(`${JSON.stringify(keys)}\n`);
    for (const line of warnings) io.stderr(`silo ${cmd}: ${line}\n`);
  } else if (keys.length === 0) {
    io.stdout(`Account ${JSON.stringify(account)} has no keys.\n`);
  } else {
    io.stdout(
      table([
        ['TYPE', 'NAME', 'CREATED', 'EXPIRES', 'SILOS'],
        ...keys.map((k) => [k.type, k.name, k.created_at, expiryText(k.expires_at, now), k.silos ? k.silos.join(',') : 'all']),
      ]) + (warnings.length > 0 ? `\n${warnings.join('\n')}\n` : ''),
    );
  }
  return 0;
}

export async function keysRevoke(args: string[], io: Io): Promise<number> {
  const cmd = 'keys revoke';
  const { values } = parseCommand(cmd, args);
  if (values.help) return help(cmd, io);
  const type = keyType(cmd, values);
  const name = required(cmd, values, 'name', 'the key name');
  required(cmd, values, 'confirm', "repeat the key's name to confirm");
  confirmed(cmd, values, name, '--name', 'revoked');
  const account = String(values.account);
  await withAccounts(cmd, values, io, (accounts) => accounts.revokeKey({ account, type, name, confirm: name }), { writes: true });
  if (values.json) io.stdout(`${JSON.stringify({ revoked: true, type, name, account })}\n`);
  else io.stdout(`Revoked ${type} key ${JSON.stringify(name)} of account ${JSON.stringify(account)}.\n`);
  return 0;
}
