/**
 * Who owns a silo, for reads by uuid alone (the public data API) where storage places a silo's
 * keys by account (a Redis Cluster, see storage-keys.ts): one record per silo, written before the
 * create's commit and removed after the delete's commit. A silo never changes owner and a uuid is
 * never reused, so an owner once read is remembered (up to CACHE_SIZE silos).
 *
 * A crash between those steps leaves a record naming an account without that silo: reads then
 * find no head there, the same 404 as a silo that never was.
 */
import { BoundedMap } from '../limits/bounded-map.js';
import type { KeyvTextStore } from './keyv-text-store.js';
import type { StorageKeys } from './storage-keys.js';

const CACHE_SIZE = 100_000;

export class SiloOwners {
  readonly #known = new BoundedMap<string, string>(CACHE_SIZE);

  constructor(
    private readonly main: KeyvTextStore,
    private readonly keys: StorageKeys,
  ) {}

  async of(uuid: string): Promise<string | undefined> {
    const known = this.#known.get(uuid);
    if (known !== undefined) return known;
    const account = await this.main.get(this.keys.owner(uuid));
    if (account !== undefined) this.#remember(uuid, account);
    return account;
  }

  async record(uuid: string, account: string): Promise<void> {
    await this.main.set(this.keys.owner(uuid), account);
    this.#remember(uuid, account);
  }

  async forget(uuid: string): Promise<void> {
    this.#known.delete(uuid);
    await this.main.delete(this.keys.owner(uuid));
  }

  #remember(uuid: string, account: string): void {
    this.#known.set(uuid, account);
  }
}
