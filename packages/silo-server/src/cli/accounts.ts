/**
 * `silo accounts create` and `silo accounts list`, and the rule the key and user commands share
 * about the account they name: `default` is made on demand, any other must exist.
 */
import type { AccountService } from 'koa-silo';
import { parse } from './args.js';
import { CommandError, statusOf } from './errors.js';
import { help } from './help.js';
import type { Io } from './io.js';
import { withAccounts } from './open-silo.js';
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

export async function accountsCreate(args: string[], io: Io): Promise<number> {
  const cmd = 'accounts create';
  const { values, positionals } = parse(cmd, args, { json: { type: 'boolean' } }, 1);
  if (values.help) return help(cmd, io);
  const name = positionals[0]!;
  const account = await withAccounts(cmd, values, io, (accounts) => accounts.createAccount(name), { needsStore: false });
  if (values.json) io.stdout(`${JSON.stringify(account)}\n`);
  else io.stdout(`Created account ${JSON.stringify(account.name)} (plan ${account.plan}). Create its keys with: silo keys create --account ${account.name} --type manage --name NAME\n`);
  return 0;
}

export async function accountsList(args: string[], io: Io): Promise<number> {
  const cmd = 'accounts list';
  const { values } = parse(cmd, args, { json: { type: 'boolean' } }, 0);
  if (values.help) return help(cmd, io);
  const list = await withAccounts(cmd, values, io, (accounts) => accounts.listAccounts(), { needsStore: true });
  if (values.json) io.stdout(`${JSON.stringify(list)}\n`);
  else if (list.length === 0) io.stdout('No accounts yet.\n');
  else io.stdout(table([['NAME', 'PLAN', 'CREATED'], ...list.map((a) => [a.name, a.plan, a.created_at])]));
  return 0;
}
