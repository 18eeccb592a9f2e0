/**
 * What each command of two words (`silo keys create`) takes: its positional arguments and every
 * option, with the option's values and default. One table read twice, by the argument parser
 * (args.ts) and by the help (help.ts), so that `--help` lists exactly what the command accepts.
 */
import { MANAGE_KEY_DURATIONS, REGIONS, WEBHOOK_EVENTS } from 'koa-silo/model';

export interface OptionSpec {
  /** What the option's value looks like in the help (`NAME`, `manage|access`); none: a boolean flag. */
  value?: string;
  help: string;
  /** The value when the option is not given (shown as "default: ..."). */
  default?: string;
  required?: boolean;
}

export interface CommandSpec {
  /** The positional arguments, in the usage line's words (`NAME`, `UUID`). */
  positionals: string[];
  /** What the command does: a few lines. */
  about: string;
  options: Record<string, OptionSpec>;
}

const account: OptionSpec = { value: 'NAME', default: 'default', help: 'the account to work on' };
const create: OptionSpec = {
  help: 'make the store if there is none yet (a new, empty one). Without it, a store that does not exist is an error, as for every command: the store the server uses is elsewhere',
};
const json = (what: string): OptionSpec => ({ help: `print JSON instead of text: ${what}` });
const confirm = (what: string): OptionSpec => ({ value: what, required: true, help: `repeat the ${what.toLowerCase()} to confirm` });
const durations = MANAGE_KEY_DURATIONS.join('|');

export const SPECS: Record<string, CommandSpec> = {
  'accounts create': {
    positionals: ['NAME'],
    about: 'Creates an account (1 to 64 letters, digits, ".", "_", "-", starting with a letter or digit) on the default plan.',
    options: { create, json: json('one object {name, plan, created_at}') },
  },
  'accounts list': {
    positionals: [],
    about: 'Lists the accounts and their plans.',
    options: { json: json('an array of {name, plan, created_at}') },
  },
  'accounts delete': {
    positionals: ['NAME'],
    about:
      'Deletes an account with everything it has: its silos (with their history), keys, webhooks and console users\n' +
      '(their sessions end). Every instance sharing the storage stops serving them at once. It cannot be undone:\n' +
      'export first (silo export) to keep a copy.',
    options: { confirm: confirm('NAME'), json: json('one object {deleted: true, name, silos, keys, webhooks, users} (how many of each went)') },
  },
  'keys create': {
    positionals: [],
    about: 'Creates a key and prints its value: the only time it is ever shown (only its hash is stored).',
    options: {
      type: { value: 'manage|access', required: true, help: 'manage (header X-MAN-API: create, change and delete silos) or access (header X-SILO-KEY: read private silos)' },
      name: { value: 'NAME', required: true, help: 'the key name, unique per account and type (1 to 100 characters)' },
      duration: {
        value: durations,
        help: 'how long the key works: manage keys default to 30d; access keys never expire unless given one',
        default: '30d (manage), never (access)',
      },
      silos: { value: 'UUID,...', help: 'access keys only: the silos it may read (comma-separated file_uuids, at most 100); any other silo answers 404 to it', default: 'every silo of the account' },
      account,
      create,
      json: json('one object {type, name, account, key, created_at, duration?, expires_at?, silos?}'),
    },
  },
  'keys list': {
    positionals: [],
    about:
      "Lists the account's keys: type, name, creation, expiry (with the time left) and the silos an access key reads.\n" +
      'Never their values. A key that expires within 7 days is marked, with how to replace it.',
    options: { account, json: json('an array of {type, name, account, created_at, duration?, expires_at?, silos?}') },
  },
  'keys revoke': {
    positionals: [],
    about: 'Revokes a key: it stops working within a second on every server sharing the storage.',
    options: {
      type: { value: 'manage|access', required: true, help: 'the key type' },
      name: { value: 'NAME', required: true, help: 'the key name' },
      confirm: confirm('NAME'),
      account,
      json: json('one object {revoked: true, type, name, account}'),
    },
  },
  'users create': {
    positionals: [],
    about: 'Creates a console user who signs in at /console and acts for the account. Prints a generated password once.',
    options: {
      name: { value: 'USER', required: true, help: 'the user name, unique on the server' },
      account,
      'password-stdin': { help: 'read the password from the first line of stdin (8 to 1024 characters) instead of generating one' },
      create,
      json: json('one object {name, account, created_at, password} (no password when read from stdin)'),
    },
  },
  'users list': {
    positionals: [],
    about: "Lists the account's console users (never their passwords): name, account, creation.",
    options: { account, json: json('an array of {name, account, created_at}') },
  },
  'users delete': {
    positionals: [],
    about: 'Deletes a console user of the account; its sessions end at their next request on every instance.',
    options: { name: { value: 'USER', required: true, help: 'the user name' }, confirm: confirm('USER'), account, json: json('one object {deleted: true, name, account}') },
  },
  'silos list': {
    positionals: [],
    about: "Lists the account's silos, newest first, a page at a time: name, uuid, visibility, region, version, size, update time.",
    options: {
      page: { value: 'N', default: '1', help: 'the page (1-based)' },
      'per-page': { value: 'N', default: '25', help: 'silos per page, 1 to 100' },
      account,
      json: json('the API\'s list answer: {metadata: {total_items, per_page, page_no}, silos: [...]}'),
    },
  },
  'silos get': {
    positionals: ['UUID'],
    about: "Prints a silo's metadata, then its data exactly as stored (numbers as written).",
    options: { account, json: json('one object: the metadata fields, version, size and file_data') },
  },
  'silos create': {
    positionals: [],
    about:
      'Creates a silo, with the same rules as the API (an object or an array of objects, within the plan\'s size\n' +
      'limit: SILO_MAX_DATA_BYTES), and prints its uuid.',
    options: {
      name: { value: 'NAME', required: true, help: 'the silo name (file_name), 1 to 255 characters' },
      data: { value: 'JSON', help: 'the data (file_data) as JSON text; - reads it from stdin', default: '-' },
      'data-file': { value: 'FILE', help: 'read the data from FILE instead' },
      region: { value: REGIONS.join('|'), default: 'api', help: 'the region that serves it' },
      public: { help: 'make it public: readable by anyone at /public/<uuid>', default: 'private' },
      account,
      create,
      json: json('the API\'s create answer: {file_uuid, file_name, region_name, is_public, created_at, updated_at, version}'),
    },
  },
  'silos delete': {
    positionals: ['UUID'],
    about: 'Deletes a silo and its history, from every address, at once.',
    options: { confirm: confirm('NAME'), account, json: json('the API\'s delete answer: {file_uuid, deleted: true}') },
  },
  'webhooks list': {
    positionals: [],
    about: "Lists the account's webhooks (never their secrets): id, URL, events, silos, state (active, failing since, disabled).",
    options: { account, json: json('an array of {id, url, events, silos, created_at, disabled, failing_since}') },
  },
  'webhooks create': {
    positionals: [],
    about:
      'Registers a webhook and prints its signing secret: the only time it is shown. URLs may reach only public\n' +
      "addresses that are not the server's own, unless SILO_WEBHOOK_ALLOW_PRIVATE=true (or --webhook-allow-private).",
    options: {
      url: { value: 'URL', required: true, help: 'where deliveries are POSTed (http or https)' },
      events: { value: 'EVENT,...', default: WEBHOOK_EVENTS.join(','), help: `the events to deliver: ${WEBHOOK_EVENTS.join(', ')}` },
      silos: { value: 'UUID,...', default: 'every silo of the account', help: "only these silos' events (comma-separated file_uuids of the account)" },
      'webhook-allow-private': { help: 'let the URL reach any address, as the server\'s SILO_WEBHOOK_ALLOW_PRIVATE=true does', default: 'SILO_WEBHOOK_ALLOW_PRIVATE' },
      account,
      create,
      json: json('one object {id, url, events, silos, created_at, disabled, failing_since, secret}'),
    },
  },
  'webhooks delete': {
    positionals: ['ID'],
    about: 'Deletes a webhook; its pending deliveries are dropped.',
    options: { confirm: confirm('ID'), account, json: json('one object {id, deleted: true}') },
  },
};

/** The usage line of a command: `silo keys create --type manage|access --name NAME [--duration ...] ...`. */
export function usageLine(command: string, spec: CommandSpec): string {
  const words = Object.entries(spec.options).map(([name, o]) => {
    const text = `--${name}${o.value ? ` ${o.value}` : ''}`;
    return o.required ? text : `[${text}]`;
  });
  return ['silo', command, ...spec.positionals, ...words].join(' ');
}

/** The help of a command: its usage, what it does, and each option with its values and default. */
export function commandHelp(command: string, spec: CommandSpec): string {
  const rows = Object.entries(spec.options).map(([name, o]) => [`--${name}${o.value ? ` ${o.value}` : ''}`, `${o.help}${o.required ? ' (required)' : o.default !== undefined ? ` (default: ${o.default})` : ''}`] as const);
  const width = Math.max(...rows.map(([flag]) => flag.length));
  return [
    `Usage: ${usageLine(command, spec)}`,
    '',
    spec.about,
    '',
    'Options:',
    ...rows.map(([flag, text]) => `  ${flag.padEnd(width)}  ${text}`),
    `  ${'--help'.padEnd(width)}  this help`,
    '',
  ].join('\n');
}
