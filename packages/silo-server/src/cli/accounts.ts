/**
 * `silo accounts create`, `silo accounts list` and `silo accounts delete`, and the rule the other
 * commands share about the account they name: `default` is made on demand, any other must exist.
 */
import type { AccountService, Silo } from 'koa-silo';
import { confirmed, parseCommand } from './args.js';
import { CommandError, statusOf } from './errors.js';
import { help } from './help.js';
import type { Io } from './io.js';
import { withAccounts, withSilo } from './open-silo.js';
import { table } from './table.js';

/** `default` is created on demand (as the server's first start would); other accounts must exist. */
export async function ensureAccount(accounts: AccountService, name: string): Promise<void> {
  if (name === 'default' && !(await accounts.getAccount(name))) {
    await accounts.createAccount(name).catch((error: unknown) => {
      if (statusOf(error) !== 409) throw error;
    });
  }
}

export function accountMissing(name: string): CommandError {
  return new CommandError(`account ${JSON.stringify(name)} does not exist (create it with: silo accounts create ${name})`);
}

/** The account named `name`, made first when it is `default` and `create` (a command that writes); else it must exist. */
export async function existingAccount(accounts: AccountService, name: string, create: boolean): Promise<void> {
  if (create) await ensureAccount(accounts, name);
  if (!(await accounts.getAccount(name))) throw accountMissing(name);
}

export async function accountsCreate(args: string[], io: Io): Promise<number> {
  const cmd = 'accounts create';
  const { values, positionals } = parseCommand(cmd, args);
  if (values.help) return help(cmd, io);
  const name = positionals[0]!;
  const account = await withAccounts(cmd, values, io, (accounts) => accounts.createAccount(name), { writes: true });
  if (values.json) io.stdout(`${JSON.stringify(account)}\n`);
  else io.stdout(`Created account ${JSON.stringify(account.name)} (plan ${account.plan}). Create its keys with: silo keys create --account ${account.name} --type manage --name NAME\n`);
  return 0;
}

export async function accountsList(args: string[], io: Io): Promise<number> {
  const cmd = 'accounts list';
  const { values } = parseCommand(cmd, args);
  if (values.help) return help(cmd, io);
  const list = await withAccounts(cmd, values, io, (accounts) => accounts.listAccounts(), { writes: false });
  if (values.json) io.stdout(`${JSON.stringify(list)}\n`);
  else if (list.length === 0) io.stdout('No accounts yet.\n');
  else io.stdout(table([['NAME', 'PLAN', 'CREATED'], ...list.map((a) => [a.name, a.plan, a.created_at])]));
  return 0;
}

const PAGE = 100;

/** Empties the account (console users first: nobody acts for it meanwhile), then removes it. */
async function deleteAccount(silo: Silo, name: string): Promise<{ silos: number; keys: number; webhooks: number; users: number }> {
  if (!(await silo.accounts.getAccount(name))) throw new CommandError(`no account named ${JSON.stringify(name)}`);
  const counts = { silos: 0, keys: 0, webhooks: 0, users: 0 };
  for (const user of await silo.console.listUsers(name)) {
    await silo.console.deleteUser(user.name, user.name);
    counts.users++;
  }
  for (;;) {
    const { silos } = await silo.silos.list(name, 1, PAGE);
    if (silos.length === 0) break;
    for (const s of silos) {
      await silo.silos.delete(name, s.file_uuid).catch((error: unknown) => {
        if (statusOf(error) !== 404) throw error;
      });
      counts.silos++;
    }
  }
  for (const hook of await silo.webhooks.list(name)) {
    await silo.webhooks.remove(name, hook.id);
    counts.webhooks++;
  }
  for (const key of await silo.accounts.listKeys(name)) {
    await silo.accounts.revokeKey({ account: name, type: key.type, name: key.name, confirm: key.name });
    counts.keys++;
  }
  await silo.accounts.deleteAccount(name, name);
  return counts;
}

export async function accountsDelete(args: string[], io: Io): Promise<number> {
  const cmd = 'accounts delete';
  const { values, positionals } = parseCommand(cmd, args);
  if (values.help) return help(cmd, io);
  const name = positionals[0]!;
  confirmed(cmd, values, name, 'the account name', 'deleted');
  const counts = await withSilo(cmd, values, io, (silo) => deleteAccount(silo, name), { writes: true });
  if (values.json) {
    io.stdout(`${JSON.stringify({ deleted: true, name, ...counts })}\n`);
  } else {
    const what = [`${counts.silos} silo${counts.silos === 1 ? '' : 's'}`, `${counts.keys} key${counts.keys === 1 ? '' : 's'}`, `${counts.webhooks} webhook${counts.webhooks === 1 ? '' : 's'}`, `${counts.users} console user${counts.users === 1 ? '' : 's'}`];
    io.stdout(`Deleted account ${JSON.stringify(name)} with ${what.slice(0, -1).join(', ')} and ${what.at(-1)}.\n`);
  }
  return 0;
}
