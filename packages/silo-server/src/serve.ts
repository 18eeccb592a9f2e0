/**
 * The server's lifecycle: open the stores, bootstrap an empty storage, serve HTTP or HTTPS with
 * one log line per request and health endpoints, and shut down gracefully.
 */
import path from 'node:path';
import fs from 'node:fs';
import type http from 'node:http';
import type https from 'node:https';
import type { AddressInfo } from 'node:net';
import Koa, { type Context, type Next } from 'koa';
import {
  clientAddress,
  ConflictError,
  createSilo,
  jsonNotFound,
  redactKeyValues,
  SiloError,
  type AccountService,
  type ConsoleService,
  type CreatedKey,
  type Silo,
} from 'koa-silo';
import { COMMAND_ACTOR, DEFAULT_HOSTS, KEY_HEADER, REGIONS, type Region } from 'koa-silo/model';
import { consoleMiddleware } from 'silo-console';
import { isClientFault } from './client-errors.js';
import { collectGarbage } from './collect-garbage.js';
import { STORE_FILE, type ServerConfig } from './config.js';
import { resolveLimits, TIMEOUTS } from './connection-limits.js';
import { httpEdge } from './http-edge.js';
import { inDays, watchKeyExpiry } from './key-expiry.js';
import { createEdgeServer } from './http-server.js';
import { createLogger, errorFields, throttledWarn, type Logger, type ThrottledWarn } from './log.js';
import { plansOf } from './plans.js';
import { describeLocation, openStores, StartupError, type StoreLocation, type Stores } from './stores.js';
import { capTotalAcrossListeners, regionPorts, type RegionPorts } from './region-ports.js';
import { serverMetrics, startMetricsServer, type MetricsServer } from './metrics-server.js';

export interface StartOptions {
  /** Where log lines go. Default: JSON lines on stdout. */
  logger?: Logger;
  /**
   * Where the first-start banner (the one place key values are printed) goes. Default stderr:
   * never the JSON log stream, which travels further than a terminal.
   */
  printBanner?: (text: string) => void;
  /** How long in-flight requests may take to finish at shutdown before connections are cut. Default 10 s. */
  shutdownGraceMs?: number;
  /** How long to wait for each Redis at start. Default 2 s. */
  connectTimeoutMs?: number;
  /** Stores already opened from `config` (the server closes them when it stops). */
  stores?: Stores;
}

export interface RunningServer {
  /** The base URL, with the real port (useful with PORT=0). */
  url: string;
  port: number;
  /** The real port of each region that has its own (SILO_PORT_<REGION>). */
  regionPorts: Partial<Record<Region, number>>;
  /** The metrics listener's /metrics address, when SILO_METRICS_PORT is set. */
  metricsUrl?: string;
  server: http.Server | https.Server;
  silo: Silo;
  stores: Stores;
  /** Graceful shutdown: stop accepting, finish in-flight requests, close storage. Idempotent. */
  close(): Promise<void>;
}

/**
 * The Silo options of a configuration, over already opened stores. A `command` (the `silo` tool's
 * short runs) delivers no webhooks: the servers do.
 */
export function siloOptions(config: ServerConfig, stores: Stores, logger: Logger, role: 'server' | 'command' = 'server'): Parameters<typeof createSilo>[0] {
  return {
    store: stores.main.keyv,
    regionStores: Object.fromEntries(REGIONS.map((r) => [r, stores.regions[r].keyv])),
    hosts: config.hosts,
    plans: plansOf(config),
    rateLimit: stores.redis ? { redis: stores.redis } : stores.postgres ? { postgres: stores.postgres, tableCreated: true } : { store: 'memory' },
    // The bus of PostgreSQL and of a SQLite file comes with the stores; on Redis koa-silo makes one.
    ...(stores.events ? { events: stores.events } : {}),
    ...(config.maxStreamsPerClient !== undefined ? { maxStreamsPerClient: config.maxStreamsPerClient } : {}),
    publicQueries: config.publicQueries,
    ...(config.requireIfMatch ? { requireIfMatch: true } : {}),
    webhooks: { deliver: role === 'server', allowPrivate: config.webhookAllowPrivate ?? false },
    console: true,
    ...(config.corsOrigins ? { corsOrigins: config.corsOrigins } : {}),
    trustProxy: config.trustProxy,
    ...(config.memoryBudgetBytes !== undefined ? { memoryBudgetBytes: config.memoryBudgetBytes } : {}),
    ...(config.workers !== undefined ? { work: { workers: config.workers } } : {}),
    collectGarbage,
    notFound: 'json',
    // Metrics only where a listener serves them: the server with SILO_METRICS_PORT.
    ...(role === 'server' && config.metrics ? { metrics: true } : {}),
    // The audit log names the `silo` command as the actor of what a command does.
    ...(role === 'command' ? { actor: COMMAND_ACTOR } : {}),
    logger: {
      error: (message: string, err?: unknown) => logger.error(message, errorFields(err)),
    },
  };
}

/** Opens the configured stores (a StartupError when one cannot be reached). */
export function openConfiguredStores(
  config: Pick<ServerConfig, 'store' | 'sqliteSynchronous'>,
  logger: Logger,
  connectTimeoutMs?: number,
): Promise<Stores> {
  return openStores({
    main: config.store.main,
    regions: config.store.regions,
    sqliteSynchronous: config.sqliteSynchronous,
    ...(connectTimeoutMs !== undefined ? { connectTimeoutMs } : {}),
    log: (level, msg, fields) => logger[level](msg, fields),
  });
}

/** Opens the configured stores and the Silo over them (for the server and the `silo` command). */
export async function openSilo(
  config: Pick<ServerConfig, 'store' | 'sqliteSynchronous'> & Partial<ServerConfig>,
  logger: Logger,
  connectTimeoutMs?: number,
  opened?: Stores,
  role: 'server' | 'command' = 'server',
): Promise<{ silo: Silo; stores: Stores }> {
  const stores = opened ?? (await openConfiguredStores(config, logger, connectTimeoutMs));
  try {
    const full: ServerConfig = {
      port: 0,
      dataDir: '',
      hosts: { ...DEFAULT_HOSTS },
      publicQueries: false,
      logLevel: 'info',
      logFormat: 'json',
      trustProxy: false,
      ...config,
    };
    const silo = createSilo(siloOptions(full, stores, logger, role));
    return { silo, stores };
  } catch (error) {
    await stores.close();
    throw error;
  }
}

/**
 * On an empty storage (no account at all): the account `default` with one manage key and one
 * access key. Returns the keys, or undefined when the storage was not empty (or another instance
 * bootstrapped it at the same moment).
 */
export interface FirstStart {
  manage: CreatedKey;
  access: CreatedKey;
  /** The console user `admin` of account `default`, and its generated password. */
  admin: { name: string; password: string };
}

export async function bootstrap(accounts: AccountService, users: ConsoleService): Promise<FirstStart | undefined> {
  if ((await accounts.listAccounts()).length > 0) return undefined;
  try {
    await accounts.createAccount('default');
  } catch (error) {
    if (error instanceof ConflictError) return undefined;
    throw error;
  }
  // The audit log names the first start as their maker.
  const by = { actor: { type: 'command' as const, name: 'silo serve' }, address: null };
  const manage = await accounts.createKey({ account: 'default', type: 'manage', name: 'default' }, by);
  const access = await accounts.createKey({ account: 'default', type: 'access', name: 'default' }, by);
  const admin = await users.createUser({ account: 'default', name: 'admin' }, by);
  return { manage, access, admin: { name: admin.name, password: admin.password } };
}

/**
 * How the banner's `silo` commands reach this server's storage: the data directory in front of
 * them when it is not the default one of the directory they are run from (`SILO_DATA_DIR=…` given
 * to `npm start` alone is not in the next command's environment); for a store URL, a word to give
 * the same one (it is not repeated: it may hold a password).
 */
export function commandStorage(config: Pick<ServerConfig, 'dataDir' | 'store'>, cwd = process.cwd()): { prefix: string; sameStoreUrl: boolean } {
  const main = config.store.main;
  if (main.kind !== 'sqlite' || main.path !== path.join(config.dataDir, STORE_FILE)) return { prefix: '', sameStoreUrl: true };
  if (config.dataDir === path.resolve(cwd, '.silo-data')) return { prefix: '', sameStoreUrl: false };
  return { prefix: `SILO_DATA_DIR=${shellWord(config.dataDir)} `, sameStoreUrl: false };
}

/** `text` as one word of a POSIX shell: as it is when it needs no quotes. */
function shellWord(text: string): string {
  return /^[\w./@%+=:,-]+$/.test(text) ? text : `'${text.replaceAll("'", `'\\''`)}'`;
}

/**
 * How the banner's commands run this very `silo`: `npx silo` where that finds it (the directory's
 * own node_modules/.bin, as after `npm ci` in the repository or an app that installed it), else
 * `node` and the path of the running bin. Run elsewhere, `npx silo` would look for a package of
 * that name on the registry, and would run whatever someone published under it.
 */
export function siloCommand(cwd = process.cwd(), bin = process.argv[1]): string {
  if (bin === undefined) return 'npx silo';
  const real = (file: string) => {
    try {
      return fs.realpathSync(file);
    } catch {
      return undefined;
    }
  };
  const running = real(bin) ?? path.resolve(bin);
  if (real(path.join(cwd, 'node_modules', '.bin', 'silo')) === running) return 'npx silo';
  const relative = path.relative(cwd, running);
  return `node ${shellWord(relative.startsWith('..') || path.isAbsolute(relative) ? running : relative)}`;
}

export function bannerText(url: string, keys: FirstStart, now = Date.now(), prefix = '', sameStoreUrl = false, silo = 'npx silo'): string {
  const expiresAt = keys.manage.expires_at;
  const left = expiresAt ? inDays(Date.parse(expiresAt) - now) : undefined;
  const expires = expiresAt ? `expires ${expiresAt}, ${left}` : 'never expires';
  return [
    '',
    'Silo: first start on empty storage. Created account "default" with two keys and a console user.',
    'Their values are shown this once and never again: store them now.',
    '',
    `  manage key "default" (${expires}): ${keys.manage.key}`,
    `  access key "default":  ${keys.access.key}`,
    `  console:               ${url}/console  user "${keys.admin.name}", password ${keys.admin.password}`,
    '',
    'Ready to paste into a shell:',
    '',
    `  export MANAGE_KEY=${keys.manage.key} ACCESS_KEY=${keys.access.key}`,
    '',
    'Then create a private silo and read it back:',
    '',
    `  curl -s -X POST ${url}/api/v1/manage/ -H "${KEY_HEADER.manage}: $MANAGE_KEY" -H 'Content-Type: application/json' \\`,
    `       -d '{"file_name": "hello", "file_data": {"hello": "world"}}'`,
    `  curl -s ${url}/<file_uuid from the answer> -H "${KEY_HEADER.access}: $ACCESS_KEY"`,
    '',
    ...(expiresAt
      ? [
          `The manage key stops working ${left}: before then, make one that lasts longer`,
          `(${prefix}${silo} keys create --type manage --name NAME --duration 365d). silo keys list, the console and`,
          "this server's log warn about a key 7 days before it expires.",
          '',
        ]
      : []),
    `More keys: ${prefix}${silo} keys create --type manage --name NAME; more console users: ${prefix}${silo} users create --name NAME   (${silo} --help)`,
    ...(sameStoreUrl ? ['(Run them with the same SILO_STORE_URL as this server.)'] : []),
    '',
  ].join('\n');
}

/** The Koa app: request log → HTTP edge checks (http-edge.ts) → health endpoints → Silo → JSON 404. */
export function createApp(opts: {
  silo: Silo;
  stores: Stores;
  logger: Logger;
  trustProxy: boolean;
  draining: () => boolean;
  /** Warn lines a client can cause at will (dropped connections); default: throttled `logger.warn`. */
  warn?: ThrottledWarn;
  /** Serves requests on region ports as their region (region-ports.ts). */
  regionPorts?: Pick<RegionPorts, 'middleware'>;
}): Koa {
  const { silo, stores, logger } = opts;
  const warn = opts.warn ?? throttledWarn(logger);
  const app = new Koa();
  // Errors are logged by the request log and by Silo's logger; Koa's own printer stays quiet.
  app.on('error', (err: unknown) => {
    if (err instanceof SiloError && err.status < 500) return;
    if (isClientFault(err)) warn('client error', { error: (err as Error).message }, (err as { code?: string }).code);
    else logger.error('unhandled error', errorFields(err));
  });

  // Not async: every request passes here, and an async function costs a promise.
  app.use(function requestLog(ctx: Context, next: Next) {
    const start = performance.now();
    if (opts.draining()) ctx.set('Connection', 'close');
    // `on`, not `once`: a response closes once, and once's wrapper is one more allocation per request.
    ctx.res.on('close', () => {
      const durationMs = performance.now() - start;
      logger.request({
        method: ctx.method,
        // A key pasted into a path or the Host header must not reach the log.
        path: redactKeyValues(ctx.path.length > 512 ? `${ctx.path.slice(0, 512)}…` : ctx.path),
        status: ctx.res.statusCode,
        duration_ms: Math.round(durationMs * 100) / 100,
        host: redactKeyValues(ctx.hostname.length > 256 ? `${ctx.hostname.slice(0, 256)}…` : ctx.hostname),
        ip: clientAddress(ctx, opts.trustProxy),
        ...(ctx.res.writableFinished ? {} : { aborted: true }),
      });
    });
    return next();
  });

  app.use(httpEdge());
  if (opts.regionPorts) app.use(opts.regionPorts.middleware);

  // Not async on the way through: every request passes here, and an async function costs a promise.
  app.use(function health(ctx: Context, next: Next) {
    return ctx.path === '/healthz' || ctx.path === '/readyz' ? answerHealth(ctx) : next();
  });
  async function answerHealth(ctx: Context): Promise<void> {
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') {
      ctx.set('Allow', 'GET, HEAD');
      ctx.status = 405;
      ctx.body = { detail: 'Method Not Allowed' };
      return;
    }
    ctx.set('Cache-Control', 'no-store');
    if (ctx.path === '/healthz') {
      ctx.body = { status: 'ok' };
      return;
    }
    if (opts.draining()) {
      ctx.status = 503;
      ctx.body = { status: 'unavailable', detail: 'The server is shutting down' };
      return;
    }
    try {
      await stores.check(1000);
      ctx.body = { status: 'ok' };
    } catch (error) {
      logger.warn('readiness check failed', errorFields(error));
      ctx.status = 503;
      ctx.body = { status: 'unavailable', detail: 'Storage is unreachable' };
    }
  }

  // The console's pages at /console; its API (/console/api/...) is koa-silo's.
  app.use(consoleMiddleware());
  app.use(silo.middleware());
  app.use(jsonNotFound());
  return app;
}

/** The PEM files (loadConfig has checked that they make a usable TLS context). */
export function readTls(config: Pick<ServerConfig, 'tls'>): { cert: Buffer; key: Buffer } | undefined {
  if (!config.tls) return undefined;
  try {
    return { cert: fs.readFileSync(config.tls.certPath), key: fs.readFileSync(config.tls.keyPath) };
  } catch (error) {
    throw new StartupError(`cannot read SILO_TLS_CERT/SILO_TLS_KEY: ${(error as Error).message}`);
  }
}

/** Connections the kernel may queue before the server accepts them (capped by net.core.somaxconn). */
const LISTEN_BACKLOG = 4096;

function listen(server: http.Server, config: ServerConfig): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException) => {
      const where = `${config.listenAddress ?? '*'}:${config.port}`;
      if (error.code === 'EADDRINUSE') reject(new StartupError(`cannot listen on ${where}: the port is in use (set PORT)`));
      else if (error.code === 'EACCES') reject(new StartupError(`cannot listen on ${where}: permission denied (ports below 1024 need privileges)`));
      else if (error.code === 'EADDRNOTAVAIL') reject(new StartupError(`cannot listen on ${where}: SILO_LISTEN_ADDRESS is not an address of this machine`));
      else reject(new StartupError(`cannot listen on ${where}: ${error.message}`));
    };
    server.once('error', onError);
    // A long accept queue: a burst of connections (refused at once by the caps, or not) must not
    // overflow it, or the kernel drops the next client's SYN and that client waits 1 s to retry.
    server.listen({ port: config.port, host: config.listenAddress, backlog: LISTEN_BACKLOG }, () => {
      server.off('error', onError);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

/** Which server instances may share the store, in the words of the start-up line. */
function instancesServed(main: StoreLocation, coordination: Silo['coordination']): string {
  if (coordination === 'in-process' || (main.kind === 'sqlite' && main.path === ':memory:')) return 'this process only';
  if (main.kind === 'sqlite') return 'processes on this machine sharing the file';
  return 'every instance given this store URL';
}

/** Starts the server; rejects with a StartupError (one-line message) when it cannot. */
export async function startServer(config: ServerConfig, options: StartOptions = {}): Promise<RunningServer> {
  const logger = options.logger ?? createLogger();
  const printBanner = options.printBanner ?? ((text: string) => process.stderr.write(text));
  let pem: ReturnType<typeof readTls>;
  try {
    pem = readTls(config);
  } catch (error) {
    await options.stores?.close();
    throw error;
  }
  const { silo, stores } = await openSilo(config, logger, options.connectTimeoutMs, options.stores);
  let draining = false;
  let server: http.Server | https.Server;
  let stopEdge: () => void;
  let port: number;
  let keys: Awaited<ReturnType<typeof bootstrap>>;
  let metricsServer: MetricsServer | undefined;
  const warn = throttledWarn(logger);
  const limits = resolveLimits(config);
  const regions = regionPorts(config);
  const counted = serverMetrics(silo.metrics, limits);
  try {
    const app = createApp({ silo, stores, logger, trustProxy: config.trustProxy, draining: () => draining, warn, regionPorts: regions });
    try {
      ({ server, stop: stopEdge } = createEdgeServer({ handler: app.callback(), limits, warn, onRefused: counted.connectionRefused, ...(pem ? { tls: pem } : {}) }));
    } catch (error) {
      throw new StartupError(`cannot use SILO_TLS_CERT/SILO_TLS_KEY: ${(error as Error).message}`);
    }
    port = await listen(server, config);
    // A later step of the start that fails closes what listens by then, then fails the start.
    const closeListening = async (error: unknown): Promise<never> => {
      stopEdge();
      await Promise.all([metricsServer?.close(), regions.close(), new Promise((resolve) => server.close(resolve))]);
      throw error;
    };
    if (config.regionPorts) {
      capTotalAcrossListeners(server, limits.total, () => {
        counted.connectionRefused('total');
        warn('connection refused', { reason: 'max_connections' }, 'total');
      });
      await regions.listen(server, (err) => warn('accepting a connection failed', { error: err.message, code: err.code }, err.code)).catch(closeListening);
    }
    if (config.metrics && silo.metrics) {
      metricsServer = await startMetricsServer(silo.metrics, config.metrics).catch(closeListening);
    }
    // Only once every listener is up: a start that cannot listen (a port in use) leaves empty
    // storage empty, so the next start is still the first and shows the new keys. Requests that
    // come meanwhile find no key yet: a 401, as for any unknown key.
    keys = await bootstrap(silo.accounts, silo.console).catch(closeListening);
  } catch (error) {
    await silo.close().catch(() => {});
    await stores.close();
    if (error instanceof SiloError) throw new StartupError(`storage: ${error.message}`);
    throw error;
  }

  const host = config.listenAddress && !['0.0.0.0', '::'].includes(config.listenAddress) ? config.listenAddress : 'localhost';
  const url = `${pem ? 'https' : 'http'}://${host.includes(':') ? `[${host}]` : host}:${port}`;
  logger.info('listening', {
    url,
    port,
    tls: Boolean(pem),
    // True when the first-start banner with the new keys follows this line.
    first_start: Boolean(keys),
    store: describeLocation(config.store.main),
    instances: instancesServed(config.store.main, silo.coordination),
    regions: Object.fromEntries(
      REGIONS.map((r) => [r, { host: config.hosts[r], ...(regions.ports[r] !== undefined ? { listen_port: regions.ports[r] } : {}), store: describeLocation(config.store.regions[r]) }]),
    ),
    limits: {
      max_connections: limits.total,
      max_connections_per_address: limits.perAddress,
      min_body_rate: limits.minBodyRate,
      headers_timeout_ms: TIMEOUTS.headersMs,
      request_timeout_ms: TIMEOUTS.requestMs,
      keep_alive_timeout_ms: TIMEOUTS.keepAliveMs,
    },
    ...(metricsServer ? { metrics: { url: metricsServer.url, token: Boolean(config.metrics?.token) } } : {}),
  });
  if (limits.lowered) {
    logger.warn('connection cap lowered to fit the open-file limit (raise ulimit -n to allow more)', {
      max_connections: limits.total,
      configured: limits.lowered.from,
      open_file_limit: limits.lowered.fileLimit,
    });
  }
  if (keys) {
    const { prefix, sameStoreUrl } = commandStorage(config);
    printBanner(bannerText(url, keys, Date.now(), prefix, sameStoreUrl, siloCommand()));
  }
  const expiryWatch = watchKeyExpiry(silo.accounts, logger);

  const grace = options.shutdownGraceMs ?? 10_000;
  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
      draining = true;
      logger.info('shutting down', {});
      // Event streams never finish by themselves: they end now, as a restart's clients reconnect.
      silo.endStreams();
      const closed = Promise.all([new Promise<void>((resolve) => server.close(() => resolve())), regions.close()]);
      // Keep-alive connections between requests are closed at once; busy ones after their response.
      const sweep = setInterval(() => server.closeIdleConnections(), 50);
      server.closeIdleConnections();
      const deadline = setTimeout(() => {
        logger.warn('shutdown grace period over: closing the remaining connections', { grace_ms: grace });
        server.closeAllConnections();
      }, grace);
      await closed;
      clearInterval(sweep);
      clearTimeout(deadline);
      stopEdge();
      await metricsServer?.close();
      await expiryWatch.stop();
      await silo.close().catch((error: unknown) => logger.error('closing storage failed', errorFields(error)));
      await stores.close();
      logger.info('stopped', {});
    })();
    return closing;
  };
  return { url, port, regionPorts: regions.ports, ...(metricsServer ? { metricsUrl: metricsServer.url } : {}), server: server!, silo, stores, close };
}
