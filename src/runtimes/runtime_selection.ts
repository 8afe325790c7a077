// --runtime → the runtime executor threads will use, decided once on the main thread so
// the choice and its reason are logged once. `auto` prefers libtensorflow through
// @tensorflow/tfjs-node-gpu, then @tensorflow/tfjs-node (both optional dependencies whose
// install downloads libtensorflow), then ONNX Runtime (onnxruntime-node) with the embedded
// WASM runtime for the signatures ONNX cannot run, then the embedded runtime alone.
import type { RuntimeChoice } from '../config/flags.js';

/**
 * What executor threads are told to run; 'embedded' is WASM, or CPU where WASM cannot start;
 * 'onnx+embedded' is ONNX Runtime with the embedded runtime for what it cannot run.
 */
export type ResolvedRuntime = 'tfjs-node-gpu' | 'tfjs-node' | 'onnx+embedded' | 'onnx' | 'onnx-cuda' | 'embedded' | 'wasm' | 'cpu';

const ONNX_PACKAGE = 'onnxruntime-node';

export const TFJS_NODE_PACKAGES = {
  'tfjs-node-gpu': '@tensorflow/tfjs-node-gpu',
  'tfjs-node': '@tensorflow/tfjs-node',
} as const;

/** Imports a package by name; the server passes `import`, tests pass their own. */
export type PackageImporter = (pkg: string) => Promise<unknown>;

export const importPackage: PackageImporter = (pkg) => import(pkg);

export interface RuntimeSelection {
  runtime: ResolvedRuntime;
  /** One line for the log: which runtime, and why the preferred ones were not taken. */
  reason: string;
}

/** Why an import failed, in a few words (a missing package is the common case). */
function importFailure(e: unknown): string {
  const err = e as NodeJS.ErrnoException;
  if (err?.code === 'ERR_MODULE_NOT_FOUND' || err?.code === 'MODULE_NOT_FOUND') return 'not installed';
  const first = String(err?.message ?? e).split('\n')[0];
  return `installed but does not load (${first})`;
}

export class RuntimeUnavailableError extends Error {}

export async function selectRuntime(choice: RuntimeChoice, importer: PackageImporter = importPackage): Promise<RuntimeSelection> {
  if (choice === 'wasm' || choice === 'cpu')
    return {
      runtime: choice,
      reason: `--runtime=${choice}: embedded runtime on the ${choice === 'wasm' ? 'WASM' : 'pure-JS CPU'} backend`,
    };
  if (choice === 'tfjs-node' || choice === 'tfjs-node-gpu') {
    const pkg = TFJS_NODE_PACKAGES[choice];
    try {
      await importer(pkg);
    } catch (e) {
      // Asked for by name: falling back silently would hide a broken production image.
      throw new RuntimeUnavailableError(`--runtime=${choice}: ${pkg} is ${importFailure(e)}`);
    }
    return { runtime: choice, reason: `--runtime=${choice}: libtensorflow through ${pkg}` };
  }
  if (choice === 'onnx' || choice === 'onnx-cuda') {
    try {
      await importer(ONNX_PACKAGE);
    } catch (e) {
      throw new RuntimeUnavailableError(`--runtime=${choice}: ${ONNX_PACKAGE} is ${importFailure(e)}`);
    }
    return {
      runtime: choice,
      reason: `--runtime=${choice}: ONNX Runtime (${ONNX_PACKAGE}, ${choice === 'onnx' ? 'CPU' : 'CUDA'} execution provider); a signature it cannot run is refused`,
    };
  }
  const skipped: string[] = [];
  for (const name of ['tfjs-node-gpu', 'tfjs-node'] as const) {
    const pkg = TFJS_NODE_PACKAGES[name];
    try {
      await importer(pkg);
      return { runtime: name, reason: `--runtime=auto: libtensorflow through ${pkg}${skipped.length ? ` (${skipped.join('; ')})` : ''}` };
    } catch (e) {
      skipped.push(`${pkg} ${importFailure(e)}`);
    }
  }
  try {
    await importer(ONNX_PACKAGE);
    return {
      runtime: 'onnx+embedded',
      reason: `--runtime=auto: ONNX Runtime (${ONNX_PACKAGE}, CPU), the embedded WASM runtime for signatures it cannot run (${skipped.join('; ')})`,
    };
  } catch (e) {
    skipped.push(`${ONNX_PACKAGE} ${importFailure(e)}`);
  }
  return { runtime: 'embedded', reason: `--runtime=auto: embedded runtime (${skipped.join('; ')})` };
}
