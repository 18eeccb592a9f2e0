/**
 * SILO_MEMORY_BUDGET (--memory-budget): the server's setting for koa-silo's memoryBudgetBytes, and
 * the garbage collection the server hands koa-silo so that RSS follows the budget.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { collectGarbage } from '../src/collect-garbage.js';
import { ConfigError, loadConfig, settingsHelp } from '../src/config.js';

const cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'silo-memory-'));
afterAll(() => fs.rmSync(cwd, { recursive: true, force: true }));

describe('SILO_MEMORY_BUDGET', () => {
  it("is unset by default (koa-silo's 512 MiB) and listed in the help", () => {
    expect(loadConfig({}, {}, cwd).memoryBudgetBytes).toBeUndefined();
    expect(settingsHelp()).toMatch(/--memory-budget V\s+SILO_MEMORY_BUDGET .*\(default: 512MiB\)/);
  });

  it('takes sizes with units, the flag over the variable', () => {
    expect(loadConfig({ SILO_MEMORY_BUDGET: '256MiB' }, {}, cwd).memoryBudgetBytes).toBe(256 * 1024 ** 2);
    expect(loadConfig({ SILO_MEMORY_BUDGET: '256MiB' }, { 'memory-budget': '2GB' }, cwd).memoryBudgetBytes).toBe(2_000_000_000);
  });

  it('refuses a budget too small to read one large body, in one line naming the setting', () => {
    for (const value of ['1MB', '0', 'lots']) {
      let error: unknown;
      try {
        loadConfig({ SILO_MEMORY_BUDGET: value }, {}, cwd);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as Error).message).toMatch(/^SILO_MEMORY_BUDGET must be/);
    }
  });
});

describe('collectGarbage', () => {
  it('runs a full collection without --expose-gc, and leaves gc unexposed to the application', () => {
    expect(() => collectGarbage()).not.toThrow();
    expect(() => collectGarbage()).not.toThrow();
    expect((globalThis as { gc?: unknown }).gc).toBeUndefined();
  });
});
