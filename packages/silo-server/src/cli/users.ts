/** `silo users create`, `silo users list` and `silo users delete`: the console's users of an account. */
import { Readable } from 'node:stream';
import { accountMissing, existingAccount } from './accounts.js';
import { confirmed, parseCommand, required } from './args.js';
import { CommandError } from './errors.js';
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
  const { values } = parseCommand(cmd, args);
  if (values.help) return help(cmd, io);
  const name = required(cmd, values, 'name', 'the user name');
  const account = String(values.account);
  const fromStdin = values['password-stdin'] === true;
  const password = fromStdin ? await firstLine(io) : undefined;
  const user = await withSilo(cmd, values, io, async (silo) => {
    await existingAccount(silo.accounts, account, true);
    return silo.console.createUser({ account, name, ...(password !== undefined ? { password } : {}) });
  }, { writes: true });
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
  const { values } = parseCommand(cmd, args);
  if (values.help) return help(cmd, io);
  const account = String(values.account);
  const users = await withSilo(cmd, values, io, async (silo) => {
    if (!(await silo.accounts.getAccount(account)) && account !== 'default') throw accountMissing(account);
    return silo.console.listUsers(account);
  }, { writes: false });
  if (values.json) io.stdout(`${JSON.stringify(users)}\n`);
  else if (users.length === 0) io.stdout(`Account ${JSON.stringify(account)} has no console users.\n`);
  else io.stdout(table([['NAME', 'ACCOUNT', 'CREATED'], ...users.map((u) => [u.name, u.account, u.created_at])]));
  return 0;
}

export async function usersDelete(args: string[], io: Io): Promise<number> {
  const cmd = 'users delete';
  const { values } = parseCommand(cmd, args);
  if (values.help) return help(cmd, io);
  const name = required(cmd, values, 'name', 'the user name');
  required(cmd, values, 'confirm', "repeat the user's name to confirm");
  confirmed(cmd, values, name, '--name', 'deleted');
  const account = String(values.account);
  await withSilo(cmd, values, io, async (silo) => {
    // User names are unique on the server; the account is checked, so that a name of another
    // account's user deletes nothing.
    const user = (await silo.console.listUsers(account)).find((u) => u.name === name);
    if (!user) throw new CommandError(`no console user named ${JSON.stringify(name)} in account ${JSON.stringify(account)}`);
    await silo.console.deleteUser(name, name);
  }, { writes: true });
  if (values.json) io.stdout(`${JSON.stringify({ deleted: true, name, account })}\n`);
  else io.stdout(`Deleted console user ${JSON.stringify(name)} of account ${JSON.stringify(account)}; its sessions are over.\n`);
  return 0;
}
