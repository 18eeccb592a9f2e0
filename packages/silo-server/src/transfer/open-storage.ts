/**
 * koa-silo's storage facade over the stores of a configuration or a store URL, for the transfer
 * commands: they read and write records directly (no HTTP, no service rules), so that an export
 * holds every record as stored and an import writes them back as they were.
 */
import { createStorage, type SiloStorage } from 'koa-silo';
import { REGIONS, type Region } from 'koa-silo/model';
import type { SqliteSynchronous } from '../sqlite-store.js';
import { openStores, type StoreLocation } from '../stores.js';

export interface StorageLocations {
  main: StoreLocation;
  regions: Record<Region, StoreLocation>;
}

export interface OpenedStorage {
  storage: SiloStorage;
  close(): Promise<void>;
}

/** Every region in the main store: what a store URL alone (`--from`, `--to`) names. */
export function oneStore(main: StoreLocation): StorageLocations {
  return { main, regions: Object.fromEntries(REGIONS.map((r) => [r, main])) as Record<Region, StoreLocation> };
}

export async function openStorage(locations: StorageLocations, sqliteSynchronous: SqliteSynchronous = 'normal'): Promise<OpenedStorage> {
  const stores = await openStores({ main: locations.main, regions: locations.regions, sqliteSynchronous });
  let storage: SiloStorage;
  try {
    storage = createStorage({
      main: stores.main.keyv,
      regions: Object.fromEntries(REGIONS.map((r) => [r, stores.regions[r].keyv])),
    });
  } catch (error) {
    await stores.close();
    throw error;
  }
  return {
    storage,
    async close() {
      await storage.close().catch(() => undefined);
      await stores.close();
    },
  };
}
