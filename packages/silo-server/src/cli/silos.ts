/**
 * `silo silos list|get|create|delete`: an account's silos over the same storage as the server, for
 * scripts and operators without the API. The rules are the API's: a silo holds an object or an
 * array of objects, within the plan's size limit; its data is kept exactly as written.
 */
import fs from 'node:fs';
import { Readable } from 'node:stream';
import { REGIONS, type Region, type SiloRecord, versionedMetaOf } from 'koa-silo/model';
import { existingAccount } from './accounts.js';
import { parseCommand, required } from './args.js';
import { CommandError, UsageError } from './errors.js';
import { help } from './help.js';
import type { Io } from './io.js';
import { withSilo } from './open-silo.js';
import { table } from './table.js';

const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

function uuidArgument(command: string, value: string): string {
  if (!UUID.test(value)) throw new UsageError(`silo ${command}: ${JSON.stringify(value)} is not a file_uuid (36 characters such as 08afdea5-ad6d-4009-b5ab-f6f86dc75000)`);
  return value.toLowerCase();
}

function wholeNumber(command: string, flag: string, value: unknown, min: number, max: number): number {
  const text = String(value);
  if (!/^[0-9]{1,9}$/.test(text) || Number(text) < min || Number(text) > max) {
    throw new UsageError(`silo ${command}: --${flag} must be a whole number from ${min} to ${max}, got ${JSON.stringify(text)}`);
  }
  return Number(text);
}

/** `1234` → `1.2 kB`: decimal units, as the plan limits are. */
export function sizeText(bytes: number): string {
  if (bytes < 1000) return `${bytes} B`;
  if (bytes < 1_000_000) return `${(bytes / 1000).toFixed(1)} kB`;
  return `${(bytes / 1_000_000).toFixed(1)} MB`;
}

/**
 * JSON text without the whitespace between its tokens, every other character (numbers as
 * written, strings' escapes) untouched: what the API stores for a body it was sent.
 */
export function compactJson(text: string): string {
  let out = '';
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (inString) {
      out += c;
      if (c === '\\') out += text[++i] ?? '';
      else if (c === '"') inString = false;
    } else if (c === '"') {
      inString = true;
      out += c;
    } else if (c !== ' ' && c !== '\t' && c !== '\n' && c !== '\r') {
      out += c;
    }
  }
  return out;
}

/** The silo data of `text`, checked as the API checks file_data; its compact text. */
function checkedData(command: string, text: string, from: string): string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`silo ${command}: the data (${from}) is not JSON: ${(error as Error).message}`);
  }
  const objects = (v: unknown) => typeof v === 'object' && v !== null && !Array.isArray(v);
  if (!objects(value) && !(Array.isArray(value) && value.every(objects))) {
    throw new UsageError(`silo ${command}: the data (${from}) must be a JSON object, or an array whose items are all objects`);
  }
  return compactJson(text.trim());
}

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  let text = '';
  for await (const chunk of stream) text += String(chunk);
  return text;
}

/** The data text from --data, --data-file or stdin, and where it came from. */
async function dataText(command: string, values: Record<string, unknown>, io: Io): Promise<{ text: string; from: string }> {
  const inline = values.data as string;
  const file = values['data-file'] as string | undefined;
  if (file !== undefined && inline !== '-') throw new UsageError(`silo ${command}: give --data or --data-file, not both`);
  if (file !== undefined) {
    try {
      return { text: fs.readFileSync(file, 'utf8'), from: file };
    } catch (error) {
      throw new CommandError(`cannot read --data-file ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
    }
  }
  if (inline !== '-') return { text: inline, from: '--data' };
  const stdin = io.stdin ?? Readable.from([]);
  if ((stdin as { isTTY?: boolean }).isTTY) throw new UsageError(`silo ${command}: no data: give --data JSON, --data-file FILE, or pipe the JSON on stdin`);
  const text = await readAll(stdin);
  if (text.trim() === '') throw new UsageError(`silo ${command}: no data: give --data JSON, --data-file FILE, or pipe the JSON on stdin`);
  return { text, from: 'stdin' };
}

/** The metadata fields in the API's order, the version and the size. */
function metaJson(r: SiloRecord) {
  return { ...versionedMetaOf(r), size: r.size };
}

export async function silosList(args: string[], io: Io): Promise<number> {
  const cmd = 'silos list';
  const { values } = parseCommand(cmd, args);
  if (values.help) return help(cmd, io);
  const page = wholeNumber(cmd, 'page', values.page, 1, 1_000_000_000);
  const perPage = wholeNumber(cmd, 'per-page', values['per-page'], 1, 100);
  const account = String(values.account);
  const listed = await withSilo(cmd, values, io, async (silo) => {
    await existingAccount(silo.accounts, account, false);
    return silo.silos.list(account, page, perPage);
  }, { writes: false });
  if (values.json) {
    io.stdout(`${JSON.stringify(listed)}\n`);
    return 0;
  }
  const { total_items: total } = listed.metadata;
  const pages = Math.max(1, Math.ceil(total / perPage));
  if (listed.silos.length === 0) {
    io.stdout(total === 0 ? `Account ${JSON.stringify(account)} has no silos.\n` : `Page ${page} is past the last (${pages}); ${total} silo${total === 1 ? '' : 's'} in all.\n`);
    return 0;
  }
  io.stdout(
    table([
      ['NAME', 'UUID', 'VISIBILITY', 'REGION', 'VERSION', 'SIZE', 'UPDATED'],
      ...listed.silos.map((s) => [s.file_name, s.file_uuid, s.is_public ? 'public' : 'private', s.region_name, String(s.version), sizeText(s.size), s.updated_at]),
    ]) + `Page ${page} of ${pages}, ${total} silo${total === 1 ? '' : 's'} in all.\n`,
  );
  return 0;
}

export async function silosGet(args: string[], io: Io): Promise<number> {
  const cmd = 'silos get';
  const { values, positionals } = parseCommand(cmd, args);
  if (values.help) return help(cmd, io);
  const uuid = uuidArgument(cmd, positionals[0]!);
  const account = String(values.account);
  const { record, text } = await withSilo(cmd, values, io, async (silo) => {
    await existingAccount(silo.accounts, account, false);
    return silo.silos.read(account, uuid);
  }, { writes: false });
  const meta = metaJson(record);
  if (values.json) {
    // The data spliced in as stored: its numbers exactly as written.
    io.stdout(`${JSON.stringify(meta).slice(0, -1)},"file_data":${text}}\n`);
    return 0;
  }
  io.stdout(
    table([
      ['name', meta.file_name],
      ['uuid', meta.file_uuid],
      ['visibility', meta.is_public ? 'public' : 'private'],
      ['region', meta.region_name],
      ['version', String(meta.version)],
      ['size', sizeText(meta.size)],
      ['created', meta.created_at],
      ['updated', meta.updated_at],
    ]) + `\n${text}\n`,
  );
  return 0;
}

export async function silosCreate(args: string[], io: Io): Promise<number> {
  const cmd = 'silos create';
  const { values } = parseCommand(cmd, args);
  if (values.help) return help(cmd, io);
  const name = required(cmd, values, 'name', 'the silo name');
  if (name.length > 255) throw new UsageError(`silo ${cmd}: --name is 1 to 255 characters`);
  const region = String(values.region) as Region;
  if (!(REGIONS as readonly string[]).includes(region)) throw new UsageError(`silo ${cmd}: --region must be one of ${REGIONS.join(', ')}, got ${JSON.stringify(region)}`);
  const { text, from } = await dataText(cmd, values, io);
  const data = checkedData(cmd, text, from);
  const account = String(values.account);
  const record = await withSilo(cmd, values, io, async (silo) => {
    await existingAccount(silo.accounts, account, true);
    return silo.silos.createText(account, { file_name: name, region_name: region, is_public: values.public === true }, data);
  }, { writes: true });
  const { size: _size, ...created } = metaJson(record);
  if (values.json) io.stdout(`${JSON.stringify(created)}\n`);
  else {
    // The uuid alone on stdout, so that `U=$(silo silos create ...)` holds it; the sentence is for people.
    io.stderr(`Created ${record.is_public ? 'public' : 'private'} silo ${JSON.stringify(record.file_name)} in region ${record.region_name} (${sizeText(record.size)}).\n`);
    io.stdout(`${record.file_uuid}\n`);
  }
  return 0;
}

export async function silosDelete(args: string[], io: Io): Promise<number> {
  const cmd = 'silos delete';
  const { values, positionals } = parseCommand(cmd, args);
  if (values.help) return help(cmd, io);
  const uuid = uuidArgument(cmd, positionals[0]!);
  const confirm = required(cmd, values, 'confirm', "repeat the silo's name to confirm");
  const account = String(values.account);
  const name = await withSilo(cmd, values, io, async (silo) => {
    await existingAccount(silo.accounts, account, false);
    const meta = await silo.silos.meta(account, uuid);
    if (confirm !== meta.file_name) {
      throw new UsageError(`silo ${cmd}: --confirm ${JSON.stringify(confirm)} does not match the silo's name ${JSON.stringify(meta.file_name)}; nothing was deleted`);
    }
    await silo.silos.delete(account, uuid);
    return meta.file_name;
  }, { writes: true });
  if (values.json) io.stdout(`${JSON.stringify({ file_uuid: uuid, deleted: true })}\n`);
  else io.stdout(`Deleted silo ${JSON.stringify(name)} (${uuid}) and its history.\n`);
  return 0;
}
