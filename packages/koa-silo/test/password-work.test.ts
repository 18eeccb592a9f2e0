/**
 * The line of password hashes (console/password-work.ts): one at a time, known users first, other
 * networks in turn, bounded, refused at once past the bounds.
 */
import { describe, expect, it } from 'vitest';
import { KNOWN_FOR_MS, MAX_PER_NETWORK, PasswordWork } from '../src/console/password-work.js';
import { SignInBusyError } from '../src/model/index.js';

/** A hash that ends when told to, recording its start. */
function gate(log: string[], name: string) {
  let finish!: () => void;
  const done = new Promise<string>((resolve) => (finish = () => resolve(name)));
  return { hash: () => (log.push(name), done), finish };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('PasswordWork', () => {
  it('runs one hash at a time; a known user and an operator go before the networks waiting', async () => {
    let now = 1_000;
    const work = new PasswordWork({ now: () => now });
    const log: string[] = [];
    work.succeeded('ann', 'net-ann');
    const first = gate(log, 'guess-1');
    const p1 = work.signIn('ann', 'net-x', first.hash);
    const p2 = work.signIn('ann', 'net-y', gate(log, 'guess-2').hash);
    const ann = gate(log, 'ann');
    const p3 = work.signIn('ann', 'net-ann', ann.hash);
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
    expect(work.waiting).toBe(1);
    void p2;
    // Known for 30 days only.
    now += KNOWN_FOR_MS;
    const late = work.signIn('ann', 'net-ann', async () => 'late');
    expect(work.waiting).toBe(2);
    void late;
  });

  it('serves waiting networks in turn: a burst from one waits behind the others', async () => {
    const work = new PasswordWork();
    const order: string[] = [];
    const hash = (name: string) => async () => void order.push(name);
    const running = gate([], 'first');
    const all = [work.signIn('u', 'busy', running.hash)];
    for (let i = 0; i < 3; i++) all.push(work.signIn('u', 'busy', hash(`busy-${i}`)));
    all.push(work.signIn('u', 'quiet-1', hash('quiet-1')), work.signIn('u', 'quiet-2', hash('quiet-2')));
    running.finish();
    await Promise.all(all);
    expect(order).toEqual(['busy-0', 'quiet-1', 'quiet-2', 'busy-1', 'busy-2']);
  });

  it('refuses at once (503, Retry-After) past the line\'s bounds, and a failing hash frees its turn', async () => {
    const work = new PasswordWork({ maxWaiting: 3 });
    const running = gate([], 'running');
    const first = work.signIn('u', 'n0', running.hash);
    const waiting = [1, 2, 3].map((i) => work.signIn('u', `n${i}`, async () => i));
    const refused = await work.signIn('u', 'n4', async () => 4).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(SignInBusyError);
    expect(refused).toMatchObject({ status: 503, headers: { 'Retry-After': '2' } });
    // The known lane is not bounded by the guessers' line.
    work.succeeded('ann', 'home');
    const ann = work.signIn('ann', 'home', async () => 'ann');
    running.finish();
    expect(await Promise.all([first, ann, ...waiting])).toEqual(['running', 'ann', 1, 2, 3]);
    await expect(work.signIn('u', 'n5', () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    await expect(work.signIn('u', 'n5', () => { throw new Error('sync boom'); })).rejects.toThrow('sync boom');
    expect(await work.signIn('u', 'n6', async () => 'after')).toBe('after');
  });

  it('bounds what one network may have waiting', async () => {
    const work = new PasswordWork({ maxWaiting: 1000 });
    const running = gate([], 'running');
    const all = [work.signIn('u', 'one', running.hash)];
    for (let i = 0; i < MAX_PER_NETWORK; i++) all.push(work.signIn('u', 'one', async () => 'ok'));
    await expect(work.signIn('u', 'one', async () => 'over')).rejects.toBeInstanceOf(SignInBusyError);
    running.finish();
    await Promise.all(all);
  });
});
