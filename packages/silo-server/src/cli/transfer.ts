/**
 * `silo export`, `silo import` and `silo migrate`: their flags, read here; the work itself is in
 * ../transfer/commands.ts, loaded only when one of them runs.
 */
import { Readable, Writable } from 'node:stream';
import { loadPlanConfig, loadStorageConfig } from '../config.js';
import { parseStoreUrl, type StoreLocation } from '../stores.js';
import type { TransferIo } from '../transfer/commands.js';
import { parse, required } from './args.js';
import { UsageError } from './errors.js';
import { help } from './help.js';
import type { Command, Io } from './io.js';

/** The store URL of `silo migrate --from` or `--to`: one it cannot use is a wrong use (2), as with --store-url. */
function storeUrlFlag(flag: 'from' | 'to', value: string, cwd: string): StoreLocation {
  try {
    return parseStoreUrl(value, cwd);
  } catch (error) {
    throw new UsageError(`silo migrate: --${flag}: ${(error as Error).message}`);
  }
}

const transferModule = () => import('../transfer/commands.js');

export type TransferCommand = 'export' | 'import' | 'migrate';

/** The transfer commands' streams and stop signal, from the command's Io. */
function transferIo(io: Io): TransferIo & { release(): void } {
  const stdout = io.stdoutStream ?? new Writable({ write: (chunk: Buffer, _enc, done) => (io.stdout(chunk.toString()), done()) });
  const controller = new AbortController();
  const stop = () => controller.abort();
  if (io.signals) {
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  }
  return {
    stderr: io.stderr,
    stdin: io.stdin ?? (Readable.from([]) as Readable),
    stdout,
    terminal: io.terminal,
    signal: controller.signal,
    release() {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
    },
  };
}

async function transfer(io: Io, fn: (t: TransferIo, m: Awaited<ReturnType<typeof transferModule>>) => Promise<unknown>): Promise<number> {
  const m = await transferModule();
  const t = transferIo(io);
  try {
    await fn(t, m);
    return 0;
  } finally {
    t.release();
  }
}

export const TRANSFER_COMMANDS: Record<TransferCommand, Command> = {
  async export(args, io) {
    const { values } = parse('export', args, { out: { type: 'string' } }, 0);
    if (values.help) return help('export', io);
    const storage = loadStorageConfig(io.env, values, io.cwd);
    const out = values.out as string | undefined;
    if (out === '') throw new UsageError('silo export: --out needs a file name');
    return transfer(io, (t, m) => m.runExport({ locations: storage.store, sqliteSynchronous: storage.sqliteSynchronous, ...(out ? { out } : {}) }, t));
  },
  async import(args, io) {
    const { values } = parse('import', args, { in: { type: 'string' } }, 0);
    if (values.help) return help('import', io);
    const storage = loadStorageConfig(io.env, values, io.cwd);
    const plans = loadPlanConfig(io.env, values);
    const input = values.in as string | undefined;
    if (input === '') throw new UsageError('silo import: --in needs a file name');
    return transfer(io, (t, m) => m.runImport({ locations: storage.store, sqliteSynchronous: storage.sqliteSynchronous, plans, ...(input ? { in: input } : {}) }, t));
  },
  async migrate(args, io) {
    const { values } = parse('migrate', args, { from: { type: 'string' }, to: { type: 'string' } }, 0);
    if (values.help) return help('migrate', io);
    const to = storeUrlFlag('to', required('migrate', values, 'to', 'the empty store URL to copy into'), io.cwd);
    const storage = loadStorageConfig(io.env, values, io.cwd);
    const fromUrl = values.from as string | undefined;
    if (fromUrl === '') throw new UsageError('silo migrate: --from needs a store URL');
    const from = fromUrl === undefined ? undefined : storeUrlFlag('from', fromUrl, io.cwd);
    const plans = loadPlanConfig(io.env, values);
    return transfer(io, (t, m) => m.runMigrate({ ...(from ? { from } : {}), configured: storage.store, to, sqliteSynchronous: storage.sqliteSynchronous, plans }, t));
  },
};
