// How tfgate replaces a tfjs-backend-wasm kernel that gives wrong numbers: the kernel config is
// unregistered and registered again with a kernelFunc that wraps the original (its setupFunc,
// which binds the WASM entry point, is kept). Done at module load, before any model runs, so
// it works under `npm ci --omit=dev` and covers every caller: tfjs-converter's GraphModel,
// tfgate's CompiledGraph, any tf.* op.
import tf from '../tfjs_packages/tfjs_core.cjs';

type KernelArgs = Parameters<tf.KernelFunc>[0];

const ours = new WeakSet<tf.KernelFunc>();

/** Re-registers WASM kernel `name` as `wrap(original)`. Idempotent; a no-op if WASM lacks it. */
export function patchWasmKernel(name: string, wrap: (original: tf.KernelFunc) => tf.KernelFunc): void {
  const config = tf.getKernel(name, 'wasm');
  if (!config || ours.has(config.kernelFunc)) return;
  const kernelFunc = wrap(config.kernelFunc);
  ours.add(kernelFunc);
  tf.unregisterKernel(name, 'wasm');
  tf.registerKernel({ ...config, kernelFunc });
}

/**
 * Runs the CPU backend's kernel `name` (tfjs-backend-cpu, a dependency) on tensors held by
 * the calling backend: inputs are copied over, results copied back. For the cases the WASM
 * kernel gets wrong, which are rare enough that the copies do not matter.
 */
export function runOnCpu(name: string, args: KernelArgs): tf.TensorInfo | tf.TensorInfo[] {
  const cpu = tf.findBackend('cpu');
  const kernel = tf.getKernel(name, 'cpu');
  if (!cpu || !kernel) throw new Error(`${name}: the WASM kernel cannot compute this case and the CPU backend is not available`);
  const from = args.backend as tf.KernelBackend;
  const copies: tf.TensorInfo[] = [];
  try {
    const copy = (t: tf.TensorInfo): tf.TensorInfo => {
      const c = { dataId: cpu.write(from.readSync(t.dataId), t.shape, t.dtype), shape: t.shape, dtype: t.dtype };
      copies.push(c);
      return c;
    };
    // An input is a tensor, or a list of them (RaggedTensorToTensor's rowPartitionTensors).
    const inputs: Record<string, tf.TensorInfo | tf.TensorInfo[]> = {};
    for (const [key, t] of Object.entries(args.inputs as Record<string, tf.TensorInfo | tf.TensorInfo[] | undefined>)) {
      if (!t) continue;
      inputs[key] = Array.isArray(t) ? t.map(copy) : copy(t);
    }
    const out = kernel.kernelFunc({ inputs: inputs as tf.NamedTensorInfoMap, attrs: args.attrs, backend: cpu });
    const back = (Array.isArray(out) ? out : [out]).map((o) => {
      try {
        return { dataId: from.write(cpu.readSync(o.dataId), o.shape, o.dtype), shape: o.shape, dtype: o.dtype };
      } finally {
        cpu.disposeData(o.dataId);
      }
    });
    return Array.isArray(out) ? back : back[0];
  } finally {
    for (const c of copies) cpu.disposeData(c.dataId);
  }
}
