/**
 * A bus shared by every instance through a transport (Redis pub/sub, PostgreSQL LISTEN/NOTIFY, a
 * table of a shared SQLite file): each event is sent once as text and heard by every instance
 * listening. An instance delivers its own events at once and ignores their echo, so its
 * subscribers do not wait on the transport, nor miss its writes while the listening connection is
 * away (the transport reconnects by itself); except on an `ordered` transport, whose echo is
 * delivered instead, in the one order every instance hears.
 */
import { randomBytes } from 'node:crypto';
import { LocalBus } from './local-bus.js';
import type { BusTransport, EventBus, EventListener, SiloEvent } from '../model/index.js';


interface Envelope {
  /** The publishing instance. */
  from: string;
  event: SiloEvent;
}

/** How long close() waits for the events still being sent. */
const CLOSE_WAIT_MS = 2_000;

export class SharedBus implements EventBus {
  readonly #local = new LocalBus();
  /** Sends not yet done (close waits for them). */
  readonly #sending = new Set<Promise<void>>();
  readonly #id = randomBytes(8).toString('base64url');
  #stop: Promise<(() => Promise<void> | void) | undefined> | undefined;

  constructor(
    private readonly transport: BusTransport,
    private readonly onError: (message: string, error: unknown) => void = () => undefined,
  ) {}

  publish(event: SiloEvent): void {
    const ordered = this.transport.ordered === true;
    if (!ordered) this.#local.deliver(event);
    const envelope: Envelope = { from: this.#id, event };
    const sent = this.transport.send(JSON.stringify(envelope)).then(
      // An ordered transport that sent nothing (nobody listens): this instance's own, at once.
      (done) => {
        if (ordered && done === false) this.#local.deliver(event);
      },
      (error: unknown) => {
        this.onError('silo: an event could not be published to the other instances', error);
        if (ordered) this.#local.deliver(event);
      },
    );
    this.#sending.add(sent);
    void sent.finally(() => this.#sending.delete(sent));
  }

  subscribe(listener: EventListener): () => void {
    // The listening connection is made with the first subscriber: an instance nobody listens to
    // holds none.
    this.#stop ??= this.transport.listen((text) => this.#hear(text)).catch((error: unknown) => {
      this.onError('silo: cannot listen to the events of other instances; this instance sees only its own', error);
      this.#stop = undefined;
      return undefined;
    });
    return this.#local.subscribe(listener);
  }

  #hear(text: string): void {
    let envelope: Envelope;
    try {
      envelope = JSON.parse(text) as Envelope;
    } catch {
      return; // Not ours: another program on the channel.
    }
    if (envelope.from !== this.#id || this.transport.ordered) this.#local.deliver(envelope.event);
  }

  /**
   * What was published before now has been sent (a `silo` command's write goes out before the
   * command exits), or CLOSE_WAIT_MS has passed.
   */
  async settled(): Promise<void> {
    if (this.#sending.size === 0) return;
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise<void>((resolve) => (timer = setTimeout(resolve, CLOSE_WAIT_MS)));
    await Promise.race([Promise.all(this.#sending), waited]);
    clearTimeout(timer);
  }

  async close(): Promise<void> {
    await this.settled();
    const stop = await this.#stop;
    await stop?.();
    await this.#local.close();
  }
}
