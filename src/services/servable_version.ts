// What the services see of a loaded model version, and how they get hold of one.
import type { HostTensor } from '../tensor/host_tensor.js';
import type { ModelDescription } from '../executors/protocol.js';
import type { ServableHandle, ServableRequest } from '../core/servable_handle.js';
import type { Release } from '../executors/admission.js';

export type { Release };

/** TF Serving's ModelSpec: the wire name of core's ServableRequest (one type, two names). */
export type ModelSpec = ServableRequest;

/** Where a request's time went; filled in by the layers it passes (for Server-Timing). */
export interface RunStats {
  /** Waiting in a batch queue. */
  queueMs?: number;
  /** Running on an executor (the whole batch, when batched), as the main thread sees it. */
  inferMs?: number;
  /** The executor thread's own compute time for the run. */
  computeMs?: number;
  /** Reaching the executor thread (see ExecutorTiming), and the answer coming back from it. */
  handoffMs?: number;
  handbackMs?: number;
  /** REST: reading and parsing the body into tensors; writing the answer's JSON. */
  parseMs?: number;
  serialiseMs?: number;
  /** Rows of the batch it ran in, and after padding. */
  batchSize?: number;
  paddedBatchSize?: number;
}

/** What travels with one request through batching and executors. */
export interface RunOptions {
  /** Filled in by the layers the request passes (Server-Timing, metrics). */
  stats?: RunStats;
  /**
   * When the caller stops waiting, in performance.now() milliseconds: the REST timeout or a
   * gRPC deadline. Work not started by then is answered DEADLINE_EXCEEDED and never run.
   */
  deadline?: number;
  /**
   * A batch, which can no longer grow: with no executor thread free it may wait on a busy
   * thread behind the run there, to start the moment that run ends (ExecutorPool.run).
   */
  queueBehind?: boolean;
}

/** A loaded version: its description and the executors that run it. */
export interface ServableVersion {
  readonly description: ModelDescription;
  run(
    signature: string,
    inputs: Record<string, HostTensor>,
    outputKeys: string[],
    options?: RunOptions,
  ): Promise<Record<string, HostTensor>>;
  /**
   * Admission before a request is read: throws the refusal (UNAVAILABLE) when the queue in
   * front of this version has no room for one more request, counting those admitted and still
   * being read or parsed; otherwise holds a place until the returned release() — called once
   * the request reaches run() (or failed before; calling it again does nothing). Cheap and
   * synchronous, so that under overload the excess is refused for next to nothing instead of
   * being read and parsed first, and what is parsed at once is bounded by the queue's room.
   * run() still checks: a request of several rows may need more room than one place.
   */
  admit?(): Release;
}

export interface VersionSource {
  /** The version the spec names (latest available when it names none); NOT_FOUND otherwise. */
  acquire(spec: ModelSpec): ServableHandle<ServableVersion>;
}
