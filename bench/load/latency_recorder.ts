// Every latency of a run in an HDR histogram (hdr-histogram-js, microsecond resolution,
// 3 significant digits): exact counts, percentiles within 0.1 %, constant memory. Errors
// are counted by kind. Closed-loop runs can add coordinated-omission correction: a response
// slower than the expected interval stands for the requests a real user population would
// have sent meanwhile (HdrHistogram's recordValueWithExpectedInterval).
import * as hdr from 'hdr-histogram-js';

export interface LatencySummary {
  count: number;
  errors: number;
  errorsByKind: Record<string, number>;
  meanMs: number;
  p50Ms: number;
  p90Ms: number;
  p99Ms: number;
  maxMs: number;
}

const US_PER_MS = 1000;

/** The p-th percentile of latencies a bench keeps itself, sorted ascending (nearest rank). */
export function percentile(sorted: number[], p: number): number {
  if (!sorted.length) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

export class LatencyRecorder {
  private readonly histogram = hdr.build({
    bitBucketSize: 64,
    numberOfSignificantValueDigits: 3,
    autoResize: true,
    lowestDiscernibleValue: 1,
    highestTrackableValue: 2,
  });
  readonly errorsByKind = new Map<string, number>();

  /** One answered request: `ms` from (intended) send to the end of the response. */
  record(ms: number): void {
    this.histogram.recordValue(Math.max(1, Math.round(ms * US_PER_MS)));
  }

  /** As record, plus the back-filled samples a stall hid from a closed loop expecting a request every `expectedIntervalMs`. */
  recordCorrected(ms: number, expectedIntervalMs: number): void {
    this.histogram.recordValueWithExpectedInterval(
      Math.max(1, Math.round(ms * US_PER_MS)),
      Math.max(1, Math.round(expectedIntervalMs * US_PER_MS)),
    );
  }

  error(kind: string): void {
    this.errorsByKind.set(kind, (this.errorsByKind.get(kind) ?? 0) + 1);
  }

  get count(): number {
    return this.histogram.totalCount;
  }

  get errors(): number {
    let n = 0;
    for (const v of this.errorsByKind.values()) n += v;
    return n;
  }

  percentileMs(p: number): number {
    return this.count ? this.histogram.getValueAtPercentile(p) / US_PER_MS : NaN;
  }

  add(other: LatencyRecorder): void {
    this.histogram.add(other.histogram);
    for (const [k, v] of other.errorsByKind) this.errorsByKind.set(k, (this.errorsByKind.get(k) ?? 0) + v);
  }

  summary(): LatencySummary {
    const empty = this.count === 0;
    return {
      count: this.count,
      errors: this.errors,
      errorsByKind: Object.fromEntries(this.errorsByKind),
      meanMs: empty ? NaN : this.histogram.mean / US_PER_MS,
      p50Ms: this.percentileMs(50),
      p90Ms: this.percentileMs(90),
      p99Ms: this.percentileMs(99),
      // Highest-equivalent value of the top bucket: the same before and after encoding.
      maxMs: this.percentileMs(100),
    };
  }

  /** Serialized for postMessage (a worker's histogram crosses to the main thread). */
  encode(): { histogram: string; errors: [string, number][] } {
    return { histogram: hdr.encodeIntoCompressedBase64(this.histogram), errors: [...this.errorsByKind] };
  }

  static decode(data: { histogram: string; errors: [string, number][] }): LatencyRecorder {
    const r = new LatencyRecorder();
    r.histogram.add(hdr.decodeFromCompressedBase64(data.histogram, 64, false));
    for (const [k, v] of data.errors) r.errorsByKind.set(k, v);
    return r;
  }
}
