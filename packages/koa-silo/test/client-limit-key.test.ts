/**
 * Whom a limit of requests without a key counts (clientLimitKey): an IPv4 client by its address, an
 * IPv6 one by its /64, however a trusted proxy writes it. An IPv6 address with a dotted tail
 * (`2001:db8::1.2.3.4`) was taken as written, so each such spelling had a budget of its own.
 */
import type { Context } from 'koa';
import { describe, expect, it } from 'vitest';
import { callerLimitKey } from '../src/http/auth.js';
import { clientLimitKey } from '../src/http/client.js';

const contextOf = (socket: string, forwarded?: string) =>
  ({ get: (name: string) => (name === 'X-Forwarded-For' ? (forwarded ?? '') : ''), req: { socket: { remoteAddress: socket } } }) as unknown as Context;

describe('clientLimitKey', () => {
  it('takes an IPv4 socket address as it is, and an IPv6 one by its /64 in any spelling', () => {
    expect(clientLimitKey(contextOf('192.0.2.7'), false)).toBe('192.0.2.7');
    expect(clientLimitKey(contextOf('::ffff:192.0.2.7'), false)).toBe('::ffff:192.0.2.7');
    const spellings = ['2001:db8::5', '2001:db8::0.0.0.5', '2001:db8::1.2.3.4', '2001:DB8:0:0::ffff'];
    expect(new Set(spellings.map((address) => clientLimitKey(contextOf('127.0.0.1', address), true)))).toEqual(new Set(['2001:db8:0:0::/64']));
  });
});

describe('callerLimitKey', () => {
  it("keeps a console user's budget apart from a key named after the session", () => {
    const key = { account: 'acme', keyType: 'manage', keyName: 'console:admin', actor: { type: 'manage', name: 'console:admin' } } as const;
    const session = { account: 'acme', keyType: 'manage', keyName: 'console:admin', actor: { type: 'console', name: 'admin' } } as const;
    expect(callerLimitKey(key)).not.toBe(callerLimitKey(session));
  });
});
