// What running a request adds to the server's memory beyond its decoded inputs (which its
// decoder charged): the executor thread's copy of what is not moved to it, what the engine
// holds at its peak, and the outputs, which come back to the main thread and are held there
// until the answer is written. PredictionService charges it to the request's share of
// --max_inflight_request_bytes before the run, so that admitted work fits.
//
// Example, keras3_mnist_conv (RunCost: 84.5 KB per row at the peak, 40 B of output), 19 500
// rows sent as 61 MB of tensor_content: 1.65 GB charged before the run — past the default
// budget alone, refused RESOURCE_EXHAUSTED at once, where four such requests used to be
// admitted together and took ~2 GB each.
import type { RunCost } from '../runtimes/run_cost.js';
import type { HostTensor } from '../tensor/host_tensor.js';
import { hostTensorBytes } from '../tensor/tensor_cost.js';

/**
 * The main thread's hold on an output byte: its copy, then the answer written from it (REST
 * JSON: ~10 bytes per float32 at the writer's peak, measured on 5 Mi floats, then the body's
 * bytes; a gRPC answer is its bytes once more).
 */
const OUTPUT_HOLD_FACTOR = 8;

/**
 * A signature whose engine cannot tell its cost from the graph (the TF.js engines; shapes the
 * ONNX converter could not follow): its run is taken to hold this many times its inputs
 * (half_plus_two: its input, two intermediates and its output, each the input's size).
 */
const UNKNOWN_RUN_FACTOR = 4;

/** Rows of a request: the largest leading dimension among its inputs (1 for scalars). */
function rowsOf(inputs: Record<string, HostTensor>): number {
  let rows = 1;
  for (const t of Object.values(inputs)) if (t.shape.length > 0) rows = Math.max(rows, t.shape[0]);
  return rows;
}

/** Bytes a run of `inputs` adds to the server's memory, from the signature's RunCost (undefined: unknown). */
export function runMemoryBytes(cost: RunCost | undefined, inputs: Record<string, HostTensor>): number {
  let inputBytes = 0;
  // Numbers move to the executor thread (request_owned.ts); strings are copied, element by element.
  let copied = 0;
  for (const t of Object.values(inputs)) {
    const bytes = hostTensorBytes(t);
    inputBytes += bytes;
    if (t.dtype === 'string') copied += bytes;
  }
  if (!cost) return copied + UNKNOWN_RUN_FACTOR * inputBytes;
  const rows = rowsOf(inputs);
  return (
    copied +
    cost.peakFixedBytes +
    cost.peakBytesPerRow * rows +
    OUTPUT_HOLD_FACTOR * (cost.outputFixedBytes + cost.outputBytesPerRow * rows)
  );
}
