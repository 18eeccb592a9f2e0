/**
 * The work of `silo export`, `silo import` and `silo migrate` once cli/transfer.ts has read their flags:
 * open the stores, stream the lines, report progress on stderr, close everything. Failures are
 * TransferFailure: one line for the command to print, exit 1.
 */
import fs from 'node:fs';
import type { Readable, Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { recordRules } from 'koa-silo';
import { storeIsMissing, storeLine, undoCreation } from '../command-store.js';
import { plansOf, type PlanConfig } from '../plans.js';
import type { SqliteSynchronous } from '../sqlite-store.js';
import { describeLocation, type StoreLocation } from '../stores.js';
import { ExportError, exportLines } from './export.js';
import { TransferFailure } from './failure.js';
import { UnknownFieldError, type Counts } from './format.js';
import { ImportError, importLines } from './import.js';
import { readLines, writeLines } from './lines.js';
import { openStorage, oneStore, type StorageLocations } from './open-storage.js';
import { progressFor, silentProgress } from './progress.js';

export { TransferFailure };


export interface TransferIo {
  stderr: (text: string) => void;
  stdin: Readable;
  stdout: Writable;
  /** stderr when it is a terminal (a progress bar is drawn there); undefined: plain lines. */
  terminal: NodeJS.WriteStream | undefined;
  /** Aborted by SIGINT or SIGTERM: an import stops and removes what it wrote. */
  signal?: AbortSignal;
}

const message = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** Transfer errors as TransferFailure; anything else (a store that cannot be reached: StartupError) as it is. */
async function failingAs<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    if (error instanceof ExportError || error instanceof ImportError || error instanceof UnknownFieldError) throw new TransferFailure(error.message);
    throw error;
  }
}

export interface ExportOptions {
  locations: StorageLocations;
  sqliteSynchronous: SqliteSynchronous;
  /** The file to write (through FILE.partial, renamed once whole); undefined: stdout. */
  out?: string;
}

export async function runExport(options: ExportOptions, io: TransferIo): Promise<Counts> {
  const label = 'silo export';
  const { main } = options.locations;
  if (storeIsMissing(main)) throw new TransferFailure(`no store at ${describeLocation(main)}: nothing to export (point SILO_DATA_DIR or SILO_STORE_URL at the store the server uses)`);
  const opened = await openStorage(options.locations, options.sqliteSynchronous);
  io.stderr(`${label}: ${storeLine(main, false)}\n`);
  const partial = options.out === undefined ? undefined : `${options.out}.partial`;
  try {
    return await failingAs(async () => {
      // Owner-only, as the data directory is: the file holds key and password hashes, webhook
      // signing secrets in clear, and every silo.
      const output: Writable = partial === undefined ? io.stdout : fs.createWriteStream(partial, { flags: 'wx', mode: 0o600 });
      const progress = progressFor(label, io.stderr, io.terminal);
      let counts: Counts | undefined;
      try {
        const lines = exportLines(opened.storage, { ...progress, done: (c) => ((counts = c), progress.done(c)) });
        await writeLines(lines, output);
        if (partial !== undefined) {
          output.end();
          await finished(output);
          fs.renameSync(partial, options.out!);
        }
      } catch (error) {
        progress.stop();
        if (partial !== undefined) {
          // A write still queued fails once the stream is destroyed, as an 'error' event: heard
          // here (the file goes anyway), not left to end the command with a stack trace.
          output.on('error', () => undefined);
          output.destroy();
          fs.rmSync(partial, { force: true });
        }
        throw new ExportError(`${message(error)}${partial !== undefined ? `; no file was written` : '; the output is incomplete (it has no counts line)'}`);
      }
      return counts!;
    });
  } finally {
    await opened.close();
  }
}

export interface ImportOptions {
  locations: StorageLocations;
  sqliteSynchronous: SqliteSynchronous;
  /** The plan settings the target's servers run with: records are checked against them. */
  plans: PlanConfig;
  /** The file to read; undefined: stdin. */
  in?: string;
}

export async function runImport(options: ImportOptions, io: TransferIo): Promise<Counts> {
  const label = 'silo import';
  let input: Readable;
  if (options.in !== undefined) {
    try {
      fs.accessSync(options.in, fs.constants.R_OK);
    } catch (error) {
      throw new TransferFailure(`cannot read ${options.in}: ${message(error)}`);
    }
    input = fs.createReadStream(options.in);
  } else {
    if ((io.stdin as { isTTY?: boolean }).isTTY) throw new TransferFailure('reads an export on stdin (silo import < backup.jsonl) or from --in FILE, and stdin is a terminal');
    input = io.stdin;
  }
  const { main } = options.locations;
  const missing = storeIsMissing(main);
  const undo = missing ? undoCreation(main) : undefined;
  const opened = await openStorage(options.locations, options.sqliteSynchronous);
  io.stderr(`${label}: ${storeLine(main, missing)}\n`);
  let done = false;
  try {
    const plans = plansOf(options.plans);
    const rules = recordRules({ plans });
    // A version's line holds its data as a JSON string: escaping takes a character at most 6.
    const longestLine = 8 * Math.max(...Object.values(plans).map((plan) => plan.maxDataBytes)) + 1024 * 1024;
    const counts = await failingAs(() => importLines(opened.storage, readLines(input, longestLine), { rules, progress: progressFor(label, io.stderr, io.terminal), ...(io.signal ? { signal: io.signal } : {}) }));
    done = true;
    return counts;
  } finally {
    input.destroy();
    await opened.close();
    // A store this import created and could not fill goes too.
    if (!done) undo?.();
  }
}

export interface MigrateOptions {
  /** The store to copy (--from), every region in it; undefined: the configured storage. */
  from?: StoreLocation;
  /** The configured storage, region stores included, as silo export reads it. */
  configured: StorageLocations;
  to: StoreLocation;
  sqliteSynchronous: SqliteSynchronous;
  plans: PlanConfig;
}

/** `main`, then each region store that is not `main`, as one line names them. */
function describeLocations(locations: StorageLocations): string {
  const elsewhere = Object.entries(locations.regions).filter(([, l]) => l.url !== locations.main.url);
  const regions = elsewhere.map(([region, l]) => `${region} at ${describeLocation(l)}`).join(', ');
  return `${describeLocation(locations.main)}${regions ? ` (region stores: ${regions})` : ''}`;
}

export async function runMigrate(options: MigrateOptions, io: TransferIo): Promise<Counts> {
  const label = 'silo migrate';
  const { to } = options;
  const from = options.from ? oneStore(options.from) : options.configured;
  if ([from.main, ...Object.values(from.regions)].some((l) => l.url === to.url)) throw new TransferFailure(`--to names a store that the source uses: ${describeLocation(to)}`);
  if (storeIsMissing(from.main)) throw new TransferFailure(`no store at ${describeLocation(from.main)}: nothing to migrate`);
  const missing = storeIsMissing(to);
  const undo = missing ? undoCreation(to) : undefined;
  const source = await openStorage(from, options.sqliteSynchronous);
  try {
    const target = await openStorage(oneStore(to), options.sqliteSynchronous);
    io.stderr(`${label}: from ${describeLocations(from)} to ${describeLocation(to)}${missing ? ' (new and empty: created now)' : ''}\n`);
    let done = false;
    try {
      // The export half reports nothing: the import half counts the same silos as they land.
      const lines = exportLines(source.storage, silentProgress);
      const rules = recordRules({ plans: plansOf(options.plans) });
      const counts = await failingAs(() => importLines(target.storage, lines, { rules, progress: progressFor(label, io.stderr, io.terminal), ...(io.signal ? { signal: io.signal } : {}) }));
      done = true;
      return counts;
    } finally {
      await target.close();
      if (!done) undo?.();
    }
  } finally {
    await source.close();
  }
}
