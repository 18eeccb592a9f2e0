/**
 * The names an account, a key and a console user may have: one rule each, for whatever makes
 * them (the services, and an import that writes records without them). Each check says what is
 * wrong in the words an operator sees, or undefined when the name is fine.
 *
 * Account and user names become parts of storage keys and rate-limit keys, and are printed in
 * tables and logs: letters, digits and a few marks only, never `:`, spaces or `__proto__`.
 */

const ACCOUNT_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const USER_NAME = /^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$/;
export const KEY_NAME_MAX = 100;
// eslint-disable-next-line no-control-regex
const CONTROL_CHARS = /[\u0000-\u001f\u007f]/;

export function accountNameProblem(name: string): string | undefined {
  return ACCOUNT_NAME.test(name) ? undefined : 'An account name is 1 to 64 characters: letters, digits, ".", "_" or "-", starting with a letter or digit';
}

export function userNameProblem(name: string): string | undefined {
  return USER_NAME.test(name)
    ? undefined
    : 'A user name is 1 to 64 characters: letters, digits, ".", "_", "@" or "-", starting with a letter or digit';
}

export function keyNameProblem(name: string): string | undefined {
  return name.trim().length === 0 || name.length > KEY_NAME_MAX || CONTROL_CHARS.test(name)
    ? `A key name is 1 to ${KEY_NAME_MAX} characters, not blank, without control characters`
    : undefined;
}
