/**
 * The work that grows with a silo's size, as tasks a worker thread runs (worker.ts), or the main
 * thread runs inline when they are small (index.ts). Each task is plain data in and plain data
 * out: a parsed value never crosses threads (a structured clone would copy it and drop its
 * JsonNumbers); texts go in, and texts or bytes come out.
 *
 * A worker keeps the parsed data of the silos it queried (one version each, LRU within its
 * byte budget, charged by heap-estimate.ts), so repeated queries of a large silo parse it once;
 * the pool sends a silo's work to the same worker.
 */
import { compile, parseJson, type CompiledQuery } from 'silo-query';
import { type JsonPatchOperation, type Region, SiloError, type SiloPatch } from '../model/index.js';
import { estimateParsedBytes } from '../limits/heap-estimate.js';
import { BoundedMap } from '../limits/bounded-map.js';
import { VersionCache } from '../limits/version-cache.js';
import { applySiloPatch, type Patched, type PatchLimits } from '../service/silo-patch.js';
import { checkedBody, type BodyShape, type CheckedBody } from './body-check.js';

export interface QueryTask {
  kind: 'query';
  uuid: string;
  etag: string;
  /** The query string (validated already: it compiled on the main thread). */
  search: string;
  /** The silo's data; absent when the worker is believed to hold its parse of this version. */
  text?: string;
}

/**
 * The answer's JSON as UTF-8 bytes (moved to the main thread, not copied) and, for a list query,
 * the matches before offset and limit; or a request for the text.
 */
export type QueryDone = { bytes: Uint8Array; total?: number } | { miss: true };

export interface PatchTask {
  kind: 'patch';
  uuid: string;
  etag: string;
  record: { file_name: string; region_name: Region; is_public: boolean; size: number };
  text: string;
  /**
   * As its JSON text when sent to a worker (a value would be copied, and lose its exact numbers),
   * or only the key under which the worker kept its parse when it checked the body (BodyTask.keep).
   */
  patch: SiloPatch | KeptPatch;
  limits: PatchLimits;
}

/** A patch body a worker parsed when it checked it, named by the key it keeps the parse under. */
export interface KeptPatch {
  type: 'merge' | 'json-patch';
  kept: string;
}

function isKept(patch: SiloPatch | KeptPatch): patch is KeptPatch {
  return 'kept' in patch && !('text' in patch);
}

/** A patch task's result, or (its patch given as KeptPatch) word that the worker no longer has the parse. */
export type PatchDone = Patched | { miss: true };

export interface BodyTask {
  kind: 'body';
  shape: BodyShape;
  text: string;
  maxDepth: number;
  maxOperations: number;
  /** For a patch body: keep its parse under this key, for the patch task that follows (one at a time). */
  keep?: string;
}

export type Task = QueryTask | PatchTask | BodyTask;

export type TaskResult<T extends Task> = T extends QueryTask ? QueryDone : T extends PatchTask ? PatchDone : CheckedBody;

/** 503: a task's data would need more heap than a worker may use (the memory budget is too small for it). */
export class WorkTooLargeError extends SiloError {
  constructor() {
    super(503, 'This silo needs more memory than the server allows one request: ask its operator to raise SILO_MEMORY_BUDGET', { 'Retry-After': '60' });
  }
}

const encoder = new TextEncoder();

/** Compiled queries by query string, kept while used. */
const COMPILED_MAX = 200;

/**
 * The cache entry of a checked patch body's parse. One at a time: a request that fails between
 * its check and its patch (a 404, a 412) leaves at most one, which the next check replaces. It is
 * charged to the cache's budget like any parse, so it can be evicted, and then is parsed again.
 */
const KEPT_PATCH = '\0kept patch';

/** How long a checked patch body's parse waits for its patch task (else it is parsed again). */
const KEPT_MS = 10_000;

/**
 * How long a parse is kept unused: 5 to 10 s. A large parse held costs every major collection of
 * the worker's heap, whose marking runs on threads that share the cores with the event loop (the
 * isolation test's tiny reads felt 20-40 ms of it), so a parse is kept for the queries that come
 * in a burst, not for the one a minute later (which parses again: ~100-300 ms of a worker per 10 MB).
 */
const IDLE_MS = 5_000;

/** One thread's state: its parsed-data cache and compiled queries. */
export class TaskRunner {
  private readonly parsed: VersionCache<unknown>;
  private readonly compiled = new BoundedMap<string, CompiledQuery>(COMPILED_MAX);
  private keptTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly cacheBytes: number,
    /** Heap one task's parse may take (estimated), beside the cache. */
    private readonly taskBytes: number,
  ) {
    this.parsed = new VersionCache<unknown>(cacheBytes);
    if (cacheBytes > 0) setInterval(() => this.parsed.dropIdle(), IDLE_MS).unref();
  }

  async run<T extends Task>(task: T): Promise<TaskResult<T>> {
    switch (task.kind) {
      case 'query':
        return this.query(task) as TaskResult<T>;
      case 'patch':
        return (await this.patch(task)) as TaskResult<T>;
      default:
        return this.checkBody(task) as TaskResult<T>;
    }
  }

  /**
   * A body checked. Its parse is held while it is checked (it may take the cache's room, and the
   * worker's heap cap stands behind the estimate); a patch body's, when asked, is kept for its
   * patch task, so that a large patch is parsed once rather than twice.
   */
  checkBody(task: BodyTask): CheckedBody {
    const bytes = estimateParsedBytes(task.text);
    if (bytes > this.taskBytes) this.parsed.clear();
    const { checked, patch } = checkedBody(task.shape, task.text, task.maxDepth, task.maxOperations, task.keep !== undefined);
    if (task.keep !== undefined && patch !== undefined) {
      this.parsed.set(KEPT_PATCH, task.keep, patch, bytes);
      // Not for long: a large parse held costs every collection of this worker's heap, and the
      // patch comes within a moment unless its request failed (a 404, a 412, a lost client).
      clearTimeout(this.keptTimer);
      this.keptTimer = setTimeout(() => this.parsed.drop(KEPT_PATCH), KEPT_MS).unref();
    }
    return checked;
  }

  query(task: QueryTask): QueryDone {
    let value = this.parsed.get(task.uuid, task.etag);
    if (value === undefined) {
      if (task.text === undefined) return { miss: true };
      value = this.parse(task.uuid, task.etag, task.text);
    }
    const result = this.compiledQuery(task.search).json(value);
    // Its own ArrayBuffer (never a slice of Buffer's shared pool), so it can be moved.
    const bytes = encoder.encode(result.text);
    return result.total === undefined ? { bytes } : { bytes, total: result.total };
  }

  async patch(task: PatchTask): Promise<PatchDone> {
    const patch = isKept(task.patch) ? this.takeKept(task.patch) : task.patch;
    if (patch === undefined) return { miss: true };
    // Patches are copy-on-write: the cached value of this version is shared, never changed. A
    // patch's own parse is not kept: the version it is of ends when the patch applies, and a
    // large parse held meanwhile costs every later collection of this worker's heap (which
    // shares the cores with the event loop; the isolation test's tiny reads felt it).
    const parse = async (text: string) => this.parsed.get(task.uuid, task.etag) ?? this.parse(undefined, task.etag, text);
    return applySiloPatch(task.record, task.text, patch, task.limits, parse);
  }

  /** The patch whose parse was kept under `kept.kept`, taken out of the cache (before the silo's parse may need its room). */
  private takeKept({ type, kept }: KeptPatch): SiloPatch | undefined {
    const value = this.parsed.get(KEPT_PATCH, kept);
    if (value === undefined) return undefined;
    this.parsed.drop(KEPT_PATCH);
    clearTimeout(this.keptTimer);
    return type === 'merge' ? { type, patch: value } : { type, operations: value as JsonPatchOperation[] };
  }

  clear(): void {
    this.parsed.clear();
    this.compiled.clear();
  }

  /** `text` parsed (numbers as written), refused before parsing when it cannot fit; kept under `uuid` when given. */
  private parse(uuid: string | undefined, etag: string, text: string): unknown {
    const bytes = estimateParsedBytes(text);
    this.fits(bytes);
    const value = parseJson(text);
    if (uuid !== undefined) this.parsed.set(uuid, etag, value, bytes);
    return value;
  }

  /** Refuses a parse of `bytes` of heap that cannot fit; one task at a time, it may take the cache's share too. */
  private fits(bytes: number): void {
    if (bytes > this.taskBytes + this.cacheBytes) throw new WorkTooLargeError();
    if (bytes > this.taskBytes) this.parsed.clear();
  }

  private compiledQuery(search: string): CompiledQuery {
    let query = this.compiled.get(search);
    if (!query) {
      query = compile(new URLSearchParams(search));
      this.compiled.set(search, query);
    }
    return query;
  }
}
