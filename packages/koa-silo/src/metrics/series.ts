/**
 * Counters and histograms for the hot path (every request, every storage call): a series is a
 * plain array of counts found by its label values, so that counting costs a Map lookup and a few
 * additions, not prom-client's hashing of a label object on every call. They are read into
 * prom-client's text when scraped: each is registered in the registry as a metric whose `get()`
 * gives the values in prom-client's own shape, which the registry writes as it writes its own.
 */
import type { Registry } from 'prom-client';

interface Sample {
  labels: Record<string, string | number>;
  value: number;
  metricName?: string;
}

interface MetricValues {
  name: string;
  help: string;
  type: 'counter' | 'histogram';
  values: Sample[];
  aggregator: 'sum';
}

/** The part of a prom-client metric that a Registry reads. */
abstract class Collected {
  constructor(
    readonly name: string,
    readonly help: string,
    readonly type: 'counter' | 'histogram',
    protected readonly labelNames: readonly string[],
    registry: Registry,
  ) {
    registry.registerMetric(this as never);
  }

  protected labelsOf(values: readonly string[]): Record<string, string> {
    const labels: Record<string, string> = {};
    this.labelNames.forEach((name, i) => (labels[name] = values[i]!));
    return labels;
  }

  protected abstract samples(): Sample[];

  get(): MetricValues {
    return { name: this.name, help: this.help, type: this.type, values: this.samples(), aggregator: 'sum' };
  }

  reset(): void {}
}

export class FastCounter extends Collected {
  readonly #series = new Map<string, { values: string[]; count: number }>();

  constructor(name: string, help: string, labelNames: readonly string[], registry: Registry) {
    super(name, help, 'counter', labelNames, registry);
  }

  /** The series of these label values (kept: call it once per combination and hold on to it, or let its key be looked up). */
  series(...values: string[]): { inc(by?: number): void } {
    const key = values.join('\u0000');
    let one = this.#series.get(key);
    if (!one) this.#series.set(key, (one = { values, count: 0 }));
    const series = one;
    return { inc: (by = 1) => void (series.count += by) };
  }

  protected samples(): Sample[] {
    return [...this.#series.values()].map((s) => ({ labels: this.labelsOf(s.values), value: s.count }));
  }
}

export class FastHistogram extends Collected {
  readonly #series = new Map<string, { values: string[]; counts: Float64Array; sum: number; count: number }>();

  constructor(
    name: string,
    help: string,
    labelNames: readonly string[],
    private readonly buckets: readonly number[],
    registry: Registry,
  ) {
    super(name, help, 'histogram', labelNames, registry);
  }

  series(...values: string[]): { observe(value: number): void } {
    const key = values.join('\u0000');
    let one = this.#series.get(key);
    if (!one) this.#series.set(key, (one = { values, counts: new Float64Array(this.buckets.length + 1), sum: 0, count: 0 }));
    const series = one;
    const { buckets } = this;
    return {
      observe(value) {
        let i = 0;
        while (i < buckets.length && value > buckets[i]!) i++;
        series.counts[i]!++;
        series.sum += value;
        series.count++;
      },
    };
  }

  protected samples(): Sample[] {
    const out: Sample[] = [];
    for (const s of this.#series.values()) {
      const labels = this.labelsOf(s.values);
      let cumulative = 0;
      this.buckets.forEach((le, i) => {
        cumulative += s.counts[i]!;
        out.push({ labels: { ...labels, le }, value: cumulative, metricName: `${this.name}_bucket` });
      });
      out.push({ labels: { ...labels, le: '+Inf' }, value: s.count, metricName: `${this.name}_bucket` });
      out.push({ labels, value: s.sum, metricName: `${this.name}_sum` });
      out.push({ labels, value: s.count, metricName: `${this.name}_count` });
    }
    return out;
  }
}
