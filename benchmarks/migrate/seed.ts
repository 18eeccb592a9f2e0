/**
 * The source stores of the migrate benchmark: the export format's JSON lines (see
 * packages/silo-server/src/transfer/README.md) generated here, deterministically, then loaded into
 * a new SQLite file by `silo import --in FILE` spawned as a user runs it. Going through the import
 * keeps the seed honest (every line is checked, the counts verified) and is quicker than creating
 * 10 000 silos over HTTP.
 *
 * Shape: 3 accounts, a manage and an access key each, silos of ~10 KB (a JSON document) spread over
 * the accounts and the three regions; every other silo has two versions (its data changed once).
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { once } from 'node:events';
import { mulberry32 } from '../common.js';
import { makeDocument } from '../http/data.js';

export const SILO_BYTES = 10 * 1024;
const ACCOUNTS = ['acme', 'globex', 'initech'] as const;
const REGIONS = ['api', 'sg-01-api', 'usc-01-api'] as const;
const START = Date.parse('2026-01-01T00:00:00.000Z');

export interface SeededStore {
  /** `sqlite:///abs/path.sqlite`, for `--from`. */
  url: string;
  silos: number;
  versions: number;
  /** UTF-8 bytes of every kept version's data: what a migrate moves (MB/s is computed from it). */
  dataBytes: number;
  /** Size of the export file that was imported (the whole store as JSON lines). */
  exportBytes: number;
  seedSeconds: number;
}

const iso = (ms: number) => new Date(ms).toISOString();

/** 16 characters of base64url from `rand`, as the stores' own etags (12 random bytes). */
function tag(rand: () => number): string {
  return Buffer.from(Array.from({ length: 12 }, () => Math.floor(rand() * 256))).toString('base64url');
}

/** A version-4-shaped uuid from `rand`. */
function uuid(rand: () => number): string {
  const hex = Array.from({ length: 32 }, () => Math.floor(rand() * 16).toString(16)).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20)}`;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** The lines of an export holding `silos` silos, and what they hold. */
function* exportLines(silos: number, totals: { versions: number; dataBytes: number }): Generator<string> {
  const rand = mulberry32(0x3161);
  const created = iso(START);
  yield JSON.stringify({ record: 'silo-export', version: 1, silos });
  for (const name of ACCOUNTS) yield JSON.stringify({ record: 'account', name, plan: 'default', created_at: created });
  for (const account of ACCOUNTS) {
    yield JSON.stringify({ record: 'key', type: 'manage', name: 'ci', account, created_at: created, duration: 'never', expires_at: null, hash: sha256(`manage-${account}`) });
    yield JSON.stringify({ record: 'key', type: 'access', name: 'default', account, created_at: created, hash: sha256(`access-${account}`) });
  }
  for (let i = 0; i < silos; i++) {
    const count = i % 2 === 0 ? 1 : 2;
    const meta = { file_name: `silo-${i}`, is_public: i % 5 === 0, region_name: REGIONS[i % REGIONS.length]! };
    const versions = Array.from({ length: count }, (_, v) => {
      const data = JSON.stringify(makeDocument(SILO_BYTES, i * 2 + v));
      return { version: v + 1, updated_at: iso(START + i * 1000 + v * 500), ...meta, size: Buffer.byteLength(data), etag: tag(rand), data };
    });
    const head = versions.at(-1)!;
    const fileUuid = uuid(rand);
    yield JSON.stringify({
      record: 'silo',
      file_uuid: fileUuid,
      ...meta,
      created_at: versions[0]!.updated_at,
      updated_at: head.updated_at,
      account: ACCOUNTS[i % ACCOUNTS.length],
      size: head.size,
      version: head.version,
      etag: head.etag,
      oldest: 1,
    });
    for (const v of versions) {
      totals.versions++;
      totals.dataBytes += v.size;
      yield JSON.stringify({ record: 'version', file_uuid: fileUuid, ...v });
    }
  }
  yield JSON.stringify({ record: 'counts', accounts: ACCOUNTS.length, keys: ACCOUNTS.length * 2, silos, versions: totals.versions });
}

/** Writes `lines` to `file`, waiting for the stream to drain. */
async function writeFile(file: string, lines: Iterable<string>): Promise<void> {
  const out = fs.createWriteStream(file);
  for (const line of lines) {
    if (!out.write(`${line}\n`)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
}

/** The environment of a spawned `silo`: this one without SILO_* settings, so that only the command line chooses stores. */
export function siloEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('SILO_')));
}

/** Runs `node <silo bin> args` to its end; rejects with its stderr on a non-zero exit. */
export async function runSilo(cli: string, args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  const child = spawn(process.execPath, [cli, ...args], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const [code] = (await once(child, 'close')) as [number | null];
  if (code !== 0) throw new Error(`silo ${args[0]} exited with ${code}: ${stderr.trim()}`);
  return stderr;
}

/** A new SQLite store in `dir` holding `silos` silos, made by `silo import`. */
export async function seedStore(cli: string, dir: string, silos: number): Promise<SeededStore> {
  const started = performance.now();
  const jsonl = path.join(dir, `seed-${silos}.jsonl`);
  const file = path.join(dir, `seed-${silos}.sqlite`);
  const totals = { versions: 0, dataBytes: 0 };
  await writeFile(jsonl, exportLines(silos, totals));
  const exportBytes = fs.statSync(jsonl).size;
  const url = `sqlite://${file}`;
  const stderr = await runSilo(cli, ['import', '--in', jsonl], { ...siloEnv(), SILO_STORE_URL: url });
  const wrote = `, ${silos} silos, ${totals.versions} versions`;
  if (!stderr.includes(wrote)) throw new Error(`silo import did not report ${wrote.slice(2)}: ${stderr.trim()}`);
  fs.rmSync(jsonl);
  return { url, silos, ...totals, exportBytes, seedSeconds: (performance.now() - started) / 1000 };
}
