import type { AccountService } from '../../src/index.js';

/** A test account and the values of its two keys. */
export interface Account {
  name: string;
  manage: string;
  access: string;
}

/** Creates an account with one manage key (`m`) and one access key (`a`). */
export async function accountWithKeys(accounts: AccountService, name: string, plan?: string): Promise<Account> {
  await accounts.createAccount(name, plan);
  const manage = await accounts.createKey({ account: name, type: 'manage', name: 'm' });
  const access = await accounts.createKey({ account: name, type: 'access', name: 'a' });
  return { name, manage: manage.key, access: access.key };
}
