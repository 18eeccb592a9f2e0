/**
 * silo-server: the standalone Silo server and the `silo` command, for embedders that want the
 * same pieces in their own process.
 */
export { main, type Io } from './cli.js';
// koa-silo's default host of each region, still part of this package's API for embedders.
export { DEFAULT_HOSTS } from 'koa-silo/model';
export {
  ConfigError,
  loadConfig,
  loadStorageConfig,
  SETTINGS,
  type Env,
  type Flags,
  type ServerConfig,
  type Setting,
} from './config.js';
export { createLogger, silentLogger, type Logger } from './log.js';
export { bootstrap, createApp, openSilo, siloOptions, startServer, type RunningServer, type StartOptions } from './serve.js';
export { createSqliteKeyv, sqliteKeyv, SqliteStore, type SqliteStoreOptions, type SqliteSynchronous } from './sqlite-store.js';
export {
  openStores,
  parseStoreUrl,
  redact,
  StartupError,
  type OpenStoresOptions,
  type StoreHandle,
  type StoreLocation,
  type StoreRole,
  type Stores,
} from './stores.js';
