/**
 * The README's walk-through, run as a new user runs it: every `$ ` command of its console blocks,
 * in order, in bash, against `silo serve` on a fresh store, with the keys of the first start's
 * `export` line, and each command's answer compared with the one the README shows (uuids and
 * times stand for any; `…` for anything), the shell variables it sets ($ANSWER, $UUID, $CATALOGUE) kept from
 * one command to the next as in one shell session.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSiloServer, type SiloServer } from './support/silo-server.js';

const README = fs.readFileSync(fileURLToPath(new URL('../README.md', import.meta.url)), 'utf8');

interface Step {
  /** The command, continuation lines joined. */
  command: string;
  /** What the README shows it answers (its trailing `# comment` dropped); empty: nothing shown. */
  expected: string;
}

/** The `$ ` commands of the console blocks of the section `heading`, with the answer shown under each. */
function walkthroughSteps(readme: string, heading: string): Step[] {
  const start = readme.indexOf(`\n## ${heading}\n`);
  const end = readme.indexOf('\n## ', start + 1);
  const section = readme.slice(start, end);
  const steps: Step[] = [];
  for (const block of section.matchAll(/```console\n([^]*?)```/g)) {
    const lines = block[1]!.split('\n');
    for (let i = 0; i < lines.length; i++) {
      if (!lines[i]!.startsWith('$ ')) continue;
      let command = lines[i]!.slice(2);
      while (command.endsWith('\\')) command = `${command.slice(0, -1)} ${lines[++i]!.trim()}`;
      const answer: string[] = [];
      while (i + 1 < lines.length && lines[i + 1] !== '' && !lines[i + 1]!.startsWith('$ ')) answer.push(lines[++i]!);
      steps.push({ command, expected: answer.join('\n').replace(/\s+#.*$/, '') });
    }
  }
  return steps;
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
const TIME = /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/g;

/** The answer shown, as a pattern: any uuid for a uuid (or its `bc8f88d7-…` abbreviation), any time for a time, anything for `…`. */
function answerPattern(expected: string): RegExp {
  const marks: string[] = [];
  const mark = (pattern: string) => `\u0000${marks.push(pattern) - 1}\u0000`;
  const text = expected
    .replace(/[0-9a-f]{8}-…/g, () => mark('[0-9a-f-]{36}'))
    .replace(UUID, () => mark('[0-9a-f-]{36}'))
    .replace(TIME, () => mark('\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z'))
    .replace(/…/g, () => mark('.*?'));
  const escaped = text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/\u0000(\d+)\u0000/g, (_, n: string) => marks[Number(n)]!);
  return new RegExp(`^${escaped}$`);
}

/** The shell variables the walk-through keeps from one command to the next, as one shell session would. */
const KEPT = ['ANSWER', 'UUID', 'CATALOGUE'] as const;

/** Runs `command` in bash with `env`; resolves to its output and the kept variables' values after it. */
function bash(command: string, env: Record<string, string>): Promise<{ out: string; kept: Record<string, string> }> {
  const script = `${command}\nprintf '\\0__kept__'; printf '%s\\0' ${KEPT.map((k) => `"$${k}"`).join(' ')}`;
  return new Promise((resolve, reject) => {
    execFile('bash', ['-c', script], { env: { PATH: process.env.PATH, ...env }, timeout: 10_000 }, (error, stdout) => {
      if (error) return reject(error);
      const [out, rest = ''] = stdout.split('\0__kept__');
      const values = rest.split('\0');
      resolve({ out: out!, kept: Object.fromEntries(KEPT.map((k, i) => [k, values[i] ?? ''])) });
    });
  });
}

describe('the README walk-through', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'silo-readme-'));
  let silo: SiloServer;
  beforeAll(async () => {
    silo = await startSiloServer({ SILO_DATA_DIR: dataDir, SILO_RATE_LIMIT_PER_MINUTE: '0' });
  }, 30_000);
  afterAll(async () => {
    await silo?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('reads the commands of the walk-through: no uuid to copy by hand', () => {
    const steps = walkthroughSteps(README, 'A walk through');
    expect(steps.length).toBeGreaterThan(15);
    // $UUID is set from the answer of the create before it, never to a uuid written in the README
    // (a reader pasting that would read someone else's silo: 404).
    expect(steps.filter((s) => /^UUID=[0-9a-f]/.test(s.command))).toEqual([]);
    steps.forEach((s, i) => {
      if (!s.command.includes('-X POST http://localhost:8080/api/v1/manage/ ')) return;
      const nextUse = steps.findIndex((t, j) => j > i && t.command.includes('$UUID') && !t.command.startsWith('UUID='));
      const nextSet = steps.findIndex((t, j) => j > i && t.command.startsWith('UUID='));
      if (nextUse >= 0) expect(nextSet, `${s.command}: $UUID is used before it is set to the new silo`).toBeGreaterThan(i);
      if (nextUse >= 0) expect(nextSet).toBeLessThan(nextUse);
    });
  });

  it('answers every command as the README shows, pasted as it is', async () => {
    const env: Record<string, string> = { MANAGE_KEY: silo.banner!.manage, ACCESS_KEY: silo.banner!.access };
    // The API section's query examples go on in the same shell, with the same keys.
    for (const step of [...walkthroughSteps(README, 'A walk through'), ...walkthroughSteps(README, 'The API')]) {
      const command = step.command.replaceAll('http://localhost:8080', `http://127.0.0.1:${silo.port}`);
      const { out, kept } = await bash(command, env);
      Object.assign(env, kept);
      if (step.expected !== '') expect(out.trimEnd(), `$ ${step.command}`).toMatch(answerPattern(step.expected));
    }
  }, 60_000);
});
