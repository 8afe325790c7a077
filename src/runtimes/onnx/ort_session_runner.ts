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
//
// On the binding, a feed is the plain object the binding reads (dims, location, type, data)
// rather than an ort.Tensor, whose constructor validates what is checked here already and
// whose getters the binding would call back into from C++; the outputs are made by a plain
// constructor given to the binding in place of ort.Tensor's (onnxruntime-common wraps any
// such result in an ort.Tensor for its public API); no run options are passed, so the
// session's own are used instead of a new set per run. Measured in one process on half_plus_two
// (a [3] float feed, run as the executor runs it): 15–19 µs of CPU per run against 18–26 before.
import { createRequire } from 'node:module';
import { isMainThread } from 'node:worker_threads';
import type ort from 'onnxruntime-node';
import { TYPED_ARRAY, type HostTensor, type NumericArrayConstructor } from '../../tensor/host_tensor.js';
import type { DType } from '../../tensor/dtype.js';
import { ORT_TYPE } from './onnx_dtype.js';

/** ONNX Runtime session options, as both the binding and InferenceSession.create take them. */
export type OrtSessionOptions = ort.InferenceSession.SessionOptions;

/** An output as ONNX Runtime gives it: its type name (ORT_TYPE), dims and data. */
export interface OrtOutput {
  readonly type: string;
  readonly dims: readonly number[];
  readonly data: unknown;
}

export interface OrtSessionRunner {
  /**
   * Runs the graph on `values`, fed to the graph inputs `names` (in the same order); `fetches`
   * are output names. The binding answers at once (throwing on a refusal), the public API with a promise.
   */
  run(
    names: readonly string[],
    values: readonly HostTensor[],
    fetches: readonly string[],
  ): Record<string, OrtOutput> | Promise<Record<string, OrtOutput>>;
  release(): void;
  /** 'binding': synchronous runs on the native session; 'public': InferenceSession.run. */
  readonly kind: 'binding' | 'public';
}

/** A feed as the binding reads it (tensor_helper.cc, NapiValueToOrtValue). */
interface NativeFeed {
  dims: readonly number[];
  location: 'cpu';
  type: string;
  data: unknown;
}

/** The part of onnxruntime-node's native InferenceSession (bin/napi-v6/…/onnxruntime_binding.node) used here. */
interface NativeSession {
  loadModel(buffer: ArrayBufferLike, byteOffset: number, byteLength: number, options: OrtSessionOptions): void;
  run(feeds: Record<string, NativeFeed | ort.Tensor>, fetches: Record<string, null>): Record<string, OrtOutput>;
  dispose(): void;
}

type OutputConstructor = new (type: string, data: unknown, dims: number[]) => OrtOutput;

interface BindingModule {
  binding: {
    InferenceSession: new () => NativeSession;
    /** Sets up ONNX Runtime for this thread; the binding makes its outputs with `tensor`. */
    initOrtOnce?: (logLevel: number, tensor: OutputConstructor, isMainThread: boolean) => void;
  };
  /** onnxruntime-node's own set-up: the same, with ort.Tensor as the outputs' constructor. */
  initOrt(): void;
}

/** What the binding makes each output with: the three fields, nothing computed or checked. */
class NativeOutput implements OrtOutput {
  constructor(
    readonly type: string,
    readonly data: unknown,
    readonly dims: number[],
  ) {}
}

/** An output's dims as a shape of its own: the binding's own array (made for this output), else a copy. */
export function outputShape(t: OrtOutput): number[] {
  return t instanceof NativeOutput ? t.dims : [...t.dims];
}

/** onnxruntime-common's log level names, as binding.js maps them. */
const LOG_LEVELS: Record<string, number> = { verbose: 0, info: 1, warning: 2, error: 3, fatal: 4 };

let bindingModule: BindingModule | null | undefined;
let initialised = false;

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

/** ONNX Runtime set up for this thread once, with NativeOutput for outputs where the binding takes one. */
function initialise(binding: BindingModule, logLevel: string | undefined): void {
  if (initialised) return;
  initialised = true;
  const level = logLevel === undefined ? 2 : LOG_LEVELS[logLevel];
  if (typeof binding.binding.initOrtOnce === 'function' && level !== undefined)
    binding.binding.initOrtOnce(level, NativeOutput, isMainThread);
  else binding.initOrt();
}

/** The typed array each type's data must be, as ort.Tensor requires it: tfgate's own storage (ort.Tensor has no bfloat16). */
function storageOf(dtype: DType): NumericArrayConstructor | undefined {
  return dtype === 'string' || dtype === 'bfloat16' ? undefined : TYPED_ARRAY[dtype];
}

/** The elements `shape` holds; -1 when a dim is not a non-negative integer (ort.Tensor refuses it). */
function elements(shape: readonly number[]): number {
  let n = 1;
  for (let i = 0; i < shape.length; i++) {
    const d = shape[i];
    if (!Number.isSafeInteger(d) || d < 0) return -1;
    n *= d;
  }
  return n;
}

function publicTensor(ortModule: typeof ort, t: HostTensor): ort.Tensor {
  return new ortModule.Tensor(ORT_TYPE[t.dtype] as 'float32', t.values as Float32Array, t.shape);
}

/**
 * `t` as the binding reads it: a plain feed when it is what ort.Tensor accepts without a
 * question (its type's own typed array, as many elements as its shape says, dims integers ≥ 0);
 * anything else goes through ort.Tensor, to be refused as before.
 */
function nativeFeed(ortModule: typeof ort, t: HostTensor): NativeFeed | ort.Tensor {
  const type = ORT_TYPE[t.dtype];
  const v = t.values;
  const storage = storageOf(t.dtype);
  if (storage && v.constructor === storage && (v as Float32Array).length === elements(t.shape))
    return { dims: t.shape, location: 'cpu', type, data: v };
  return publicTensor(ortModule, t);
}

class BindingRunner implements OrtSessionRunner {
  readonly kind = 'binding';
  /** The fetches object of the last run, kept for the next run that fetches the same list. */
  private wanted?: { fetches: readonly string[]; names: Record<string, null> };

  constructor(
    private readonly ortModule: typeof ort,
    private readonly native: NativeSession,
  ) {}

  run(names: readonly string[], values: readonly HostTensor[], fetches: readonly string[]): Record<string, OrtOutput> {
    const feeds: Record<string, NativeFeed | ort.Tensor> = {};
    for (let i = 0; i < names.length; i++) feeds[names[i]] = nativeFeed(this.ortModule, values[i]);
    let wanted = this.wanted;
    if (wanted?.fetches !== fetches) {
      const record: Record<string, null> = {};
      for (const name of fetches) record[name] = null;
      this.wanted = wanted = { fetches, names: record };
    }
    return this.native.run(feeds, wanted.names);
  }

  release(): void {
    this.native.dispose();
  }
}

class PublicRunner implements OrtSessionRunner {
  readonly kind = 'public';
  constructor(
    private readonly ortModule: typeof ort,
    private readonly session: ort.InferenceSession,
  ) {}

  run(names: readonly string[], values: readonly HostTensor[], fetches: readonly string[]): Promise<Record<string, OrtOutput>> {
    const feeds: Record<string, ort.Tensor> = {};
    for (let i = 0; i < names.length; i++) feeds[names[i]] = publicTensor(this.ortModule, values[i]);
    return this.session.run(feeds, fetches as string[]) as Promise<Record<string, OrtOutput>>;
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
  if (!binding) return new PublicRunner(ortModule, await ortModule.InferenceSession.create(bytes, options));
  initialise(binding, ortModule.env.logLevel);
  const native = new binding.binding.InferenceSession();
  native.loadModel(bytes.buffer, bytes.byteOffset, bytes.byteLength, options);
  return new BindingRunner(ortModule, native);
}
