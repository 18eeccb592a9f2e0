/**
 * Reading a command's arguments: its own flags plus the settings' flags (storage ones unless it
 * serves), and `--help`. Every mistake is a UsageError naming the command.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { settingOptions, type Flags } from '../config.js';
import { UsageError } from './errors.js';

export type Options = NonNullable<ParseArgsConfig['options']>;

/** `args` read against `own` flags, with exactly `positionals` positional arguments (unless --help). */
export function parse(command: string, args: string[], own: Options, positionals: number, storageOnly = true) {
  const options: Options = { ...settingOptions(storageOnly), ...own, help: { type: 'boolean', short: 'h' } };
  let parsed;
  try {
    parsed = parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (error) {
    const message = (error as Error).message.split('. ')[0]!.replace(/\.$/, '');
    throw new UsageError(`silo ${command}: ${message.charAt(0).toLowerCase()}${message.slice(1)} (see silo ${command} --help)`);
  }
  if (!parsed.values.help && parsed.positionals.length !== positionals) {
    const extra = parsed.positionals.slice(positionals);
    throw new UsageError(
      extra.length > 0
        ? `silo ${command}: unexpected argument ${JSON.stringify(extra[0])} (see silo ${command} --help)`
        : `silo ${command}: missing NAME (see silo ${command} --help)`,
    );
  }
  return { values: parsed.values as Flags, positionals: parsed.positionals };
}

/** The non-empty value of flag `--name`; `what` says what it is when it is missing. */
export function required(command: string, values: Flags, name: string, what: string): string {
  const value = values[name];
  if (typeof value !== 'string' || value === '') throw new UsageError(`silo ${command}: --${name} is required (${what})`);
  return value;
}
