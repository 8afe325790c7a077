// What one run of a signature makes its executor thread hold, as a fixed part and a part per
// batch row, estimated at load from the graph's shapes: the main thread charges it to the
// in-flight memory budget (services/memory_budget.ts) before the run, so that admitted work fits.
// Example, keras3_mnist_conv (Conv2D 16×3×3 → Relu → Flatten → Dense): per row 3 KB in,
// 2 × 43 KB of activations live at once, 40 bytes out — 14× the input, which a budget that
// counted decoded tensors alone missed (four 61 MB requests: ~2 GB each, all admitted).

/** Bytes a run holds at its peak, and bytes of its outputs, each as fixed + per batch row. */
export interface RunCost {
  peakFixedBytes: number;
  peakBytesPerRow: number;
  outputFixedBytes: number;
  outputBytesPerRow: number;
}
