/**
 * The real `silo` command, spawned: first start, requests with the printed keys, persistence
 * across restarts and kill -9, start-up failures, graceful shutdown, HTTPS.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanup, ensureBuilt, runSilo, startSilo, tempDir, type SiloServer } from '../../../test/support/silo-process.js';

beforeAll(() => ensureBuilt(), 120_000);
afterAll(() => cleanup());

const json = { 'Content-Type': 'application/json' };

async function createSilo(server: SiloServer, manage: string, body: Record<string, unknown>): Promise<string> {
  const res = await server.fetch('/api/v1/manage/', { method: 'POST', headers: { ...json, 'X-MAN-API': manage }, body: JSON.stringify(body) });
  expect(res.status).toBe(201);
  return ((await res.json()) as { file_uuid: string }).file_uuid;
}

async function closedPort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as net.AddressInfo;
  await new Promise((r) => s.close(r));
  return port;
}

const hasCurl = (() => {
  try {
    execFileSync('curl', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

/** The banner's lines as a user pastes them into a shell: the export line, then its curl commands. */
async function pastedIntoShell(banner: string, url: string, keys: { manage: string; access: string }): Promise<void> {
  const lines = banner.split('\n').map((l) => l.trim());
  const exportLine = lines.find((l) => l.startsWith('export '))!;
  const sh = (script: string) => execFileSync('sh', ['-c', script], { encoding: 'utf8', timeout: 10_000, env: { PATH: process.env.PATH } });
  expect(sh(`${exportLine}\nprintf '%s %s' "$MANAGE_KEY" "$ACCESS_KEY"`)).toBe(`${keys.manage} ${keys.access}`);
  if (!hasCurl) return;
  const post = lines.findIndex((l) => l.startsWith('curl -s -X POST'));
  const created = JSON.parse(sh(`${exportLine}\n${lines[post]}\n${lines[post + 1]}`)) as { file_uuid: string };
  const read = lines[post + 2]!.replace('<file_uuid from the answer>', created.file_uuid);
  expect(read.startsWith(`curl -s ${url}/`)).toBe(true);
  expect(JSON.parse(sh(`${exportLine}\n${read}`))).toEqual({ hello: 'world' });
}

describe('silo serve on the embedded store', () => {
  const dir = tempDir('serve');
  const env = { SILO_DATA_DIR: path.join(dir, 'data') };
  let keys: { manage: string; access: string };
  let uuid: string;

  it('first start creates account default, prints a manage and an access key once to stderr, with curl commands', async () => {
    const server = await startSilo({ env, cwd: dir });
    try {
      expect(server.keys).toBeDefined();
      keys = server.keys!;
      const out = server.stderr();
      // The banner goes to stderr; stdout carries only the JSON log lines, never a key value.
      expect(server.stdout()).not.toMatch(/silo_(man|acc)_/);
      expect(server.stdout().trimEnd().split('\n').every((l) => l.startsWith('{'))).toBe(true);
      expect(out).toContain('Created account "default"');
      expect(out).toContain(`\n  export MANAGE_KEY=${keys.manage} ACCESS_KEY=${keys.access}\n`);
      expect(out).toContain(`curl -s -X POST ${server.url}/api/v1/manage/ -H "X-MAN-API: $MANAGE_KEY"`);
      expect(out).toContain(`-H "X-SILO-KEY: $ACCESS_KEY"`);
      expect(out.split(keys.manage).length - 1).toBe(2); // the key line and the export line, nothing else

      uuid = await createSilo(server, keys.manage, { file_name: 'hello', file_data: [{ n: 1, s: 'héllo' }, { n: 2 }] });
      const read = await server.fetch(`/${uuid}?q=n&value=2`, { headers: { 'X-SILO-KEY': keys.access } });
      expect(read.status).toBe(200);
      expect(await read.json()).toEqual([{ n: 2 }]);
      const list = await server.fetch('/api/v1/manage/silos', { headers: { 'X-MAN-API': keys.manage } });
      expect(await list.json()).toMatchObject({ metadata: { total_items: 1 }, silos: [{ file_uuid: uuid, file_name: 'hello' }] });
      expect((await server.fetch(`/${uuid}`, { headers: { 'X-SILO-KEY': 'silo_acc_wrong' } })).status).toBe(401);

      const health = await server.fetch('/healthz');
      expect([health.status, await health.json()]).toEqual([200, { status: 'ok' }]);
      const ready = await server.fetch('/readyz');
      expect([ready.status, await ready.json()]).toEqual([200, { status: 'ok' }]);
      const missing = await server.fetch('/no/such/path');
      expect([missing.status, missing.headers.get('content-type'), await missing.json()]).toEqual([404, 'application/json; charset=utf-8', { detail: 'Not Found' }]);
      expect((await server.fetch('/healthz', { method: 'POST' })).status).toBe(405);

      const { code } = await server.stop('SIGTERM');
      expect(code).toBe(0);
      expect(server.logs().map((l) => l.msg)).toEqual(expect.arrayContaining(['signal', 'shutting down', 'stopped']));
      // One JSON line per request: method, path (never the query), status, duration; no key values.
      const requests = server.logs().filter((l) => l.msg === 'request');
      expect(requests.length).toBe(8);
      for (const line of requests) {
        expect(line).toMatchObject({ level: 'info', method: expect.any(String), path: expect.any(String), status: expect.any(Number), duration_ms: expect.any(Number) });
      }
      expect(requests.find((l) => l.path === `/${uuid}` && l.status === 200)).toBeDefined();
      const logText = server.logs().map((l) => JSON.stringify(l)).join('\n');
      expect(logText).not.toMatch(/silo_(man|acc)_/);
      expect(logText).not.toContain('value=2');

    } finally {
      await server.stop('SIGKILL').catch(() => undefined);
    }
  }, 30_000);

  it('the banner pasted into a shell: its export line sets MANAGE_KEY and ACCESS_KEY, its curl commands work', async () => {
    const server = await startSilo({ env: { SILO_DATA_DIR: path.join(dir, 'pasted') }, cwd: dir });
    try {
      await pastedIntoShell(server.stderr(), server.url, server.keys!);
    } finally {
      expect((await server.stop()).code).toBe(0);
    }
  }, 20_000);

  it('a restart keeps accounts, keys and silos, and prints no keys', async () => {
    const server = await startSilo({ env, cwd: dir });
    try {
      expect(server.keys).toBeUndefined();
      expect(server.stdout()).not.toMatch(/silo_(man|acc)_/);
      expect(server.stderr()).not.toMatch(/silo_(man|acc)_/);
      const res = await server.fetch(`/api/v1/manage/${uuid}`, { headers: { 'X-MAN-API': keys.manage } });
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ data: [{ n: 1, s: 'héllo' }, { n: 2 }] });
    } finally {
      expect((await server.stop('SIGINT')).code).toBe(0);
    }
  }, 30_000);

  it('every acknowledged write survives kill -9', async () => {
    const server = await startSilo({ env, cwd: dir });
    const uuids: string[] = [];
    for (let i = 0; i < 5; i++) uuids.push(await createSilo(server, keys.manage, { file_name: `k${i}`, file_data: { i } }));
    const patched = await server.fetch(`/api/v1/manage/${uuids[0]}`, { method: 'PATCH', headers: { ...json, 'X-MAN-API': keys.manage }, body: '{"file_data": {"i": "patched"}}' });
    expect(patched.status).toBe(200);
    expect((await server.stop('SIGKILL')).signal).toBe('SIGKILL');

    const again = await startSilo({ env, cwd: dir });
    try {
      for (const [i, u] of uuids.entries()) {
        const res = await again.fetch(`/${u}`, { headers: { 'X-SILO-KEY': keys.access } });
        expect(await res.json()).toEqual({ i: i === 0 ? 'patched' : i });
      }
    } finally {
      await again.stop();
    }
  }, 30_000);

  it('SIGTERM stops accepting, finishes the request in flight, then exits 0', async () => {
    const server = await startSilo({ env, cwd: dir });
    const body = JSON.stringify({ file_name: 'slow', file_data: { pad: 'x'.repeat(100_000) } });
    const response = new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = http.request(`${server.url}/api/v1/manage/`, {
        method: 'POST',
        headers: { ...json, 'X-MAN-API': keys.manage, 'Content-Length': Buffer.byteLength(body) },
      });
      req.on('response', (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode!, body: text }));
      });
      req.on('error', reject);
      req.write(body.slice(0, 50_000));
      setTimeout(() => {
        process.kill(server.pid, 'SIGTERM');
        setTimeout(() => req.end(body.slice(50_000)), 300);
      }, 200);
    });
    // While the request is in flight, the server no longer accepts connections.
    await new Promise((r) => setTimeout(r, 350));
    await expect(fetch(`${server.url}/healthz`, { signal: AbortSignal.timeout(2000) })).rejects.toThrow();
    const done = await response;
    expect(done.status).toBe(201);
    expect(JSON.parse(done.body)).toMatchObject({ file_name: 'slow' });
    expect((await server.exited).code).toBe(0);
  }, 30_000);
});

describe('start-up failures: one line on stderr, exit 2 for a bad setting and 1 for a failure, within 5 s', () => {
  const dir = tempDir('badconfig');

  it('rejects every bad setting', async () => {
    fs.writeFileSync(path.join(dir, 'not-pem.txt'), 'hello');
    const port = await closedPort();
    // Representative cases (config.test.ts checks every setting's validation in-process).
    const cases: Array<[Record<string, string>, RegExp]> = [
      [{ PORT: 'abc' }, /^silo serve: PORT must be a port number from 0 to 65535, got "abc"$/],
      [{ SILO_PUBLIC_QUERIES: 'perhaps' }, /^silo serve: SILO_PUBLIC_QUERIES must be 1\/0/],
      [{ SILO_STORE_URL: 'mysql://localhost/silo' }, /^silo serve: SILO_STORE_URL: unsupported store URL/],
      [{ SILO_STORE_URL: `redis://:hunter2@127.0.0.1:${port}/7` }, new RegExp(`^silo serve: cannot reach Redis at redis://:\\*\\*\\*@127\\.0\\.0\\.1:${port}/7: .*ECONNREFUSED`)],
      [{ SILO_TLS_CERT: 'not-pem.txt', SILO_TLS_KEY: 'not-pem.txt' }, /^silo serve: cannot use SILO_TLS_CERT\/SILO_TLS_KEY: /],
      [{ SILO_DATA_DIR: 'not-pem.txt' }, /^silo serve: SILO_DATA_DIR is not a directory/],
    ];
    // Three at a time: each is a whole Node process start, timed against the 5 s budget.
    const results: Awaited<ReturnType<typeof runSilo>>[] = [];
    for (let i = 0; i < cases.length; i += 3) {
      results.push(
        ...(await Promise.all(
          cases.slice(i, i + 3).map(([env]) => runSilo(['serve'], { env: { SILO_DATA_DIR: path.join(dir, 'data'), ...env }, cwd: dir, timeoutMs: 10_000 })),
        )),
      );
    }
    for (const [i, r] of results.entries()) {
      const [env, pattern] = cases[i]!;
      const context = JSON.stringify({ env, r });
      // A bad setting is a wrong use (2); a store that cannot be reached, a failure (1).
      expect(r.code, context).toBe(String(pattern).includes('cannot reach') ? 1 : 2);
      expect(r.ms, context).toBeLessThan(5000);
      const lines = r.stderr.trimEnd().split('\n');
      expect(lines, context).toHaveLength(1);
      expect(lines[0], context).toMatch(pattern);
      expect(r.stderr, context).not.toMatch(/\n\s+at /);
      expect(r.stderr, context).not.toContain('hunter2');
      expect(r.stdout, context).toBe('');
    }
  }, 30_000);

  it('a port in use is one line too, and the next start is still the first: it shows the new keys', async () => {
    const blocker = net.createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
    const { port } = blocker.address() as net.AddressInfo;
    const data = path.join(dir, 'data2');
    try {
      const r = await runSilo(['serve'], { env: { PORT: String(port), SILO_DATA_DIR: data }, cwd: dir });
      expect(r.code).toBe(1);
      expect(r.stderr).toBe(`silo serve: cannot listen on 127.0.0.1:${port}: the port is in use (set PORT)\n`);
    } finally {
      blocker.close();
    }
    // Before the fix, the failed start had made the keys and never shown them.
    const server = await startSilo({ env: { SILO_DATA_DIR: data }, cwd: dir });
    try {
      expect(server.keys).toBeDefined();
      expect(server.logs().find((line) => line.msg === 'listening')).toMatchObject({ first_start: true });
      const res = await fetch(`${server.url}/api/v1/manage/`, {
        method: 'POST',
        headers: { 'X-MAN-API': server.keys!.manage, ...json },
        body: JSON.stringify({ file_name: 'first', file_data: { a: 1 } }),
      });
      expect(res.status).toBe(201);
    } finally {
      expect((await server.stop()).code).toBe(0);
    }
  }, 30_000);
});

describe('HTTPS', () => {
  it('serves HTTPS on PORT with SILO_TLS_CERT and SILO_TLS_KEY', async () => {
    const dir = tempDir('tls');
    const cert = path.join(dir, 'cert.pem');
    const key = path.join(dir, 'key.pem');
    execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=localhost', '-addext', 'subjectAltName=IP:127.0.0.1'], { stdio: 'ignore' });
    const server = await startSilo({ env: { SILO_DATA_DIR: path.join(dir, 'data'), SILO_TLS_CERT: cert, SILO_TLS_KEY: key }, cwd: dir });
    try {
      expect(server.url).toMatch(/^https:\/\/127\.0\.0\.1:/);
      const body = await new Promise<string>((resolve, reject) => {
        https
          .get(`${server.url}/healthz`, { ca: fs.readFileSync(cert) }, (res) => {
            let text = '';
            res.on('data', (c: Buffer) => (text += c.toString()));
            res.on('end', () => resolve(text));
          })
          .on('error', reject);
      });
      expect(JSON.parse(body)).toEqual({ status: 'ok' });
    } finally {
      expect((await server.stop()).code).toBe(0);
    }
  }, 30_000);
});
