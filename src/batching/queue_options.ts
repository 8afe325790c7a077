// The parameters of one batch queue: TF Serving's QueueOptions (from BatchingParameters), and
// which batching policy decides what they leave open.
export interface QueueOptions {
  maxBatchSize: number;
  batchTimeoutMicros: number;
  maxEnqueuedBatches: number;
  /** Sizes a batch is padded up to (ascending; the last equals the largest batch). Empty: no padding. */
  allowedBatchSizes: readonly number[];
  enableLargeBatchSplitting: boolean;
  /** Largest batch run at once when splitting is enabled (defaults to maxBatchSize). */
  maxExecutionBatchSize?: number;
  /** pad_variable_length_inputs: requests whose inputs differ beyond dimension 0 may share a batch, zero-padded to the largest. */
  padVariableLengthInputs?: boolean;
  /** The batching policy: a key of the scheduler's policy table (--batching_mode, validated by config). Unset: fixed. */
  mode?: string;
  /** Adaptive mode's per-request latency target (ms); undefined: none. Other policies do not read it. */
  latencyTargetMs?: number;
}
