/**
 * The memory budget's gate (limits/admission.ts) for bodies charged as they arrive: reservations
 * that grow, and the rule that keeps them from all waiting on each other.
 */
import { describe, expect, it } from 'vitest';
import { MemoryGate, SMALL_BYTES } from '../src/limits/admission.js';
import { MemoryBusyError } from '../src/model/index.js';

const MB = 1024 * 1024;

describe('MemoryGate', () => {
  it('grows a reservation while it fits; one alone grows past the whole gate', async () => {
    const gate = new MemoryGate(10 * MB, 50);
    const r = await gate.take(SMALL_BYTES - 1);
    await r.grow(6 * MB);
    await r.grow(8 * MB); // alone: past the gate's 10 MB
    expect(gate.inUse).toBe(SMALL_BYTES - 1 + 14 * MB);
    r.release();
    expect(gate.inUse).toBe(0);
  });

  it('lets the oldest growing body go on when every holder waits for more, and the others follow', async () => {
    const gate = new MemoryGate(10 * MB, 200);
    const older = await gate.take(4 * MB);
    const younger = await gate.take(4 * MB);
    await older.grow(1 * MB);
    await younger.grow(1 * MB);
    // Both need 3 MB more: 16 of 10. Without the rule both wait out their 200 ms and fail.
    const youngerGrew = younger.grow(3 * MB).then(() => 'younger');
    const olderGrew = await older.grow(3 * MB).then(() => 'older');
    expect(olderGrew).toBe('older');
    expect(gate.inUse).toBe(13 * MB); // over the budget by what the oldest took
    older.release();
    expect(await youngerGrew).toBe('younger');
    younger.release();
    expect(gate.inUse).toBe(0);
  });

  it('refuses a younger step that never fits, after its wait, keeping what it had', async () => {
    const gate = new MemoryGate(10 * MB, 50);
    const older = await gate.take(8 * MB);
    await older.grow(SMALL_BYTES); // the oldest grower: its steps always go
    const younger = await gate.take(1 * MB);
    await younger.grow(SMALL_BYTES - 1); // small steps never wait
    await expect(younger.grow(2 * MB)).rejects.toBeInstanceOf(MemoryBusyError);
    expect(gate.inUse).toBe(8 * MB + SMALL_BYTES + 1 * MB + SMALL_BYTES - 1);
    younger.release();
    older.release();
    expect(gate.inUse).toBe(0);
  });

  it('gives back a step granted after its reservation was released', async () => {
    const gate = new MemoryGate(10 * MB, 500);
    const holder = await gate.take(9 * MB);
    const r = await gate.take(SMALL_BYTES - 1);
    // Not the oldest grower once `holder` grows first.
    await holder.grow(SMALL_BYTES);
    const step = r.grow(2 * MB);
    r.release();
    holder.release();
    await step;
    expect(gate.inUse).toBe(0);
  });

  it("keeps one holder within half of the gate, and its waiters do not hold back another holder's", async () => {
    const gate = new MemoryGate(10 * MB, 100);
    const first = await gate.take(4 * MB, 'mallory');
    // Mallory's second piece would take her past half (4 + 2 > 5): it waits, then fails...
    const second = gate.take(2 * MB, 'mallory');
    // ...while Alice's, behind it in line, goes at once.
    const alice = await gate.take(3 * MB, 'alice');
    await expect(second).rejects.toBeInstanceOf(MemoryBusyError);
    // One piece alone is never held to the share (a body larger than half the gate).
    alice.release();
    first.release();
    const alone = await gate.take(7 * MB, 'mallory');
    expect(gate.inUse).toBe(7 * MB);
    alone.release();
  });
});
