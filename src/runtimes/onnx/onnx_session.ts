// One converted signature graph on an onnxruntime-node InferenceSession, built once per
// executor thread with the options of ort_session_options.ts.
import type ort from 'onnxruntime-node';
import { Code, ServingError, invalidArgument, isJsFault } from '../../errors/status.js';
import * as MSG from '../../errors/messages.js';
import { dtypeToTf, type DType } from '../../tensor/dtype.js';
import type { HostTensor, TensorValues } from '../../tensor/host_tensor.js';
import { dtypeFromOrt, ORT_TYPE } from './onnx_dtype.js';
import type { OnnxModel } from './tf_to_onnx.js';
import { createOrtSessionRunner, type OrtSessionRunner } from './ort_session_runner.js';
import { ortSessionOptions, type OnnxDevice } from './ort_session_options.js';
import type { EngineSettings } from '../../config/session_config.js';

export type { OnnxDevice } from './ort_session_options.js';

export interface OnnxSessionOptions {
  device: OnnxDevice;
  /** Thread counts and the CUDA device (default: tfgate's). */
  engine?: EngineSettings;
  /** 'public': through onnxruntime-node's public InferenceSession only (see ort_session_runner.ts). */
  via?: 'public';
}

/** TF's short type names, as its "Expects arg[i] to be float but int32 is provided" text uses them. */
function tfTypeWord(d: DType): string {
  return dtypeToTf(d).replace(/^DT_/, '').toLowerCase();
}

type Ort = typeof ort;
let loaded: Promise<Ort> | undefined;

/** onnxruntime-node's native binding, loaded on first use (threads on other runtimes never load it). */
function loadOrt(): Promise<Ort> {
  loaded ??= import('onnxruntime-node').then((m) => {
    const ortModule = (m as { default?: Ort }).default ?? (m as unknown as Ort);
    // Its process-wide logger (read once, at the first session) writes to stderr too: fatal only, as sessions.
    ortModule.env.logLevel = 'fatal';
    return ortModule;
  });
  return loaded;
}

function toOrtTensor(ort: Ort, t: HostTensor): ort.Tensor {
  return new ort.Tensor(ORT_TYPE[t.dtype] as 'float32', t.values as Float32Array, t.shape);
}

function fromOrtTensor(t: ort.Tensor): HostTensor {
  const dtype = dtypeFromOrt(t.type);
  if (!dtype || dtype === 'string') throw new ServingError(Code.INTERNAL, `ONNX Runtime returned a ${t.type} tensor`);
  return { dtype, shape: [...t.dims], values: t.data as TensorValues };
}

/** What a run needs of the converted model: not its bytes, which ONNX Runtime copied (a model's weights, held per session per thread). */
type ModelIo = Pick<OnnxModel, 'inputs' | 'outputs' | 'guards'>;

export class OnnxSession {
  private constructor(
    private readonly ort: Ort,
    private readonly session: OrtSessionRunner,
    private readonly model: ModelIo,
  ) {}

  /** How runs reach ONNX Runtime: its native binding directly, or its public API. */
  get runner(): OrtSessionRunner['kind'] {
    return this.session.kind;
  }

  static async create(model: OnnxModel, options: OnnxSessionOptions): Promise<OnnxSession> {
    const ort = await loadOrt();
    const session = await createOrtSessionRunner(ort, model.bytes, ortSessionOptions(options.device, options.engine), options.via);
    return new OnnxSession(ort, session, { inputs: model.inputs, outputs: model.outputs, guards: model.guards });
  }

  /** Runs with `feeds` keyed by placeholder name; returns the TF tensors `fetch` in order. */
  async run(feeds: ReadonlyMap<string, HostTensor>, fetch: readonly string[]): Promise<HostTensor[]> {
    const inputs: Record<string, ort.Tensor> = {};
    let argIndex = 0;
    for (const [placeholder, input] of this.model.inputs) {
      const t = feeds.get(placeholder);
      if (!t) throw invalidArgument(`You must feed a value for placeholder tensor '${placeholder}'`);
      if (t.dtype !== input.dtype) throw invalidArgument(MSG.argDtypeMismatch(argIndex, tfTypeWord(input.dtype), tfTypeWord(t.dtype)));
      inputs[input.name] = toOrtTensor(this.ort, t);
      argIndex++;
    }
    const names = fetch.map((tensor) => {
      const out = this.model.outputs.get(tensor);
      if (!out) throw new ServingError(Code.INTERNAL, `tensor ${tensor} is not an output of the ONNX graph`);
      return out.name;
    });
    const guards = this.model.guards;
    let results: Record<string, ort.Tensor>;
    try {
      const ran = this.session.run(inputs, guards.length ? [...names, ...guards.map((g) => g.value)] : names);
      // The binding answers at once: no turn of the microtask queue for it.
      results = ran instanceof Promise ? await ran : ran;
    } catch (e) {
      // ORT rejects feeds whose shapes do not fit the graph, and kernels fail on bad values
      // (e.g. an index out of range): the request is at fault. JS's own errors are not (INTERNAL).
      if (isJsFault(e)) throw e;
      throw invalidArgument(String((e as Error).message ?? e).trim());
    }
    for (const g of guards) {
      const [trip, ...details] = results[g.value].data as BigInt64Array;
      if (trip) throw new ServingError(g.code, g.message(details));
    }
    return names.map((n) => fromOrtTensor(results[n]));
  }

  dispose(): void {
    this.session.release();
  }
}
