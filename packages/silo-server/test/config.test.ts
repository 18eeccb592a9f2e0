import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, type Flags, loadConfig, loadStorageConfig, parseBytes, settingsHelp } from '../src/config.js';
import { parseStoreUrl, redact } from '../src/stores.js';
import { parse } from '../src/cli/args.js';

const cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'silo-config-'));
afterAll(() => fs.rmSync(cwd, { recursive: true, force: true }));

const load = (env: Record<string, string>, flags: Flags = {}) => loadConfig(env, flags, cwd);
function fails(env: Record<string, string>, pattern: RegExp, flags: Record<string, string | boolean> = {}): void {
  let error: unknown;
  try {
    load(env, flags);
  } catch (e) {
    error = e;
  }
  expect(error).toBeInstanceOf(ConfigError);
  const message = (error as Error).message;
  expect(message).toMatch(pattern);
  expect(message).not.toContain('\n');
}

describe('loadConfig', () => {
  it('has the contract defaults', () => {
    const c = load({});
    expect(c.port).toBe(8080);
    expect(c.dataDir).toBe(path.join(cwd, '.silo-data'));
    expect(c.store.main).toEqual({ kind: 'sqlite', path: path.join(cwd, '.silo-data', 'silo.sqlite'), url: `sqlite://${path.join(cwd, '.silo-data', 'silo.sqlite')}` });
    expect(c.store.regions['sg-01-api']).toEqual(c.store.main);
    expect(c.hosts).toEqual({ api: 'api.localhost', 'sg-01-api': 'sg-01-api.localhost', 'usc-01-api': 'usc-01-api.localhost' });
    expect(c.publicQueries).toBe(false);
    expect(c.trustProxy).toBe(false);
    expect(c.rateLimitPerMinute).toBeUndefined();
    expect(c.maxDataBytes).toBeUndefined();
    expect(c.tls).toBeUndefined();
    expect(c.sqliteSynchronous).toBe('normal');
  });

  it('reads every variable', () => {
    const c = load({
      PORT: '9000',
      SILO_LISTEN_ADDRESS: '127.0.0.1',
      SILO_DATA_DIR: 'data',
      SILO_STORE_URL: 'redis://127.0.0.1:6379/7',
      SILO_STORE_URL_SG_01_API: 'sqlite:///tmp/sg.sqlite',
      SILO_HOST_API: 'EU.Example.com.',
      SILO_HOST_SG_01_API: 'sg.example.com',
      SILO_HOST_USC_01_API: 'us.example.com',
      SILO_RATE_LIMIT_PER_MINUTE: '0',
      SILO_MAX_DATA_BYTES: '2MB',
      SILO_PUBLIC_QUERIES: 'yes',
      SILO_TRUST_PROXY: '1',
      SILO_SQLITE_SYNC: 'FULL',
      SILO_REQUIRE_IF_MATCH: 'true',
    });
    expect(c.port).toBe(9000);
    expect(c.listenAddress).toBe('127.0.0.1');
    expect(c.dataDir).toBe(path.join(cwd, 'data'));
    expect(c.store.main).toMatchObject({ kind: 'redis', db: 7 });
    expect(c.store.regions.api).toMatchObject({ kind: 'redis', db: 7 });
    expect(c.store.regions['sg-01-api']).toMatchObject({ kind: 'sqlite', path: '/tmp/sg.sqlite' });
    expect(c.hosts).toEqual({ api: 'eu.example.com', 'sg-01-api': 'sg.example.com', 'usc-01-api': 'us.example.com' });
    expect(c.rateLimitPerMinute).toBe(0);
    expect(c.maxDataBytes).toBe(2_000_000);
    expect(c.publicQueries).toBe(true);
    expect(c.trustProxy).toBe(true);
    expect(c.sqliteSynchronous).toBe('full');
    expect(c.requireIfMatch).toBe(true);
    expect(load({}).requireIfMatch).toBeUndefined();
  });

  it('lets flags win over the environment', () => {
    const c = load({ PORT: '9000', SILO_PUBLIC_QUERIES: 'false' }, { port: '9001', 'public-queries': true, 'store-url': 'sqlite://x.sqlite' });
    expect(c.port).toBe(9001);
    expect(c.publicQueries).toBe(true);
    expect(c.store.main).toMatchObject({ kind: 'sqlite', path: path.join(cwd, 'x.sqlite') });
  });

  it('turns a yes/no setting off with --no-FLAG, beating its variable', () => {
    const flags = (...args: string[]) => parse('serve', args, {}, 0, false).values;
    const env = { SILO_TRUST_PROXY: 'true', SILO_PUBLIC_QUERIES: '1' };
    expect(load(env, flags('--no-trust-proxy'))).toMatchObject({ trustProxy: false, publicQueries: true });
    expect(load({}, flags('--trust-proxy', '--no-public-queries'))).toMatchObject({ trustProxy: true, publicQueries: false });
    expect(settingsHelp()).toContain('--[no-]trust-proxy');
  });

  it('treats an empty variable as unset', () => {
    expect(load({ PORT: '', SILO_STORE_URL: '' }).port).toBe(8080);
  });

  it('rejects bad values with one line naming the variable', () => {
    fails({ PORT: 'abc' }, /^PORT must be a port number from 0 to 65535, got "abc"$/);
    fails({ PORT: '70000' }, /PORT must be/);
    fails({ PORT: '-1' }, /PORT must be/);
    fails({ PORT: '80.5' }, /PORT must be/);
    fails({}, /--port must be/, { port: 'x' });
    fails({ SILO_LISTEN_ADDRESS: 'example.com' }, /SILO_LISTEN_ADDRESS must be an IP address/);
    fails({ SILO_RATE_LIMIT_PER_MINUTE: 'lots' }, /SILO_RATE_LIMIT_PER_MINUTE must be a whole number/);
    fails({ SILO_RATE_LIMIT_PER_MINUTE: '-5' }, /SILO_RATE_LIMIT_PER_MINUTE/);
    fails({ SILO_MAX_DATA_BYTES: '0' }, /SILO_MAX_DATA_BYTES must be a positive size/);
    fails({ SILO_MAX_DATA_BYTES: '10 parsecs' }, /SILO_MAX_DATA_BYTES/);
    // About a petabyte was taken silently: no string of file_data can be much longer than 500 MB.
    fails({ SILO_MAX_DATA_BYTES: '999999GB' }, /SILO_MAX_DATA_BYTES must be at most 500MB/);
    fails({ SILO_PUBLIC_QUERIES: 'maybe' }, /SILO_PUBLIC_QUERIES must be 1\/0, true\/false/);
    fails({ SILO_TRUST_PROXY: '2' }, /SILO_TRUST_PROXY/);
    fails({ SILO_STORE_URL: 'mysql://x' }, /^SILO_STORE_URL: unsupported store URL "mysql:\/\/x"/);
    fails({ SILO_STORE_URL: 'postgres://x' }, /^SILO_STORE_URL: a PostgreSQL URL needs a database/);
    fails({ SILO_STORE_URL: 'sqlite://' }, /SILO_STORE_URL: a sqlite:\/\/ store URL needs a file path/);
    fails({ SILO_STORE_URL: 'redis://127.0.0.1:6379/x' }, /database .* must be a non-negative integer/);
    fails({ SILO_STORE_URL_USC_01_API: 'ftp://x' }, /^SILO_STORE_URL_USC_01_API: unsupported/);
    fails({ SILO_HOST_API: 'http://api.example.com' }, /SILO_HOST_API must be a host name/);
    fails({ SILO_HOST_API: 'a.example.com:8080' }, /SILO_HOST_API must be a host name/);
    fails({ SILO_HOST_SG_01_API: 'api.localhost' }, /SILO_HOST_SG_01_API repeats the host of region api/);
    fails({ SILO_TLS_CERT: 'cert.pem' }, /SILO_TLS_CERT and SILO_TLS_KEY go together/);
    fails({ SILO_TLS_CERT: 'nope.pem', SILO_TLS_KEY: 'nope.key' }, /SILO_TLS_CERT: cannot read/);
    fails({ SILO_SQLITE_SYNC: 'off' }, /SILO_SQLITE_SYNC must be normal or full/);
  });

  it('refuses a data directory that is a file', () => {
    fs.writeFileSync(path.join(cwd, 'afile'), '');
    fails({ SILO_DATA_DIR: 'afile' }, /SILO_DATA_DIR is not a directory/);
  });

  it('accepts a usable certificate and key, refuses files that are not', () => {
    execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', path.join(cwd, 'k.pem'), '-out', path.join(cwd, 'c.pem'), '-days', '1', '-subj', '/CN=localhost'], { stdio: 'ignore' });
    fs.writeFileSync(path.join(cwd, 'junk.pem'), 'x');
    fails({ SILO_TLS_CERT: 'junk.pem', SILO_TLS_KEY: 'k.pem' }, /^cannot use SILO_TLS_CERT\/SILO_TLS_KEY: /);
    fails({ SILO_TLS_CERT: 'k.pem', SILO_TLS_KEY: 'c.pem' }, /^cannot use SILO_TLS_CERT\/SILO_TLS_KEY: /);
    expect(load({ SILO_TLS_CERT: 'c.pem', SILO_TLS_KEY: 'k.pem' }).tls).toEqual({
      certPath: path.join(cwd, 'c.pem'),
      keyPath: path.join(cwd, 'k.pem'),
    });
  });

  it('reads the connection limits', () => {
    expect(load({})).not.toHaveProperty('maxConnections');
    const c = load({ SILO_MAX_CONNECTIONS: '5000', SILO_MAX_CONNECTIONS_PER_ADDRESS: '0', SILO_MIN_BODY_RATE: '2KB' });
    expect([c.maxConnections, c.maxConnectionsPerAddress, c.minBodyRate]).toEqual([5000, 0, 2000]);
    expect(load({ SILO_MIN_BODY_RATE: '0' }).minBodyRate).toBe(0);
    expect(load({}, { 'max-connections': '7' }).maxConnections).toBe(7);
    fails({ SILO_MAX_CONNECTIONS: '-1' }, /^SILO_MAX_CONNECTIONS must be a whole number of connections \(0 = no cap\), got "-1"$/);
    fails({ SILO_MAX_CONNECTIONS_PER_ADDRESS: 'many' }, /^SILO_MAX_CONNECTIONS_PER_ADDRESS must be a whole number/);
    fails({ SILO_MIN_BODY_RATE: 'fast' }, /^SILO_MIN_BODY_RATE must be a positive size/);
  });

  it('loadStorageConfig ignores serve-only settings', () => {
    expect(loadStorageConfig({ PORT: 'not checked here' }, {}, cwd).store.main.kind).toBe('sqlite');
  });

  it('help lists every variable', () => {
    const help = settingsHelp();
    for (const name of ['PORT', 'SILO_DATA_DIR', 'SILO_STORE_URL', 'SILO_STORE_URL_SG_01_API', 'SILO_HOST_USC_01_API', 'SILO_RATE_LIMIT_PER_MINUTE', 'SILO_PUBLIC_QUERIES', 'SILO_TRUST_PROXY', 'SILO_TLS_CERT', 'SILO_TLS_KEY', 'SILO_MAX_DATA_BYTES', 'SILO_MAX_CONNECTIONS', 'SILO_MAX_CONNECTIONS_PER_ADDRESS', 'SILO_MIN_BODY_RATE']) {
      expect(help).toContain(name);
    }
  });
});

describe('store URLs', () => {
  it('parses sqlite and redis URLs', () => {
    expect(parseStoreUrl('sqlite:///var/lib/silo/silo.sqlite')).toMatchObject({ kind: 'sqlite', path: '/var/lib/silo/silo.sqlite' });
    expect(parseStoreUrl('sqlite://rel/s.sqlite', '/base')).toMatchObject({ path: '/base/rel/s.sqlite' });
    expect(parseStoreUrl('sqlite://:memory:')).toMatchObject({ path: ':memory:' });
    expect(parseStoreUrl('redis://localhost')).toMatchObject({ kind: 'redis', db: 0 });
    expect(parseStoreUrl('rediss://u:secret@host:6380/3')).toMatchObject({ kind: 'redis', db: 3, display: 'rediss://u:***@host:6380/3' });
  });

  it('never shows a password', () => {
    expect(redact('redis://:hunter2@h:1/2')).toBe('redis://:***@h:1/2');
    expect(redact('redis://user:hunter2@h')).toBe('redis://user:***@h');
    expect(redact('redis://hunter2@h')).toBe('redis://:***@h');
    expect(redact('postgres://silo@db:5432/silo')).toBe('postgres://silo@db:5432/silo'); // a user name, no password
    expect(redact('postgresql://silo:hunter2@db/silo')).toBe('postgresql://silo:***@db/silo');
    expect(() => parseStoreUrl('redis://:hunter2@h:1/x')).toThrow(/redis:\/\/:\*\*\*@h:1\/x/);
    // A password in the query string, which PostgreSQL's driver reads as well.
    expect(redact('postgres://silo@db/test?password=hunter2&options=-c%20search_path%3Dx')).toBe('postgres://silo@db/test?password=***&options=-c%20search_path%3Dx');
    expect(redact('postgres://db/test?sslmode=verify-full&sslpassword=hunter2#x')).toBe('postgres://db/test?sslmode=verify-full&sslpassword=***#x');
    expect(redact('redis://h:1/2?Password=hunter2')).toBe('redis://h:1/2?Password=***');
    expect(parseStoreUrl('postgres://silo@db:5432/test?password=hunter2')).toMatchObject({ display: expect.not.stringContaining('hunter2') });
  });

  // The URLs that get printed are the malformed ones: a password holding `/`, `@`, `?` or `#`,
  // a misspelt scheme, a user name with a slash.
  it('never shows a password of a malformed URL, in any error message', () => {
    const urls = [
      'redis://user:hun/ter2@host:6379',
      'redis://user:hun@ter2@host',
      'redis://:hunter2@host:99999',
      'redis://us/er:hunter2@host',
      'redis://:hun?ter2@h',
      'redis://:hun#ter2@h',
      'redis:/:hunter2@host',
      'REDIS://:hunter2@h',
      'mysql://u:hunter2@h/db',
      'rediss://:hunter2@h/abc',
      'redis://hunter2@h/x',
    ];
    for (const url of urls) {
      let message: string;
      try {
        const location = parseStoreUrl(url);
        message = location.kind === 'redis' ? location.display : location.url;
      } catch (error) {
        message = (error as Error).message;
      }
      for (const fragment of ['hunter2', 'hun/ter2', 'ter2']) expect(message, url).not.toContain(fragment);
      expect(() => load({ SILO_STORE_URL: url })).not.toThrow(/ter2/);
    }
    expect(redact('redis://user:hun/ter2@host:6379')).toBe('redis://user:***@host:6379');
    expect(redact('redis://us/er:hunter2@host')).toBe('redis://:***@host');
    expect(redact('nosql://x')).toBe('nosql://x');
  });

  it('parses sizes', () => {
    const s = (value: string) => parseBytes({ value, source: 'X' });
    expect(s('1024')).toBe(1024);
    expect(s('500KB')).toBe(500_000);
    expect(s('10mb')).toBe(10_000_000);
    expect(s('1GiB')).toBe(1024 ** 3);
  });
});
