/**
 * The review's LIKE attack (issue 10, item 1) as a test: an access-key holder searches a silo
 * holding one 9.9 MB string with the costliest patterns there are, the review's
 * `%<1 000 × a>_b` (which blocked the server 38.7 s in the review, 54–91 s on this machine) and the longest adversarial patterns the
 * limits allow; every request answers (200 with the right result, or 422
 * `like_pattern_too_long`), and meanwhile a tiny public read of another silo, fired every 20 ms
 * on other connections from another process (test/support/read-probe.ts), answers within 250 ms
 * at the 99th percentile. The server runs in this process (test/support/in-process.ts).
 */
import http from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, keptAliveAgent } from '../support/http-call.js';
import { NO_RATE_LIMIT, startInProcess, type InProcessSilo, type TestAccount } from '../support/in-process.js';
import { startReadProbe } from '../support/read-probe.js';

const TEXT_LENGTH = 9_900_000;
const PROBE_EVERY_MS = 20;
const P99_LIMIT_MS = 250;
/** The attack repeats its patterns for at least this long (so that the p99 rests on 150+ reads). */
const ATTACK_MS = 3000;
/** The longest pattern allowed and the longest `_` stretch searched between two `%` (silo-query's like.ts). */
const MAX_PATTERN = 10_000;
const MAX_SPAN = 32;

interface Attack {
  name: string;
  /** `ascii`: 9.9 M × `a`; `greek`: 4.95 M × `Σ` (9.9 MB too), which ILIKE must fold code point by code point. */
  silo?: 'ascii' | 'greek';
  op: 'lk' | 'il';
  pattern: string;
  /** The `path=n` values of the matches, or the 422 type. */
  expect: number[] | 'like_pattern_too_long';
}

const a = (n: number): string => 'a'.repeat(n);
const attacks: Attack[] = [
  { name: "the review's %<1000 a>_b", op: 'lk', pattern: `%${a(1000)}_b`, expect: [] },
  { name: "the review's pattern with a % after it (a 1 002 code point stretch with _)", op: 'lk', pattern: `%${a(1000)}_b%`, expect: 'like_pattern_too_long' },
  { name: 'a pattern one code point over the length limit', op: 'il', pattern: a(MAX_PATTERN + 1), expect: 'like_pattern_too_long' },
  { name: `%<${MAX_SPAN - 2} a>_b%: the longest stretch with _ searched, over the whole text`, op: 'lk', pattern: `%${a(MAX_SPAN - 2)}_b%`, expect: [] },
  { name: '%(a_)×15ab%, il', op: 'il', pattern: `%${'A_'.repeat((MAX_SPAN - 2) / 2)}AB%`, expect: [] },
  { name: '%(a_)×4999b: the longest pattern, its last part matched in place', op: 'lk', pattern: `%${'a_'.repeat((MAX_PATTERN - 2) / 2)}b`, expect: [] },
  // (`%` is 3 bytes in a URL: 3 000 of them is about what Node's 16 KB request-line limit lets through)
  { name: '(_%)×3000b%: 3 002 parts', op: 'lk', pattern: `${'_%'.repeat(3000)}b%`, expect: [] },
  { name: '%<9 997 a>b%: the longest literal searched', op: 'lk', pattern: `%${a(MAX_PATTERN - 3)}b%`, expect: [] },
  { name: '%a_a%(_a)×15%, a match', op: 'il', pattern: `%a_a%${'_a'.repeat(15)}%`, expect: [1] },
  { name: '%<30 σ>_x%, il over Σ', silo: 'greek', op: 'il', pattern: `%${'σ'.repeat(MAX_SPAN - 2)}_x%`, expect: [] },
  { name: '%<2 000 σ>x%, il over Σ (6 URL bytes each)', silo: 'greek', op: 'il', pattern: `%${'σ'.repeat(2000)}x%`, expect: [] },
];

let s: InProcessSilo;
let attacker: TestAccount;
const uuids = { ascii: '', greek: '' };
let publicUuid: string;
const attackAgent = keptAliveAgent(1);

beforeAll(async () => {
  s = await startInProcess({ plans: { default: NO_RATE_LIMIT } });
  attacker = await s.account('attacker');
  await s.account('bystander');
  for (const [name, text] of [['ascii', a(TEXT_LENGTH)], ['greek', 'Σ'.repeat(TEXT_LENGTH / 2)]] as const) {
    const data = [{ n: 1, s: text }];
    expect(Buffer.byteLength(JSON.stringify(data))).toBeLessThan(NO_RATE_LIMIT.maxDataBytes);
    uuids[name] = (await s.silo.silos.create('attacker', { file_name: name, file_data: data })).file_uuid;
  }
  publicUuid = (await s.silo.silos.create('bystander', { file_name: 'tiny', file_data: { hello: 'world' }, is_public: true })).file_uuid;
}, 60_000);

afterAll(async () => {
  attackAgent.destroy();
  await s?.close();
});

const percentile = (sorted: number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

describe('LIKE cost under attack', () => {
  it('answers every costly pattern (200 or 422) while tiny public reads elsewhere stay fast', async () => {
    // Warm up: the first read parses a 9.9 MB silo once, which is not the matcher's cost.
    for (const uuid of Object.values(uuids)) {
      const warm = await call(s.port, `/${uuid}?q=n&value=1&path=n`, { headers: { 'X-SILO-KEY': attacker.access }, agent: attackAgent, timeoutMs: 30_000 });
      expect(warm.status).toBe(200);
    }

    const probe = await startReadProbe(s.port, `/public/${publicUuid}`, PROBE_EVERY_MS);
    const slowest = new Map<string, number>();
    let requests = 0;
    let refused = 0;
    let measured: Awaited<ReturnType<typeof probe.stop>> | undefined;
    try {
      await sleep(100);
      const started = performance.now();
      for (let round = 0; round < 2 || performance.now() - started < ATTACK_MS; round++) {
        for (const attack of attacks) {
          const query = `q=s&value=${encodeURIComponent(attack.pattern)}&op=${attack.op}&path=n`;
          const r = await call(s.port, `/${uuids[attack.silo ?? 'ascii']}?${query}`, { headers: { 'X-SILO-KEY': attacker.access }, agent: attackAgent, timeoutMs: 10_000 });
          requests++;
          slowest.set(attack.name, Math.max(slowest.get(attack.name) ?? 0, r.ms));
          if (attack.expect === 'like_pattern_too_long') {
            refused++;
            expect(r.status, attack.name).toBe(422);
            expect(r.json.detail, attack.name).toMatchObject([{ loc: ['query', 'value'], type: 'like_pattern_too_long' }]);
          } else {
            expect(r.status, `${attack.name}: ${r.text.slice(0, 200)}`).toBe(200);
            expect(r.json, attack.name).toEqual(attack.expect);
          }
        }
      }
      await sleep(100);
    } finally {
      measured = await probe.stop();
    }
    const { latencies, failures } = measured;

    expect(failures).toEqual([]);
    expect(latencies.length).toBeGreaterThan(100);
    const p50 = percentile(latencies, 50);
    const p99 = percentile(latencies, 99);
    const max = latencies[latencies.length - 1]!;
    const [worstName, worstMs] = [...slowest].sort((x, y) => y[1] - x[1])[0]!;
    console.log(
      `[reliability] LIKE cost: ${requests} searches of ${(TEXT_LENGTH / 1e6).toFixed(1)} MB strings with the costliest patterns ` +
        `(${refused} refused with 422), slowest ${Math.round(worstMs)} ms (${worstName}); ` +
        `${latencies.length} public reads every ${PROBE_EVERY_MS} ms meanwhile: p50 ${Math.round(p50)} ms, p99 ${Math.round(p99)} ms, max ${Math.round(max)} ms`,
    );
    expect(p99).toBeLessThan(P99_LIMIT_MS);
    for (const [name, ms] of slowest) expect(ms, name).toBeLessThan(P99_LIMIT_MS * 4);
  }, 60_000);
});
