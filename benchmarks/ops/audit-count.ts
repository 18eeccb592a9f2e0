/**
 * What an exact `total_items` of the audit log costs on the stores that count it (SQLite,
 * PostgreSQL: sqlite-audit-log.ts, postgres-audit-log.ts count rows, they keep no count): one
 * account with `--entries` entries (16 silos, 3 actors), then each listing's count and first page,
 * median of 20 runs, through the stores' own AuditLog.
 *
 *   npx tsc -b && node --import tsx benchmarks/ops/audit-count.ts [--entries=100000] [--postgres=postgres://postgres@127.0.0.1:5432/test]
 *
 * PostgreSQL runs in a schema of its own, dropped at the end (skipped without `--postgres`).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { AuditLog, AuditLogFilter, AuditRow } from '../../packages/koa-silo/dist/index.js';
import { PostgresStore } from '../../packages/silo-server/dist/postgres-store.js';
import { SqliteStore } from '../../packages/silo-server/dist/sqlite-store.js';
import { median } from '../common.js';

const arg = (name: string) => process.argv.slice(2).find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const ENTRIES = Number(arg('entries') ?? 100_000);
const POSTGRES = arg('postgres');
const LOG = 'silo:audit:bench';
const T0 = Date.parse('2026-01-01T00:00:00Z');

function rows(from: number, to: number): AuditRow[] {
  return Array.from({ length: to - from }, (_, k) => {
    const i = from + k;
    const time = T0 + i * 10;
    const id = `${time.toString(36).padStart(9, '0')}${(0x7fffffff - i).toString(36).padStart(6, '0')}bench0`;
    const silo = `00000000-0000-4000-8000-0000000000${String(i % 16).padStart(2, '0')}`;
    const actor = ['deploy', 'ci', 'admin'][i % 3]!;
    const entry = { id, account: 'bench', time: new Date(time).toISOString(), action: 'silo.patch', actor: { type: 'manage', name: actor }, address: '::ffff:127.0.0.1', file_uuid: silo, version: i, outcome: 'success' };
    return { log: LOG, time, id, silo, actor, entry: JSON.stringify(entry) };
  });
}

async function fill(atomic: (rows: AuditRow[]) => Promise<boolean>): Promise<void> {
  for (let i = 0; i < ENTRIES; i += 5000) await atomic(rows(i, Math.min(ENTRIES, i + 5000)));
}

const listings: [string, AuditLogFilter][] = [
  ['all', {}],
  ['since (the newest half)', { since: T0 + ENTRIES * 5 }],
  ['one actor (a third)', { actor: 'ci' }],
  ['one silo (a sixteenth)', { silo: '00000000-0000-4000-8000-000000000003' }],
  ['silo and actor', { silo: '00000000-0000-4000-8000-000000000003', actor: 'ci' }],
];

async function measure(name: string, log: AuditLog): Promise<void> {
  for (const [label, filter] of listings) {
    const times: number[] = [];
    let total = 0;
    for (let i = 0; i < 21; i++) {
      const start = process.hrtime.bigint();
      total = await log.count(LOG, filter);
      await log.list(LOG, filter, 0, 25);
      if (i > 0) times.push(Number(process.hrtime.bigint() - start) / 1e6);
    }
    console.log(`${name}, ${label}: count and first page ${median(times).toFixed(2)} ms (total ${total})`);
  }
}

const dir = mkdtempSync(path.join(os.tmpdir(), 'silo-audit-count-'));
try {
  const sqlite = new SqliteStore({ path: path.join(dir, 'silo.sqlite'), table: 'main' });
  await fill((auditAdd) => sqlite.atomic({ expect: [], set: [], delete: [], indexAdd: [], indexRemove: [], auditAdd }));
  console.log(`${ENTRIES} entries of one account, ${os.cpus().length} cores, Node ${process.version}`);
  await measure('SQLite', sqlite.auditLog);
  await sqlite.disconnect();
  if (POSTGRES) {
    const schema = `silo_audit_count_${process.pid}`;
    const admin = new pg.Client({ connectionString: POSTGRES });
    await admin.connect();
    await admin.query(`CREATE SCHEMA "${schema}"`);
    const pool = new pg.Pool({ connectionString: POSTGRES, options: `-c search_path=${schema}` });
    try {
      const store = await PostgresStore.open({ pool, table: 'main' });
      await fill((auditAdd) => store.atomic({ expect: [], set: [], delete: [], indexAdd: [], indexRemove: [], auditAdd }));
      await pool.query('VACUUM ANALYZE main_audit');
      await measure('PostgreSQL', store.auditLog);
    } finally {
      await pool.end();
      await admin.query(`DROP SCHEMA "${schema}" CASCADE`);
      await admin.end();
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
