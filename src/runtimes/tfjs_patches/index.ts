// tfgate's patches to the TF.js packages it runs on, each fixing one upstream defect that gives
// a wrong number, an abort or a leak (or filling a kernel gap), applied at run time so that
// they survive `npm ci --omit=dev`. Every engine that runs TF.js gets them: the embedded
// runtime, and ONNX Runtime's ParseExample step (shared/tfjs_backend.ts applies the WASM ones).
// Each patch is written up, ready to file, in docs/upstream/:
//
// | module                   | package           | what it fixes                                             | report (docs/upstream/)               |
// |--------------------------|-------------------|-----------------------------------------------------------|---------------------------------------|
// | wasm_conv_same_fix.ts    | tfjs-backend-wasm | SAME convs return zeros when (in − 1) mod stride ≥ kernel | tfjs-wasm-same-conv-padding.md        |
// | wasm_rank_fix.ts         | tfjs-backend-wasm | float Add/Sub/Mul/Div/SquaredDifference/PadV2 at rank ≥ 7 | tfjs-wasm-rank7.md                    |
// |                          |                   | return uninitialized memory                               |                                       |
// | wasm_gather_fix.ts       | tfjs-backend-wasm | GatherV2 with batch_dims reads other batches' indices     | tfjs-wasm-gather-batch-dims.md        |
// | wasm_string_fix.ts       | tfjs-backend-wasm | Tile / GatherNd on strings abort the module               | tfjs-wasm-string-tile-gathernd.md     |
// | wasm_cpu_kernels.ts      | tfjs-backend-wasm | kernels WASM lacks (Ragged*, UnsortedSegmentSum …),       | tfjs-converter-ragged-ops-unmapped.md |
// |                          |                   | borrowed from the CPU backend                             |                                       |
// | wasm_complex.ts          | tfjs-backend-wasm | complex64 tensors cannot be made, read or cloned          | tfjs-wasm-complex64.md                |
// | graph_executor_patch.ts  | tfjs-converter    | the executor frees tensors TensorLists keep; a failed run | none filed yet: the module's header   |
// |                          |                   | leaks its intermediates                                   | is the write-up                       |
// | wasm_kernel_patch.ts     | —                 | how a WASM kernel is replaced (used by the four fixes)    |                                       |
//
// A patch leaves this folder when the upstream release tfgate depends on has the fix; its
// test (test/runtimes/wasm_kernel_fixes.test.ts, graph_executor_patch.test.ts) says whether it does.
import { fixWasmSameConvKernels } from './wasm_conv_same_fix.js';
import { fixWasmHighRankKernels } from './wasm_rank_fix.js';
import { fixWasmGather } from './wasm_gather_fix.js';
import { fixWasmStringKernels } from './wasm_string_fix.js';
import { borrowCpuKernelsForWasm } from './wasm_cpu_kernels.js';
import { supportWasmComplex } from './wasm_complex.js';

export { patchGraphExecutor } from './graph_executor_patch.js';

/** Replaces the WASM kernels that give wrong numbers and adds the ones it lacks. Idempotent. */
export function patchWasmBackend(): void {
  fixWasmSameConvKernels();
  fixWasmHighRankKernels();
  fixWasmGather();
  fixWasmStringKernels();
  // Kernels WASM lacks and real exports need, run by the CPU backend.
  borrowCpuKernelsForWasm();
  // complex64 tensors (the spectral ops'), held as interleaved pairs.
  supportWasmComplex();
}
