/**
 * The line of password hashes (console/password-work.ts): one at a time, known users first, other
 * networks in turn, bounded, refused at once past the bounds.
 */
import { describe, expect, it } from 'vitest';
import { MAX_PER_NETWORK, PasswordWork } from '../src/console/password-work.js';
import { SignInBusyError } from '../src/model/index.js';

/** A hash that ends when told to, recording its start. */
function gate(log: string[], name: string) {
  let finish!: () => void;
  const done = new Promise<string>((resolve) => (finish = () => resolve(name)));
  return { hash: () => (log.push(name), done), finish };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('PasswordWork', () => {
  it('runs one hash at a time; a known network and an operator go before the networks waiting', async () => {
    const work = new PasswordWork();
    const log: string[] = [];
    const first = gate(log, 'guess-1');
    const p1 = work.signIn(false, 'net-x', first.hash);
    const p2 = work.signIn(false, 'net-y', gate(log, 'guess-2').hash);
    const ann = gate(log, 'ann');
    const p3 = work.signIn(true, 'net-ann', ann.hash);
    const op = gate(log, 'operator');
    const p4 = work.operator(op.hash);
    await tick();
    expect(log).toEqual(['guess-1']);
    first.finish();
    await p1;
    await tick();
    expect(log).toEqual(['guess-1', 'ann']);
    ann.finish();
    await p3;
    await tick();
    expect(log).toEqual(['guess-1', 'ann', 'operator']);
    op.finish();
    await p4;
    await tick();
    expect(log).toEqual(['guess-1', 'ann', 'operator', 'guess-2']);
    expect(work.waiting).toBe(0);
    void p2;
  });

  it('serves waiting networks in turn: a burst from one waits behind the others', async () => {
    const work = new PasswordWork();
    const order: string[] = [];
    const hash = (name: string) => async () => void order.push(name);
    const running = gate([], 'first');
    const all: Promise<unknown>[] = [work.signIn(false, 'busy', running.hash)];
    for (let i = 0; i < 3; i++) all.push(work.signIn(false, 'busy', hash(`busy-${i}`)));
    all.push(work.signIn(false, 'quiet-1', hash('quiet-1')), work.signIn(false, 'quiet-2', hash('quiet-2')));
    running.finish();
    await Promise.all(all);
    expect(order).toEqual(['busy-0', 'quiet-1', 'quiet-2', 'busy-1', 'busy-2']);
  });

  it('refuses at once (503, Retry-After) past the line\'s bounds, and a failing hash frees its turn', async () => {
    const work = new PasswordWork({ maxWaiting: 3 });
    const running = gate([], 'running');
    const first = work.signIn(false, 'n0', running.hash);
    const waiting = [1, 2, 3].map((i) => work.signIn(false, `n${i}`, async () => i));
    const refused = await work.signIn(false, 'n4', async () => 4).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(SignInBusyError);
    expect(refused).toMatchObject({ status: 503, headers: { 'Retry-After': '2' } });
    // The known lane is not bounded by the guessers' line.
    const ann = work.signIn(true, 'home', async () => 'ann');
    running.finish();
    expect(await Promise.all([first, ann, ...waiting])).toEqual(['running', 'ann', 1, 2, 3]);
    await expect(work.signIn(false, 'n5', () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    await expect(work.signIn(false, 'n5', () => { throw new Error('sync boom'); })).rejects.toThrow('sync boom');
    expect(await work.signIn(false, 'n6', async () => 'after')).toBe('after');
  });

  it('bounds what one network may have waiting', async () => {
    const work = new PasswordWork({ maxWaiting: 1000 });
    const running = gate([], 'running');
    const all = [work.signIn(false, 'one', running.hash)];
    for (let i = 0; i < MAX_PER_NETWORK; i++) all.push(work.signIn(false, 'one', async () => 'ok'));
    await expect(work.signIn(false, 'one', async () => 'over')).rejects.toBeInstanceOf(SignInBusyError);
    running.finish();
    await Promise.all(all);
  });
});
