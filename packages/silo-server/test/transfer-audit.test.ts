/**
 * The audit log in `silo export` / `silo import` (contract §19), through the command in-process on
 * SQLite: every entry is exported (after the users, before the silos, counted), never a key value,
 * password or silo data; an import writes them back exactly (ids, times, order) and records one
 * `import` entry per account by the `silo` command; a bad audit line leaves the target empty; a
 * file from before the audit log still imports; `silo audit list` shows the log with its filters.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditEntry } from 'koa-silo/model';
import { exportOf, removeTempDirs, seed, silo, sorted, sqliteRows, sqliteUrl, withoutImports, withStorage, type KeyValue } from './transfer-fixtures.js';

afterAll(() => removeTempDirs());

const entriesOf = (url: string, account: string) =>
  withStorage(url, async ({ storage }) => (await storage.listAudit(account, { offset: 0, limit: 10_000 })).entries);

describe('the audit log in export and import (SQLite)', () => {
  const source = sqliteUrl('audit-source');
  let keys: KeyValue[];
  let exported: string;
  let lines: string[];

  beforeAll(async () => {
    keys = await seed(source, { accounts: 2, silos: 12, users: true });
    exported = await exportOf(source);
    lines = exported.trimEnd().split('\n');
  }, 60_000);

  it('writes every entry after the users and before the silos, counted, with nothing secret', async () => {
    const records = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    const audit = records.filter((r) => r.record === 'audit');
    const stored = [...(await entriesOf(source, 'team-0')), ...(await entriesOf(source, 'team-1'))];
    expect(audit.length).toBe(stored.length);
    expect(audit.length).toBeGreaterThan(12 + 4);
    expect(records.at(-1)).toMatchObject({ record: 'counts', audit: stored.length });
    const kinds = records.map((r) => r.record);
    expect(kinds.indexOf('audit')).toBeGreaterThan(kinds.lastIndexOf('user'));
    expect(kinds.lastIndexOf('audit')).toBeLessThan(kinds.indexOf('silo'));
    for (const entry of audit) {
      expect(Object.keys(entry)[0]).toBe('record');
      expect(Object.keys(entry).slice(1, 7)).toEqual(['id', 'account', 'time', 'action', 'actor', 'address']);
    }
    expect(new Set(audit.map((e) => e.action))).toEqual(new Set(['key.create', 'silo.create', 'silo.update', 'silo.patch', 'silo.move', 'webhook.create', 'user.create']));
    for (const key of keys) expect(exported).not.toContain(key.value);
    for (const line of lines.filter((l) => l.startsWith('{"record":"audit"'))) expect(line).not.toMatch(/"n":|scrypt|whsec_/);
  });

  it('imports them exactly, then records the import by the silo command, once per account', async () => {
    const target = sqliteUrl('audit-target');
    const run = await silo(['import'], { store: target, stdin: exported });
    expect(run.code, run.stderr).toBe(0);
    for (const account of ['team-0', 'team-1']) {
      const before = await entriesOf(source, account);
      const after = await entriesOf(target, account);
      expect(after.slice(1)).toEqual(before);
      const imported = after[0]!;
      expect(imported).toMatchObject({ account, action: 'import', actor: { type: 'command', name: 'silo' }, address: null, outcome: 'success' });
      // What was imported of this account, not of the whole store: one account never sees another's.
      const silosOfAccount = exported.split('\n').filter((l) => l.startsWith('{"record":"silo"') && JSON.parse(l).account === account).length;
      expect(silosOfAccount).toBeGreaterThan(0);
      expect(silosOfAccount).toBeLessThan(12);
      const count = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;
      expect(imported.subject).toBe(`${count(silosOfAccount, 'silo', 'silos')}, ${count(before.length, 'audit entry', 'audit entries')}`);
    }
    // Export again: the same lines but for the import's own entries.
    const again = await exportOf(target);
    expect(sorted(again)).toEqual(sorted(exported));
    expect(again.trimEnd().split('\n').filter((l) => l.includes('"action":"import"'))).toHaveLength(2);
    // `silo audit list` reads it, newest first, with the API's filters.
    const list = await silo(['audit', 'list', '--account', 'team-0', '--per-page', '3', '--json'], { store: target });
    expect(list.code, list.stderr).toBe(0);
    const page = JSON.parse(list.stdout) as { metadata: { total_items: number; per_page: number }; entries: AuditEntry[] };
    expect(page.metadata).toMatchObject({ total_items: (await entriesOf(target, 'team-0')).length, per_page: 3 });
    expect(page.entries[0]).toMatchObject({ action: 'import', actor: { type: 'command', name: 'silo' } });
    expect(page.entries[0]).not.toHaveProperty('id');
    const table = await silo(['audit', 'list', '--account', 'team-0', '--actor', 'silo'], { store: target });
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toMatch(/^TIME +ACTION +ACTOR +ADDRESS +ON +OUTCOME\n\S+ +import +command:silo +- +\d+ silos?, \d+ audit entr(y|ies) +success\n$/);
    expect((await silo(['audit', 'list', '--since', 'yesterday'], { store: target })).code).toBe(2);
    expect((await silo(['audit', 'list', '--account', 'nobody'], { store: target })).stdout).toBe('Account "nobody" has no audit entries.\n');
    expect((await silo(['audit', '--help'], { store: target })).stdout).toMatch(/^silo audit list/);
  }, 30_000);

  it('a bad audit line (or a count that does not match) leaves the target empty', async () => {
    const at = lines.findIndex((l) => l.startsWith('{"record":"audit"'));
    const bad = [
      [...lines.slice(0, at), lines[at]!.replace('"action":"', '"action":"x'), ...lines.slice(at + 1)],
      [...lines.slice(0, at), lines[at]!.replace(/"account":"team-\d"/, '"account":"nobody"'), ...lines.slice(at + 1)],
      [...lines.slice(0, at), lines[at]!, lines[at]!, ...lines.slice(at + 1)],
      lines.map((l) => (l.startsWith('{"record":"counts"') ? l.replace(/"audit":\d+/, '"audit":1') : l)),
    ];
    const messages = [/a audit record with an invalid action/, /audit entry .* of account "nobody", which no account line before it names/, /appears twice/, /the counts line says 1 audit where there are \d+ in the file/];
    for (const [i, text] of bad.entries()) {
      const target = sqliteUrl(`audit-bad-${i}`);
      const run = await silo(['import'], { store: target, stdin: text.join('\n') });
      expect(run.code, run.stderr).toBe(1);
      expect(run.stderr).toMatch(messages[i]!);
      expect(run.stderr).toMatch(/nothing was imported/);
      // The store this import created goes with what it wrote.
      expect(fs.existsSync(target.slice('sqlite://'.length))).toBe(false);
    }
  }, 60_000);

  it('a file from before the audit log (no audit line, no audit count) still imports', async () => {
    const old = lines
      .filter((l) => !l.startsWith('{"record":"audit"'))
      .map((l) => (l.startsWith('{"record":"counts"') ? l.replace(/,"audit":\d+/, '') : l));
    const target = sqliteUrl('audit-old');
    const run = await silo(['import'], { store: target, stdin: old.join('\n') });
    expect(run.code, run.stderr).toBe(0);
    const again = withoutImports(await exportOf(target)).trimEnd().split('\n');
    expect(again.at(-1)).toBe(old.at(-1)!.replace(/}$/, ',"audit":0}'));
    expect((await entriesOf(target, 'team-1')).map((e) => e.action)).toEqual(['import']);
  }, 30_000);
});
