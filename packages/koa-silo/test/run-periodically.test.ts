/**
 * runPeriodically (the orphan sweep, the audit log's pruning): a failed run is logged, except one
 * still under way when its owner stopped it (the storage it used closes with the owner: a shutdown
 * logged an error for it, after "stopped").
 */
import { describe, expect, it } from 'vitest';
import { runPeriodically } from '../src/storage/sweeper.js';

describe('runPeriodically', () => {
  it('logs a failed run, but not one that fails after it was stopped', async () => {
    const logged: string[] = [];
    const logger = { error: (message: string) => void logged.push(message) };
    let fail: (error: Error) => void = () => undefined;
    const task = () => new Promise<void>((_, reject) => (fail = reject));
    const running = runPeriodically(task, { intervalMs: 10, firstRunMs: 0, failure: 'failed' }, logger);
    await new Promise((resolve) => setTimeout(resolve, 30));
    fail(new Error('storage down'));
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(logged).toEqual(['failed']);
    running.stop();
    fail(new Error('the client is closed'));
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(logged).toEqual(['failed']);
  });
});
