/**
 * `silo import`: lines of an export (format.ts) written into empty storage, in the order they
 * come: accounts and keys through storage's own inserts, each silo with its whole history in one
 * commit (SiloStorage.importSilo) once its last version line is read. A few silos are written at
 * once (WRITE_AHEAD, and WRITE_AHEAD_CHARS of history in all) while the next lines are read;
 * memory holds those and one silo being read.
 *
 * Webhooks and console users are held until every line is read and the counts line matches what
 * was read, then inserted (webhooks with their secrets, and no per-account limit: the export held
 * them all; users with their password hashes, so their passwords keep working): a file that turns
 * out bad never made a webhook live or let a user sign in, even for a moment, and removing them is
 * rarely needed.
 *
 * Every line is checked before anything of it is written: its form (format.ts), and its record as
 * the API would check it (koa-silo's recordRules: names, uuids, the target's plans, file_data that
 * is JSON of the API's shape within the plan's size), since storage takes whatever it is given and
 * the server would then serve it as if the API had made it. The counts line at the end is checked
 * against the records read, what was written, and what the target then lists. On any failure
 * (a bad line, a missing counts line, a mismatch, the store failing, an interruption) the import
 * removes what it wrote (rollback.ts) and says so; if that fails too it says that, loudly: the
 * target is then left with part of the import, to be emptied before trying again.
 */
import type { ImportedVersion, RecordRules, SiloStorage } from 'koa-silo';
import { type AuditEntry, COMMAND_ACTOR, auditEntryOf } from 'koa-silo/model';
import { emptyCounts, FORMAT_NAME, parseRecord, RecordError, siloOf, type Counts, type SiloLine, type StoredUser, type StoredWebhook, type TransferRecord } from './format.js';
import type { Progress } from './progress.js';
import { removeImported } from './rollback.js';

/** An import that failed; its message is one line, ending with what became of the target. */
export class ImportError extends Error {}

/** Silos being written while the next lines are read. */
const WRITE_AHEAD = 8;
/**
 * And the characters of their histories, in all: eight silos of 20 versions of 10 MB held 1.6 GB
 * at once. One silo is always written, however large (its history is one commit).
 */
const WRITE_AHEAD_CHARS = 128 * 1024 * 1024;

/** A failure of one line of the input: its message names the line. */
class LineError extends Error {}

const at = (line: number, message: string) => new LineError(`line ${line}: ${message}`);

/** `1 silo`, `2 silos`. */
const counted = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

type Phase = 'header' | 'accounts' | 'keys' | 'webhooks' | 'users' | 'audit' | 'silos' | 'end';
const ORDER: Record<Exclude<TransferRecord['record'], typeof FORMAT_NAME>, Phase> = {
  account: 'accounts',
  key: 'keys',
  webhook: 'webhooks',
  user: 'users',
  audit: 'audit',
  silo: 'silos',
  version: 'silos',
  counts: 'end',
};
const RANK: Record<Phase, number> = { header: 0, accounts: 1, keys: 2, webhooks: 3, users: 4, audit: 5, silos: 6, end: 7 };

/** Audit entries written per call (each entry keeps its id and time). */
const AUDIT_BATCH = 100;

/** The silo whose version lines are being read. */
interface OpenSilo {
  line: number;
  silo: SiloLine;
  versions: ImportedVersion[];
}

/** Writes in flight, at most `limit` and `maxSize` in all; the first failure is raised by the next add or by settle. */
export class WriteWindow {
  readonly #inFlight = new Set<Promise<void>>();
  #size = 0;
  #failure: unknown;
  #failed = false;

  constructor(
    private readonly limit: number,
    /** The most `size` the writes under way may add up to (one write may pass it alone). */
    private readonly maxSize: number,
  ) {}

  async add(size: number, write: () => Promise<void>): Promise<void> {
    this.#raise();
    while (this.#inFlight.size >= this.limit || (this.#inFlight.size > 0 && this.#size + size > this.maxSize)) await Promise.race(this.#inFlight);
    this.#raise();
    this.#size += size;
    const running: Promise<void> = write()
      .catch((error: unknown) => {
        if (!this.#failed) [this.#failed, this.#failure] = [true, error];
      })
      .finally(() => {
        this.#inFlight.delete(running);
        this.#size -= size;
      });
    this.#inFlight.add(running);
  }

  /** Waits for every write; raises the first failure. */
  async settle(): Promise<void> {
    await this.idle();
    this.#raise();
  }

  /** Waits for every write, failed or not (before a rollback: none may land after it). */
  async idle(): Promise<void> {
    while (this.#inFlight.size > 0) await Promise.race(this.#inFlight);
  }

  #raise(): void {
    if (this.#failed) throw this.#failure;
  }
}

export interface ImportOptions {
  /** The API's rules for each record, with the target's plans. */
  rules: RecordRules;
  progress: Progress;
  /** Stops the import (then rolled back) when aborted: a signal to the command. */
  signal?: AbortSignal;
}

/** Imports `lines` into `storage` (which must be empty); resolves to what was imported. */
export async function importLines(storage: SiloStorage, lines: AsyncIterable<string>, options: ImportOptions): Promise<Counts> {
  if (!(await storage.isEmpty())) {
    throw new ImportError('the target storage is not empty (it holds accounts, keys or silos): import into an empty store; nothing was written');
  }
  const created: string[] = [];
  const writes = new WriteWindow(WRITE_AHEAD, WRITE_AHEAD_CHARS);
  try {
    return await importInto(storage, lines, options, created, writes);
  } catch (error) {
    options.progress.stop();
    const reason = error instanceof Error ? error.message : String(error);
    try {
      // Silos still being written when a line failed: a rollback that ran beside them could miss one.
      await writes.idle();
      await removeImported(storage, created);
    } catch (undo) {
      const why = undo instanceof Error ? undo.message : String(undo);
      throw new ImportError(
        `${reason}; removing what this import wrote failed too (${why}): THE TARGET HOLDS PART OF THE IMPORT (accounts ${created.map((n) => JSON.stringify(n)).join(', ')}); empty it before importing again`,
      );
    }
    throw new ImportError(`${reason}; nothing was imported (what this import wrote is removed again)`);
  }
}

async function importInto(storage: SiloStorage, lines: AsyncIterable<string>, options: ImportOptions, created: string[], writes: WriteWindow): Promise<Counts> {
  const { progress, signal, rules } = options;
  const read = emptyCounts();
  const written = emptyCounts();
  /** Each account read, and its plan (its silos' size limit). */
  const accounts = new Map<string, string>();
  const hashes = new Set<string>();
  /** Webhooks read, written once every line is read and checked. */
  const hooks: { line: number; hook: StoredWebhook }[] = [];
  const hookIds = new Set<string>();
  /** Console users read, written after the webhooks. */
  const users: { line: number; user: StoredUser }[] = [];
  const userNames = new Set<string>();
  /** Silos read: a uuid names one silo, whatever its account. */
  const siloIds = new Set<string>();
  /** What was written of each account: its own import entry says so, and nothing of the others'. */
  const ofAccount = new Map<string, { silos: number; audit: number }>();
  const tally = (account: string) => {
    let counts = ofAccount.get(account);
    if (!counts) ofAccount.set(account, (counts = { silos: 0, audit: 0 }));
    return counts;
  };
  /** Audit entries read and not yet written; the ids read (an id is one entry). */
  let entries: AuditEntry[] = [];
  const entryIds = new Set<string>();
  const flushAudit = async () => {
    if (entries.length === 0) return;
    const batch = entries;
    entries = [];
    await storage.importAudit(batch);
    written.audit += batch.length;
    for (const entry of batch) tally(entry.account).audit++;
  };
  let phase: Phase = 'header';
  let open: OpenSilo | undefined;
  let lineNo = 0;
  let expected: Counts | undefined;

  /** Queues the write of the open silo, whose version lines are all read. */
  const writeOpen = async () => {
    const { silo, versions, line } = open!;
    open = undefined;
    const chars = versions.reduce((sum, version) => sum + version.text.length, 0);
    await writes.add(chars, async () => {
      try {
        await storage.importSilo(siloOf(silo), versions);
      } catch (error) {
        throw at(line, `silo ${silo.file_uuid} could not be written: ${error instanceof Error ? error.message : String(error)}`);
      }
      written.silos++;
      tally(silo.account).silos++;
      written.versions += versions.length;
      progress.tick(1);
    });
  };
  /** Whether the open silo has every version its line announced. */
  const complete = () => open !== undefined && open.versions.length === open.silo.version - open.silo.oldest + 1;

  for await (const raw of lines) {
    lineNo++;
    if (signal?.aborted) throw new Error(`interrupted at line ${lineNo}`);
    if (phase === 'end') throw at(lineNo, 'a line after the counts line');
    let record: TransferRecord;
    try {
      record = parseRecord(raw);
    } catch (error) {
      if (error instanceof RecordError) throw at(lineNo, error.message);
      throw error;
    }
    if (record.record === FORMAT_NAME) {
      if (phase !== 'header') throw at(lineNo, 'a second header');
      phase = 'accounts';
      progress.start(record.silos ?? 0);
      continue;
    }
    if (phase === 'header') throw at(lineNo, `not a silo export: the first line must be {"record":"${FORMAT_NAME}",...}`);
    const next = ORDER[record.record];
    if (RANK[next] < RANK[phase]) throw at(lineNo, `a ${record.record} record after the ${phase} (an export lists accounts, then keys, then webhooks, then users, then audit entries, then silos)`);
    if (next !== 'audit') await flushAudit();
    phase = next;

    switch (record.record) {
      case 'account': {
        read.accounts++;
        const { record: _, ...account } = record;
        const problem = rules.account(account);
        if (problem) throw at(lineNo, problem);
        if (!(await storage.insertAccount(account))) throw at(lineNo, `account ${JSON.stringify(account.name)} appears twice`);
        created.push(account.name);
        accounts.set(account.name, account.plan);
        written.accounts++;
        break;
      }
      case 'key': {
        read.keys++;
        const { record: _, ...key } = record;
        if (!accounts.has(key.account)) throw at(lineNo, `a key of account ${JSON.stringify(key.account)}, which no account line before it names`);
        if (hashes.has(key.hash)) throw at(lineNo, 'a key whose hash another key has already');
        const problem = rules.key(key);
        if (problem) throw at(lineNo, `the ${key.type} key ${JSON.stringify(key.name)} of account ${JSON.stringify(key.account)}: ${problem}`);
        if ((await storage.insertKey(key)) === 'taken') throw at(lineNo, `the ${key.type} key ${JSON.stringify(key.name)} of account ${JSON.stringify(key.account)} appears twice`);
        hashes.add(key.hash);
        written.keys++;
        break;
      }
      case 'webhook': {
        read.webhooks++;
        const { record: _, ...hook } = record;
        if (!accounts.has(hook.account)) throw at(lineNo, `a webhook of account ${JSON.stringify(hook.account)}, which no account line before it names`);
        const problem = rules.webhook(hook);
        if (problem) throw at(lineNo, `webhook ${JSON.stringify(hook.id)} of account ${JSON.stringify(hook.account)}: ${problem}`);
        const id = `${hook.account}\n${hook.id}`;
        if (hookIds.has(id)) throw at(lineNo, `webhook ${JSON.stringify(hook.id)} of account ${JSON.stringify(hook.account)} appears twice`);
        hookIds.add(id);
        hooks.push({ line: lineNo, hook });
        break;
      }
      case 'user': {
        read.users++;
        const { record: _, ...user } = record;
        if (!accounts.has(user.account)) throw at(lineNo, `console user ${JSON.stringify(user.name)} of account ${JSON.stringify(user.account)}, which no account line before it names`);
        const problem = rules.user(user);
        if (problem) throw at(lineNo, problem);
        // User names are one space across accounts: a name signs in without its account.
        if (userNames.has(user.name)) throw at(lineNo, `console user ${JSON.stringify(user.name)} appears twice`);
        userNames.add(user.name);
        users.push({ line: lineNo, user });
        break;
      }
      case 'audit': {
        read.audit++;
        const { record: _, ...entry } = record;
        if (!accounts.has(entry.account)) throw at(lineNo, `audit entry ${JSON.stringify(entry.id)} of account ${JSON.stringify(entry.account)}, which no account line before it names`);
        const id = `${entry.account}\n${entry.id}`;
        if (entryIds.has(id)) throw at(lineNo, `audit entry ${JSON.stringify(entry.id)} of account ${JSON.stringify(entry.account)} appears twice`);
        entryIds.add(id);
        entries.push(entry);
        if (entries.length >= AUDIT_BATCH) await flushAudit();
        break;
      }
      case 'silo': {
        if (open) throw at(lineNo, `silo ${open.silo.file_uuid} (line ${open.line}) has ${open.versions.length} of its ${open.silo.version - open.silo.oldest + 1} versions`);
        read.silos++;
        if (!accounts.has(record.account)) throw at(lineNo, `silo ${record.file_uuid} of account ${JSON.stringify(record.account)}, which no account line names`);
        if (record.oldest > record.version) throw at(lineNo, `silo ${record.file_uuid} has oldest ${record.oldest} after its version ${record.version}`);
        const problem = rules.silo(siloOf(record));
        if (problem) throw at(lineNo, `silo ${JSON.stringify(record.file_uuid)}: ${problem}`);
        if (siloIds.has(record.file_uuid)) throw at(lineNo, `silo ${record.file_uuid} appears twice`);
        siloIds.add(record.file_uuid);
        open = { line: lineNo, silo: record, versions: [] };
        break;
      }
      case 'version': {
        read.versions++;
        if (!open || open.silo.file_uuid !== record.file_uuid) throw at(lineNo, `a version of silo ${record.file_uuid}, which is not the silo of the lines before it`);
        const want = open.silo.oldest + open.versions.length;
        if (record.version !== want) throw at(lineNo, `version ${record.version} of silo ${record.file_uuid} where version ${want} belongs`);
        if (Buffer.byteLength(record.data, 'utf8') !== record.size) throw at(lineNo, `version ${record.version} of silo ${record.file_uuid} has data of ${Buffer.byteLength(record.data, 'utf8')} bytes, its size says ${record.size}`);
        const { record: _r, file_uuid: _u, data, ...entry } = record;
        const problem = rules.version({ entry, text: data }, accounts.get(open.silo.account)!);
        if (problem) throw at(lineNo, `version ${record.version} of silo ${record.file_uuid}: ${problem}`);
        open.versions.push({ entry, text: data });
        if (complete()) {
          const last = entry;
          if (last.etag !== open.silo.etag || last.size !== open.silo.size || last.updated_at !== open.silo.updated_at) {
            throw at(lineNo, `the last version of silo ${record.file_uuid} is not the one its silo line describes`);
          }
          await writeOpen();
        }
        break;
      }
      case 'counts': {
        if (open) throw at(lineNo, `silo ${open.silo.file_uuid} (line ${open.line}) has ${open.versions.length} of its ${open.silo.version - open.silo.oldest + 1} versions`);
        const { record: _, ...counts } = record;
        expected = counts;
        const mismatch = differences(counts, read);
        if (mismatch) throw at(lineNo, `the counts line says ${mismatch} in the file`);
        break;
      }
    }
  }
  await writes.settle();
  await flushAudit();
  if (!expected) throw new Error(`the input ends after line ${lineNo} without its counts line: it is truncated (or not a whole export)`);
  if (signal?.aborted) throw new Error(`interrupted after line ${lineNo}`);
  for (const { line, hook } of hooks) {
    // No limit: the source held them all, whatever limit per account the target's servers apply.
    if (!(await storage.insertWebhook(hook, Number.MAX_SAFE_INTEGER))) throw at(line, `webhook ${JSON.stringify(hook.id)} could not be written`);
    written.webhooks++;
  }
  for (const { line, user } of users) {
    if (!(await storage.insertUser(user))) throw at(line, `console user ${JSON.stringify(user.name)} could not be written (the target has a user of that name)`);
    written.users++;
  }
  const wrote = differences(expected, written);
  if (wrote) throw new Error(`the counts line says ${wrote} written`);
  const listed = differences(expected, await listedCounts(storage, written.versions));
  if (listed) throw new Error(`the counts line says ${listed} in the target after the import`);
  // Each account's log says that it was imported, by the `silo` command (contract §19).
  const importedAt = new Date().toISOString();
  for (const account of accounts.keys()) {
    const mine = tally(account);
    await storage.appendAudit(auditEntryOf('import', account, { actor: COMMAND_ACTOR, address: null }, importedAt, undefined, `${counted(mine.silos, 'silo')}, ${counted(mine.audit, 'audit entry', 'audit entries')}`));
  }
  progress.done(written);
  return written;
}

/** `a, b` for every count that differs: "3 silos where there are 2". Undefined when none does. */
function differences(expected: Counts, actual: Counts): string | undefined {
  const out = (Object.keys(expected) as (keyof Counts)[])
    .filter((k) => expected[k] !== actual[k])
    .map((k) => `${expected[k]} ${k} where there are ${actual[k]}`);
  return out.length > 0 ? out.join(', ') : undefined;
}

/** What the target lists now (versions as written: counting them again would read every silo). */
async function listedCounts(storage: SiloStorage, versions: number): Promise<Counts> {
  const names = await storage.listAccountNames();
  let keys = 0;
  let silos = 0;
  let webhooks = 0;
  for (const name of names) {
    keys += (await storage.listKeys(name)).length;
    silos += (await storage.index.page(name, 0, 0)).total;
    webhooks += (await storage.listWebhooks(name)).length;
  }
  // Every user the target has: it was empty, so any other than those imported is a mismatch too.
  const users = (await storage.listUsers()).length;
  let audit = 0;
  for (const name of names) audit += (await storage.listAudit(name, { offset: 0, limit: 0 })).total;
  return { accounts: names.length, keys, silos, versions, webhooks, users, audit };
}
