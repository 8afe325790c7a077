// How an OnnxSession reaches ONNX Runtime. onnxruntime-node's public InferenceSession.run
// defers every run to a setImmediate (so that a caller on the main thread returns before the
// run blocks it). On an executor thread that only costs: the runs of a coalesced message each
// wait for a turn of the thread's event loop — a poll syscall and the loop's bookkeeping per
// request. Measured on half_plus_two at 32 connections: ~13 % more requests/s and ~13 % less
// server CPU per request when runs call the native session directly.
//
// So sessions are made on onnxruntime-node's N-API binding (the object its public session
// wraps) and run synchronously. The binding is not public API: when this version of
// onnxruntime-node does not have it in the expected shape, the public InferenceSession is
// used instead (same results, the deferral back).
import { createRequire } from 'node:module';
import type ort from 'onnxruntime-node';

/** ONNX Runtime session options, as both the binding and InferenceSession.create take them. */
export type OrtSessionOptions = ort.InferenceSession.SessionOptions;

export interface OrtSessionRunner {
  /** Runs the graph; `fetches` are output names. */
  run(feeds: Record<string, ort.Tensor>, fetches: readonly string[]): Record<string, ort.Tensor> | Promise<Record<string, ort.Tensor>>;
  release(): void;
  /** 'binding': synchronous runs on the native session; 'public': InferenceSession.run. */
  readonly kind: 'binding' | 'public';
}

/** The part of onnxruntime-node's native InferenceSession (bin/napi-v6/…/onnxruntime_binding.node) used here. */
interface NativeSession {
  loadModel(buffer: ArrayBufferLike, byteOffset: number, byteLength: number, options: OrtSessionOptions): void;
  run(feeds: Record<string, ort.Tensor>, fetches: Record<string, null>, options: object): Record<string, ort.Tensor>;
  dispose(): void;
}

interface BindingModule {
  binding: { InferenceSession: new () => NativeSession };
  /** Initialises ONNX Runtime's environment once per thread (it hands the binding ort.Tensor). */
  initOrt(): void;
}

let bindingModule: BindingModule | null | undefined;

function loadBinding(): BindingModule | null {
  if (bindingModule !== undefined) return bindingModule;
  try {
    const m = createRequire(import.meta.url)('onnxruntime-node/dist/binding.js') as Partial<BindingModule>;
    const ok = typeof m.initOrt === 'function' && typeof m.binding?.InferenceSession === 'function';
    const proto = ok ? (m.binding!.InferenceSession.prototype as Partial<NativeSession>) : undefined;
    bindingModule = proto && typeof proto.loadModel === 'function' && typeof proto.run === 'function' ? (m as BindingModule) : null;
  } catch {
    bindingModule = null;
  }
  return bindingModule;
}

class BindingRunner implements OrtSessionRunner {
  readonly kind = 'binding';
  constructor(private readonly native: NativeSession) {}

  run(feeds: Record<string, ort.Tensor>, fetches: readonly string[]): Record<string, ort.Tensor> {
    const wanted: Record<string, null> = {};
    for (const name of fetches) wanted[name] = null;
    return this.native.run(feeds, wanted, {});
  }

  release(): void {
    this.native.dispose();
  }
}

class PublicRunner implements OrtSessionRunner {
  readonly kind = 'public';
  constructor(private readonly session: ort.InferenceSession) {}

  run(feeds: Record<string, ort.Tensor>, fetches: readonly string[]): Promise<Record<string, ort.Tensor>> {
    return this.session.run(feeds, fetches as string[]) as Promise<Record<string, ort.Tensor>>;
  }

  release(): void {
    void this.session.release();
  }
}

/**
 * A session for the model `bytes`. `via: 'public'` forces the public API (the tests compare
 * the two).
 */
export async function createOrtSessionRunner(
  ortModule: typeof ort,
  bytes: Uint8Array,
  options: OrtSessionOptions,
  via?: 'public',
): Promise<OrtSessionRunner> {
  const binding = via === 'public' ? null : loadBinding();
  if (!binding) return new PublicRunner(await ortModule.InferenceSession.create(bytes, options));
  binding.initOrt();
  const native = new binding.binding.InferenceSession();
  native.loadModel(bytes.buffer, bytes.byteOffset, bytes.byteLength, options);
  return new BindingRunner(native);
}
