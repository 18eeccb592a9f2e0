/** `silo keys create`, `silo keys list` and `silo keys revoke`. */
import { KEY_HEADER, MANAGE_KEY_DURATIONS, type KeyInfo, type KeyType, type ManageKeyDuration } from 'koa-silo/model';
import type { Flags } from '../config.js';
import { accountMissing, ensureAccount } from './accounts.js';
import { parse, required } from './args.js';
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

export async function keysCreate(args: string[], io: Io): Promise<number> {
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
  if (duration !== undefined && !isDuration(duration)) {
    throw new UsageError(`silo ${cmd}: --duration must be one of ${MANAGE_KEY_DURATIONS.join(', ')}, got ${JSON.stringify(duration)}`);
  }
  const key = await withAccounts(cmd, values, io, async (accounts) => {
    await ensureAccount(accounts, account);
    if (!(await accounts.getAccount(account))) throw accountMissing(account);
    return accounts.createKey({
      account,
      type,
      name,
      ...(duration ? { duration } : {}),
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
        `This value is shown once and never again: store it now. Send it as ${KEY_HEADER[key.type]}.\n`,
    );
  }
  return 0;
}

export async function keysList(args: string[], io: Io): Promise<number> {
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

export async function keysRevoke(args: string[], io: Io): Promise<number> {
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
