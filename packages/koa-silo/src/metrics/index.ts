/**
 * Prometheus metrics of one Silo (contract §19), with prom-client, in a registry of its own (never
 * prom-client's global one: a process may hold several Silos, tests many).
 *
 * Labels carry only values from small fixed sets: route templates (`/api/v1/manage/{file_uuid}`,
 * never a path), methods, status codes, storage operation names, gate names, outcomes. Never a
 * key, a uuid, an account or a client address.
 *
 * What is counted as it happens (requests, storage calls, refusals, deliveries, worker tasks) goes
 * through the observers this room hands to the layers below (they import nothing of it); what is a
 * level (memory in use, queued work, open streams, the outbox backlog) is read when scraped.
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Admission } from '../limits/admission.js';
import type { StorageObserver } from '../storage/index.js';
import type { WorkObserver } from '../work/index.js';
import { FastCounter, FastHistogram } from './series.js';

/** What a Silo's `metrics` gives its embedder: the registry (add the app's own metrics to it) and its text. */
export interface SiloMetrics {
  readonly registry: Registry;
  /** The Content-Type of `text()`: Prometheus text format 0.0.4. */
  readonly contentType: string;
  /** The exposition: every metric, as a scrape of /metrics answers it. */
  text(): Promise<string>;
}

export interface MetricsOptions {
  /** prom-client's default process and Node.js metrics (CPU, memory, event-loop delay, GC). Default true. */
  defaultMetrics?: boolean;
}

/** Refusals counted at the HTTP layer, by what refused. */
export type RateRefusal = 'requests' | 'streams';

export type DeliveryOutcome = 'delivered' | 'retrying' | 'given up' | 'dropped';

/** The levels read when scraped. */
export interface MetricSources {
  admission: Admission;
  work: { stats(): { queued: number; running: number } };
  /** Deliveries waiting in every account's outbox. */
  outboxBacklog(): Promise<number>;
}

export interface Metrics extends SiloMetrics {
  /** Told of every storage call (createStorage's observer). */
  readonly storage: StorageObserver;
  /** Told of the worker pool's tasks and refusals. */
  readonly work: WorkObserver;
  /** One request Silo answered: its route template, method, status and time. */
  request(route: string, method: string, status: number, seconds: number): void;
  /** A request refused by a rate limit or a stream cap. */
  rateRefused(what: RateRefusal): void;
  /** An event stream opened; the function given back closes it. */
  streamOpened(): () => void;
  /** A webhook delivery attempt's outcome. */
  delivery(outcome: DeliveryOutcome): void;
  /** Where the levels are read from (once everything exists). */
  watch(sources: MetricSources): void;
}

/** Seconds, from half a millisecond to ten seconds. */
const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const STORAGE_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1, 5];
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PATCH', 'PUT', 'DELETE', 'OPTIONS']);

/** Children of a labelled metric by their joined label values: prom-client hashes labels on every call otherwise. */
function cached<C>(make: (...values: string[]) => C): (...values: string[]) => C {
  const children = new Map<string, C>();
  return (...values) => {
    const key = values.join('\u0000');
    let child = children.get(key);
    if (!child) children.set(key, (child = make(...values)));
    return child;
  };
}

export function createMetrics(options: MetricsOptions = {}): Metrics {
  const registry = new Registry();
  const registers = [registry];
  if (options.defaultMetrics !== false) collectDefaultMetrics({ register: registry });
  let sources: MetricSources | undefined;
  let openStreams = 0;

  // Counted on every request and storage call: the fast series (series.ts), read when scraped.
  const requests = new FastCounter('silo_http_requests_total', 'Requests Silo answered, by route template, method and status.', ['route', 'method', 'status'], registry);
  const latency = new FastHistogram(
    'silo_http_request_duration_seconds',
    'Time from a request reaching Silo to its answer being ready (headers; a stream: until it opens), by route template, method and status.',
    ['route', 'method', 'status'],
    LATENCY_BUCKETS,
    registry,
  );
  const storageTime = new FastHistogram('silo_storage_operation_duration_seconds', 'Time of each call into the storage engine, by operation.', ['operation'], STORAGE_BUCKETS, registry);
  const storageErrors = new Counter({ name: 'silo_storage_errors_total', help: 'Storage calls that failed (error) or did not answer within the time limit (timeout), by operation.', labelNames: ['operation', 'kind'], registers });
  const rateRefusals = new Counter({ name: 'silo_rate_limit_refusals_total', help: 'Requests refused with 429: over a rate limit (requests) or over the open streams a client may hold (streams).', labelNames: ['limit'], registers });
  const deliveries = new Counter({ name: 'silo_webhook_deliveries_total', help: 'Webhook delivery attempts by outcome (dropped: the webhook was removed or disabled first).', labelNames: ['outcome'], registers });
  const taskTime = new Histogram({ name: 'silo_work_task_duration_seconds', help: 'Time of tasks on the worker threads (lost: the worker was stopped or died under it).', labelNames: ['outcome'], buckets: LATENCY_BUCKETS, registers });
  const workRefusals = new Counter({ name: 'silo_work_refusals_total', help: 'Tasks refused with 503 because the worker line was too long or they waited too long.', registers });
  for (const limit of ['requests', 'streams']) rateRefusals.inc({ limit }, 0);
  for (const outcome of ['delivered', 'retrying', 'given up', 'dropped']) deliveries.inc({ outcome }, 0);
  workRefusals.inc(0);

  const gates = () => (sources ? ([['texts', sources.admission.texts], ['parses', sources.admission.parses]] as const) : []);
  new Gauge({
    name: 'silo_memory_budget_bytes',
    help: 'Bytes of the memory budget for requests in flight, by gate (texts: bodies and silo texts; parses: parsed values).',
    labelNames: ['gate'],
    registers,
    collect() {
      for (const [gate, g] of gates()) this.set({ gate }, g.budgetBytes);
    },
  });
  new Gauge({
    name: 'silo_memory_in_use_bytes',
    help: 'Bytes of the memory budget taken by requests in flight, by gate.',
    labelNames: ['gate'],
    registers,
    collect() {
      for (const [gate, g] of gates()) this.set({ gate }, g.inUse);
    },
  });
  new Gauge({
    name: 'silo_memory_waiting',
    help: 'Requests waiting for room in the memory budget, by gate.',
    labelNames: ['gate'],
    registers,
    collect() {
      for (const [gate, g] of gates()) this.set({ gate }, g.waiting);
    },
  });
  new Counter({
    name: 'silo_memory_refusals_total',
    help: 'Requests refused with 503 after waiting for room in the memory budget, by gate.',
    labelNames: ['gate'],
    registers,
    collect() {
      this.reset();
      for (const [gate, g] of gates()) this.inc({ gate }, g.refused);
    },
  });
  new Gauge({
    name: 'silo_work_queued',
    help: 'Tasks waiting for a worker thread.',
    registers,
    collect() {
      this.set(sources?.work.stats().queued ?? 0);
    },
  });
  new Gauge({
    name: 'silo_work_running',
    help: 'Tasks running on the worker threads.',
    registers,
    collect() {
      this.set(sources?.work.stats().running ?? 0);
    },
  });
  new Gauge({
    name: 'silo_event_streams_open',
    help: 'Event streams (server-sent events) open on this instance.',
    registers,
    collect() {
      this.set(openStreams);
    },
  });
  new Gauge({
    name: 'silo_webhook_outbox_backlog',
    help: "Webhook deliveries waiting in the outbox (every instance's: the outbox is in storage).",
    registers,
    async collect() {
      // A storage outage leaves the last value: the scrape still answers.
      const backlog = await sources?.outboxBacklog().catch(() => undefined);
      if (backlog !== undefined) this.set(backlog);
    },
  });

  const request = cached((route, method, status) => ({ count: requests.series(route, method, status), time: latency.series(route, method, status) }));
  const storageOp = cached((operation) => storageTime.series(operation));
  const task = cached((outcome) => taskTime.labels(outcome));

  return {
    registry,
    contentType: registry.contentType,
    text: () => registry.metrics(),
    storage: {
      call(operation, seconds, failure) {
        storageOp(operation).observe(seconds);
        if (failure) storageErrors.inc({ operation, kind: failure });
      },
    },
    work: {
      task: (seconds, ok) => task(ok ? 'ok' : 'lost').observe(seconds),
      refused: () => workRefusals.inc(),
    },
    request(route, method, status, seconds) {
      const child = request(route, METHODS.has(method) ? method : 'other', String(status));
      child.count.inc();
      child.time.observe(seconds);
    },
    rateRefused: (limit) => rateRefusals.inc({ limit }),
    streamOpened() {
      openStreams++;
      let open = true;
      return () => {
        if (open) openStreams--;
        open = false;
      };
    },
    delivery: (outcome) => deliveries.inc({ outcome }),
    watch(given) {
      sources = given;
    },
  };
}
