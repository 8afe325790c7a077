// The tf.Example features a string input is parsed as: a ParseExample / ParseExampleV2 node
// that reads the input's placeholder declares them (op defs in core/ops/parsing_ops.cc) —
// dense keys with their types and per-example shapes, sparse keys with their types, held in
// the node's constant inputs and attributes. Whoever has to make up a request for such a
// signature (the load-time check) builds valid serialized Examples from this.
import type { DType } from '../../tensor/dtype.js';
import { dtypeFromTf } from '../../tensor/dtype.js';
import { parseTensorName } from './graph_flattener.js';
import { hostTensorFromProto, shapeFromProto } from '../tensor_proto.js';
import type { NodeDef } from './types.js';

export interface ExampleFeature {
  key: string;
  /** float32, int64 or string: the Feature list it is read from. */
  dtype: DType;
  /** Dense: the shape of one example's values; sparse (VarLenFeature): null. */
  shape: number[] | null;
}

const PARSING_OPS = new Set(['ParseExample', 'ParseExampleV2']);
const utf8 = new TextDecoder();

/** The strings of a Const node (a scalar or a vector of keys); null when the node is not a Const. */
function constStrings(node: NodeDef | undefined): string[] | null {
  if (node?.op !== 'Const') return null;
  const t = hostTensorFromProto(node.attr?.value?.tensor ?? {}, `constant ${node.name}`);
  return t.dtype === 'string' ? (t.values as Uint8Array[]).map((b) => utf8.decode(b)) : null;
}

function parsingFeatures(node: NodeDef, byName: ReadonlyMap<string, NodeDef>): ExampleFeature[] | null {
  const inputs = (node.input ?? []).filter((i) => !i.startsWith('^')).map((i) => byName.get(parseTensorName(i)[0]));
  const types = (name: string) => (node.attr?.[name]?.list?.type ?? []).map((t) => dtypeFromTf(t));
  const sparseTypes = types('sparse_types');
  const denseTypes = types('Tdense');
  const denseShapes = (node.attr?.dense_shapes?.list?.shape ?? []).map((s) => shapeFromProto(s));
  let sparseKeys: Array<string[] | null>;
  let denseKeys: Array<string[] | null>;
  if (node.op === 'ParseExample') {
    // serialized, names, sparse_keys × Nsparse, dense_keys × Ndense, dense_defaults × Ndense
    sparseKeys = inputs.slice(2, 2 + sparseTypes.length).map(constStrings);
    denseKeys = inputs.slice(2 + sparseTypes.length, 2 + sparseTypes.length + denseTypes.length).map(constStrings);
  } else {
    // serialized, names, sparse_keys [S], dense_keys [D], ragged_keys [R], dense_defaults × D
    sparseKeys = [constStrings(inputs[2])];
    denseKeys = [constStrings(inputs[3])];
  }
  if ([...sparseKeys, ...denseKeys].some((k) => k === null)) return null;
  const sparse = sparseKeys.flatMap((k) => k!);
  const dense = denseKeys.flatMap((k) => k!);
  if (sparse.length !== sparseTypes.length || dense.length !== denseTypes.length) return null;
  return [
    ...dense.map((key, i): ExampleFeature => ({ key, dtype: denseTypes[i] ?? 'float32', shape: denseShapes[i] ?? [] })),
    ...sparse.map((key, i): ExampleFeature => ({ key, dtype: sparseTypes[i] ?? 'float32', shape: null })),
  ];
}

/**
 * The features the parsing nodes of `nodes` read from `placeholder`, or null when no parsing
 * node reads it or their keys are not constants.
 */
export function exampleFeaturesOf(nodes: readonly NodeDef[], placeholder: string): ExampleFeature[] | null {
  const byName = new Map(nodes.map((n) => [n.name, n]));
  const readers = nodes.filter(
    (n) => PARSING_OPS.has(n.op) && n.input?.[0] !== undefined && parseTensorName(n.input[0])[0] === placeholder,
  );
  if (!readers.length) return null;
  const features = new Map<string, ExampleFeature>();
  for (const n of readers) {
    const found = parsingFeatures(n, byName);
    if (!found) return null;
    for (const f of found) features.set(f.key, f);
  }
  return [...features.values()];
}
