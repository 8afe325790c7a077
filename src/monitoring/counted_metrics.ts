// Metrics every request records (request_count, request_latency, runtime_latency, and the
// batching session's queuing and input-size ones), counted in plain numbers: prom-client's
// inc() and observe() build a label object, check it and join it into a key string on every
// call, and a histogram's bucket is then found by a string key. Here
// a series is looked up once by its label values (nested maps, no key built) and counted in a
// Float64Array; at scrape time the metric hands the registry the same values prom-client's own
// Counter and Histogram would, so the page is the same, series in the order first recorded.
// Only series() records into these: the prom-client methods they inherit that record (inc,
// observe, labels, startTimer, zero, remove) are refused, not left to count where nothing reads.
import { Counter, Histogram, type CounterConfiguration, type HistogramConfiguration } from 'prom-client';

/** Series by up to three label values, nested maps; `all` in the order first asked for. */
class SeriesTable<S> {
  private readonly byFirst = new Map<string, unknown>();
  /** The one series of a metric without labels. */
  private only?: S;
  readonly all: S[] = [];

  constructor(
    private readonly labelNames: readonly string[],
    private readonly make: (labels: Record<string, string>) => S,
  ) {}

  get(a?: string, b?: string, c?: string): S {
    const given = c !== undefined ? 3 : b !== undefined ? 2 : a !== undefined ? 1 : 0;
    if (given !== this.labelNames.length) throw new Error(`${this.labelNames.length} label values expected, got ${given}`);
    if (a === undefined) return (this.only ??= this.add(undefined, '', []));
    if (b === undefined) return (this.byFirst.get(a) as S | undefined) ?? this.add(this.byFirst, a, [a]);
    let byB = this.byFirst.get(a) as Map<string, unknown> | undefined;
    if (!byB) this.byFirst.set(a, (byB = new Map()));
    if (c === undefined) return (byB.get(b) as S | undefined) ?? this.add(byB, b, [a, b]);
    let byC = byB.get(b) as Map<string, unknown> | undefined;
    if (!byC) byB.set(b, (byC = new Map()));
    return (byC.get(c) as S | undefined) ?? this.add(byC, c, [a, b, c]);
  }

  private add(into: Map<string, unknown> | undefined, key: string, values: string[]): S {
    const labels: Record<string, string> = {};
    this.labelNames.forEach((name, i) => (labels[name] = values[i]));
    const s = this.make(labels);
    into?.set(key, s);
    this.all.push(s);
    return s;
  }

  clear(): void {
    this.byFirst.clear();
    this.only = undefined;
    this.all.length = 0;
  }
}

/** The label names prom-client's constructor keeps on the metric (not in its typings). */
const labelNamesOf = (metric: object) => (metric as { labelNames: string[] }).labelNames;

const notHere = (name: string) => () => {
  throw new Error(`${name} is recorded through series()`);
};

/** One series of a CountedCounter. */
export class CounterSeries {
  value = 0;
  constructor(readonly labels: Record<string, string>) {}

  inc(): void {
    this.value++;
  }
}

/** A prom-client Counter, counted in plain numbers (see the top of this file). */
export class CountedCounter<T extends string> extends Counter<T> {
  // Made on first use: prom-client's constructor calls reset() before fields are set.
  private table?: SeriesTable<CounterSeries>;

  constructor(config: CounterConfiguration<T>) {
    super(config);
    this.inc = notHere(config.name);
    this.labels = notHere(config.name);
    this.remove = notHere(config.name);
    // prom-client's counter without labels shows its zero before the first inc, and after a reset.
    if (!labelNamesOf(this).length) this.series();
  }

  series(a?: string, b?: string, c?: string): CounterSeries {
    this.table ??= new SeriesTable(labelNamesOf(this), (labels) => new CounterSeries(labels));
    return this.table.get(a, b, c);
  }

  override async get() {
    const got = await super.get();
    return {
      ...got,
      values: (this.table?.all ?? []).map((s) => ({ value: s.value, labels: { ...s.labels } as Partial<Record<T, string>> })),
    };
  }

  override reset(): void {
    super.reset();
    if (!this.table) return;
    this.table.clear();
    if (!labelNamesOf(this).length) this.series();
  }
}

/** One series of a CountedHistogram: its count per bucket (the last: above every bound), sum and count. */
export class HistogramSeries {
  readonly buckets: Float64Array;
  sum = 0;
  count = 0;

  constructor(
    readonly labels: Record<string, string>,
    private readonly bounds: readonly number[],
  ) {
    this.buckets = new Float64Array(bounds.length + 1);
  }

  /** As prom-client's observe: the first bound ≥ value, else above them all; a value that is not a finite number refused. */
  observe(value: number): void {
    if (!Number.isFinite(value)) throw new TypeError(`Value is not a valid number: ${value}`);
    const bounds = this.bounds;
    let i = 0;
    while (i < bounds.length && !(value <= bounds[i])) i++;
    this.buckets[i]++;
    this.sum += value;
    this.count += 1;
  }
}

/** A prom-client Histogram, counted in plain numbers (see the top of this file). */
export class CountedHistogram<T extends string> extends Histogram<T> {
  private table?: SeriesTable<HistogramSeries>;
  private readonly bounds: readonly number[];

  constructor(config: HistogramConfiguration<T> & { buckets: number[] }) {
    super(config);
    this.bounds = [...config.buckets];
    this.observe = notHere(config.name);
    this.labels = notHere(config.name);
    this.startTimer = notHere(config.name);
    this.zero = notHere(config.name);
    this.remove = notHere(config.name);
    // prom-client's histogram without labels shows its zeros before the first observe (not after a reset).
    if (!labelNamesOf(this).length) this.series();
  }

  series(a?: string, b?: string, c?: string): HistogramSeries {
    const bounds = this.bounds;
    this.table ??= new SeriesTable(labelNamesOf(this), (labels) => new HistogramSeries(labels, bounds));
    return this.table.get(a, b, c);
  }

  /**
   * The registry's values, as prom-client's Histogram gives them (lib/histogram.js): per series
   * its cumulative buckets (le), +Inf, _sum and _count, the series' labels beside each.
   */
  getForPromString() {
    const name = (this as unknown as { name: string }).name;
    const values: Array<{
      labels: Record<string, string | number>;
      sharedLabels: Record<string, string>;
      value: number;
      metricName: string;
      exemplar?: null | undefined;
    }> = [];
    for (const s of this.table?.all ?? []) {
      let acc = 0;
      this.bounds.forEach((le, i) => {
        acc += s.buckets[i];
        values.push({ labels: { le }, sharedLabels: s.labels, value: acc, metricName: `${name}_bucket`, exemplar: null });
      });
      values.push({ labels: { le: '+Inf' }, sharedLabels: s.labels, value: s.count, metricName: `${name}_bucket`, exemplar: null });
      values.push({ labels: {}, sharedLabels: s.labels, value: s.sum, metricName: `${name}_sum`, exemplar: undefined });
      values.push({ labels: {}, sharedLabels: s.labels, value: s.count, metricName: `${name}_count`, exemplar: undefined });
    }
    const self = this as unknown as { help: string; aggregator: string };
    return Promise.resolve({ name, help: self.help, type: 'histogram', values, aggregator: self.aggregator });
  }

  override async get() {
    const got = await this.getForPromString();
    const values = got.values.map(({ labels, sharedLabels, ...rest }) => ({ ...rest, labels: { ...labels, ...sharedLabels } }));
    return { ...got, type: 'histogram' as const, values, aggregator: 'sum' as const } as unknown as Awaited<
      ReturnType<Histogram<T>['get']>
    >;
  }

  override reset(): void {
    super.reset();
    this.table?.clear();
  }
}
