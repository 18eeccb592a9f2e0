/**
 * Reading a command's arguments: its own flags plus the settings' flags (storage ones unless it
 * serves), and `--help`. Every mistake is a UsageError naming the command.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { settingOptions, type Flags } from '../config.js';
import { UsageError } from './errors.js';
import { SPECS } from './spec.js';

export type Options = NonNullable<ParseArgsConfig['options']>;

/** `args` read against `own` flags, with exactly `positionals` positional arguments (unless --help); `names` name them in messages. */
export function parse(command: string, args: string[], own: Options, positionals: number, storageOnly = true, names: string[] = ['NAME']) {
  const options: Options = { ...settingOptions(storageOnly), ...own, help: { type: 'boolean', short: 'h' } };
  let parsed;
  try {
    // allowNegative: `--no-trust-proxy` turns off a boolean setting its variable turned on.
    parsed = parseArgs({ args, options, allowPositionals: true, strict: true, allowNegative: true });
  } catch (error) {
    const lines = (error as Error).message.split('\n');
    const message = lines[0]!.split('. ')[0]!.replace(/\.$/, '');
    // Node's hint for a value that starts with a dash (`--page -1`): `--page=-1`.
    const hint = lines.find((line) => line.startsWith('To specify an option argument starting with a dash'));
    const dash = hint ? `; a value that starts with a dash is written ${hint.replace(/^.* use /, '').replace(/\.$/, '')}` : '';
    throw new UsageError(`silo ${command}: ${message.charAt(0).toLowerCase()}${message.slice(1)}${dash} (see silo ${command} --help)`);
  }
  if (!parsed.values.help && parsed.positionals.length !== positionals) {
    const extra = parsed.positionals.slice(positionals);
    throw new UsageError(
      extra.length > 0
        ? `silo ${command}: unexpected argument ${JSON.stringify(extra[0])} (see silo ${command} --help)`
        : `silo ${command}: missing ${names[parsed.positionals.length] ?? 'NAME'} (see silo ${command} --help)`,
    );
  }
  return { values: parsed.values as Flags, positionals: parsed.positionals };
}

/** A default that parsing applies (a plain value such as `default`, `25` or `api`), not a description of one. */
const APPLIED_DEFAULT = /^[\w.,-]+$/;

/** `args` read against the command's table in spec.ts: every option it lists, and nothing else. */
export function parseCommand(command: string, args: string[]) {
  const spec = SPECS[command];
  if (!spec) throw new Error(`no spec for ${command}`);
  const own: Options = {};
  for (const [name, o] of Object.entries(spec.options)) {
    own[name] = o.value
      ? { type: 'string', ...(o.default !== undefined && APPLIED_DEFAULT.test(o.default) ? { default: o.default } : {}) }
      : { type: 'boolean' };
  }
  return parse(command, args, own, spec.positionals.length, true, spec.positionals);
}

/** The non-empty value of flag `--name`; `what` says what it is when it is missing. */
export function required(command: string, values: Flags, name: string, what: string): string {
  const value = values[name];
  if (typeof value !== 'string' || value === '') throw new UsageError(`silo ${command}: --${name} is required (${what})`);
  return value;
}

/** `--confirm` must repeat `expected` exactly; `what` names what was not done. */
export function confirmed(command: string, values: Flags, expected: string, flag: string, undone: string): void {
  const confirm = required(command, values, 'confirm', `repeat ${flag} to confirm`);
  if (confirm !== expected) {
    throw new UsageError(`silo ${command}: --confirm ${JSON.stringify(confirm)} does not match ${flag} ${JSON.stringify(expected)}; nothing was ${undone}`);
  }
}

/** A comma-separated list: its non-empty items, trimmed. */
export function list(value: unknown): string[] {
  return String(value).split(',').map((s) => s.trim()).filter(Boolean);
}
