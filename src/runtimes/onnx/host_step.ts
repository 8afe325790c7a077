// ParseExample / ParseExampleV2 stay tfgate's own step in front of the ONNX graph: ONNX has
// no op that decodes tf.Example protos, and classify/regress signatures (and Estimator
// serving inputs) start with one. The prepared graph is cut after the parsing nodes: they,
// with the placeholders and constants they read, run on HostTensors (tfgate's parsing, TF's
// messages; on tfjs-converter when the step holds other ops too, host_step_tfjs.ts), and each
// parsed tensor the rest of the graph reads becomes an input of the ONNX graph. Everything
// after the cut is converted as usual.
import { parseTensorName } from '../../savedmodel/graph/graph_flattener.js';
import type { NodeDef } from '../../savedmodel/graph/types.js';
import { hostTensorFromProto, shapeFromProto } from '../../savedmodel/tensor_proto.js';
import { dtypeFromTf, dtypeToTf, type DType } from '../../tensor/dtype.js';
import type { HostTensor } from '../../tensor/host_tensor.js';
import { keyStrings, parseExamples, type ParseSpec, type ParsingOp } from '../shared/parse_example/parse_example_op.js';
import type { FeedSpec } from './tf_to_onnx.js';
import type { TfjsHostStep } from './host_step_tfjs.js';

const PARSING_OPS = new Set(['ParseExample', 'ParseExampleV2']);
/** A step of only these runs on HostTensors, int64 exact; any other op in it runs on TF.js (int64 narrowed to int32). */
const HOST_OPS = new Set([...PARSING_OPS, 'Placeholder', 'Const', 'Identity']);
const HOST_FEED_PREFIX = '__tfgate_host/';

export interface HostSplit {
  /** The nodes left for ONNX, parsed tensors read through new placeholders. */
  nodes: NodeDef[];
  /** New placeholder → its declared dtype/shape and the parsed tensor it stands for. */
  feeds: Map<string, FeedSpec & { tensor: string }>;
  /** The parsing step (parsing nodes, their placeholders and constants); null when the graph parses nothing. */
  step: HostStep | null;
}

const types = (n: NodeDef, name: string): DType[] => (n.attr?.[name]?.list?.type ?? []).map((t) => dtypeFromTf(t) ?? 'float32');
const shapes = (n: NodeDef): Array<number[] | null> => (n.attr?.dense_shapes?.list?.shape ?? []).map((s) => shapeFromProto(s));

/** Each output of a parsing node, in order, with its dtype and shape (op defs in parsing_ops.cc). */
function parsingOutputs(n: NodeDef): FeedSpec[] {
  const sparse = types(n, 'sparse_types');
  const dense = types(n, 'Tdense');
  const denseShapes = shapes(n);
  const out: FeedSpec[] = [
    ...sparse.map((): FeedSpec => ({ dtype: 'int64', shape: [-1, 2] })),
    ...sparse.map((d): FeedSpec => ({ dtype: d, shape: [-1] })),
    ...sparse.map((): FeedSpec => ({ dtype: 'int64', shape: [2] })),
    ...dense.map((d, i): FeedSpec => ({ dtype: d, shape: denseShapes[i] ? [-1, ...denseShapes[i]!] : null })),
  ];
  if (n.op === 'ParseExampleV2') {
    const raggedValues = types(n, 'ragged_value_types');
    const raggedSplits = types(n, 'ragged_split_types');
    out.push(
      ...raggedValues.map((d): FeedSpec => ({ dtype: d, shape: [-1] })),
      ...raggedSplits.map((d): FeedSpec => ({ dtype: d, shape: [-1] })),
    );
  }
  return out;
}

/** Cuts `nodes` after their parsing nodes (see the header); nodes in dependency order. */
export function splitHostStep(nodes: readonly NodeDef[]): HostSplit {
  const parsing = nodes.filter((n) => PARSING_OPS.has(n.op));
  if (!parsing.length) return { nodes: [...nodes], feeds: new Map(), step: null };
  const byName = new Map(nodes.map((n) => [n.name, n]));
  const stepNames = new Set<string>();
  const take = (name: string) => {
    if (stepNames.has(name)) return;
    stepNames.add(name);
    for (const input of byName.get(name)?.input ?? []) if (!input.startsWith('^')) take(parseTensorName(input)[0]);
  };
  parsing.forEach((n) => take(n.name));
  const outputs = new Map(parsing.map((n) => [n.name, parsingOutputs(n)]));
  const feeds = new Map<string, FeedSpec & { tensor: string }>();
  const rest: NodeDef[] = [];
  for (const n of nodes) {
    if (PARSING_OPS.has(n.op)) continue;
    // A placeholder or constant the step reads may be read after the cut too: it stays in both.
    if (stepNames.has(n.name) && n.op !== 'Placeholder' && n.op !== 'Const') continue;
    const input = (n.input ?? []).map((ref) => {
      const [name, index] = parseTensorName(ref);
      const specs = outputs.get(name);
      if (!specs) return ref;
      const feed = `${HOST_FEED_PREFIX}${name}/${index}`;
      feeds.set(feed, { ...specs[index], tensor: `${name}:${index}` });
      return `${feed}:0`;
    });
    rest.push({ ...n, input });
  }
  const placeholders = [...feeds].map(([name, spec]): NodeDef => ({
    name,
    op: 'Placeholder',
    input: [],
    attr: { dtype: { type: dtypeToTf(spec.dtype) } },
  }));
  // The step's placeholders and constants stay only where the rest reads them too.
  const read = new Set(rest.flatMap((n) => (n.input ?? []).map((ref) => parseTensorName(ref.replace(/^\^/, ''))[0])));
  const kept = rest.filter((n) => !stepNames.has(n.name) || read.has(n.name));
  const stepNodes = nodes.filter((n) => stepNames.has(n.name));
  return { nodes: [...placeholders, ...kept], feeds, step: new HostStep(stepNodes, feeds) };
}

/** What a parsing node parses, from its attrs and the key/default tensors it reads. */
function parseSpecOf(n: NodeDef, inputs: ReadonlyArray<HostTensor | undefined>): ParseSpec {
  const dense = types(n, 'Tdense');
  const common = { sparseTypes: types(n, 'sparse_types'), denseTypes: dense, denseShapes: shapes(n).map((s) => s ?? []) };
  if (n.op === 'ParseExample') {
    const nSparse = Number(n.attr?.Nsparse?.i ?? 0);
    const nDense = Number(n.attr?.Ndense?.i ?? 0);
    return {
      ...common,
      sparseKeys: inputs.slice(2, 2 + nSparse).flatMap(keyStrings),
      denseKeys: inputs.slice(2 + nSparse, 2 + nSparse + nDense).flatMap(keyStrings),
      denseDefaults: inputs.slice(2 + nSparse + nDense, 2 + nSparse + 2 * nDense) as HostTensor[],
      raggedKeys: [],
    };
  }
  return {
    ...common,
    sparseKeys: keyStrings(inputs[2]),
    denseKeys: keyStrings(inputs[3]),
    raggedKeys: keyStrings(inputs[4]),
    denseDefaults: inputs.slice(5, 5 + dense.length) as HostTensor[],
  };
}

/**
 * The parsing step: on HostTensors when it holds only placeholders, constants, Identity and the
 * parsing nodes (as serving input receivers make it), so int64 features reach ONNX Runtime with
 * all 64 bits; else on tfjs-converter's graph executor, in this thread's TF.js backend — TF.js
 * imported only then (prepare, at load).
 */
export class HostStep {
  private readonly placeholders: Set<string>;
  /** The step holds ops besides parsing, placeholders, constants and Identity: it runs on TF.js. */
  readonly runsOnTfjs: boolean;
  private tfjs?: Promise<TfjsHostStep>;

  constructor(
    private readonly nodes: NodeDef[],
    private readonly outputs: Map<string, FeedSpec & { tensor: string }>,
  ) {
    this.placeholders = new Set(nodes.filter((n) => n.op === 'Placeholder').map((n) => n.name));
    this.runsOnTfjs = !nodes.every((n) => HOST_OPS.has(n.op));
  }

  /** Is this placeholder fed to the step (rather than, or as well as, to the ONNX graph)? */
  reads(placeholder: string): boolean {
    return this.placeholders.has(placeholder);
  }

  /** Readies the step's engine: TF.js and its backend in this thread, when the step runs there. */
  async prepare(): Promise<void> {
    if (this.runsOnTfjs) await this.tfjsStep();
  }

  /** Runs the step on `feeds` (placeholder → value); returns the ONNX graph's new inputs. */
  async run(feeds: ReadonlyMap<string, HostTensor>): Promise<Map<string, HostTensor>> {
    if (!this.runsOnTfjs) return this.runOnHost(feeds);
    return (await this.tfjsStep()).run(feeds);
  }

  private tfjsStep(): Promise<TfjsHostStep> {
    this.tfjs ??= import('./host_step_tfjs.js').then((m) => m.startTfjsHostStep(this.nodes, this.outputs, this.placeholders));
    return this.tfjs;
  }

  private runOnHost(feeds: ReadonlyMap<string, HostTensor>): Map<string, HostTensor> {
    const values = new Map<string, Array<HostTensor | undefined>>();
    const read = (ref: string) => {
      const [name, index] = parseTensorName(ref);
      return values.get(name)?.[index];
    };
    for (const n of this.nodes) {
      const inputs = (n.input ?? []).filter((r) => !r.startsWith('^')).map(read);
      if (n.op === 'Placeholder') values.set(n.name, [feeds.get(n.name)]);
      else if (n.op === 'Const') values.set(n.name, [hostTensorFromProto(n.attr?.value?.tensor ?? {}, `constant ${n.name}`)]);
      else if (n.op === 'Identity') values.set(n.name, [inputs[0]]);
      else {
        const serialized = inputs[0];
        if (!serialized) throw new Error(`${n.op} (node ${n.name}): its serialized input is not fed`);
        values.set(n.name, parseExamples(n.op as ParsingOp, serialized, parseSpecOf(n, inputs)));
      }
    }
    const out = new Map<string, HostTensor>();
    for (const [placeholder, spec] of this.outputs) {
      const t = read(spec.tensor);
      if (!t) throw new Error(`host step: ${spec.tensor} was not computed`);
      out.set(placeholder, t);
    }
    return out;
  }

  dispose(): void {
    void this.tfjs?.then(
      (step) => step.dispose(),
      () => {},
    );
  }
}
