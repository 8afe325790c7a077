// One converted signature graph on an onnxruntime-node InferenceSession, built once per
// executor thread with the options of ort_session_options.ts.
import type ort from 'onnxruntime-node';
import { Code, ServingError, invalidArgument, isJsFault } from '../../errors/status.js';
import * as MSG from '../../errors/messages.js';
import { dtypeToTf, type DType } from '../../tensor/dtype.js';
import type { HostTensor, TensorValues } from '../../tensor/host_tensor.js';
import { dtypeFromOrt } from './onnx_dtype.js';
import type { OnnxModel } from './tf_to_onnx.js';
import { createOrtSessionRunner, outputShape, type OrtOutput, type OrtSessionRunner } from './ort_session_runner.js';
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

/**
 * ORT rejects feeds whose shapes do not fit the graph, and kernels fail on bad values (e.g. an
 * index out of range): the request is at fault. JS's own errors are not (INTERNAL).
 */
function refusal(e: unknown): unknown {
  return isJsFault(e) ? e : invalidArgument(String((e as Error).message ?? e).trim());
}

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

function fromOrtOutput(t: OrtOutput): HostTensor {
  const dtype = dtypeFromOrt(t.type);
  if (!dtype || dtype === 'string') throw new ServingError(Code.INTERNAL, `ONNX Runtime returned a ${t.type} tensor`);
  return { dtype, shape: outputShape(t), values: t.data as TensorValues };
}

/** What a run needs of the converted model: not its bytes, which ONNX Runtime copied (a model's weights, held per session per thread). */
type ModelIo = Pick<OnnxModel, 'inputs' | 'outputs' | 'guards'>;

/** The ONNX names of the graph tensors a run fetches, with the guards' values after them. */
interface FetchPlan {
  fetch: readonly string[];
  names: string[];
  /** `names` and the guards' values: what the session is asked for. */
  asked: string[];
}

export class OnnxSession {
  /** The graph's inputs in order: placeholder, ONNX name, dtype. */
  private readonly inputs: Array<{ placeholder: string; name: string; dtype: DType }>;
  private readonly inputNames: string[];
  /** The plan of the last run, kept for the next run that fetches the same list. */
  private lastFetch?: FetchPlan;

  private constructor(
    private readonly session: OrtSessionRunner,
    private readonly model: ModelIo,
  ) {
    this.inputs = [...model.inputs].map(([placeholder, input]) => ({ placeholder, name: input.name, dtype: input.dtype }));
    this.inputNames = this.inputs.map((i) => i.name);
  }

  /** How runs reach ONNX Runtime: its native binding directly, or its public API. */
  get runner(): OrtSessionRunner['kind'] {
    return this.session.kind;
  }

  static async create(model: OnnxModel, options: OnnxSessionOptions): Promise<OnnxSession> {
    const ort = await loadOrt();
    const session = await createOrtSessionRunner(ort, model.bytes, ortSessionOptions(options.device, options.engine), options.via);
    return new OnnxSession(session, { inputs: model.inputs, outputs: model.outputs, guards: model.guards });
  }

  /** Runs with `feeds` keyed by placeholder name; returns the TF tensors `fetch` in order. */
  async run(feeds: ReadonlyMap<string, HostTensor>, fetch: readonly string[]): Promise<HostTensor[]> {
    return this.runNow(feeds, fetch);
  }

  /**
   * As run, but answered at once when the session runs on the binding (a promise otherwise);
   * a refusal is thrown.
   */
  runNow(feeds: ReadonlyMap<string, HostTensor>, fetch: readonly string[]): HostTensor[] | Promise<HostTensor[]> {
    const values: HostTensor[] = [];
    for (let i = 0; i < this.inputs.length; i++) {
      const input = this.inputs[i];
      const t = feeds.get(input.placeholder);
      if (!t) throw invalidArgument(`You must feed a value for placeholder tensor '${input.placeholder}'`);
      if (t.dtype !== input.dtype) throw invalidArgument(MSG.argDtypeMismatch(i, tfTypeWord(input.dtype), tfTypeWord(t.dtype)));
      values.push(t);
    }
    const plan = this.fetchPlan(fetch);
    let ran: Record<string, OrtOutput> | Promise<Record<string, OrtOutput>>;
    try {
      ran = this.session.run(this.inputNames, values, plan.asked);
    } catch (e) {
      throw refusal(e);
    }
    // The binding answers at once: no turn of the microtask queue for it.
    return ran instanceof Promise
      ? ran.then(
          (results) => this.outputs(plan, results),
          (e: unknown) => Promise.reject(refusal(e)),
        )
      : this.outputs(plan, ran);
  }

  private fetchPlan(fetch: readonly string[]): FetchPlan {
    const last = this.lastFetch;
    if (last?.fetch === fetch) return last;
    const names = fetch.map((tensor) => {
      const out = this.model.outputs.get(tensor);
      if (!out) throw new ServingError(Code.INTERNAL, `tensor ${tensor} is not an output of the ONNX graph`);
      return out.name;
    });
    const guards = this.model.guards;
    return (this.lastFetch = { fetch, names, asked: guards.length ? [...names, ...guards.map((g) => g.value)] : names });
  }

  private outputs(plan: FetchPlan, results: Record<string, OrtOutput>): HostTensor[] {
    for (const g of this.model.guards) {
      const [trip, ...details] = results[g.value].data as BigInt64Array;
      if (trip) throw new ServingError(g.code, g.message(details));
    }
    return plan.names.map((n) => fromOrtOutput(results[n]));
  }

  dispose(): void {
    this.session.release();
  }
}
