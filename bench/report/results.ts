// What one bench:report run measured: written as bench/results/<name>.json, read back to
// write the Markdown report and its charts.
import type { CurvePoint } from './model_curve.js';
import type { SeedResults } from './seed_experiment.js';
import type { EventLoopRow } from './event_loop_experiment.js';
import type { OverheadResult } from './overhead_experiment.js';
import type { Setup } from './setups.js';
import type { LatencyResults } from '../latency/latency_bench.js';
import type { Target } from './target.js';

interface Machine {
  cores: number;
  cpuModel: string;
  node: string;
  platform: string;
  totalMemoryGiB: number;
}

export interface BenchResults {
  name: string;
  /** tfgate's --runtime for the servers, what it resolved to (the engine of every set-up), and why (absent in older results). */
  runtime?: { choice: string; resolved: string; reason: string };
  date: string;
  quick: boolean;
  command: string;
  durationSeconds: number;
  machine: Machine;
  model: {
    description: string;
    backend: string;
    flopsPerItem: number;
    maxBatchSize: number;
    curve: CurvePoint[];
    batch1Ms: number;
    /** Batch-1 time with the users' think time between runs (absent in older results). */
    batch1AfterThinkMs?: number;
    offlineItemsPerSecAtMaxBatch: number;
  };
  seed: {
    /** Our batch-1 latency ÷ the seed's 300 ms model: every seed time is multiplied by it. */
    scale: number;
    thinkMs: [number, number];
    users: number[];
    cellSeconds: number;
    rounds: number;
    setups: Setup[];
  } & SeedResults;
  eventLoop: { modelMs: number; seconds: number; rows: EventLoopRow[] };
  overhead: OverheadResult;
  /** Latency when traffic is light (bench:latency's figures, same run; absent in older results). */
  latency?: LatencyResults;
  targets: Target[];
}
