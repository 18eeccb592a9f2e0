/**
 * The memory budget of requests in flight. Large data costs memory while a request works on it: a
 * 10 MB body is held as bytes and then as text while it is read, and parsed to be checked; a 10 MB
 * silo read with parameters, or patched, is loaded as text and parsed into up to 24 times as much
 * heap (heap-estimate.ts). Unbounded, 20 concurrent 10 MB uploads took 1.45 GB and 80 reads with
 * `?idx=0` of dense silos 3.5 GB. So such work first takes its bytes from a gate:
 *
 * - `texts`: bodies being received (three times what has arrived: chunks, their concatenation, the
 *   text; charged as the bytes come, http/body.ts); silo texts loaded for plain reads;
 * - `parses`: values being parsed, by their estimated heap: an upload's once its text is there; a
 *   read's before its text is loaded, for the worst shape, cut down to the estimate once the text
 *   is there (so a waiting read holds nothing); a patch's once the service has loaded the text.
 *
 * A request takes from `texts` before `parses`, never the other way round, so two requests cannot
 * each hold what the other waits for. Work that fits starts at once; work that does not waits in
 * line (first come, first served) up to `waitMs`, then fails with a 503 and Retry-After, having
 * done nothing. One piece larger than a whole gate still runs, alone. Small work (under
 * SMALL_BYTES) is counted but never waits, so tiny requests are never refused here. Large parses
 * run on worker threads (work/), and what is given back is collected
 * (`collectGarbage`) so that RSS follows the budget and not V8's own heap limit.
 */
import type { Context } from 'koa';
import type { ResolvedOptions } from '../options.js';
import { MemoryBusyError } from '../model/index.js';
import { estimateParsedBytes } from './heap-estimate.js';

/** Work this small never waits (it is still counted). */
export const SMALL_BYTES = 256 * 1024;

/** Bytes taken from a gate, given back with release() (calling it again does nothing). */
export interface Reservation {
  /**
   * Takes `bytes` more (a body charged as it arrives), waiting in line as take() does; a
   * reservation that is the gate's only holder grows past the gate's size, as one large piece
   * alone may. The oldest of the reservations growing goes at once, over the budget if need be (by
   * at most what one body takes): bodies that each hold part of the budget and wait for more would
   * otherwise all wait out their time and fail together. Rejects with MemoryBusyError after the
   * wait, keeping what it had.
   */
  grow(bytes: number): Promise<void>;
  /** Gives back all but `bytes` at once (a reservation made for the worst case, once the real need is known). */
  shrinkTo(bytes: number): void;
  release(): void;
}

interface Waiter {
  bytes: number;
  /** Whose work it is (an account), held to its share of the gate; undefined: anyone's. */
  holder: string | undefined;
  /** What the waiter holds already (a growing reservation's bytes): it fits alone beside them. */
  owned(): number;
  /** Whether it is the oldest growing reservation's step, which goes at once (see grow). */
  first(): boolean;
  admit(): void;
}

const NEVER_FIRST = () => false;

/** What one holder may take of a gate while others wait: half (a fair share, contract §17). */
const HOLDER_SHARE = 0.5;

/** Why a waiter waits: it fits, its holder has its share, or the gate is full. */
type Fit = 'fits' | 'share' | 'full';

export class MemoryGate {
  private held = 0;
  private readonly line: Waiter[] = [];
  /** Reservations that have grown, oldest first: the oldest always may grow (see Reservation.grow). */
  private readonly growers = new Set<object>();
  /** Bytes held by each holder that has any. */
  private readonly byHolder = new Map<string, number>();
  /** Takes refused after waiting their time (503), since this gate was made (metrics). */
  refused = 0;

  constructor(
    readonly budgetBytes: number,
    private readonly waitMs: number,
    /** Told of the bytes of large work released, garbage by then (the garbage collector's trigger). */
    private readonly onRelease: (bytes: number) => void = () => {},
  ) {}

  /**
   * Takes `bytes`, waiting in line while they do not fit; rejects with MemoryBusyError after
   * waitMs. With a `holder` (an account), what it holds of the gate stays within its share while
   * others need room: one account's uploads cannot keep another's out.
   */
  take(bytes: number, holder?: string): Promise<Reservation> {
    const granted = this.request(bytes, holder, () => 0, NEVER_FIRST);
    return granted === undefined ? Promise.resolve(this.reservation(bytes, holder)) : granted.then(() => this.reservation(bytes, holder));
  }

  /** Bytes taken now. */
  get inUse(): number {
    return this.held;
  }

  /** Takes waiting in line now. */
  get waiting(): number {
    return this.line.length;
  }

  /** Adds `bytes` to what is held: at once (undefined), or once they fit (a promise; MemoryBusyError after waitMs). */
  private request(bytes: number, holder: string | undefined, owned: () => number, first: () => boolean): Promise<void> | undefined {
    if (bytes < SMALL_BYTES || first() || (this.line.length === 0 && this.fits(bytes, holder, owned()) === 'fits')) {
      this.add(holder, bytes);
      return undefined;
    }
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        bytes,
        holder,
        owned,
        first,
        admit: () => {
          clearTimeout(timer);
          this.add(holder, bytes);
          resolve();
        },
      };
      const timer = setTimeout(() => {
        this.line.splice(this.line.indexOf(waiter), 1);
        this.refused++;
        // The head of the line may have been the one that did not fit.
        this.admitWaiting();
        reject(new MemoryBusyError(Math.max(1, Math.ceil(this.waitMs / 1000))));
      }, this.waitMs);
      this.line.push(waiter);
    });
  }

  /**
   * Nothing else held (then even a piece larger than the gate goes), or room for `bytes`; and
   * the holder within its share, or holding nothing else.
   */
  private fits(bytes: number, holder: string | undefined, owned: number): Fit {
    if (this.held !== owned && this.held + bytes > this.budgetBytes) return 'full';
    if (holder === undefined) return 'fits';
    const mine = this.byHolder.get(holder) ?? 0;
    return mine === owned || mine + bytes <= this.budgetBytes * HOLDER_SHARE ? 'fits' : 'share';
  }

  private add(holder: string | undefined, bytes: number): void {
    this.held += bytes;
    if (holder === undefined) return;
    const mine = (this.byHolder.get(holder) ?? 0) + bytes;
    if (mine > 0) this.byHolder.set(holder, mine);
    else this.byHolder.delete(holder);
  }

  private reservation(taken: number, holder: string | undefined): Reservation {
    const self = {};
    const oldest = () => this.growers.values().next().value === self;
    let kept = taken;
    let largest = taken;
    let released = false;
    const giveBack = (bytes: number) => {
      kept -= bytes;
      this.add(holder, -bytes);
      this.admitWaiting();
    };
    return {
      grow: async (bytes) => {
        if (!released) this.growers.add(self);
        await this.request(bytes, holder, () => kept, oldest);
        if (released) {
          // Released while it waited: these bytes are nobody's.
          this.add(holder, -bytes);
          this.admitWaiting();
          return;
        }
        kept += bytes;
        largest = Math.max(largest, kept);
      },
      shrinkTo: (bytes) => {
        if (bytes < kept) giveBack(kept - Math.max(0, bytes));
      },
      release: () => {
        released = true;
        if (this.growers.delete(self)) this.admitWaiting();
        if (kept === 0) return;
        // Small work's garbage dies young: V8's minor collections take it without help.
        if (largest >= SMALL_BYTES) this.onRelease(kept);
        giveBack(kept);
      },
    };
  }

  /**
   * First come, first served: a large piece at the head is not overtaken by smaller ones behind it;
   * but the oldest growing reservation's step goes wherever it waits.
   */
  private admitWaiting(): void {
    const first = this.line.findIndex((waiter) => waiter.first());
    if (first >= 0) this.line.splice(first, 1)[0]!.admit();
    // A waiter held back by its holder's share lets those behind it by; one the full gate holds
    // back does not (nor is overtaken).
    for (let i = 0; i < this.line.length; ) {
      const waiter = this.line[i]!;
      const fit = this.fits(waiter.bytes, waiter.holder, waiter.owned());
      if (fit === 'full') return;
      if (fit === 'share') {
        i++;
        continue;
      }
      this.line.splice(i, 1);
      waiter.admit();
    }
  }
}

export interface Admission {
  /** JSON text held by requests in flight. */
  texts: MemoryGate;
  /** Estimated heap of values being parsed. */
  parses: MemoryGate;
}

/**
 * The gates of the part of memoryBudgetBytes the caches leave: a third for texts, the rest for
 * parsed values (512 MiB by default: 64 + 64 MiB of caches, 128 MiB of texts, 256 MiB of parses).
 */
export function createAdmission(
  options: Pick<ResolvedOptions, 'memoryBudgetBytes' | 'memoryWaitMs' | 'parsedCacheBytes' | 'bodyCacheBytes' | 'collectGarbage'>,
): Admission {
  const inFlight = options.memoryBudgetBytes - options.parsedCacheBytes - options.bodyCacheBytes;
  const texts = Math.floor(inFlight / 3);
  const onRelease = options.collectGarbage ? collector(options.collectGarbage, inFlight / 4) : undefined;
  return {
    texts: new MemoryGate(texts, options.memoryWaitMs, onRelease),
    parses: new MemoryGate(inFlight - texts, options.memoryWaitMs, onRelease),
  };
}

/**
 * Runs `collect` once more than `everyBytes` were released since its last run (in the next turn
 * of the event loop, once). What a request releases is garbage by then, but V8 sizes its heap
 * by its own limit, not by this budget: with a 4 GB heap limit, 80 parses of dense 10 MB silos
 * left 1.2 GB of garbage uncollected one at a time. A full collection with little alive takes
 * 30-40 ms, about once per dense 10 MB parse (1.5 s) under that load.
 */
function collector(collect: () => void, everyBytes: number): (bytes: number) => void {
  let given = 0;
  let scheduled = false;
  return (bytes) => {
    given += bytes;
    if (given <= everyBytes || scheduled) return;
    scheduled = true;
    setImmediate(() => {
      given = 0;
      scheduled = false;
      collect();
    });
  };
}

/**
 * Runs `load` with `bytes` taken from `gate` (a silo's text and its encoded bytes, for a plain
 * read), given back once the callers sharing what it returns have used it (releaseAfterUse).
 */
export async function loadCharged<T>(gate: MemoryGate, bytes: number, load: () => Promise<T>): Promise<T> {
  const reservation = await gate.take(bytes);
  try {
    return await load();
  } finally {
    releaseAfterUse(reservation);
  }
}

/**
 * Releases `reservation` once the callers sharing a loader have used its value: they run on in the
 * microtasks that follow the load, before the next turn of the event loop (setImmediate), so the
 * value is charged until every query over it has run and no other parse can start in between.
 */
export function releaseAfterUse(reservation: Reservation): void {
  setImmediate(() => reservation.release());
}

/** Releases `reservation` when the response of `ctx` is over (sent, or its connection gone). */
export function releaseWhenDone(ctx: Context, reservation: Reservation): void {
  if (ctx.res.closed) reservation.release();
  else ctx.res.once('close', () => reservation.release());
}
