/**
 * The pure parts behind issue 27's console changes: a key's time left and whether it expires soon,
 * the live feed's list (a deleted silo is no longer linked), the read addresses and curl lines of a
 * silo page, and the webhooks page's address.
 */
import { describe, expect, it } from 'vitest';
import { expiresSoon, timeLeft } from '../app/src/lib/expiry.js';
import { addEvent, KEEP, readEvent, type FeedEvent } from '../app/src/lib/feed.js';
import { curlLine, curlParts, dataUrl, publicUrl } from '../app/src/lib/query-url.js';
import { href, parseRoute } from '../app/src/lib/routes.js';

const NOW = Date.parse('2026-11-22T00:00:00Z');
const DAY = 86_400_000;
const at = (ms: number) => new Date(NOW + ms).toISOString();
const UUID = '08afdea5-ad6d-4009-b5ab-f6f86dc75000';

describe('key expiry', () => {
  it('says how long a key has left, and whether that is within 7 days', () => {
    expect([timeLeft(null, NOW), expiresSoon(null, NOW)]).toEqual(['never', false]);
    expect([timeLeft(at(30 * DAY), NOW), expiresSoon(at(30 * DAY), NOW)]).toEqual(['in 30 days', false]);
    expect([timeLeft(at(7 * DAY), NOW), expiresSoon(at(7 * DAY), NOW)]).toEqual(['in 7 days', false]);
    expect([timeLeft(at(7 * DAY - 1), NOW), expiresSoon(at(7 * DAY - 1), NOW)]).toEqual(['in 7 days', true]);
    expect([timeLeft(at(DAY), NOW), expiresSoon(at(DAY), NOW)]).toEqual(['in 1 day', true]);
    expect([timeLeft(at(3_600_000), NOW), expiresSoon(at(3_600_000), NOW)]).toEqual(['in less than a day', true]);
    expect([timeLeft(at(-1), NOW), expiresSoon(at(-1), NOW)]).toEqual(['expired', true]);
  });
});

describe('the live feed', () => {
  const event = (type: string, uuid: string, seq: number): FeedEvent => readEvent(type, JSON.stringify({ file_uuid: uuid, file_name: `n-${uuid}`, version: seq, updated_at: at(seq) }), seq);

  it('reads an event defensively', () => {
    expect(readEvent('update', 'not json', 3, new Date(NOW))).toEqual({ seq: 3, type: 'update', at: at(0), uuid: '', name: undefined, version: undefined, gone: false });
    expect(event('create', 'a', 1)).toMatchObject({ uuid: 'a', name: 'n-a', version: 1, gone: false });
  });

  it('a delete marks the silo gone in every earlier line, and only that silo', () => {
    let list: FeedEvent[] = [];
    for (const [i, [type, uuid]] of ([['create', 'a'], ['create', 'b'], ['update', 'a'], ['delete', 'a']] as const).entries()) list = addEvent(list, event(type, uuid, i));
    expect(list.map((e) => [e.type, e.uuid, e.gone])).toEqual([
      ['delete', 'a', true],
      ['update', 'a', true],
      ['create', 'b', false],
      ['create', 'a', true],
    ]);
  });

  it(`keeps the newest ${KEEP}`, () => {
    let list: FeedEvent[] = [];
    for (let i = 0; i < KEEP + 5; i++) list = addEvent(list, event('update', 'a', i));
    expect(list).toHaveLength(KEEP);
    expect(list[0]!.seq).toBe(KEEP + 4);
  });
});

describe("a silo's read addresses", () => {
  it('private and public, on its region host; curl lines whose words join into the line copied', () => {
    const priv = dataUrl('http:', 'sg-01-api.localhost:8080', UUID, '');
    const pub = publicUrl('http:', 'sg-01-api.localhost:8080', UUID);
    expect(priv).toBe(`http://sg-01-api.localhost:8080/${UUID}`);
    expect(pub).toBe(`http://sg-01-api.localhost:8080/public/${UUID}`);
    expect(curlParts(priv)).toEqual(['curl -s', `'${priv}'`, "-H 'X-SILO-KEY: <your access key>'"]);
    expect(curlParts(priv).join(' ')).toBe(curlLine(priv));
    expect(curlLine(pub, false)).toBe(`curl -s '${pub}'`);
  });
});

describe('routes', () => {
  it('has a webhooks page', () => {
    expect(parseRoute('#/webhooks')).toEqual({ page: 'webhooks' });
    expect(href({ page: 'webhooks' })).toBe('#/webhooks');
    expect(parseRoute('#/webhooks/x')).toMatchObject({ page: 'not-found' });
  });
});
