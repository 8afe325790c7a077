// The server's own view of a measurement, from tfgate's Prometheus metrics read before and
// after it: how long requests spent in tfgate, in the batch queue and on an executor. It
// splits a client-side latency into the model, the batching wait and everything else.
export interface ServerView {
  requests: number;
  /** Mean time from tfgate receiving the request to its answer (:tensorflow:serving:request_latency). */
  requestMs: number;
  /** Mean wait in the batch queue (tfgate_batch_queuing_delay_seconds); 0 with batching off. */
  queueingMs: number;
  /** Mean rows per executed batch (tfgate_batch_size). */
  meanBatchSize: number;
}

export type Counters = Record<'latencySum' | 'latencyCount' | 'queueSum' | 'queueCount' | 'batchRows' | 'batches', number>;

function sumOf(text: string, metric: string): number {
  let total = 0;
  for (const line of text.split('\n'))
    if (line.startsWith(metric) && (line[metric.length] === '{' || line[metric.length] === ' '))
      total += Number(line.slice(line.lastIndexOf(' ') + 1));
  return total;
}

export async function readCounters(metricsUrl: string): Promise<Counters> {
  return countersFromText(await fetch(metricsUrl, { headers: { connection: 'close' } }).then((r) => r.text()));
}

/** The counters from a Prometheus text exposition (summed over label sets). */
export function countersFromText(text: string): Counters {
  return {
    latencySum: sumOf(text, ':tensorflow:serving:request_latency_sum'),
    latencyCount: sumOf(text, ':tensorflow:serving:request_latency_count'),
    queueSum: sumOf(text, 'tfgate_batch_queuing_delay_seconds_sum'),
    queueCount: sumOf(text, 'tfgate_batch_queuing_delay_seconds_count'),
    batchRows: sumOf(text, 'tfgate_batch_size_sum'),
    batches: sumOf(text, 'tfgate_batch_size_count'),
  };
}

export function serverView(before: Counters, after: Counters): ServerView {
  const d = (k: keyof Counters) => after[k] - before[k];
  const requests = d('latencyCount');
  return {
    requests,
    // request_latency is in microseconds (TF Serving's unit), the queueing delay in seconds.
    requestMs: requests ? d('latencySum') / requests / 1000 : NaN,
    queueingMs: d('queueCount') ? (d('queueSum') / d('queueCount')) * 1000 : 0,
    meanBatchSize: d('batches') ? d('batchRows') / d('batches') : 1,
  };
}

/** Executed batches by their size after padding (TF Serving's padding_size histogram, one label per execution batch size). */
export function batchesBySize(text: string): Map<number, number> {
  const counts = new Map<number, number>();
  const re = /^:tensorflow:serving:batching_session:padding_size_count\{execution_batch_size="(\d+)"\} (\S+)$/gm;
  for (const m of text.matchAll(re)) counts.set(Number(m[1]), (counts.get(Number(m[1])) ?? 0) + Number(m[2]));
  return counts;
}

/** Executor compute time spent on batches, seconds (tfgate_executor_busy_seconds_total, all models). */
export function executorBusySeconds(text: string): number {
  return sumOf(text, 'tfgate_executor_busy_seconds_total');
}

/** Runs `measure` between two reads of the server's counters (none when there is no metrics URL). */
export async function withServerView<T>(
  metricsUrl: string | undefined,
  measure: () => Promise<T>,
): Promise<{ result: T; server?: ServerView }> {
  if (!metricsUrl) return { result: await measure() };
  const before = await readCounters(metricsUrl);
  const result = await measure();
  return { result, server: serverView(before, await readCounters(metricsUrl)) };
}

/** Runs `measure` between two reads of the batches the server ran, by size (none without a metrics URL or batching). */
export async function withBatchSizes<T>(
  metricsUrl: string | undefined,
  measure: () => Promise<T>,
): Promise<{ result: T; batches?: Record<string, number> }> {
  if (!metricsUrl) return { result: await measure() };
  const read = async () => batchesBySize(await fetch(metricsUrl, { headers: { connection: 'close' } }).then((r) => r.text()));
  const before = await read();
  const result = await measure();
  const batches: Record<string, number> = {};
  for (const [size, n] of await read()) if (n > (before.get(size) ?? 0)) batches[size] = n - (before.get(size) ?? 0);
  return { result, ...(Object.keys(batches).length && { batches }) };
}
