/**
 * The change feed's bus on a SQLite file: processes sharing the file (two connections here, as two
 * processes have) hear every event, their own included, once and in one order; an event is written
 * to the file only while some process listens.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import type { EventBus, SiloEvent } from 'koa-silo';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { POLL_MS, sqliteBus } from '../src/sqlite-events.js';

const event = (version: number): SiloEvent => ({
  type: 'update',
  account: 'default',
  silo: { file_uuid: '0b000fb4-d5f4-4616-b584-c0deef5ef1d9', file_name: 'feed', region_name: 'api', is_public: false, created_at: '2026-01-01T00:00:00.000Z', updated_at: '2026-01-01T00:00:00.000Z', version },
});

const versions = (heard: SiloEvent[]) => heard.map((e) => (e.type === 'update' ? e.silo.version : undefined));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('sqliteBus', () => {
  let dir: string;
  const opened: Database.Database[] = [];
  const buses: EventBus[] = [];

  const openProcess = () => {
    const db = new Database(path.join(dir, 'silo.sqlite'));
    db.pragma('journal_mode = WAL');
    opened.push(db);
    const bus = sqliteBus(db, () => undefined);
    buses.push(bus);
    return { db, bus };
  };
  const rows = (db: Database.Database) => db.prepare('SELECT count(*) FROM silo_events').pluck().get();

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'silo-sqlite-bus-'));
  });

  afterEach(async () => {
    for (const bus of buses.splice(0)) await bus.close();
    for (const db of opened.splice(0)) db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('every process hears every event, its own included, in one order, within a poll', async () => {
    const a = openProcess();
    const b = openProcess();
    const heardA: SiloEvent[] = [];
    const heardB: SiloEvent[] = [];
    a.bus.subscribe((e) => heardA.push(e));
    b.bus.subscribe((e) => heardB.push(e));
    for (let v = 2; v <= 4; v++) a.bus.publish(event(v));
    await sleep(20);
    b.bus.publish(event(10));
    await sleep(3 * POLL_MS);
    // Each process's own come back from the table, in its order, once: the same order everywhere.
    expect(versions(heardA)).toEqual([2, 3, 4, 10]);
    expect(versions(heardB)).toEqual([2, 3, 4, 10]);
    expect(heardB[0]).toEqual(event(2));
  });

  it("a process's own delete does not overtake what it has not yet read of another's (one silo's order)", async () => {
    const a = openProcess();
    const b = openProcess();
    const heardA: SiloEvent[] = [];
    a.bus.subscribe((e) => heardA.push(e));
    b.bus.publish(event(1)); // the create and update, through b
    b.bus.publish(event(2));
    await sleep(20); // committed, not yet polled by a
    a.bus.publish({ ...event(2), type: 'delete' }); // the delete, through a
    await sleep(3 * POLL_MS);
    expect(heardA.map((e) => e.type)).toEqual(['update', 'update', 'delete']);
  });

  it('writes nothing to the file while nobody listens, and its own subscribers still hear it at once', async () => {
    const a = openProcess();
    const b = openProcess();
    b.bus.publish(event(2)); // nobody listens anywhere: not written
    await sleep(50);
    expect(rows(a.db)).toBe(0);
    const heard: SiloEvent[] = [];
    a.bus.subscribe((e) => heard.push(e));
    b.bus.publish(event(3)); // a listens: written
    await sleep(3 * POLL_MS);
    expect(rows(a.db)).toBe(1);
    expect(versions(heard)).toEqual([3]);
    await a.bus.close();
    b.bus.publish(event(4));
    await sleep(50);
    expect(rows(a.db)).toBe(1);
  });

  it('a listener that starts later hears what comes after, not what came before', async () => {
    const a = openProcess();
    const b = openProcess();
    const heard: SiloEvent[] = [];
    b.bus.subscribe(() => undefined); // someone listens: a's events are written
    a.bus.publish(event(2));
    await sleep(50);
    const c = openProcess();
    c.bus.subscribe((e) => heard.push(e));
    a.bus.publish(event(3));
    await sleep(3 * POLL_MS);
    expect(versions(heard)).toEqual([3]);
  });
});
