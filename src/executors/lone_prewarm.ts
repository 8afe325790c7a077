// Warming the executor thread of a lone request while the event loop reads that request.
// After idle, everything a request touches has gone cold: on 2 shared cores, half_plus_two's run
// on its executor thread took 250–300 µs 200 ms after the last one against 25–75 µs back to back
// (bench/cold_run.ts), with no system call in it (strace): cache misses along ONNX Runtime's run
// path, the same on one intra-op thread as on two. It sets in within milliseconds (about 70 µs
// 1 ms after the last run, 115–145 µs after 5 ms), so no periodic keep-warm short of spinning
// would hold it off. It can be overlapped instead: the event loop takes about 1 ms from a
// request's arrival to handing it to the thread (perf sched, after 200 ms idle). So when a POST's
// headers arrive while no executor thread runs anything, the thread that took the process's last
// lone run replays it, its answer dropped (executor_host.ts, prewarmForArrival): the thread wakes
// and runs cold then, and the real run ~1 ms later finds it awake and warm — in cold_run, with
// the replay 1 ms ahead, wake plus run 200–290 µs against 440–530.
// Cost: one more run per POST that finds the process idle for 2 ms or more (none back to back or
// under load), on one thread, whichever model the POST is for. Only versions whose runs can take
// at most PREWARM_MAX_MS are replayed: the replay must end well before the request it warms for
// reaches the thread, and its CPU comes from a core others need; only messages of one request up
// to PREWARM_MAX_BYTES are kept for it.
// Node publishes a request's start on a diagnostics channel (REST over node:http; gRPC's HTTP/2
// server publishes nothing there, so gRPC requests are not prewarmed).
import diagnostics from 'node:diagnostics_channel';
import type { PackedTensors } from './protocol.js';
import { packedBytes } from './run_wire.js';

/**
 * Longest run replayed (ms, the version's fastest lone run on the thread). The replay takes a core
 * the event loop and the client may need: on 2 shared cores, the bench MLP (fastest run ~0.55 ms)
 * replayed gained 0.29 ms of run and lost 0.97 ms elsewhere (bench:lone, median 4.35 ms against
 * 3.58, +1.0 ms CPU per request); half_plus_two (~0.02 ms warm, 0.25 cold) gained. So tiny runs only.
 */
export const PREWARM_MAX_MS = 0.1;
/**
 * Idle time (ms since the thread's last answer) after which a prewarm is sent: back to back, a
 * thread is still warm and a replay would be a run and a wake for nothing (in cold_run, a run
 * 1 ms after the last took 66 µs against 19 warm, 5 ms after 115–146).
 */
export const PREWARM_AFTER_IDLE_MS = 2;
/** Largest message (packed bytes) whose run is kept for replay: the thread holds it for as long as it is the last. */
export const PREWARM_MAX_BYTES = 64 * 1024;

/**
 * Whether a lone request's run (one request in its message, answered) is kept for replay: a
 * small one. String tensors travel beside the packed bytes, uncounted (packedBytes): any, not kept.
 */
export function keepForReplay(message: PackedTensors): boolean {
  if (!(message instanceof ArrayBuffer) && message.whole.some((t) => Array.isArray(t.values))) return false;
  return packedBytes(message) <= PREWARM_MAX_BYTES;
}

/**
 * Whether a version's kept run is replayed: short enough to end before the request it warms the
 * thread for. `fastestMs`: its fastest lone run on the thread (a run the thread lost its core in does not count against it).
 */
export function replayable(fastestMs: number, maxMs = PREWARM_MAX_MS): boolean {
  return fastestMs <= maxMs;
}

const REQUEST_START = 'http.server.request.start';

/**
 * Calls `onPost` as each POST request's headers arrive on any node:http server of the process
 * (inference is POSTed; status, metadata and metrics are GETs). Returns the unsubscribe.
 */
export function onPostArrival(onPost: () => void): () => void {
  const listener = (message: unknown) => {
    if ((message as { request?: { method?: string } }).request?.method === 'POST') onPost();
  };
  diagnostics.subscribe(REQUEST_START, listener);
  return () => void diagnostics.unsubscribe(REQUEST_START, listener);
}
