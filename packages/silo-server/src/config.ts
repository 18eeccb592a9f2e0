/**
 * Environment and flags → validated server options. Every setting has one environment variable
 * and one flag (the flag wins). A bad value is a ConfigError whose message is the one line the
 * command prints: it names the variable, the value and what is allowed.
 */
import fs from 'node:fs';
import path from 'node:path';
import net from 'node:net';
import { createSecureContext as tlsContext } from 'node:tls';
import { DEFAULT_HISTORY_VERSIONS, DEFAULT_HOSTS, DEFAULT_MAX_DATA_BYTES, DEFAULT_MAX_KEYS, DEFAULT_PLAN, MAX_HISTORY_VERSIONS, REGIONS, type Region } from 'koa-silo/model';
import { envSuffix } from './regions.js';
import { parseStoreUrl, StartupError, type StoreLocation } from './stores.js';
import type { SqliteSynchronous } from './sqlite-store.js';
import { LOG_LEVELS, type LogFormat, type LogLevel } from './log.js';

export class ConfigError extends StartupError {
  override name = 'ConfigError';
}

export interface ServerConfig {
  /** 0 picks a free port (the log line `listening` tells which). */
  port: number;
  /** Bind address; undefined = every interface. */
  listenAddress?: string;
  dataDir: string;
  store: { main: StoreLocation; regions: Record<Region, StoreLocation> };
  hosts: Record<Region, string>;
  /** Extra ports whose every request is served as that region, whatever its Host (0 picks a free one). */
  regionPorts?: Partial<Record<Region, number>>;
  /** Browser origins allowed to make keyed requests by CORS (`'*'`: every origin); undefined = none. */
  corsOrigins?: '*' | string[];
  /** The default plan's requests per minute; 0 turns rate limiting off; undefined keeps koa-silo's default. */
  rateLimitPerMinute?: number;
  /** The default plan's `file_data` size limit in bytes; undefined keeps koa-silo's default (10 MB). */
  maxDataBytes?: number;
  /** Versions per silo kept in history by the default plan; undefined keeps koa-silo's default (20). */
  historyVersions?: number;
  /** Keys an account of the default plan may have. */
  maxKeys?: number;
  /** Requests per minute per account of the default plan (0: off). */
  accountRateLimitPerMinute?: number;
  /** Worker threads for large data. */
  workers?: number;
  /** Memory for large data (caches, bodies being read, data being parsed); undefined keeps koa-silo's default (512 MiB). */
  memoryBudgetBytes?: number;
  /** Event streams one client may hold open; undefined keeps koa-silo's default (20). */
  maxStreamsPerClient?: number;
  publicQueries: boolean;
  /** SILO_REQUIRE_IF_MATCH: PATCH, DELETE and restore without If-Match answer 428. */
  requireIfMatch?: boolean;
  /** SILO_LOG_LEVEL: entries below it are not written. */
  logLevel: LogLevel;
  /** SILO_LOG_FORMAT: JSON lines, or plain lines for a person at a terminal. */
  logFormat: LogFormat;
  /** Webhooks may reach any address, not only public unicast ones other than this host's (SILO_WEBHOOK_ALLOW_PRIVATE). */
  webhookAllowPrivate?: boolean;
  trustProxy: boolean;
  tls?: { certPath: string; keyPath: string };
  sqliteSynchronous: SqliteSynchronous;
  /** Connections open at once; 0 = no cap; undefined = 10 000 (see connection-limits.ts). */
  maxConnections?: number;
  /** Connections open at once per client address; 0 = no cap; undefined = 256, or none behind a trusted proxy. */
  maxConnectionsPerAddress?: number;
  /** Minimum request-body data rate in bytes per second; 0 = none; undefined = 1 000. */
  minBodyRate?: number;
  /** Days the default plan keeps audit entries (SILO_AUDIT_DAYS); undefined keeps koa-silo's default (90). */
  auditDays?: number;
  /**
   * Prometheus metrics on a listener of their own (SILO_METRICS_PORT, _HOST, _TOKEN): `/metrics`
   * there, never on the API's port. Undefined: metrics off.
   */
  metrics?: { port: number; host: string; token?: string };
}

export type Env = Record<string, string | undefined>;
/** Flag values as node:util parseArgs returns them. */
export type Flags = Record<string, string | boolean | undefined>;

type Kind = 'string' | 'boolean';

export interface Setting {
  env: string;
  flag: string;
  kind: Kind;
  default: string;
  help: string;
  /** Settings that matter to every command (storage); the others only to `serve`. */
  storage?: boolean;
}

export const STORE_FILE = 'silo.sqlite';

/** `10000000` → `10MB`: a size as the help shows it, in a form parseBytes reads back. */
function sizeText(bytes: number): string {
  return bytes % 1_000_000 === 0 ? `${bytes / 1_000_000}MB` : bytes % 1_000 === 0 ? `${bytes / 1_000}KB` : String(bytes);
}

/** Every setting, in the order of `silo --help` and the README's table. */
export const SETTINGS: Setting[] = [
  { env: 'PORT', flag: 'port', kind: 'string', default: '8080', help: 'TCP port to serve on (0 picks a free one)' },
  { env: 'SILO_LISTEN_ADDRESS', flag: 'listen-address', kind: 'string', default: 'every interface', help: 'address to bind, e.g. 127.0.0.1' },
  { env: 'SILO_DATA_DIR', flag: 'data-dir', kind: 'string', default: './.silo-data', help: 'directory of the embedded store', storage: true },
  { env: 'SILO_STORE_URL', flag: 'store-url', kind: 'string', default: `sqlite://<SILO_DATA_DIR>/${STORE_FILE}`, help: 'sqlite://<path>, redis://host:port[/db] or postgres://user@host:port/db', storage: true },
  ...REGIONS.map((r) => ({
    env: `SILO_STORE_URL_${envSuffix(r)}`,
    flag: `store-url-${r}`,
    kind: 'string' as const,
    default: 'SILO_STORE_URL',
    help: `storage of region ${r}'s silo data`,
    storage: true,
  })),
  ...REGIONS.map((r) => ({
    env: `SILO_HOST_${envSuffix(r)}`,
    flag: `host-${r}`,
    kind: 'string' as const,
    default: DEFAULT_HOSTS[r],
    help: `host name of region ${r}`,
  })),
  ...REGIONS.map((r) => ({
    env: `SILO_PORT_${envSuffix(r)}`,
    flag: `port-${r}`,
    kind: 'string' as const,
    default: 'none',
    help: `extra TCP port served as region ${r} whatever the Host (for clients that cannot set Host)`,
  })),
  { env: 'SILO_CORS_ORIGINS', flag: 'cors-origins', kind: 'string', default: 'none', help: 'browser origins allowed to use keys (private reads, management): comma-separated, or * for all' },
  { env: 'SILO_RATE_LIMIT_PER_MINUTE', flag: 'rate-limit-per-minute', kind: 'string', default: `${DEFAULT_PLAN.rateLimitPerMinute}, koa-silo's default plan`, help: 'requests per minute per client of the default plan; 0 = off' },
  { env: 'SILO_MAX_DATA_BYTES', flag: 'max-data-bytes', kind: 'string', default: sizeText(DEFAULT_MAX_DATA_BYTES), help: 'size limit of file_data for the default plan (bytes, or 500KB, 10MB, 8MiB; at most 500MB)' },
  { env: 'SILO_MAX_KEYS', flag: 'max-keys', kind: 'string', default: String(DEFAULT_MAX_KEYS), help: 'keys (manage and access) an account of the default plan may have' },
  { env: 'SILO_ACCOUNT_RATE_LIMIT_PER_MINUTE', flag: 'account-rate-limit-per-minute', kind: 'string', default: '4 × SILO_RATE_LIMIT_PER_MINUTE', help: 'requests per minute per account, whatever keys they use, beside each key\'s limit; 0 = off' },
  { env: 'SILO_WORKERS', flag: 'workers', kind: 'string', default: 'cores - 1, 1 to 4', help: 'worker threads that parse, query, patch and validate large data off the event loop' },
  { env: 'SILO_HISTORY_VERSIONS', flag: 'history-versions', kind: 'string', default: String(DEFAULT_HISTORY_VERSIONS), help: 'versions each silo keeps in history, the current one included (1 to 1000)' },
  { env: 'SILO_MAX_STREAMS_PER_CLIENT', flag: 'max-streams-per-client', kind: 'string', default: '20', help: 'event streams (server-sent events) one client may hold open; more are refused with 429' },
  { env: 'SILO_MEMORY_BUDGET', flag: 'memory-budget', kind: 'string', default: '512MiB', help: 'memory for large data (caches, bodies being read, data being parsed); past it, large requests wait 2 s, then 503' },
  { env: 'SILO_WEBHOOK_ALLOW_PRIVATE', flag: 'webhook-allow-private', kind: 'boolean', default: 'false', help: "let webhooks reach any address: loopback, private, link-local, special-purpose ranges, this server's own (an intranet, a test set-up)" },
  { env: 'SILO_PUBLIC_QUERIES', flag: 'public-queries', kind: 'boolean', default: 'false', help: 'allow query and search parameters on /public/<uuid>' },
  { env: 'SILO_REQUIRE_IF_MATCH', flag: 'require-if-match', kind: 'boolean', default: 'false', help: 'refuse a PATCH, DELETE or restore without If-Match (428): no write overwrites a version its client has not seen' },
  { env: 'SILO_LOG_LEVEL', flag: 'log-level', kind: 'string', default: 'info', help: 'debug, info, warn, error or silent: the log entries written (info includes one line per request)' },
  { env: 'SILO_LOG_FORMAT', flag: 'log-format', kind: 'string', default: 'json', help: 'json (one object per line) or pretty (plain lines for a person at a terminal)' },
  { env: 'SILO_TRUST_PROXY', flag: 'trust-proxy', kind: 'boolean', default: 'false', help: 'take the client address from X-Forwarded-For and the scheme from X-Forwarded-Proto' },
  { env: 'SILO_TLS_CERT', flag: 'tls-cert', kind: 'string', default: '', help: 'PEM certificate file: serve HTTPS (needs SILO_TLS_KEY)' },
  { env: 'SILO_TLS_KEY', flag: 'tls-key', kind: 'string', default: '', help: 'PEM private key file: serve HTTPS (needs SILO_TLS_CERT)' },
  { env: 'SILO_MAX_CONNECTIONS', flag: 'max-connections', kind: 'string', default: '10000', help: 'connections open at once; more are closed as they arrive; 0 = no cap' },
  { env: 'SILO_MAX_CONNECTIONS_PER_ADDRESS', flag: 'max-connections-per-address', kind: 'string', default: '256; none with SILO_TRUST_PROXY', help: 'connections open at once from one client address (IPv6: one /64); 0 = no cap' },
  { env: 'SILO_MIN_BODY_RATE', flag: 'min-body-rate', kind: 'string', default: '1KB', help: 'bytes per second a request body must keep up over 10 s, or 408 and the connection closed; 0 = none' },
  { env: 'SILO_AUDIT_DAYS', flag: 'audit-days', kind: 'string', default: '90', help: 'days the audit log keeps each entry of the default plan (1 to 36500)' },
  { env: 'SILO_METRICS_PORT', flag: 'metrics-port', kind: 'string', default: 'none: metrics off', help: 'serve Prometheus metrics at /metrics on this port (0 picks a free one), never on the API port' },
  { env: 'SILO_METRICS_HOST', flag: 'metrics-host', kind: 'string', default: '127.0.0.1', help: 'address the metrics listener binds; another than loopback needs SILO_METRICS_TOKEN' },
  { env: 'SILO_METRICS_TOKEN', flag: 'metrics-token', kind: 'string', default: 'none', help: 'bearer token a scrape of /metrics must send (Authorization: Bearer ...)' },
  { env: 'SILO_SQLITE_SYNC', flag: 'sqlite-sync', kind: 'string', default: 'normal', help: 'normal: writes survive a killed process; full: also a power loss (slower)', storage: true },
];

/** parseArgs option definitions for the settings (all settings for `serve`, storage ones otherwise). */
export function settingOptions(storageOnly: boolean): Record<string, { type: Kind }> {
  const options: Record<string, { type: Kind }> = {};
  for (const s of SETTINGS) if (!storageOnly || s.storage) options[s.flag] = { type: s.kind };
  return options;
}

const TRUE = new Set(['1', 'true', 'yes', 'on']);
const FALSE = new Set(['0', 'false', 'no', 'off', '']);

class Reader {
  constructor(
    private readonly env: Env,
    private readonly flags: Flags,
  ) {}

  /** The raw value and where it came from (for messages), or undefined when unset. */
  raw(setting: Setting): { value: string | boolean; source: string } | undefined {
    const flag = this.flags[setting.flag];
    if (flag !== undefined) return { value: flag, source: `--${setting.flag}` };
    const env = this.env[setting.env];
    if (env !== undefined && env !== '') return { value: env, source: setting.env };
    return undefined;
  }

  string(name: string): { value: string; source: string } | undefined {
    const got = this.raw(setting(name));
    if (got === undefined) return undefined;
    return { value: String(got.value).trim(), source: got.source };
  }

  boolean(name: string): boolean {
    const got = this.raw(setting(name));
    if (got === undefined) return false;
    if (typeof got.value === 'boolean') return got.value;
    const v = got.value.trim().toLowerCase();
    if (TRUE.has(v)) return true;
    if (FALSE.has(v)) return false;
    throw new ConfigError(`${got.source} must be 1/0, true/false, yes/no or on/off, got ${JSON.stringify(got.value)}`);
  }
}

function setting(env: string): Setting {
  const s = SETTINGS.find((x) => x.env === env);
  if (!s) throw new Error(`unknown setting ${env}`);
  return s;
}

/** One of `choices` (case as written), or `fallback` when unset. */
function oneOf<const T extends readonly string[]>(got: { value: string; source: string } | undefined, choices: T, fallback: T[number]): T[number] {
  if (got === undefined) return fallback;
  if (!(choices as readonly string[]).includes(got.value)) throw new ConfigError(`${got.source} must be one of ${choices.join(', ')}, got ${JSON.stringify(got.value)}`);
  return got.value;
}

function integer(got: { value: string; source: string }, min: number, max: number, what: string): number {
  if (!/^[0-9]+$/.test(got.value) || Number(got.value) < min || Number(got.value) > max) {
    throw new ConfigError(`${got.source} must be ${what}, got ${JSON.stringify(got.value)}`);
  }
  return Number(got.value);
}

const UNITS: Record<string, number> = { '': 1, B: 1, KB: 1_000, MB: 1_000_000, GB: 1_000_000_000, KIB: 1024, MIB: 1024 ** 2, GIB: 1024 ** 3 };

/** `10485760`, `500KB`, `10MB`, `1GiB` → bytes (decimal units: 1 MB = 1 000 000 bytes). */
/** The largest SILO_MAX_DATA_BYTES: below V8's longest string (2^29 - 24 characters), with room for the body around file_data. */
const MAX_DATA_BYTES_CEILING = 500_000_000;

export function parseBytes(got: { value: string; source: string }): number {
  const m = /^([0-9]+)\s*([a-zA-Z]*)$/.exec(got.value);
  const unit = m ? UNITS[m[2]!.toUpperCase()] : undefined;
  const bytes = m && unit !== undefined ? Number(m[1]) * unit : NaN;
  if (!Number.isSafeInteger(bytes) || bytes < 1) {
    throw new ConfigError(`${got.source} must be a positive size such as 10485760, 500KB or 10MB, got ${JSON.stringify(got.value)}`);
  }
  return bytes;
}

const HOST_NAME = /^(?=.{1,253}$)[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/;

function storeUrl(got: { value: string; source: string }, cwd: string): StoreLocation {
  try {
    return parseStoreUrl(got.value, cwd);
  } catch (error) {
    throw new ConfigError(`${got.source}: ${(error as Error).message}`);
  }
}

/** `https://a.example, http://localhost:3000` → the origins, as browsers send them in `Origin`; `*` alone: every origin. */
function parseCorsOrigins(got: { value: string; source: string }): '*' | string[] {
  const items = got.value.split(',').map((s) => s.trim()).filter(Boolean);
  if (items.length === 1 && items[0] === '*') return '*';
  return items.map((item) => {
    let url: URL | undefined;
    try {
      url = new URL(item);
    } catch {
      url = undefined;
    }
    if (!url || !/^https?:$/.test(url.protocol) || url.pathname !== '/' || url.search || url.hash || url.username || url.password) {
      throw new ConfigError(`${got.source} must be comma-separated origins such as https://app.example.com,http://localhost:3000 (scheme, host, port; no path), or * alone, got ${JSON.stringify(item)}`);
    }
    return url.origin;
  });
}

/** Storage settings only: what every command needs. */
export function loadStorageConfig(env: Env = process.env, flags: Flags = {}, cwd = process.cwd()): Pick<ServerConfig, 'dataDir' | 'store' | 'sqliteSynchronous'> {
  const read = new Reader(env, flags);
  const dataDirRaw = read.string('SILO_DATA_DIR');
  if (dataDirRaw && dataDirRaw.value === '') throw new ConfigError(`${dataDirRaw.source} must not be empty`);
  const dataDir = path.resolve(cwd, dataDirRaw?.value ?? '.silo-data');
  if (fs.existsSync(dataDir) && !fs.statSync(dataDir).isDirectory()) {
    throw new ConfigError(`${dataDirRaw?.source ?? 'SILO_DATA_DIR'} is not a directory: ${dataDir}`);
  }
  const mainRaw = read.string('SILO_STORE_URL');
  const main = mainRaw ? storeUrl(mainRaw, cwd) : parseStoreUrl(`sqlite://${path.join(dataDir, STORE_FILE)}`);
  const regions = {} as Record<Region, StoreLocation>;
  for (const r of REGIONS) {
    const got = read.string(`SILO_STORE_URL_${envSuffix(r)}`);
    regions[r] = got ? storeUrl(got, cwd) : main;
  }
  const syncRaw = read.string('SILO_SQLITE_SYNC');
  const sync = (syncRaw?.value ?? 'normal').toLowerCase();
  if (sync !== 'normal' && sync !== 'full') {
    throw new ConfigError(`${syncRaw!.source} must be normal or full, got ${JSON.stringify(syncRaw!.value)}`);
  }
  return { dataDir, store: { main, regions }, sqliteSynchronous: sync };
}

/**
 * The settings that shape the default plan (see plans.ts), validated: the server's, and what an
 * import checks the silos it loads against.
 */
export function loadPlanConfig(
  env: Env = process.env,
  flags: Flags = {},
): Pick<ServerConfig, 'rateLimitPerMinute' | 'maxDataBytes' | 'historyVersions' | 'maxKeys' | 'accountRateLimitPerMinute' | 'auditDays'> {
  const read = new Reader(env, flags);
  const rateRaw = read.string('SILO_RATE_LIMIT_PER_MINUTE');
  const rateLimitPerMinute = rateRaw ? integer(rateRaw, 0, 1_000_000_000, 'a whole number of requests per minute (0 = off)') : undefined;
  const sizeRaw = read.string('SILO_MAX_DATA_BYTES');
  const maxDataBytes = sizeRaw ? parseBytes(sizeRaw) : undefined;
  // file_data is held as one string at times, and V8's longest is about 512 MiB (2^29 - 24 characters).
  if (maxDataBytes !== undefined && maxDataBytes > MAX_DATA_BYTES_CEILING) {
    throw new ConfigError(`${sizeRaw!.source} must be at most 500MB (a silo's data is held as one string, and no JavaScript string is much longer), got ${JSON.stringify(sizeRaw!.value)}`);
  }
  const historyRaw = read.string('SILO_HISTORY_VERSIONS');
  const historyVersions = historyRaw ? integer(historyRaw, 1, MAX_HISTORY_VERSIONS, `a whole number of versions from 1 to ${MAX_HISTORY_VERSIONS}`) : undefined;
  const keysRaw = read.string('SILO_MAX_KEYS');
  const maxKeys = keysRaw ? integer(keysRaw, 1, 1_000_000, 'a whole number of keys, at least 1') : undefined;
  const accountRaw = read.string('SILO_ACCOUNT_RATE_LIMIT_PER_MINUTE');
  const accountRateLimitPerMinute = accountRaw ? integer(accountRaw, 0, 1_000_000_000, 'a whole number of requests per minute (0 = off)') : undefined;
  const auditRaw = read.string('SILO_AUDIT_DAYS');
  const auditDays = auditRaw ? integer(auditRaw, 1, 36_500, 'a whole number of days from 1 to 36500') : undefined;
  return {
    ...(auditDays !== undefined ? { auditDays } : {}),
    ...(maxKeys !== undefined ? { maxKeys } : {}),
    ...(accountRateLimitPerMinute !== undefined ? { accountRateLimitPerMinute } : {}),
    ...(rateLimitPerMinute !== undefined ? { rateLimitPerMinute } : {}),
    ...(maxDataBytes !== undefined ? { maxDataBytes } : {}),
    ...(historyVersions !== undefined ? { historyVersions } : {}),
  };
}

/** Every setting, validated. Throws ConfigError with a one-line message. */
export function loadConfig(env: Env = process.env, flags: Flags = {}, cwd = process.cwd()): ServerConfig {
  const read = new Reader(env, flags);
  const storage = loadStorageConfig(env, flags, cwd);

  const portRaw = read.string('PORT');
  const port = portRaw ? integer(portRaw, 0, 65535, 'a port number from 0 to 65535') : 8080;

  const listenRaw = read.string('SILO_LISTEN_ADDRESS');
  if (listenRaw && net.isIP(listenRaw.value) === 0 && listenRaw.value !== 'localhost') {
    throw new ConfigError(`${listenRaw.source} must be an IP address such as 127.0.0.1 or ::, got ${JSON.stringify(listenRaw.value)}`);
  }

  const hosts = {} as Record<Region, string>;
  const seen = new Map<string, string>();
  for (const r of REGIONS) {
    const got = read.string(`SILO_HOST_${envSuffix(r)}`);
    const host = (got?.value ?? DEFAULT_HOSTS[r]).toLowerCase().replace(/\.$/, '');
    if (got && !HOST_NAME.test(host)) {
      throw new ConfigError(`${got.source} must be a host name without scheme or port, such as sg.example.com, got ${JSON.stringify(got.value)}`);
    }
    const other = seen.get(host);
    if (other) throw new ConfigError(`${got?.source ?? `SILO_HOST_${envSuffix(r)}`} repeats the host of region ${other}: ${host}; each region needs its own host`);
    seen.set(host, r);
    hosts[r] = host;
  }

  const regionPorts: Partial<Record<Region, number>> = {};
  for (const r of REGIONS) {
    const got = read.string(`SILO_PORT_${envSuffix(r)}`);
    if (!got) continue;
    const regionPort = integer(got, 0, 65535, 'a port number from 0 to 65535');
    const taken = regionPort === 0 ? undefined : regionPort === port ? 'PORT' : REGIONS.find((o) => regionPorts[o] === regionPort);
    if (taken) throw new ConfigError(`${got.source} repeats the port of ${taken === 'PORT' ? 'PORT' : `region ${taken}`}: ${regionPort}; each listener needs its own port`);
    regionPorts[r] = regionPort;
  }

  const corsRaw = read.string('SILO_CORS_ORIGINS');
  const corsOrigins = corsRaw ? parseCorsOrigins(corsRaw) : undefined;

  const { rateLimitPerMinute, maxDataBytes, historyVersions, maxKeys, accountRateLimitPerMinute, auditDays } = loadPlanConfig(env, flags);
  const workersRaw = read.string('SILO_WORKERS');
  const workers = workersRaw ? integer(workersRaw, 1, 64, 'a whole number of worker threads from 1 to 64') : undefined;

  const streamsRaw = read.string('SILO_MAX_STREAMS_PER_CLIENT');
  const maxStreamsPerClient = streamsRaw ? integer(streamsRaw, 1, 1_000_000, 'a whole number of streams, at least 1') : undefined;

  const memoryRaw = read.string('SILO_MEMORY_BUDGET');
  const memoryBudgetBytes = memoryRaw ? parseBytes(memoryRaw) : undefined;
  if (memoryBudgetBytes !== undefined && memoryBudgetBytes < 16 * 1024 ** 2) {
    throw new ConfigError(`${memoryRaw!.source} must be at least 16MiB, got ${JSON.stringify(memoryRaw!.value)}`);
  }

  const connectionsRaw = read.string('SILO_MAX_CONNECTIONS');
  const maxConnections = connectionsRaw ? integer(connectionsRaw, 0, 10_000_000, 'a whole number of connections (0 = no cap)') : undefined;
  const perAddressRaw = read.string('SILO_MAX_CONNECTIONS_PER_ADDRESS');
  const maxConnectionsPerAddress = perAddressRaw ? integer(perAddressRaw, 0, 10_000_000, 'a whole number of connections (0 = no cap)') : undefined;
  const bodyRateRaw = read.string('SILO_MIN_BODY_RATE');
  const minBodyRate = bodyRateRaw ? (bodyRateRaw.value === '0' ? 0 : parseBytes(bodyRateRaw)) : undefined;

  const certRaw = read.string('SILO_TLS_CERT');
  const keyRaw = read.string('SILO_TLS_KEY');
  let tls: ServerConfig['tls'];
  if (certRaw || keyRaw) {
    if (!certRaw || !keyRaw) throw new ConfigError('SILO_TLS_CERT and SILO_TLS_KEY go together: set both (PEM files) or neither');
    const certPath = path.resolve(cwd, certRaw.value);
    const keyPath = path.resolve(cwd, keyRaw.value);
    for (const [p, got] of [[certPath, certRaw], [keyPath, keyRaw]] as const) {
      try {
        fs.accessSync(p, fs.constants.R_OK);
      } catch {
        throw new ConfigError(`${got.source}: cannot read ${p}`);
      }
    }
    try {
      tlsContext({ cert: fs.readFileSync(certPath), key: fs.readFileSync(keyPath) });
    } catch (error) {
      throw new ConfigError(`cannot use SILO_TLS_CERT/SILO_TLS_KEY: ${(error as Error).message}`);
    }
    tls = { certPath, keyPath };
  }

  const metrics = metricsConfig(read, port, regionPorts);

  return {
    port,
    ...(listenRaw ? { listenAddress: listenRaw.value } : {}),
    ...storage,
    hosts,
    ...(Object.keys(regionPorts).length > 0 ? { regionPorts } : {}),
    ...(corsOrigins !== undefined ? { corsOrigins } : {}),
    ...(rateLimitPerMinute !== undefined ? { rateLimitPerMinute } : {}),
    ...(maxDataBytes !== undefined ? { maxDataBytes } : {}),
    ...(historyVersions !== undefined ? { historyVersions } : {}),
    ...(maxKeys !== undefined ? { maxKeys } : {}),
    ...(accountRateLimitPerMinute !== undefined ? { accountRateLimitPerMinute } : {}),
    ...(workers !== undefined ? { workers } : {}),
    ...(memoryBudgetBytes !== undefined ? { memoryBudgetBytes } : {}),
    ...(maxStreamsPerClient !== undefined ? { maxStreamsPerClient } : {}),
    publicQueries: read.boolean('SILO_PUBLIC_QUERIES'),
    ...(read.boolean('SILO_REQUIRE_IF_MATCH') ? { requireIfMatch: true } : {}),
    ...(read.boolean('SILO_WEBHOOK_ALLOW_PRIVATE') ? { webhookAllowPrivate: true } : {}),
    trustProxy: read.boolean('SILO_TRUST_PROXY'),
    logLevel: oneOf(read.string('SILO_LOG_LEVEL'), LOG_LEVELS, 'info'),
    logFormat: oneOf(read.string('SILO_LOG_FORMAT'), ['json', 'pretty'] as const, 'json'),
    ...(tls ? { tls } : {}),
    ...(maxConnections !== undefined ? { maxConnections } : {}),
    ...(maxConnectionsPerAddress !== undefined ? { maxConnectionsPerAddress } : {}),
    ...(minBodyRate !== undefined ? { minBodyRate } : {}),
    ...(auditDays !== undefined ? { auditDays } : {}),
    ...(metrics ? { metrics } : {}),
  };
}

/** Loopback addresses: a metrics listener there needs no token. */
function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\./.test(host);
}

/** SILO_METRICS_PORT, _HOST and _TOKEN: undefined (metrics off) without a port. */
function metricsConfig(read: Reader, apiPort: number, regionPorts: Partial<Record<Region, number>>): ServerConfig['metrics'] {
  const portRaw = read.string('SILO_METRICS_PORT');
  const hostRaw = read.string('SILO_METRICS_HOST');
  const tokenRaw = read.string('SILO_METRICS_TOKEN');
  if (!portRaw) {
    if (hostRaw || tokenRaw) throw new ConfigError(`${(hostRaw ?? tokenRaw)!.source} has no effect without SILO_METRICS_PORT (metrics are off unless it is set)`);
    return undefined;
  }
  const port = integer(portRaw, 0, 65535, 'a port number from 0 to 65535');
  if (port !== 0 && (port === apiPort || Object.values(regionPorts).includes(port))) {
    throw new ConfigError(`${portRaw.source} repeats the port of another listener: ${port}; metrics are never served on the API's port`);
  }
  const host = hostRaw?.value ?? '127.0.0.1';
  if (hostRaw && net.isIP(host) === 0 && host !== 'localhost') {
    throw new ConfigError(`${hostRaw.source} must be an IP address such as 127.0.0.1 or ::, got ${JSON.stringify(hostRaw.value)}`);
  }
  const token = tokenRaw?.value;
  if (token !== undefined && !/^[\x21-\x7e]{16,}$/.test(token)) {
    throw new ConfigError(`${tokenRaw!.source} must be at least 16 visible ASCII characters (no spaces)`);
  }
  if (!isLoopback(host) && token === undefined) {
    throw new ConfigError(`${hostRaw!.source} ${JSON.stringify(host)} exposes the metrics beyond this machine: set SILO_METRICS_TOKEN too (scrapes then send Authorization: Bearer <token>)`);
  }
  return { port, host, ...(token !== undefined ? { token } : {}) };
}

/** The settings as `silo --help` shows them. */
export function settingsHelp(): string {
  const rows = SETTINGS.map((s) => [s.kind === 'string' ? `--${s.flag} V` : `--[no-]${s.flag}`, s.env, s.help, s.default ? `(default: ${s.default})` : '']);
  const w0 = Math.max(...rows.map((r) => r[0]!.length));
  const w1 = Math.max(...rows.map((r) => r[1]!.length));
  return rows.map(([f, e, h, d]) => `  ${f!.padEnd(w0)}  ${e!.padEnd(w1)}  ${h} ${d}`.trimEnd()).join('\n');
}
