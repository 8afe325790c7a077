// The event-loop experiment: a model of a few milliseconds at a few request rates (open loop,
// latency from each request's due time), while a second client asks for the model's status
// ten times a second. Inline inference makes every other request wait for the model; tfgate
// answers the status from its event loop while executors compute.
import type { LatencySummary } from '../load/latency_recorder.js';
import { runLoadInWorker, progressLine } from '../load/load_worker.js';

export interface EventLoopRow {
  setup: string;
  ratePerSec: number;
  predict: LatencySummary;
  status: LatencySummary;
}

export interface EventLoopTarget {
  setup: string;
  predictUrl: string;
  statusUrl: string;
  /** Runs a measurement with the machine to this set-up alone. */
  isolate: <T>(measure: () => Promise<T>, settle?: () => Promise<unknown>) => Promise<T>;
}

export async function runEventLoopExperiment(
  targets: EventLoopTarget[],
  rates: number[],
  seconds: number,
  body: string,
): Promise<EventLoopRow[]> {
  const rows: EventLoopRow[] = [];
  for (const rate of rates) {
    for (const t of targets) {
      const durationMs = seconds * 1000;
      const [predict, status] = await t.isolate(
        () =>
          Promise.all([
            runLoadInWorker(
              { url: t.predictUrl, body, mode: { kind: 'open', ratePerSec: rate }, durationMs },
              progressLine(`${t.setup} at ${rate} req/s`),
            ),
            runLoadInWorker({ url: t.statusUrl, method: 'GET', mode: { kind: 'open', ratePerSec: 10 }, durationMs }),
          ]),
        () => runLoadInWorker({ url: t.predictUrl, body, mode: { kind: 'concurrency', connections: 2 }, durationMs: 400 }),
      );
      rows.push({ setup: t.setup, ratePerSec: rate, predict: predict.recorder.summary(), status: status.recorder.summary() });
    }
  }
  process.stderr.write('\n');
  return rows;
}
