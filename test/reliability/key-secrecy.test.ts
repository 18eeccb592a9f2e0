/**
 * Key values never appear in logs or in error bodies: a `silo serve` process (SQLite in a
 * temporary directory) takes requests carrying keys everywhere a client may put one, by design or
 * by mistake (headers, wrong headers, query strings, paths, malformed and invalid bodies, ETags,
 * Host), with valid, foreign, revoked and look-alike keys. Nothing the server writes after its
 * first-start banner, and no error body, holds a key value. The same for Silo's own logger in
 * this process while its storage fails (the 503 log lines).
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { Keyv } from 'keyv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, type Answer, keptAliveAgent } from '../support/http-call.js';
import { startInProcess } from '../support/in-process.js';
import { createKeysWithCli, runSilo, startSiloServer, type SiloServer } from '../support/silo-server.js';
import { FlakyMap } from '../support/flaky-map.js';

/** What of a key value must never show: any 10 characters in a row of its random part. */
function secretsOf(values: string[]): string[] {
  return values.flatMap((v) => {
    const random = v.slice(v.indexOf('_', 5) + 1);
    return Array.from({ length: random.length - 9 }, (_, i) => random.slice(i, i + 10));
  });
}

/** The secrets that `text` holds, in any letter case (an echo may have been lower-cased). */
function leaks(text: string, secrets: string[]): string[] {
  const lower = text.toLowerCase();
  return secrets.filter((secret) => lower.includes(secret.toLowerCase()));
}

/**
 * Requests that carry `keys` in headers, query strings, bodies and ETags, and (`misplaced`) in
 * path segments and the Host header; returns the answers.
 */
async function hostileRequests(
  port: number,
  agent: http.Agent,
  keys: { valid: { manage: string; access: string }; all: string[] },
  misplaced = true,
): Promise<Answer[]> {
  const { manage, access } = keys.valid;
  const answers: Answer[] = [];
  const go = async (p: string, options: Parameters<typeof call>[2] = {}) => {
    const a = await call(port, p, { agent, ...options });
    answers.push(a);
    return a;
  };
  const created = await go('/api/v1/manage/', { method: 'POST', headers: { 'X-MAN-API': manage }, body: { file_name: 'secret', file_data: [{ a: 1 }], is_public: true } });
  const uuid = (created.json?.file_uuid as string | undefined) ?? '00000000-0000-4000-8000-000000000000';
  for (const key of keys.all) {
    const q = encodeURIComponent(key);
    const raw = key;
    const random = raw.slice(raw.indexOf('_', 5) + 1);
    // Right and wrong headers.
    await go('/api/v1/manage/silos', { headers: { 'X-MAN-API': key } });
    await go(`/${uuid}`, { headers: { 'X-SILO-KEY': key } });
    await go(`/api/v1/manage/${uuid}`, { method: 'PATCH', headers: { 'X-MAN-API': key }, body: { file_name: 'x' } });
    await go(`/api/v1/manage/${uuid}`, { method: 'DELETE', headers: { 'X-MAN-API': key, 'If-Match': `"${raw}"` } });
    // Query strings.
    await go(`/api/v1/manage/silos?key=${q}&page=${q}&per_page=${q}`, { headers: { 'X-MAN-API': manage } });
    for (const query of [`q=a&value=${q}`, `path=${q}`, `output=${q}`, `idx=${q}`, `q=a&value=1&op=${q}`, `q=${q}&value=1`, `path=a..${q}`, `q=s&op=lk&value=${q}%5C`]) {
      await go(`/${uuid}?${query}`, { headers: { 'X-SILO-KEY': access } });
    }
    await go(`/public/${uuid}?key=${q}`);
    if (misplaced) {
      await go(`/api/v1/manage/${q}`, { headers: { 'X-MAN-API': manage } });
      await go(`/api/v1/manage/meta/${q}`, { headers: { 'X-MAN-API': manage } });
      await go(`/api/v1/manage/${q}`, { method: 'PATCH', headers: { 'X-MAN-API': manage }, body: { file_name: raw } });
      await go(`/${q}`, { headers: { 'X-SILO-KEY': access } });
      await go(`/public/${uuid}`, { host: `${raw}.example` });
      // Without its prefix: a path segment of its own.
      await go(`/x/${random}`);
      await go(`/api/v1/manage/${random}`, { headers: { 'X-MAN-API': manage } });
    }
    // Bodies: malformed, wrongly typed, too long, unknown fields.
    const bodies = [
      `{"file_name": ${raw}, "file_data": {}}`,
      `{"file_name": "x", "file_data": {"k": ${random}}}`,
      `{"file_name": "x", "file_data": {"k": "${random.slice(0, 20)}\u0001${random.slice(20)}"}}`,
      random,
      `{"file_name": "x", "file_data": {"k": ${raw}}}`,
      `{"file_name": "x", "file_data": {}} ${raw}`,
      `${raw}`,
      `{"${raw}": 1}`,
      JSON.stringify({ file_name: raw.repeat(5), file_data: {} }),
      JSON.stringify({ file_name: 'x', file_data: raw }),
      JSON.stringify({ file_name: 'x', file_data: [raw] }),
      JSON.stringify({ file_name: 'x', file_data: {}, region_name: raw, is_public: raw }),
      JSON.stringify({ file_name: { [raw]: raw }, file_data: {} }),
    ];
    for (const body of bodies) {
      await go('/api/v1/manage/', { method: 'POST', headers: { 'X-MAN-API': manage }, body });
      await go(`/api/v1/manage/${uuid}`, { method: 'PATCH', headers: { 'X-MAN-API': manage }, body });
    }
    await go('/api/v1/manage/', { method: 'POST', headers: { 'X-MAN-API': manage, 'Content-Encoding': raw }, body: '{}' });
  }
  return answers;
}

describe('key values in logs and error bodies', () => {
  let dir: string;
  let server: SiloServer;
  let keys: { valid: { manage: string; access: string }; all: string[] };
  let secrets: string[];
  const agent = keptAliveAgent(8);
  const figures: string[] = [];
  let sent = 0;
  let logMark = 0;

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'silo-secrets-'));
    const env = { SILO_DATA_DIR: dir, SILO_RATE_LIMIT_PER_MINUTE: '0' };
    server = await startSiloServer(env);
    const banner = server.banner!;
    // Keys made by the command while the server runs: another account's, and a revoked one.
    const revoke = async () => {
      const created = await runSilo(['keys', 'create', '--type', 'manage', '--name', 'doomed', '--json'], env);
      const done = await runSilo(['keys', 'revoke', '--type', 'manage', '--name', 'doomed', '--confirm', 'doomed'], env);
      expect(done.code).toBe(0);
      return (JSON.parse(created.stdout) as { key: string }).key;
    };
    const [other, revokedKey] = await Promise.all([createKeysWithCli(env, 'other'), revoke()]);
    const lookAlike = `silo_man_${randomBytes(32).toString('base64url')}`;
    keys = { valid: banner, all: [banner.manage, banner.access, other.manage, other.access, revokedKey, lookAlike] };
    secrets = secretsOf(keys.all);
  }, 30_000);

  afterAll(async () => {
    agent.destroy();
    await server?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
    if (figures.length === 2) {
      console.log(
        `[reliability] key secrecy: ${figures.join('; ')}; no key value in any error body nor in any log line ` +
          '(keys pasted into a path or Host, percent-encoded or not, are cut from the request log)',
      );
    }
  });

  it('never writes a key value to the server log or an error body, wherever a client sends it by design', async () => {
    const answers = await hostileRequests(server.port, agent, keys, false);
    const errors = answers.filter((a) => a.status >= 400);
    expect(answers.every((a) => a.status < 500)).toBe(true);
    expect(errors.length).toBeGreaterThan(150);
    for (const a of errors) expect(leaks(a.text, secrets), `${a.status} ${a.text.slice(0, 300)}`).toEqual([]);
    // The server's own output since the banner: one log line per request, and nothing secret.
    await new Promise((resolve) => setTimeout(resolve, 200));
    const log = server.outputAfterStart();
    expect(log.split('\n').filter((l) => l.includes('"msg":"request"')).length).toBeGreaterThanOrEqual(answers.length);
    expect(leaks(log, secrets), 'key values in the server log').toEqual([]);
    sent += answers.length;
  }, 30_000);

  it('never echoes a key value pasted into a path or the Host header in an error body', async () => {
    logMark = server.outputAfterStart().length;
    const answers = await hostileRequests(server.port, agent, keys, true);
    expect(answers.every((a) => a.status < 500)).toBe(true);
    for (const a of answers.filter((x) => x.status >= 400)) expect(leaks(a.text, secrets), `${a.status} ${a.text.slice(0, 300)}`).toEqual([]);
    sent += answers.length;
    figures.push(`${sent} requests to silo serve carrying 6 keys (valid, foreign, revoked, look-alike) in headers, queries, bodies, paths and Host`);
  }, 30_000);

  // The request log writes path and Host through koa-silo's redactKeyValues.
  it('does not log a key value pasted into a path or the Host header (silo-server request log)', async () => {
    await new Promise((resolve) => setTimeout(resolve, 200));
    const log = server.outputAfterStart().slice(logMark);
    expect(log.split('\n').filter((l) => l.includes('"msg":"request"')).length).toBeGreaterThan(20);
    expect(leaks(log, secrets), 'key values in the server log').toEqual([]);
  });

  it('never hands a key value to Silo\'s logger, even on the error paths that log (storage down)', async () => {
    const store = new FlakyMap();
    const s = await startInProcess({ store: new Keyv({ store }) });
    try {
      const owner = await s.account('owner');
      const all = [owner.manage, owner.access, `silo_acc_${randomBytes(32).toString('base64url')}`];
      const inProcessSecrets = secretsOf(all);
      const up = await hostileRequests(s.port, s.agent, { valid: owner, all });
      store.down = true;
      // The outage's one log line (see below) is of a request with a key value in its path.
      const first = await call(s.port, `/api/v1/manage/${owner.access}`, { agent: s.agent, headers: { 'X-MAN-API': owner.manage } });
      expect(first.status).toBe(503);
      const down = await hostileRequests(s.port, s.agent, { valid: owner, all });
      expect(down.filter((a) => a.status === 503).length).toBeGreaterThan(50);
      const logged = s.logged.map(({ message, error }) => {
        const e = error as { message?: string; stack?: string; cause?: { message?: string } } | undefined;
        return [message, e?.message, e?.stack, e?.cause?.message, JSON.stringify(error)].join('\n');
      });
      // An outage is logged once every 10 s, with a count (OUTAGE_LOG_EVERY_MS): one line here,
      // the first request's, whose path is a key value.
      expect(logged.length).toBeGreaterThan(0);
      expect(logged[0]).toMatch(/^silo: storage unavailable on GET \//);
      for (const line of logged) expect(leaks(line, inProcessSecrets), line.slice(0, 300)).toEqual([]);
      for (const a of [...up, ...down].filter((x) => x.status >= 400)) expect(leaks(a.text, inProcessSecrets), a.text.slice(0, 300)).toEqual([]);
      figures.push(`${up.length + down.length} more in process, half of them with the storage down (${logged.length} log lines)`);
    } finally {
      await s.close();
    }
  }, 30_000);
});
