/**
 * Contract §3: revoking a key takes effect within 1 s, also for a write that was authorised before
 * the revocation and whose body was still arriving: it answers 401 and commits nothing.
 */
import http from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HOSTS, manage, startSilo, type Account, type Harness } from './support/http.js';

/** Sends `body` in two halves with `between` run in the pause, and answers status and body. */
function slowUpload(
  port: number,
  method: string,
  path: string,
  headers: Record<string, string>,
  body: string,
  between: () => Promise<void>,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        port,
        method,
        path,
        headers: { host: HOSTS.api, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), ...headers },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode!, text }));
      },
    );
    req.on('error', reject);
    const half = Math.floor(body.length / 2);
    req.write(body.slice(0, half));
    // The request was authorised on its headers; the revocation lands while the body trickles.
    between().then(
      () => req.end(body.slice(half)),
      (error: unknown) => reject(error),
    );
  });
}

describe('a key revoked while its write uploads', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await startSilo();
  });
  afterAll(() => h.close());

  /** A fresh account whose manage key gets revoked after the headers and a pause of 400 ms. */
  async function revokedMidway(name: string): Promise<{ account: Account; revoke: () => Promise<void>; check: Account }> {
    const account = await h.account(name);
    const spare = await h.silo.accounts.createKey({ account: name, type: 'manage', name: 'spare' });
    const revoke = async () => {
      await sleep(100);
      await h.silo.accounts.revokeKey({ account: name, type: 'manage', name: 'm', confirm: 'm' });
      await sleep(300);
    };
    return { account, revoke, check: { ...account, manage: spare.key } };
  }

  it('a create answers 401 and no silo appears', async () => {
    const { account, revoke, check } = await revokedMidway('revoke-create');
    const body = JSON.stringify({ file_name: 'late', file_data: { pad: 'x'.repeat(50_000) } });
    const reply = await slowUpload(h.server.port, 'POST', '/api/v1/manage/', manage(account), body, revoke);
    expect(reply.status, reply.text).toBe(401);
    const listing = await h.client.request('/api/v1/manage/silos', { headers: manage(check) });
    expect(listing.json.metadata.total_items).toBe(0);
  });

  for (const [kind, contentType, patch] of [
    ['an update', 'application/json', { file_data: { n: 2 } }],
    ['a merge patch', 'application/merge-patch+json', { n: 2 }],
    ['a JSON Patch', 'application/json-patch+json', [{ op: 'replace', path: '/n', value: 2 }]],
  ] as const) {
    it(`${kind} answers 401 and the silo keeps its data and version`, async () => {
      const { account, revoke, check } = await revokedMidway(`revoke-${contentType.replace(/\W/g, '-')}`);
      const uuid = await h.create(account, { file_name: 'kept', file_data: { n: 1 } });
      const body = JSON.stringify(patch);
      const reply = await slowUpload(h.server.port, 'PATCH', `/api/v1/manage/${uuid}`, { ...manage(account), 'content-type': contentType }, body, revoke);
      expect(reply.status, reply.text).toBe(401);
      const now = await h.client.request(`/api/v1/manage/${uuid}`, { headers: manage(check) });
      expect(now.json.data).toEqual({ n: 1 });
      const meta = await h.client.request(`/api/v1/manage/meta/${uuid}`, { headers: manage(check) });
      expect(meta.json.version).toBe(1);
    });
  }

  it('a key that stays valid is not refused by the check (the same slow upload succeeds)', async () => {
    const account = await h.account('revoke-none');
    const body = JSON.stringify({ file_name: 'slow', file_data: { ok: true } });
    const reply = await slowUpload(h.server.port, 'POST', '/api/v1/manage/', manage(account), body, () => sleep(400));
    expect(reply.status, reply.text).toBe(201);
  });
});
