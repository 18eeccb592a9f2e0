/**
 * The pieces of the HTTP edge that need no server: throttled warn lines, how connections are
 * counted per client, the limits a configuration resolves to, and key values redacted from log
 * lines however they are percent-encoded.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { redactKeyValues } from 'koa-silo';
import { addressKey, DEFAULT_MAX_CONNECTIONS, resolveLimits } from '../src/connection-limits.js';
import { createLogger, throttledWarn, type Fields, type Logger } from '../src/log.js';

function recorder(): Logger & { lines: Array<{ msg: string; fields: Fields }> } {
  const lines: Array<{ msg: string; fields: Fields }> = [];
  const push = (msg: string, fields: Fields = {}) => lines.push({ msg, fields });
  return { lines, debug: push, info: push, warn: push, error: push, request: (line) => push('request', { ...line }), flush: async () => undefined };
}

describe('throttledWarn', () => {
  afterEach(() => vi.useRealTimers());

  it('writes the first of a kind at once, then one line with the count per interval', () => {
    vi.useFakeTimers();
    const log = recorder();
    const warn = throttledWarn(log, 10_000);
    for (let i = 0; i < 2845; i++) warn('slow connection closed', { n: i }, 'ERR_HTTP_REQUEST_TIMEOUT');
    warn('malformed request', { code: 'HPE_INVALID_METHOD' }, 'HPE_INVALID_METHOD');
    expect(log.lines).toEqual([
      { msg: 'slow connection closed', fields: { n: 0 } },
      { msg: 'malformed request', fields: { code: 'HPE_INVALID_METHOD' } },
    ]);
    vi.advanceTimersByTime(10_000);
    expect(log.lines.slice(2)).toEqual([{ msg: 'slow connection closed', fields: { n: 2844, count: 2844, interval_s: 10 } }]);
    // Still going on: counted again; once quiet for an interval, the next one is written at once.
    warn('slow connection closed', { n: 1 }, 'ERR_HTTP_REQUEST_TIMEOUT');
    vi.advanceTimersByTime(10_000);
    expect(log.lines).toHaveLength(4);
    vi.advanceTimersByTime(10_000);
    warn('slow connection closed', { n: 2 }, 'ERR_HTTP_REQUEST_TIMEOUT');
    expect(log.lines).toHaveLength(5);
    expect(log.lines[4]).toEqual({ msg: 'slow connection closed', fields: { n: 2 } });
  });

  it('flush writes what is pending', () => {
    vi.useFakeTimers();
    const log = recorder();
    const warn = throttledWarn(log, 10_000);
    warn('connection refused', {}, 'address');
    warn('connection refused', {}, 'address');
    warn.flush();
    expect(log.lines).toEqual([
      { msg: 'connection refused', fields: {} },
      { msg: 'connection refused', fields: { count: 1, interval_s: 10 } },
    ]);
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe('connection limits', () => {
  it('counts IPv4 clients by address and IPv6 clients by /64', () => {
    expect(addressKey('127.0.0.2')).toBe('127.0.0.2');
    expect(addressKey('::ffff:10.1.2.3')).toBe('10.1.2.3');
    expect(addressKey('2001:db8:1:2:aaaa:bbbb:cccc:dddd')).toBe('2001:db8:1:2::/64');
    expect(addressKey('2001:db8:1:2::1')).toBe('2001:db8:1:2::/64');
    expect(addressKey('2001:0db8:0001:0002:0:0:0:ffff')).toBe('2001:db8:1:2::/64');
    expect(addressKey('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(addressKey('::1')).toBe('0:0:0:0::/64');
    expect(addressKey('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
  });

  it('resolves the defaults, the settings, and the open-file limit', () => {
    expect(resolveLimits({ trustProxy: false }, 1_000_000)).toEqual({ total: DEFAULT_MAX_CONNECTIONS, perAddress: 256, minBodyRate: 1000 });
    // Behind a proxy every connection is the proxy's: no per-address cap unless set.
    expect(resolveLimits({ trustProxy: true }, 1_000_000).perAddress).toBe(0);
    expect(resolveLimits({ trustProxy: true, maxConnectionsPerAddress: 50 }, 1_000_000).perAddress).toBe(50);
    expect(resolveLimits({ trustProxy: false, maxConnections: 0, minBodyRate: 0 }, 1024)).toMatchObject({ total: 0, minBodyRate: 0 });
    expect(resolveLimits({ trustProxy: false }, 4096)).toEqual({ total: 3840, perAddress: 256, minBodyRate: 1000, lowered: { from: DEFAULT_MAX_CONNECTIONS, fileLimit: 4096 } });
    expect(resolveLimits({ trustProxy: false, maxConnections: 50_000 }, Number.POSITIVE_INFINITY).total).toBe(50_000);
  });
});

describe('redactKeyValues', () => {
  const random = 'xMOAIXTI4mGW_ab-cdEFghIJklMNopQRstUVwxYZ0123456';
  it('cuts key values, also percent-encoded, once or twice over', () => {
    const cases: Array<[string, string]> = [
      [`/api/v1/manage/silo_man_${random}`, '/api/v1/manage/silo_man_…'],
      [`/api/v1/manage/silo%5Fman%5F${random}`, '/api/v1/manage/silo_man_…'],
      [`/silo%5facc%5f${random}/x`, '/silo_acc_…/x'],
      [`/%73%69%6C%6F%5F%6D%61%6E%5F${random}`, '/silo_man_…'],
      [`/silo%255Fman%255F${random}`, '/silo_man_…'],
      [`/silo_acc_${random.slice(0, 10)}%2D${random.slice(10)}`, '/silo_acc_…'],
      [`silo%5Fman%5F${random}.example`, 'silo_man_….example'],
    ];
    for (const [text, expected] of cases) {
      expect(redactKeyValues(text), text).toBe(expected);
      expect(redactKeyValues(text)).not.toContain(random.slice(0, 10));
    }
  });

  it('cuts webhook signing secrets, also percent-encoded', () => {
    const secret = 'k3Y0dGhpcyBpcyBub3QgYSByZWFs+c2VjcmV0/Ly8vLw==';
    for (const [text, expected] of [
      [`/whsec_${secret}`, '/whsec_…'],
      [`/whsec%5F${encodeURIComponent(secret)}?x=1`, '/whsec_…?x=1'],
      [`/a/whsec_${secret.slice(0, 12)}`, '/a/whsec_…'],
    ] as const) {
      expect(redactKeyValues(text), text).toBe(expected);
      expect(redactKeyValues(text)).not.toContain(secret.slice(0, 8));
    }
  });

  it('cuts a key pasted without its prefix (an opaque run of 32 characters or more), keeping uuids', () => {
    const uuid = '0b6f7a52-3c1e-4a8e-9d2f-1c2b3a4d5e6f';
    for (const [text, expected] of [
      [`/x/${random}`, '/x/…'],
      [`/${uuid}/${random.slice(0, 43)}`, `/${uuid}/…`],
      [`/${uuid}x`, '/…'],
      [`${random}.localhost`, '….localhost'],
      // Percent-encoded, wholly or in part, in either case of hex.
      [`/${[...random].map((c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`).join('')}`, '/…'],
      [`/x/${[...random.slice(0, 20)].map((c) => `%${c.charCodeAt(0).toString(16)}`).join('')}${random.slice(20)}`, '/x/…'],
    ] as const) {
      expect(redactKeyValues(text), text).toBe(expected);
    }
  });

  it('leaves other text alone', () => {
    const uuid = '0b6f7a52-3c1e-4a8e-9d2f-1c2b3a4d5e6f';
    for (const text of ['/api/v1/manage/silos', '/silo%5Fmanual', '/a%20b/silo_', 'silo_mana_x', '/whsec', '/api/v1/manage/webhooks/wh_abc', `/public/${uuid}/events`, `/api/v1/manage/${uuid}/versions/3/restore`, `/${'a'.repeat(31)}`, `/${'%41'.repeat(31)}`]) {
      expect(redactKeyValues(text)).toBe(text);
    }
  });
});

describe('log lines', () => {
  it('writes JSON with level, time and msg first, drops entries below the level, and pretty-prints', () => {
    let text = '';
    const json = createLogger({ level: 'warn', write: (line) => (text += line) });
    json.info('not written', { a: 1 });
    json.warn('written', { port: 8080, path: '/x' });
    expect(text.endsWith('\n')).toBe(true);
    expect(Object.keys(JSON.parse(text) as object)).toEqual(['level', 'time', 'msg', 'port', 'path']);
    expect(JSON.parse(text)).toMatchObject({ level: 'warn', msg: 'written', port: 8080, path: '/x' });
    // The time is the ISO time of the line, also for lines within one millisecond and after it.
    const times: string[] = [];
    const timed = createLogger({ write: (line) => times.push((JSON.parse(line) as { time: string }).time) });
    const before = Date.now();
    timed.info('a');
    timed.info('b');
    const until = Date.now() + 3;
    while (Date.now() < until);
    timed.info('c');
    expect(times).toHaveLength(3);
    for (const t of times) expect(t).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(Date.parse(times[0]!)).toBeGreaterThanOrEqual(before);
    expect(Date.parse(times[2]!)).toBeGreaterThanOrEqual(Date.parse(times[1]!) + 3);
    let pretty = '';
    createLogger({ format: 'pretty', write: (line) => (pretty += line) }).info('listening', { url: 'http://localhost:8080', limits: { a: 1 } });
    expect(pretty).toMatch(/^\d\d:\d\d:\d\d\.\d{3} INFO  listening url=http:\/\/localhost:8080 limits=\{"a":1\}\n$/);
  });

  it("writes a request's line as pino writes any other line, at level info only", () => {
    const line = { method: 'GET', path: '/public/"odd\\path\u0001', status: 200, duration_ms: 0.42, host: 'sg.example', ip: '::1' };
    const texts: string[] = [];
    const logger = createLogger({ write: (text) => texts.push(text) });
    logger.request(line);
    logger.request({ ...line, ip: undefined, aborted: true });
    logger.info('request', line);
    const [built, aborted, general] = texts.map((text) => JSON.parse(text) as Record<string, unknown>);
    expect(texts.every((text) => text.endsWith('}\n') && !text.slice(0, -1).includes('\n'))).toBe(true);
    expect(Object.keys(built!)).toEqual(Object.keys(general!));
    expect({ ...built, time: '' }).toEqual({ ...general, time: '' });
    expect(aborted).toMatchObject({ msg: 'request', aborted: true });
    expect(aborted).not.toHaveProperty('ip');
    const quiet: string[] = [];
    createLogger({ level: 'warn', write: (text) => quiet.push(text) }).request(line);
    expect(quiet).toEqual([]);
    let pretty = '';
    createLogger({ format: 'pretty', write: (text) => (pretty += text) }).request(line);
    expect(pretty).toMatch(/ INFO  request method=GET path=.* status=200 duration_ms=0.42 host=sg.example ip=::1\n$/);
  });
});
