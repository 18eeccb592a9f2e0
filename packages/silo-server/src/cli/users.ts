/** `silo users create`, `silo users list` and `silo users delete`: the console's users. */
import { Readable } from 'node:stream';
import { accountMissing, ensureAccount } from './accounts.js';
import { parse, required } from './args.js';
import { UsageError } from './errors.js';
import { help } from './help.js';
import type { Io } from './io.js';
import { withSilo } from './open-silo.js';
import { table } from './table.js';

/** The first line of stdin (for --password-stdin), without its line break. */
async function firstLine(io: Io): Promise<string> {
  let text = '';
  for await (const chunk of io.stdin ?? Readable.from([])) {
    text += String(chunk);
    if (text.includes('\n') || text.length > 4096) break;
  }
  return text.split(/\r?\n/)[0]!;
}

export async function usersCreate(args: string[], io: Io): Promise<number> {
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

export async function usersList(args: string[], io: Io): Promise<number> {
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

export async function usersDelete(args: string[], io: Io): Promise<number> {
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
