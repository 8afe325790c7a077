// The bounds of one version's load: how much memory the tensors it makes may take, and how
// long it may run. A load reads, prepares, converts, constant-folds, verifies and warms up a
// version; a 500-byte saved_model.pb may ask any of those steps for gigabytes (a Fill of
// [30000, 30000], a Const broadcasting one float to 1.6 GB, a OneHot of depth 2^31 - 1), or
// loop for ever in a warmup record. The bounds grow with the version's size on disk, as TF
// Serving's own resource estimate does (1.2 × the files' size, bundle_factory_util.cc): a
// large model may hold large tensors, a tiny one may not.
//
// Memory: no tensor a load makes, and no run's tensors alive at one time, may exceed
//   max(--load_memory_floor_mb, 4 × the version's size on disk);
// a graph whose sizes are known before anything runs (constant shapes, and at verification
// and warmup the inputs' shapes) is refused before that tensor is allocated, naming its op
// and node (graph/tensor_sizes.ts).
//
// Time: a load may take at most --load_timeout_seconds plus one second per 4 MB on disk;
// then it fails with DEADLINE_EXCEEDED and its executor threads are stopped. TF Serving has
// no load timeout of its own (a load runs until it ends, and a failed one is retried
// --max_num_load_retries times); this one is tfgate's.

/** --load_memory_floor_mb's default: the memory bound of a small version. */
const DEFAULT_LOAD_MEMORY_FLOOR_MB = 256;
/** A version may make tensors up to this many times its size on disk. */
const SIZE_MULTIPLIER = 4;
/** --load_timeout_seconds' default: the time bound of a small version. */
export const DEFAULT_LOAD_TIMEOUT_SECONDS = 120;
/** Bytes on disk that earn one more second of load time. */
const BYTES_PER_EXTRA_SECOND = 4 * 2 ** 20;

export interface LoadMemoryBound {
  bytes: number;
  /** How the bound was reached, for the refusal's message. */
  rule: string;
}

export function loadMemoryBound(versionBytes: number, floorMb = DEFAULT_LOAD_MEMORY_FLOOR_MB): LoadMemoryBound {
  const floor = floorMb * 2 ** 20;
  const scaled = SIZE_MULTIPLIER * versionBytes;
  return scaled > floor
    ? { bytes: scaled, rule: `${SIZE_MULTIPLIER} × the version's ${versionBytes} bytes on disk` }
    : {
        bytes: floor,
        rule: `--load_memory_floor_mb=${floorMb}, more than ${SIZE_MULTIPLIER} × the version's ${versionBytes} bytes on disk`,
      };
}

/** The load's time bound in ms (0 for none). */
export function loadTimeoutMs(versionBytes: number, timeoutSeconds = DEFAULT_LOAD_TIMEOUT_SECONDS): number {
  if (timeoutSeconds <= 0) return 0;
  return (timeoutSeconds + Math.floor(versionBytes / BYTES_PER_EXTRA_SECOND)) * 1000;
}
