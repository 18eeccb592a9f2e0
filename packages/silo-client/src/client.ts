/**
 * SiloClient: every call of Silo's HTTP API, typed from its OpenAPI document (generated/), on
 * `fetch`, for Node 20+ and browsers.
 *
 * - Keys travel in headers: `X-MAN-API` (manage key) for the management API, history and
 *   webhooks; `X-SILO-KEY` (access key) for private reads and their change feeds.
 * - Data lives on its region's host. Management answers on every host (`baseUrl`); reads and
 *   change feeds go to the silo's region: `regionUrls[region]`, or `baseUrl` with its first host
 *   label swapped for the region (`api.example.com` → `sg-01-api.example.com`); with neither, a
 *   SiloRegionError, before any request. The client remembers each silo's region from the
 *   answers it sees (create, meta, list, updates).
 * - Numbers stay exactly as written: answers are parsed with silo-query's `parseJson` (a
 *   `JsonNumber` where a double would change a number; `numbers: 'double'` reads them as
 *   JSON.parse does instead) and bodies written with its `toJSON` (a `JsonNumber` or a `bigint`
 *   goes out as its digits).
 * - Every call takes an AbortSignal; 429 and 503 are retried (bounded) as Retry-After says.
 * - Writes that answer the document (update, the patches, restore) answer only its metadata with
 *   `{ minimal: true }` (`Prefer: return=minimal`, RFC 7240).
 */
import { parseJson, type JsonValue } from 'silo-query';
import { isSiloError, SiloError, SiloRegionError } from './errors.js';
import { auditEvents, events, opened, type AuditEvent, type AuditEventOptions, type EventOptions, type SiloEvent } from './events.js';
import type { components, operations } from './generated/openapi.js';
import { backoffMs, call, jsonOf, sleep, type RetryOptions, type Transport } from './http.js';
import { queryString, type ReadQuery } from './query.js';

type Schemas = components['schemas'];

export type Region = Schemas['SiloMeta']['region_name'];
export type FileData = Schemas['FileData'];
export type SiloCreate = Schemas['SiloCreate'];
export type SiloUpdate = Schemas['SiloUpdate'];
export type SiloMergePatch = Schemas['SiloMergePatch'];
export type JsonPatch = Schemas['SiloJsonPatch'];
export type JsonPatchOperation = JsonPatch[number];
export type SiloCreated = Schemas['SiloCreated'];
export type SiloMeta = Schemas['SiloMeta'];
export type SiloList = Schemas['SiloList'];
export type SiloListItem = SiloList['silos'][number];
export type SiloUpdated = Schemas['SiloUpdated'];
export type SiloDeleted = Schemas['SiloDeleted'];
export type VersionList = Schemas['VersionList'];
export type VersionInfo = Schemas['VersionInfo'];
export type VersionData = Schemas['VersionData'];
export type WebhookCreate = Schemas['WebhookCreate'];
export type WebhookInfo = Schemas['WebhookInfo'];
export type WebhookCreated = Schemas['WebhookCreated'];
export type WebhookDeleted = Schemas['WebhookDeleted'];
export type WebhookRetried = Schemas['WebhookRetried'];
export type Delivery = Schemas['DeliveryList']['deliveries'][number];
/** The body a webhook's URL receives (verify its signature first: Standard Webhooks). */
export type WebhookEvent = Schemas['WebhookEvent'];
export type AuditEntry = Schemas['AuditEntry'];
export type AuditAction = AuditEntry['action'];
export type AuditList = Schemas['AuditList'];
/** The audit log's query parameters, as the API names them. */
type AuditParams = NonNullable<operations['listAudit']['parameters']['query']>;

/** The regions, in the order of the API's documentation. */
export const REGIONS: readonly Region[] = ['api', 'sg-01-api', 'usc-01-api'];

/** An answer with the ETag of the silo's version: give it back as `ifMatch` to write only if nobody wrote in between. */
export type Tagged<T> = T & { etag: string };

export interface SiloClientOptions {
  /** Where the API is: `https://api.example.com`, `http://localhost:8080`. */
  baseUrl: string;
  /** A manage key (`silo_man_...`): the management API, history, webhooks, the account's feed. */
  manageKey?: string | undefined;
  /** An access key (`silo_acc_...`): private reads and their change feeds. Without it, reads use the public address. */
  accessKey?: string | undefined;
  /** The region `baseUrl` serves (default `api`). */
  region?: Region | undefined;
  /** A base URL per region, for servers that give each region a host or port of its own (`SILO_PORT_SG_01_API`). */
  regionUrls?: Partial<Record<Region, string>>;
  /** Retries of 429 and 503 (bounded; Retry-After honoured). */
  retry?: RetryOptions;
  /** The fetch to use (default: globalThis.fetch). */
  fetch?: typeof fetch;
  /**
   * How numbers in silo data come back. `'exact'` (default): as sent, a JsonNumber where a double
   * would change the text (`5.0`, `12.50`, 20-digit ids; see README, Exact numbers). `'double'`:
   * as `JSON.parse` reads them, plain numbers throughout, rounded where a double cannot hold them
   * (and written back so: use it when the data's number texts do not matter to you).
   */
  numbers?: 'exact' | 'double';
}

/** What every call takes. */
export interface CallOptions {
  /** Ends the call (and any wait between retries): the promise rejects with the signal's reason. */
  signal?: AbortSignal | undefined;
}

/** Writes that can be conditional. */
export interface WriteOptions extends CallOptions {
  /** The ETag of the version this write expects: a 412 SiloError when the silo has changed since. */
  ifMatch?: string;
}

/**
 * Writes that answer the silo (update, the patches, restore, retryOnConflict): conditional, and
 * with `minimal`, answered without the document.
 */
export interface UpdateOptions extends WriteOptions {
  /**
   * Sends `Prefer: return=minimal` (RFC 7240): the answer is the metadata, `version` and `etag`
   * only, without `file_data`, for a caller that has the document already (it just sent it). The
   * server does the same write either way; a large silo's answer is then a few hundred bytes.
   * (A server from before the preference ignores it and sends the document all the same.)
   */
  minimal?: boolean;
}

/** A write asked for a minimal answer. */
export type MinimalOptions = UpdateOptions & { minimal: true };
/** A write that answers the document. */
export type FullOptions = UpdateOptions & { minimal?: false };

export interface PageOptions extends CallOptions {
  /** 1-based (default 1). */
  page?: number;
  /** 1 to 100 (default 25). */
  perPage?: number;
}

/** Which audit entries to list, and which page of them. */
export interface AuditQuery {
  /** 1-based (default 1). */
  page?: number;
  /** 1 to 100 (default 25). */
  perPage?: number;
  /** Only entries at or after this time (a Date, or RFC 3339 text such as `2026-05-01T00:00:00Z`). */
  since?: Date | string;
  /** Only the entries of this silo (its file_uuid). */
  silo?: string;
  /** Only the entries of actors of this name: a manage key's name, a console user, `silo` (the command). */
  actor?: string;
}

/** Where a read goes: the private address (access key) or the public one (no key, public silos). */
export type Address = 'private' | 'public';

export interface ReadOptions extends CallOptions {
  /** Default: private when the client has an access key, else public. */
  address?: Address;
  /** The silo's region, when the client has not seen it yet (default: what it remembers, else the client's region). */
  region?: Region;
}

/** A read's answer: the JSON (numbers exact), the count of a search, filter or paging query, the ETag. */
export interface ReadResult<T extends JsonValue = JsonValue> {
  data: T;
  /** `X-Total-Count`: the matches before offset and limit (only for a search, filter, limit or offset). */
  total: number | undefined;
  etag: string | undefined;
}

/** What `retryOnConflict` gives the function: the silo's data now, and its ETag. */
export interface Current {
  data: FileData;
  etag: string;
}

/** What `retryOnConflict` calls: the fields to write given the silo now, or undefined to write nothing. */
export type Change = (current: Current) => SiloUpdate | undefined | Promise<SiloUpdate | undefined>;

export interface ConflictOptions extends CallOptions {
  /** Attempts in all (default 5). */
  attempts?: number;
  /** The write's answer without `file_data` (see UpdateOptions.minimal): `change` already knows what it wrote. */
  minimal?: boolean;
}

// A minute: the longest Retry-After of a rate limit per minute, which a 429 says at the start of the window.
const DEFAULT_RETRY: Required<RetryOptions> = { retries: 2, baseDelayMs: 500, maxDelayMs: 60_000 };
/** Silos whose region the client remembers, at most. */
const REMEMBERED = 10_000;

const MERGE_PATCH = 'application/merge-patch+json';
const JSON_PATCH = 'application/json-patch+json';

export class SiloClient {
  readonly baseUrl: string;
  readonly region: Region;
  readonly #manageKey: string | undefined;
  readonly #accessKey: string | undefined;
  readonly #regionUrls: Partial<Record<Region, string>>;
  readonly #transport: Transport;
  readonly #regions = new Map<string, Region>();

  /** The account's webhooks. */
  readonly webhooks: Webhooks;
  /** The account's audit log, and its feed. */
  readonly audit: Audit;

  constructor(options: SiloClientOptions) {
    this.baseUrl = trimSlash(options.baseUrl);
    this.region = options.region ?? 'api';
    this.#manageKey = options.manageKey;
    this.#accessKey = options.accessKey;
    this.#regionUrls = Object.fromEntries(Object.entries(options.regionUrls ?? {}).map(([r, url]) => [r, trimSlash(url)]));
    const fetchFn = options.fetch ?? globalThis.fetch.bind(globalThis);
    const numbers = options.numbers ?? 'exact';
    if (numbers !== 'exact' && numbers !== 'double') throw new TypeError(`numbers must be 'exact' or 'double', not ${JSON.stringify(numbers)}`);
    this.#transport = { fetch: fetchFn, retry: { ...DEFAULT_RETRY, ...options.retry }, parse: numbers === 'double' ? JSON.parse : parseJson };
    this.webhooks = new Webhooks((method, path, init) => this.#manage(method, path, init));
    this.audit = new Audit(
      (method, path, init) => this.#manage(method, path, init),
      (options) => opened(() => auditEvents({ transport: this.#transport, url: `${this.baseUrl}/api/v1/manage/audit/events`, headers: this.#key('manage'), options })),
    );
  }

  // ---- management -------------------------------------------------------------------------

  /** POST /api/v1/manage/: a new silo (201). */
  async create(body: SiloCreate, options: CallOptions = {}): Promise<Tagged<SiloCreated>> {
    const response = await this.#manage('POST', '/api/v1/manage/', { json: body, signal: options.signal, retry503: false });
    return this.#tagged<SiloCreated>(response);
  }

  /** GET /api/v1/manage/silos: one page of the account's silos, newest first. */
  async list(options: PageOptions = {}): Promise<SiloList> {
    const response = await this.#manage('GET', `/api/v1/manage/silos${pageQuery(options)}`, { signal: options.signal });
    const list = await jsonOf<SiloList>(response, this.#transport.parse);
    for (const silo of list.silos) this.#remember(silo);
    return list;
  }

  /** Every silo of the account, page after page (newest first). */
  async *listAll(options: Omit<PageOptions, 'page'> = {}): AsyncGenerator<SiloListItem> {
    const perPage = options.perPage ?? 100;
    for (let page = 1; ; page++) {
      const { silos, metadata } = await this.list({ ...options, page, perPage });
      yield* silos;
      if (silos.length < perPage || page * perPage >= metadata.total_items) return;
    }
  }

  /** GET /api/v1/manage/meta/{file_uuid}: the metadata and version. */
  async meta(uuid: string, options: CallOptions = {}): Promise<Tagged<SiloMeta>> {
    const response = await this.#manage('GET', `/api/v1/manage/meta/${segment(uuid)}`, { signal: options.signal });
    return this.#tagged<SiloMeta>(response);
  }

  /** GET /api/v1/manage/{file_uuid}: the stored JSON, numbers exact. */
  async get(uuid: string, options: CallOptions = {}): Promise<Tagged<{ data: FileData }>> {
    const response = await this.#manage('GET', `/api/v1/manage/${segment(uuid)}`, { signal: options.signal });
    return this.#tagged<{ data: FileData }>(response);
  }

  /**
   * PATCH /api/v1/manage/{file_uuid}: the fields sent replace the stored ones (file_data whole).
   * Answers the silo with its data, or with `{ minimal: true }` its metadata and version only.
   */
  update(uuid: string, fields: SiloUpdate, options: MinimalOptions): Promise<Tagged<SiloMeta>>;
  update(uuid: string, fields: SiloUpdate, options?: FullOptions): Promise<Tagged<SiloUpdated>>;
  update(uuid: string, fields: SiloUpdate, options?: UpdateOptions): Promise<Tagged<SiloUpdated> | Tagged<SiloMeta>>;
  update(uuid: string, fields: SiloUpdate, options: UpdateOptions = {}): Promise<Tagged<SiloUpdated> | Tagged<SiloMeta>> {
    return this.#write('PATCH', uuid, '', fields, undefined, options);
  }

  /** PATCH with an RFC 7386 merge patch of `{file_name, file_data, region_name, is_public}`; answers as `update`. */
  mergePatch(uuid: string, patch: SiloMergePatch, options: MinimalOptions): Promise<Tagged<SiloMeta>>;
  mergePatch(uuid: string, patch: SiloMergePatch, options?: FullOptions): Promise<Tagged<SiloUpdated>>;
  mergePatch(uuid: string, patch: SiloMergePatch, options?: UpdateOptions): Promise<Tagged<SiloUpdated> | Tagged<SiloMeta>>;
  mergePatch(uuid: string, patch: SiloMergePatch, options: UpdateOptions = {}): Promise<Tagged<SiloUpdated> | Tagged<SiloMeta>> {
    return this.#write('PATCH', uuid, '', patch, MERGE_PATCH, options);
  }

  /** PATCH with an RFC 6902 JSON Patch of the same document, all or nothing (409 when it cannot apply); answers as `update`. */
  jsonPatch(uuid: string, operations: JsonPatch, options: MinimalOptions): Promise<Tagged<SiloMeta>>;
  jsonPatch(uuid: string, operations: JsonPatch, options?: FullOptions): Promise<Tagged<SiloUpdated>>;
  jsonPatch(uuid: string, operations: JsonPatch, options?: UpdateOptions): Promise<Tagged<SiloUpdated> | Tagged<SiloMeta>>;
  jsonPatch(uuid: string, operations: JsonPatch, options: UpdateOptions = {}): Promise<Tagged<SiloUpdated> | Tagged<SiloMeta>> {
    return this.#write('PATCH', uuid, '', operations, JSON_PATCH, options);
  }

  /** DELETE /api/v1/manage/{file_uuid}. */
  async delete(uuid: string, options: WriteOptions = {}): Promise<SiloDeleted> {
    const response = await this.#manage('DELETE', `/api/v1/manage/${segment(uuid)}`, {
      headers: ifMatchHeader(options),
      signal: options.signal,
      // A 503 may come after the delete applied: its repeat would be a 404 for a delete that worked.
      retry503: false,
    });
    this.#regions.delete(uuid.toLowerCase());
    return jsonOf<SiloDeleted>(response, this.#transport.parse);
  }

  // ---- history ----------------------------------------------------------------------------

  /** GET /api/v1/manage/{file_uuid}/versions: one page of its history, newest first. */
  async versions(uuid: string, options: PageOptions = {}): Promise<VersionList> {
    const response = await this.#manage('GET', `/api/v1/manage/${segment(uuid)}/versions${pageQuery(options)}`, { signal: options.signal });
    return jsonOf<VersionList>(response, this.#transport.parse);
  }

  /** GET /api/v1/manage/{file_uuid}/versions/{version}: one version's stored JSON (404 once pruned). */
  async version(uuid: string, version: number, options: CallOptions = {}): Promise<VersionData> {
    const response = await this.#manage('GET', `/api/v1/manage/${segment(uuid)}/versions/${versionSegment(version)}`, { signal: options.signal });
    return jsonOf<VersionData>(response, this.#transport.parse);
  }

  /** POST .../versions/{version}/restore: a new version with that version's file_data; answers as `update`. */
  restore(uuid: string, version: number, options: MinimalOptions): Promise<Tagged<SiloMeta>>;
  restore(uuid: string, version: number, options?: FullOptions): Promise<Tagged<SiloUpdated>>;
  restore(uuid: string, version: number, options?: UpdateOptions): Promise<Tagged<SiloUpdated> | Tagged<SiloMeta>>;
  restore(uuid: string, version: number, options: UpdateOptions = {}): Promise<Tagged<SiloUpdated> | Tagged<SiloMeta>> {
    return this.#write('POST', uuid, `/versions/${versionSegment(version)}/restore`, undefined, undefined, options);
  }

  /**
   * A read-modify-write that survives concurrent writers: reads the silo, calls `change` with its
   * data, and writes what `change` returns with If-Match; when another writer got in between (412),
   * reads again and calls `change` again, up to `attempts` times. `change` returning undefined
   * writes nothing (the answer is then undefined). With `{ minimal: true }`, the write's answer
   * is the metadata and version only.
   */
  retryOnConflict(uuid: string, change: Change, options: ConflictOptions & { minimal: true }): Promise<Tagged<SiloMeta> | undefined>;
  retryOnConflict(uuid: string, change: Change, options?: ConflictOptions & { minimal?: false }): Promise<Tagged<SiloUpdated> | undefined>;
  retryOnConflict(uuid: string, change: Change, options?: ConflictOptions): Promise<Tagged<SiloUpdated> | Tagged<SiloMeta> | undefined>;
  async retryOnConflict(uuid: string, change: Change, options: ConflictOptions = {}): Promise<Tagged<SiloUpdated> | Tagged<SiloMeta> | undefined> {
    const attempts = options.attempts ?? 5;
    for (let attempt = 1; ; attempt++) {
      const current = await this.get(uuid, options);
      const fields = await change({ data: current.data, etag: current.etag });
      if (fields === undefined) return undefined;
      try {
        return await this.update(uuid, fields, { ...options, ifMatch: current.etag });
      } catch (error) {
        if (!isSiloError(error, 412) || attempt >= attempts) throw error;
        await sleep(backoffMs(attempt - 1, 20), options.signal);
      }
    }
  }

  // ---- data -------------------------------------------------------------------------------

  /**
   * GET /{file_uuid} (access key) or /public/{file_uuid}: the stored JSON, or what the query
   * selects (idx, path, output; q, value, op; filter, sort, limit, offset, fields), on the
   * silo's region host.
   */
  async read<T extends JsonValue = JsonValue>(uuid: string, query: ReadQuery = {}, options: ReadOptions = {}): Promise<ReadResult<T>> {
    const address = options.address ?? (this.#accessKey ? 'private' : 'public');
    const qs = queryString(query);
    const path = `${address === 'public' ? '/public/' : '/'}${segment(uuid)}${qs ? `?${qs}` : ''}`;
    const response = await call(this.#transport, `${this.#dataBase(uuid, options.region)}${path}`, {
      method: 'GET',
      headers: address === 'private' ? this.#key('access') : {},
      signal: options.signal,
      retry503: true,
    });
    const total = response.headers.get('X-Total-Count');
    return { data: await jsonOf<T>(response, this.#transport.parse), total: total === null ? undefined : Number(total), etag: response.headers.get('ETag') ?? undefined };
  }

  /**
   * The change feed of a silo (`/{uuid}/events` with the access key, or `/public/{uuid}/events`)
   * or of the whole account (`'account'`: `/api/v1/manage/events`, manage key), as an async
   * iterator. A dropped connection is resumed with `Last-Event-ID`: the versions written
   * meanwhile are replayed (or a `reset` event says history no longer has them). It ends after a
   * `delete` or `move`, when `signal` aborts, or with a SiloError (a deleted silo, a revoked key).
   */
  events(target: string, options: EventOptions = {}): AsyncGenerator<SiloEvent> {
    return opened(() => this.#events(target, options));
  }

  #events(target: string, options: EventOptions): AsyncGenerator<SiloEvent> {
    if (target === 'account') {
      return events({ transport: this.#transport, url: `${this.baseUrl}/api/v1/manage/events`, headers: this.#key('manage'), options, eventSource: false, account: true });
    }
    const address = options.address ?? (this.#accessKey ? 'private' : 'public');
    const base = `${this.#dataBase(target, options.region)}${address === 'public' ? '/public/' : '/'}${segment(target)}/events`;
    return events({
      transport: this.#transport,
      url: options.data ? `${base}?data=1` : base,
      headers: address === 'private' ? this.#key('access') : {},
      options,
      // EventSource sends no headers of ours: it can carry only a public feed.
      eventSource: address === 'public',
      onEvent: (event) => {
        if (event.type === 'move') this.#regions.set(target.toLowerCase(), event.data.region_name);
      },
    });
  }

  // ---- internals --------------------------------------------------------------------------

  async #write(method: 'PATCH' | 'POST', uuid: string, tail: string, body: unknown, contentType: string | undefined, options: UpdateOptions): Promise<Tagged<SiloUpdated> | Tagged<SiloMeta>> {
    const headers = {
      ...ifMatchHeader(options),
      ...(contentType ? { 'Content-Type': contentType } : {}),
      // Opt-in, never by default: Prefer is no CORS-safelisted header, so a browser asks the server first.
      ...(options.minimal ? { Prefer: 'return=minimal' } : {}),
    };
    const response = await this.#manage(method, `/api/v1/manage/${segment(uuid)}${tail}`, {
      json: body,
      headers,
      signal: options.signal,
      // A conditional write cannot apply twice: its repeat after an unknown outcome is a 412 at worst.
      retry503: options.ifMatch !== undefined,
    });
    return options.minimal ? this.#tagged<SiloMeta>(response) : this.#tagged<SiloUpdated>(response);
  }

  #manage(method: string, path: string, init: { json?: unknown; headers?: Record<string, string>; signal?: AbortSignal | undefined; retry503?: boolean }): Promise<Response> {
    return call(this.#transport, `${this.baseUrl}${path}`, {
      method,
      headers: { ...this.#key('manage'), ...init.headers },
      json: init.json,
      signal: init.signal,
      retry503: init.retry503 ?? (method === 'GET' || method === 'DELETE'),
    });
  }

  #key(type: 'manage' | 'access'): Record<string, string> {
    const key = type === 'manage' ? this.#manageKey : this.#accessKey;
    if (key === undefined) throw new TypeError(`This call needs ${type === 'manage' ? 'a manage key (manageKey)' : 'an access key (accessKey)'}`);
    return type === 'manage' ? { 'X-MAN-API': key } : { 'X-SILO-KEY': key };
  }

  async #tagged<T extends object>(response: Response): Promise<Tagged<T>> {
    const body = await jsonOf<T>(response, this.#transport.parse);
    this.#remember(body);
    return Object.assign(body, { etag: response.headers.get('ETag') ?? '' });
  }

  /** Notes the region of a silo seen in an answer. */
  #remember(body: object): void {
    const { file_uuid: uuid, region_name: region } = body as { file_uuid?: unknown; region_name?: unknown };
    if (typeof uuid !== 'string' || typeof region !== 'string' || !REGIONS.includes(region as Region)) return;
    const key = uuid.toLowerCase();
    this.#regions.delete(key);
    this.#regions.set(key, region as Region);
    if (this.#regions.size > REMEMBERED) {
      // The oldest eighth at once: a Map's deleted entries stay as holes until it rehashes, and
      // dropping one at a time walked all of them on each call.
      let drop = REMEMBERED >> 3;
      for (const oldest of this.#regions.keys()) {
        if (drop-- === 0) break;
        this.#regions.delete(oldest);
      }
    }
  }

  /**
   * The base URL of the host that serves `uuid`'s data. Throws a SiloRegionError when there is
   * none to derive: `baseUrl` does not serve that region, and asking it anyway answers a 404 that
   * says the silo does not exist.
   */
  #dataBase(uuid: string, region: Region | undefined): string {
    const r = region ?? this.#regions.get(uuid.toLowerCase()) ?? this.region;
    const explicit = this.#regionUrls[r];
    if (explicit) return explicit;
    if (r === this.region) return this.baseUrl;
    const url = new URL(this.baseUrl);
    const [first, ...rest] = url.hostname.split('.');
    if (rest.length === 0 || !REGIONS.includes(first as Region)) throw new SiloRegionError(r, uuid, this.baseUrl);
    url.hostname = [r, ...rest].join('.');
    return trimSlash(url.toString());
  }
}

type ManageCall = (method: string, path: string, init: { json?: unknown; signal?: AbortSignal | undefined; retry503?: boolean }) => Promise<Response>;

/** Webhooks of the account (manage key): signed POSTs of silo changes (contract §12). */
export class Webhooks {
  readonly #manage: ManageCall;

  /** @internal */
  constructor(manage: ManageCall) {
    this.#manage = manage;
  }

  /** GET /api/v1/manage/webhooks: every webhook (never their secrets). */
  async list(options: CallOptions = {}): Promise<WebhookInfo[]> {
    const response = await this.#manage('GET', '/api/v1/manage/webhooks', { signal: options.signal });
    return (await jsonOf<{ webhooks: WebhookInfo[] }>(response)).webhooks;
  }

  /** GET /api/v1/manage/webhooks/{id}: one webhook (never its secret). */
  async get(id: string, options: CallOptions = {}): Promise<WebhookInfo> {
    const response = await this.#manage('GET', `/api/v1/manage/webhooks/${segment(id)}`, { signal: options.signal });
    return jsonOf<WebhookInfo>(response);
  }

  /** POST /api/v1/manage/webhooks: the answer holds the signing `secret`, this once. */
  async create(body: WebhookCreate, options: CallOptions = {}): Promise<WebhookCreated> {
    const response = await this.#manage('POST', '/api/v1/manage/webhooks', { json: body, signal: options.signal, retry503: false });
    return jsonOf<WebhookCreated>(response);
  }

  /** DELETE /api/v1/manage/webhooks/{id}. */
  async delete(id: string, options: CallOptions = {}): Promise<WebhookDeleted> {
    const response = await this.#manage('DELETE', `/api/v1/manage/webhooks/${segment(id)}`, { signal: options.signal });
    return jsonOf<WebhookDeleted>(response);
  }

  /** GET /api/v1/manage/webhooks/{id}/deliveries: recent attempts, newest first. */
  async deliveries(id: string, options: CallOptions = {}): Promise<Delivery[]> {
    const response = await this.#manage('GET', `/api/v1/manage/webhooks/${segment(id)}/deliveries`, { signal: options.signal });
    return (await jsonOf<{ deliveries: Delivery[] }>(response)).deliveries;
  }

  /** POST /api/v1/manage/webhooks/{id}/retry: deliveries waiting for a retry are attempted now. */
  async retry(id: string, options: CallOptions = {}): Promise<WebhookRetried> {
    const response = await this.#manage('POST', `/api/v1/manage/webhooks/${segment(id)}/retry`, { signal: options.signal, retry503: true });
    return jsonOf<WebhookRetried>(response);
  }
}

/** The account's audit log (manage key): who did what, when, from where, and whether it succeeded (contract §19). */
export class Audit {
  readonly #manage: ManageCall;
  readonly #feed: (options: AuditEventOptions) => AsyncGenerator<AuditEvent>;

  /** @internal */
  constructor(manage: ManageCall, feed: (options: AuditEventOptions) => AsyncGenerator<AuditEvent>) {
    this.#manage = manage;
    this.#feed = feed;
  }

  /** GET /api/v1/manage/audit: one page of the account's entries, newest first. */
  async list(query: AuditQuery = {}, options: CallOptions = {}): Promise<AuditList> {
    const response = await this.#manage('GET', `/api/v1/manage/audit${auditQuery(query)}`, { signal: options.signal });
    return jsonOf<AuditList>(response);
  }

  /**
   * Every entry the query selects, page after page (newest first). As with the silo list, an
   * entry that commits meanwhile pushes the older ones down a place, so one may come twice: to
   * follow the log as it grows, use `events`.
   */
  async *listAll(query: Omit<AuditQuery, 'page'> = {}, options: CallOptions = {}): AsyncGenerator<AuditEntry> {
    const perPage = query.perPage ?? 100;
    for (let page = 1; ; page++) {
      const { entries, metadata } = await this.list({ ...query, page, perPage }, options);
      yield* entries;
      if (entries.length < perPage || page * perPage >= metadata.total_items) return;
    }
  }

  /**
   * GET /api/v1/manage/audit/events: each entry as it commits, as an async iterator. A dropped
   * connection is resumed from the last entry's time: none missed, none twice (a `reset` event
   * when more than the server replays were missed). It ends when its signal aborts, or with a
   * SiloError (a revoked key).
   */
  events(options: AuditEventOptions = {}): AsyncGenerator<AuditEvent> {
    return this.#feed(options);
  }
}

function trimSlash(url: string): string {
  return url.replace(/\/+$/, '');
}

function segment(value: string): string {
  return encodeURIComponent(value);
}

function versionSegment(version: number): string {
  if (!Number.isSafeInteger(version) || version < 1) throw new RangeError(`A version is a positive integer, not ${version}`);
  return String(version);
}

function pageQuery(options: PageOptions): string {
  return queryOf({ page: options.page, per_page: options.perPage });
}

function auditQuery(query: AuditQuery): string {
  const since = query.since instanceof Date ? query.since.toISOString() : query.since;
  const params: AuditParams = { page: query.page, per_page: query.perPage, since, silo: query.silo, actor: query.actor };
  return queryOf(params);
}

/** `?name=value&...` of the parameters given (none: ''). */
function queryOf(values: Record<string, string | number | undefined>): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(values)) if (value !== undefined) params.set(name, String(value));
  // Not params.size: browsers before 2023 (Safari 16, Chrome 112) have none, and no parameter would be sent.
  const text = params.toString();
  return text === '' ? '' : `?${text}`;
}

function ifMatchHeader(options: WriteOptions): Record<string, string> {
  return options.ifMatch === undefined ? {} : { 'If-Match': options.ifMatch };
}

export { SiloError };
