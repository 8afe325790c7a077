// tfgate's SavedModel writer and model zoo: the files have the structure real TF1 exports
// have (compared with fixtures written by TensorFlow), the saver subgraph is the one
// saver.py builds, every node satisfies its OpDef, the bytes are deterministic, and the
// embedded runtime reproduces a plain-JS forward pass of the written weights.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import {
  buildMlpGraph,
  describeMlp,
  writeConvSavedModel,
  writeHalfPlusTwoSavedModel,
  writeMlpSavedModel,
} from '../../test_util/savedmodel/model_zoo.js';
import { convForward, mlpForward } from '../../test_util/savedmodel/reference_forward.js';
import { GraphBuilder, validateGraph } from '../../test_util/savedmodel/writer/graph_builder.js';
import { OP_DEFS } from '../../test_util/savedmodel/writer/op_defs.js';
import { TF2_OP_DEFS } from '../../test_util/savedmodel/writer/tf2_op_defs.js';
import { LOOKUP_OP_DEFS } from '../../test_util/savedmodel/writer/lookup_op_defs.js';
import {
  buildSavedModel,
  writeSavedModel,
  WRITER_GRAPH_PRODUCER,
  WRITER_TF_VERSION,
} from '../../test_util/savedmodel/saved_model_writer.js';
import { readTensorBundle } from '../../src/savedmodel/tensor_bundle/index.js';
import { EmbeddedRuntime } from '../../src/runtimes/embedded/embedded_runtime.js';
import { protoType, TO_OBJECT } from '../../src/proto/index.js';
import { Code, ServingError } from '../../src/errors/status.js';
import { MODELS, fixtureModel } from '../helpers/paths.js';
import { tempDir } from '../helpers/temp.js';
import { wireFields } from '../helpers/wire_fields.js';

const REAL_TF1 = fixtureModel('saved_model_half_plus_two_2_versions', '00000123');
/** TF 1.14 export: has the PlaceholderWithDefault filename nodes newer savers add. */
const REAL_TF114 = fixtureModel('saved_model_half_plus_two_cpu', '00000123');
const utf8 = new TextDecoder();

interface Node {
  name: string;
  op: string;
  input?: string[];
  device?: string;
  attr?: Record<string, Record<string, unknown>>;
}
interface MetaGraph {
  metaInfoDef: { tags: string[]; tensorflowVersion?: string; strippedOpList: { op: Array<Record<string, unknown> & { name: string }> } };
  graphDef: { node: Node[]; versions: { producer: number } };
  saverDef: Record<string, unknown>;
  collectionDef: Record<string, { bytesList?: { value: Uint8Array[] } }>;
  signatureDef: Record<string, { methodName: string; inputs: Record<string, unknown>; outputs: Record<string, unknown> }>;
}

const savedModelType = () => protoType('tensorflow.SavedModel');
function readPb(dir: string): { bytes: Uint8Array; mg: MetaGraph; schema: number } {
  const bytes = fs.readFileSync(path.join(dir, 'saved_model.pb'));
  const sm = savedModelType().toObject(savedModelType().decode(bytes), { ...TO_OBJECT, arrays: true, oneofs: false }) as {
    savedModelSchemaVersion: number;
    metaGraphs: MetaGraph[];
  };
  assert.equal(sm.metaGraphs.length, 1);
  return { bytes, mg: sm.metaGraphs[0], schema: sm.savedModelSchemaVersion };
}

/** Field number → raw values (length-delimited payloads as bytes), from the wire format. */
const numbers = (bytes: Uint8Array) => [...wireFields(bytes).keys()].sort((a, b) => a - b);
/** The field numbers present in each named sub-message along a path of field numbers. */
function sub(bytes: Uint8Array, ...pathFields: number[]): Uint8Array {
  let b = bytes;
  for (const f of pathFields) {
    const v = wireFields(b).get(f);
    assert.ok(v?.length, `field ${f} missing`);
    b = v[0];
  }
  return b;
}
/** Map entries (key 1, value 2) of a map field. */
function mapEntries(bytes: Uint8Array, field: number): Map<string, Uint8Array> {
  return new Map((wireFields(bytes).get(field) ?? []).map((e) => [utf8.decode(wireFields(e).get(1)![0]), wireFields(e).get(2)![0]]));
}

const stringVal = (n: Node | undefined): string[] =>
  ((n?.attr?.value?.tensor as { stringVal?: Uint8Array[] })?.stringVal ?? []).map((s) => utf8.decode(s));
const parseRef = (ref: string): [string, number] => {
  const m = /^\^?(.*?)(?::(\d+))?$/.exec(ref)!;
  return [m[1], Number(m[2] ?? 0)];
};

/**
 * Variable node → checkpoint key, by running the restore graph backwards: the Assign nodes
 * under saver_def.restore_op_name take `RestoreV2:i`, whose tensor_names[i] is the key.
 */
function restoreMapping(mg: MetaGraph): Map<string, string> {
  const byName = new Map(mg.graphDef.node.map((n) => [n.name, n]));
  const out = new Map<string, string>();
  const visit = (name: string) => {
    const n = byName.get(name)!;
    if (n.op === 'NoOp') for (const i of n.input ?? []) visit(parseRef(i)[0]);
    if (n.op !== 'Assign') return;
    const [target] = parseRef(n.input![0]);
    const [restore, index] = parseRef(n.input![1]);
    const r = byName.get(restore)!;
    assert.equal(r.op, 'RestoreV2');
    assert.equal(byName.get(target)!.op, 'VariableV2');
    out.set(target, stringVal(byName.get(parseRef(r.input![1])[0]))[index]);
  };
  visit(String(mg.saverDef.restoreOpName));
  return out;
}

/** Drops protobufjs' oneof discriminators and empty repeated fields, for comparing decoded protos. */
function normalize(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(normalize);
  if (v instanceof Uint8Array) return utf8.decode(v);
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return Object.fromEntries(
      Object.entries(o)
        .filter(([k, x]) => !(Array.isArray(x) && x.length === 0) && !(k === 'value' && typeof x === 'string' && x in o))
        .map(([k, x]) => [k, normalize(x)])
        .sort(([a], [b]) => (String(a) < String(b) ? -1 : 1)),
    );
  }
  return v;
}

const isError = (code: Code, re: RegExp) => (e: unknown) => e instanceof ServingError && e.code === code && re.test(e.message);

const mlpOptions = {
  inputDim: 3,
  hiddenSizes: [4, 5],
  outputDim: 2,
  activation: 'relu' as const,
  outputActivation: 'softmax' as const,
  seed: 5,
};

describe('SavedModel writer: structure compared with real TF exports', async () => {
  const dir = path.join(tempDir('tfgate-writer-structure-'), '1');
  const model = await writeMlpSavedModel(dir, mlpOptions);
  const ours = readPb(dir);
  const real = readPb(REAL_TF1);
  const convDir = tempDir('tfgate-writer-structure-conv-');
  await writeConvSavedModel(convDir, { height: 8, width: 8, channels: 2, filters: [3], kernelSize: 3, classes: 4, seed: 1 });
  const tanhDir = tempDir('tfgate-writer-structure-tanh-');
  await writeMlpSavedModel(tanhDir, { inputDim: 2, hiddenSizes: [3], outputDim: 1, activation: 'tanh', seed: 1 });
  const sigmoidDir = tempDir('tfgate-writer-structure-sigmoid-');
  await writeMlpSavedModel(sigmoidDir, { inputDim: 2, hiddenSizes: [3], outputDim: 1, activation: 'sigmoid', seed: 1 });
  const hp2Dir = tempDir('tfgate-writer-structure-hp2-');
  await writeHalfPlusTwoSavedModel(hp2Dir);

  it('has the same top-level messages and fields as a TF1 export', () => {
    assert.equal(ours.schema, 1);
    assert.deepEqual(numbers(ours.bytes), numbers(real.bytes)); // saved_model_schema_version, meta_graphs
    const mgOurs = sub(ours.bytes, 2);
    const mgReal = sub(real.bytes, 2);
    // meta_info_def, graph_def, saver_def, collection_def, signature_def
    assert.deepEqual(numbers(mgOurs), [1, 2, 3, 4, 5]);
    assert.deepEqual(numbers(mgOurs), numbers(mgReal));
    // meta_info_def: stripped_op_list, tags, tensorflow_version, tensorflow_git_version
    assert.deepEqual(numbers(sub(mgOurs, 1)), numbers(sub(mgReal, 1)));
    // graph_def: node, versions{producer}
    assert.deepEqual(numbers(sub(mgOurs, 2)), numbers(sub(mgReal, 2)));
    assert.deepEqual(numbers(sub(mgOurs, 2, 4)), numbers(sub(mgReal, 2, 4)));
    // saver_def: all fields but `sharded` (5), which SavedModelBuilder's sharded saver sets.
    assert.deepEqual(
      numbers(sub(mgOurs, 3)),
      numbers(sub(mgReal, 3)).filter((f) => f !== 5),
    );
    // signature_def → SignatureDef{inputs, outputs, method_name} → TensorInfo{name, dtype, tensor_shape}
    const sigOurs = mapEntries(mgOurs, 5).get('serving_default')!;
    const sigReal = mapEntries(mgReal, 5).get('serving_default')!;
    assert.deepEqual(numbers(sigOurs), numbers(sigReal));
    assert.deepEqual(numbers(mapEntries(sigOurs, 1).get('x')!), numbers(mapEntries(sigReal, 1).get('x')!));
    assert.deepEqual(numbers(mapEntries(sigOurs, 2).get('y')!), numbers(mapEntries(sigReal, 2).get('y')!));
    // collection_def: the same VariableDef fields as TF 1.14 writes (name, initializer, snapshot, initial_value, trainable).
    const varDefs = (b: Uint8Array) => (wireFields(sub(mapEntries(sub(b, 2), 4).get('variables')!, 2)).get(1) ?? []).map(numbers);
    const tf114 = readPb(REAL_TF114);
    assert.deepEqual(new Set(varDefs(ours.bytes).map(String)), new Set(varDefs(tf114.bytes).map(String)));
    assert.deepEqual(Object.keys(ours.mg.collectionDef).sort(), ['trainable_variables', 'variables']);
  });

  it('writes the meta-info, versions and SaverDef TF writes', () => {
    assert.deepEqual(ours.mg.metaInfoDef.tags, ['serve']);
    assert.equal(ours.mg.metaInfoDef.tensorflowVersion, WRITER_TF_VERSION);
    assert.equal(ours.mg.graphDef.versions.producer, WRITER_GRAPH_PRODUCER);
    assert.deepEqual(ours.mg.saverDef, {
      filenameTensorName: 'save/Const:0',
      saveTensorName: 'save/control_dependency:0',
      restoreOpName: 'save/restore_all',
      maxToKeep: 5,
      keepCheckpointEveryNHours: 10000,
      version: 'V2',
    });
    for (const f of ['filenameTensorName', 'restoreOpName', 'maxToKeep', 'keepCheckpointEveryNHours', 'version'] as const)
      assert.equal(ours.mg.saverDef[f], real.mg.saverDef[f], f);
  });

  it('builds the saver subgraph of saver.py (non-sharded V2, bulk RestoreV2)', () => {
    const save = ours.mg.graphDef.node.filter((n) => n.name.startsWith('save/'));
    const vars = model.variables.map((v) => v.name).sort();
    assert.deepEqual(
      save.map((n) => `${n.name} ${n.op}`),
      [
        'save/filename/input Const',
        'save/filename PlaceholderWithDefault',
        'save/Const PlaceholderWithDefault',
        'save/SaveV2/tensor_names Const',
        'save/SaveV2/shape_and_slices Const',
        'save/SaveV2 SaveV2',
        'save/control_dependency Identity',
        'save/RestoreV2/tensor_names Const',
        'save/RestoreV2/shape_and_slices Const',
        'save/RestoreV2 RestoreV2',
        ...vars.map((_, i) => `save/Assign${i ? `_${i}` : ''} Assign`),
        'save/restore_all NoOp',
      ],
    );
    const byName = new Map(ours.mg.graphDef.node.map((n) => [n.name, n]));
    assert.deepEqual(byName.get('save/SaveV2')!.input, ['save/Const', 'save/SaveV2/tensor_names', 'save/SaveV2/shape_and_slices', ...vars]);
    assert.deepEqual(stringVal(byName.get('save/SaveV2/tensor_names')), vars);
    assert.deepEqual(
      stringVal(byName.get('save/RestoreV2/shape_and_slices')),
      vars.map(() => ''),
    );
    assert.deepEqual(byName.get('save/control_dependency')!.input, ['save/Const', '^save/SaveV2']);
    assert.equal(byName.get('save/RestoreV2')!.device, '/device:CPU:0');
    assert.deepEqual(
      (byName.get('save/RestoreV2')!.attr!.dtypes.list as { type: string[] }).type,
      vars.map(() => 'DT_FLOAT'),
    );
    assert.deepEqual(
      byName.get('save/restore_all')!.input,
      vars.map((_, i) => `^save/Assign${i ? `_${i}` : ''}`),
    );
    // The filename nodes are the ones a TF 1.14 Saver writes, attrs and inputs included.
    const tf114 = new Map(readPb(REAL_TF114).mg.graphDef.node.map((n) => [n.name, n]));
    for (const name of ['save/filename/input', 'save/filename', 'save/Const']) {
      const { _output_shapes: _, ...theirAttrs } = tf114.get(name)!.attr!;
      assert.deepEqual(
        normalize({ ...byName.get(name), attr: byName.get(name)!.attr }),
        normalize({ ...tf114.get(name), attr: theirAttrs }),
        name,
      );
    }
    // Only ops real savers use; the sharded saver's extra ones are absent.
    const ops = (mg: MetaGraph) => new Set(mg.graphDef.node.filter((n) => n.name.startsWith('save/')).map((n) => n.op));
    assert.ok([...ops(ours.mg)].every((op) => ops(real.mg).has(op) || op === 'PlaceholderWithDefault'));
    assert.ok([...ops(ours.mg)].every((op) => ops(readPb(REAL_TF114).mg).has(op)));
  });

  it('restores every variable from RestoreV2 under its own name, as in the real export', async () => {
    assert.deepEqual(
      restoreMapping(real.mg),
      new Map([
        ['a', 'a'],
        ['b', 'b'],
        ['c', 'c'],
      ]),
    );
    const mapping = restoreMapping(ours.mg);
    assert.deepEqual([...mapping.keys()].sort(), model.variables.map((v) => v.name).sort());
    for (const [node, key] of mapping) assert.equal(node, key);
    const bundle = await readTensorBundle(path.join(dir, 'variables', 'variables'));
    assert.deepEqual(bundle.keys(), [...mapping.values()].sort());
    for (const v of model.variables) {
      const t = bundle.read(v.name);
      assert.deepEqual(t.shape, v.shape, v.name);
      assert.deepEqual(t.values, v.values, v.name);
    }
  });

  it('declares variables as VariableV2 + initial_value + Assign + read, like the real graph', () => {
    const ops = (mg: MetaGraph, v: string) =>
      mg.graphDef.node
        .filter((n) => n.name === v || (n.name.startsWith(`${v}/`) && !n.name.startsWith('save/')))
        .map((n) => `${n.name.slice(v.length)} ${n.op}`);
    assert.deepEqual(ops(ours.mg, 'dense/kernel'), ops(real.mg, 'a'));
    const byName = new Map(ours.mg.graphDef.node.map((n) => [n.name, n]));
    const realByName = new Map(real.mg.graphDef.node.map((n) => [n.name, n]));
    for (const suffix of ['', '/Assign', '/read']) {
      const { _output_shapes: _, ...theirs } = realByName.get(`a${suffix}`)!.attr!;
      assert.deepEqual(Object.keys(byName.get(`dense/kernel${suffix}`)!.attr!).sort(), Object.keys(theirs).sort(), suffix);
    }
    assert.deepEqual(byName.get('dense/kernel/Assign')!.input, ['dense/kernel', 'dense/kernel/initial_value']);
  });

  it('gives every node the attrs its OpDef requires and no others (MLPs, conv net, half_plus_two)', () => {
    const ops = new Set<string>();
    for (const mg of [ours.mg, readPb(convDir).mg, readPb(tanhDir).mg, readPb(sigmoidDir).mg, readPb(hp2Dir).mg]) {
      const defs = new Map(
        mg.metaInfoDef.strippedOpList.op.map((d) => [
          d.name,
          d as { name: string; attr?: Array<{ name: string; defaultValue?: unknown }> },
        ]),
      );
      assert.deepEqual([...defs.keys()], [...new Set(mg.graphDef.node.map((n) => n.op))].sort());
      for (const n of mg.graphDef.node) {
        const def = defs.get(n.op)!;
        const declared = new Set((def.attr ?? []).map((a) => a.name));
        for (const a of def.attr ?? []) if (!a.defaultValue) assert.ok(a.name in (n.attr ?? {}), `${n.name}: ${a.name}`);
        for (const k of Object.keys(n.attr ?? {})) assert.ok(k.startsWith('_') || declared.has(k), `${n.name}: unknown attr ${k}`);
        ops.add(n.op);
      }
    }
    // Every op these models use has an OpDef (the others, used by the kernel tests' tiny graphs
    // in test/runtimes/ and the TF2 graphs of tf2_writer.test.ts, are validated there and
    // against real exports below).
    for (const op of ops) assert.ok(OP_DEFS.has(op), op);
    // Conv2D carries all of TF's attrs, as tf.nn.conv2d writes them.
    const conv = readPb(convDir).mg.graphDef.node.find((n) => n.op === 'Conv2D')!;
    assert.deepEqual(Object.keys(conv.attr!).sort(), [
      'T',
      'data_format',
      'dilations',
      'explicit_paddings',
      'padding',
      'strides',
      'use_cudnn_on_gpu',
    ]);
  });

  it('has OpDefs equal to the stripped_op_list of the newest real TF export using each op', () => {
    const newest = new Map<string, { version: number[]; def: unknown }>();
    const later = (a: number[], b: number[]) => (a[0] - b[0] || a[1] - b[1] || a[2] - b[2]) > 0;
    for (const m of fs.readdirSync(MODELS)) {
      if (!fs.statSync(path.join(MODELS, m)).isDirectory()) continue;
      for (const v of fs.readdirSync(path.join(MODELS, m))) {
        if (!fs.existsSync(path.join(MODELS, m, v, 'saved_model.pb'))) continue;
        const mg = readPb(path.join(MODELS, m, v)).mg;
        const version = (mg.metaInfoDef.tensorflowVersion ?? '0.0.0').split(/[.-]/).slice(0, 3).map(Number);
        for (const d of mg.metaInfoDef.strippedOpList.op) {
          const have = newest.get(d.name);
          if (!have || later(version, have.version)) newest.set(d.name, { version, def: d });
        }
      }
    }
    const opDef = protoType('tensorflow.OpDef');
    const compared: string[] = [];
    const tf2 = new Set(TF2_OP_DEFS.map((d) => d.name));
    for (const [name, def] of OP_DEFS) {
      const theirs = newest.get(name);
      if (!theirs) continue;
      // The TF2 ops follow TF 2.15's registry; a TF 1.x or early 2.x export declares some differently (Fill's index_type).
      if (tf2.has(name) && !later(theirs.version, [2, 10, 0])) continue;
      const ours = opDef.toObject(opDef.decode(opDef.encode(opDef.fromObject(def)).finish()), {
        ...TO_OBJECT,
        arrays: true,
        oneofs: false,
      });
      const b = normalize(theirs.def) as { attr?: Array<{ name: string }> };
      // MatMul gained grad_a/grad_b (defaults false) after TF 2.15, the release the writer follows.
      if (name === 'MatMul' && later(theirs.version, [2, 15, 0])) b.attr = b.attr?.filter((x) => !['grad_a', 'grad_b'].includes(x.name));
      // VarHandleOp gained debug_name (default '') after TF 2.15 likewise.
      if (name === 'VarHandleOp' && later(theirs.version, [2, 15, 0])) b.attr = b.attr?.filter((x) => x.name !== 'debug_name');
      assert.deepEqual(normalize(ours), b, `${name} vs TF ${theirs.version.join('.')}`);
      compared.push(name);
    }
    // Tanh appears in no fixture; its declaration is Sigmoid's (both UNARY_COMPLEX in math_ops.cc).
    // The kernel tests' ops that no fixture uses were taken from the last entry of TF's
    // core/ops/compat/ops_history_v2/<op>.pbtxt.
    const fromOpsHistory = [
      'ReverseSequence',
      'PadV2',
      'FakeQuantWithMinMaxArgs',
      'FakeQuantWithMinMaxVars',
      'FakeQuantWithMinMaxVarsPerChannel',
      'ComplexAbs',
      'Einsum',
      'RFFT',
    ];
    fromOpsHistory.push(
      'Bucketize',
      'AsString',
      'StringToHashBucketFast',
      'StringToHashBucketStrong',
      'StringLower',
      'StringUpper',
      'StringStrip',
      'StringSplitV2',
      'StaticRegexReplace',
    );
    // Nor do these TF2 ops appear in a TF >= 2.10 export: their declarations come from TF's registrations (tf2_op_defs.ts).
    const fromTf2Registry = [
      'While',
      'StatelessWhile',
      'If',
      'StatelessIf',
      'TensorListReserve',
      'TensorListFromTensor',
      'TensorListGetItem',
      'TensorListSetItem',
    ];
    fromTf2Registry.push(
      'TensorListStack',
      'TensorListLength',
      'TensorListElementShape',
      'Transpose',
      'Split',
      'Less',
      'Greater',
      'Lgamma',
    );
    fromTf2Registry.push('Fill', 'StridedSlice', 'Shape', 'PartitionedCall', 'AssignAddVariableOp');
    // No fixture has lookup tables: those come from lookup_ops.cc and ops_history_v2 (lookup_op_defs.ts).
    const fromLookupRegistry = LOOKUP_OP_DEFS.map((d) => d.name);
    // The Estimator sparse-feature ops of the embedded runtime's tests, from TF's registrations
    // (math_ops.cc, sparse_ops.cc, array_ops.cc); no fixture uses them.
    fromTf2Registry.push(
      'ConcatV2',
      'SparseFillEmptyRows',
      'SparseReshape',
      'SparseToDense',
      'SparseTensorDenseMatMul',
      'Unique',
      'RaggedTensorToTensor',
    );
    for (const op of ['Sum', 'Mean', 'SqrtN']) fromTf2Registry.push(`SparseSegment${op}`, `SparseSegment${op}WithNumSegments`);
    // What TF1's index_table_from_tensor builds (math_ops.cc, array_ops.cc): no TF >= 2.10 fixture uses them; they equal the
    // stripped_op_list of the corpus's TF 2.9 (tfx_taxi_estimator) and TF 2.21 (ecg_cnn_float, Cast) exports.
    fromTf2Registry.push('Cast', 'NotEqual', 'Range', 'SelectV2', 'Size');
    // NonMaxSuppressionV5 inside a TF2 map_fn (image_op_defs.ts): from its REGISTER_OP in image_ops.cc; no fixture uses it.
    fromTf2Registry.push('NonMaxSuppressionV5');
    assert.deepEqual(
      [...OP_DEFS.keys()].filter((n) => !compared.includes(n)).sort(),
      ['Tanh', ...fromOpsHistory, ...fromTf2Registry, ...fromLookupRegistry].sort(),
    );
    assert.deepEqual(normalize({ ...OP_DEFS.get('Tanh'), name: 'Sigmoid' }), normalize(OP_DEFS.get('Sigmoid')));
  });

  it('describes the signature with TensorInfo name, dtype and shape', () => {
    const sig = ours.mg.signatureDef.serving_default;
    assert.equal(sig.methodName, 'tensorflow/serving/predict');
    assert.deepEqual(normalize(sig.inputs), { x: { dtype: 'DT_FLOAT', name: 'x:0', tensorShape: { dim: [{ size: -1 }, { size: 3 }] } } });
    assert.deepEqual(normalize(sig.outputs), { y: { dtype: 'DT_FLOAT', name: 'y:0', tensorShape: { dim: [{ size: -1 }, { size: 2 }] } } });
    const realX = normalize(real.mg.signatureDef.serving_default.inputs) as Record<string, object>;
    assert.deepEqual(Object.keys(realX.x), ['dtype', 'name', 'tensorShape']);
  });
});

describe('model zoo', () => {
  it('is deterministic: the same seed gives the same bytes, another seed other weights', async () => {
    const files = ['saved_model.pb', 'variables/variables.index', 'variables/variables.data-00000-of-00001'];
    const read = (d: string) => files.map((f) => fs.readFileSync(path.join(d, f)));
    const [a, b, c, d, e] = [1, 2, 3, 4, 5].map(() => tempDir('tfgate-zoo-'));
    await writeMlpSavedModel(a, mlpOptions);
    await writeMlpSavedModel(b, mlpOptions);
    await writeMlpSavedModel(c, { ...mlpOptions, seed: 6 });
    assert.deepEqual(read(a), read(b));
    const [pbA, , dataA] = read(a);
    const [pbC, , dataC] = read(c);
    assert.notDeepEqual(dataA, dataC);
    assert.notDeepEqual(pbA, pbC); // initial values live in the graph too
    const conv = { height: 9, width: 7, channels: 2, filters: [3, 4], kernelSize: 3, classes: 5, seed: 11 };
    await writeConvSavedModel(d, conv);
    await writeConvSavedModel(e, conv);
    assert.deepEqual(read(d), read(e));
    const f = tempDir('tfgate-zoo-');
    await writeConvSavedModel(f, { ...conv, seed: 12 });
    assert.notDeepEqual(read(d)[2], read(f)[2]);
  });

  it('describes every weight, in the bundle under its variable name', async () => {
    const dir = tempDir('tfgate-zoo-conv-');
    // 12×10 → VALID 3×3 → 10×8 → pool → 5×4 → VALID 3×3 → 3×2 → pool → 1×1, × 6 channels.
    const model = await writeConvSavedModel(dir, {
      height: 12,
      width: 10,
      channels: 3,
      filters: [4, 6],
      kernelSize: 3,
      classes: 7,
      padding: 'VALID',
      seed: 3,
    });
    assert.equal(model.flatDim, 6);
    assert.deepEqual(
      model.variables.map((v) => `${v.name} ${v.shape}`),
      ['conv2d/kernel 3,3,3,4', 'conv2d/bias 4', 'conv2d_1/kernel 3,3,4,6', 'conv2d_1/bias 6', 'dense/kernel 6,7', 'dense/bias 7'],
    );
    const bundle = await readTensorBundle(path.join(dir, 'variables', 'variables'));
    for (const v of model.variables) assert.deepEqual(bundle.read(v.name).values, v.values, v.name);
    const mg = readPb(dir).mg;
    const byName = new Map(mg.graphDef.node.map((n) => [n.name, n]));
    assert.equal(utf8.decode(byName.get('conv2d/Conv2D')!.attr!.padding.s as Uint8Array), 'VALID');
    assert.deepEqual(normalize(mg.signatureDef.serving_default.outputs), {
      probabilities: { dtype: 'DT_FLOAT', name: 'probabilities:0', tensorShape: { dim: [{ size: -1 }, { size: 7 }] } },
    });
    assert.deepEqual(normalize(mg.signatureDef.serving_default.inputs), {
      images: { dtype: 'DT_FLOAT', name: 'images:0', tensorShape: { dim: [{ size: -1 }, { size: 12 }, { size: 10 }, { size: 3 }] } },
    });
  });

  it('uses Glorot-uniform kernels within their limit and refuses impossible options', async () => {
    const m = describeMlp({ inputDim: 50, hiddenSizes: [30], outputDim: 4, activation: 'tanh', seed: 9 });
    const limit = Math.sqrt(6 / (50 + 30));
    assert.ok(m.layers[0].kernel.every((w) => Math.abs(w) <= limit));
    assert.ok(Math.max(...m.layers[0].kernel.map(Math.abs)) > limit * 0.9);
    assert.throws(() => describeMlp({ ...mlpOptions, inputDim: 0 }), isError(Code.INVALID_ARGUMENT, /inputDim/));
    await assert.rejects(
      writeConvSavedModel(tempDir(), { height: 4, width: 4, channels: 1, filters: [2, 2, 2], kernelSize: 3, classes: 2, seed: 1 }),
      isError(Code.INVALID_ARGUMENT, /too small/),
    );
  });
});

describe('graph builder', () => {
  it('uniquifies names as TF does (case-insensitively) and validates nodes against OpDefs', () => {
    const g = new GraphBuilder();
    assert.deepEqual(
      ['dense', 'dense', 'Dense', 'dense_1', 'dense'].map((n) => g.uniqueName(n)),
      ['dense', 'dense_1', 'Dense_2', 'dense_1_1', 'dense_3'],
    );
    const h = new GraphBuilder();
    const x = h.placeholder('x', 'float32', [-1, 2]);
    h.addNode('MatMul', 'bad', [x, x], { T: { type: 'DT_FLOAT' }, bogus: { b: true } });
    h.addNode('Conv2D', 'conv', [x], { T: { type: 'DT_STRING' }, padding: { s: new TextEncoder().encode('FULL') } });
    const problems = validateGraph(h.nodes).join('\n');
    assert.match(problems, /bad: attr bogus is not declared by MatMul/);
    assert.match(problems, /conv: required attr strides missing/);
    assert.match(problems, /conv: T=DT_STRING not allowed/);
    assert.match(problems, /conv: padding=FULL not allowed/);
    assert.match(problems, /conv: 1 data inputs, Conv2D takes 2/);
    assert.throws(() => h.addNode('Identity', 'dangling', ['nowhere'], {}), /not in the graph/);
  });

  it('refuses signatures naming absent tensors and a graph written twice', async () => {
    const { graph } = buildMlpGraph(describeMlp(mlpOptions));
    assert.throws(
      () => buildSavedModel(graph, { s: { inputs: { x: { name: 'missing:0', dtype: 'DT_FLOAT', shape: null } }, outputs: {} } }),
      isError(Code.INVALID_ARGUMENT, /missing:0/),
    );
    assert.throws(() => buildSavedModel(graph, {}), isError(Code.INVALID_ARGUMENT, /already written/));
    // A graph without variables is written without saver and without variables/ (like matrix_half_plus_two).
    const g = new GraphBuilder();
    const x = g.placeholder('x', 'float32', [-1, 3]);
    const y = g.identity('y', x);
    const dir = tempDir('tfgate-novars-');
    await writeSavedModel(dir, g, { serving_default: { inputs: { x }, outputs: { y } } });
    assert.deepEqual(fs.readdirSync(dir), ['saved_model.pb']);
    assert.equal(readPb(dir).mg.saverDef, undefined);
  });
});

describe('written models run in the embedded runtime as the reference forward pass computes', () => {
  const runtime = new EmbeddedRuntime('auto');
  const assertRelClose = (actual: ArrayLike<number>, expected: Float64Array, tol = 1e-4) => {
    assert.equal(actual.length, expected.length);
    for (let i = 0; i < actual.length; i++) {
      const scale = Math.max(1e-3, Math.abs(expected[i]));
      assert.ok(Math.abs(actual[i] - expected[i]) / scale <= tol, `element ${i}: ${actual[i]} vs ${expected[i]}`);
    }
  };

  for (const [activation, outputActivation] of [
    ['relu', 'softmax'],
    ['tanh', 'linear'],
    ['sigmoid', 'softmax'],
    ['linear', undefined],
  ] as const) {
    it(`MLP (${activation} → ${outputActivation ?? 'linear'})`, async () => {
      const dir = path.join(tempDir('tfgate-writer-run-'), '1');
      const model = await writeMlpSavedModel(dir, {
        inputDim: 13,
        hiddenSizes: [32, 16],
        outputDim: 5,
        activation,
        outputActivation,
        seed: 42,
      });
      const s = await runtime.load(dir, { tags: ['serve'] });
      const x = Float32Array.from({ length: 4 * 13 }, (_, i) => Math.cos(i * 0.7) * 2);
      const { y } = await s.run('serving_default', { x: { dtype: 'float32', shape: [4, 13], values: x } });
      assert.deepEqual(y.shape, [4, 5]);
      assertRelClose(y.values as Float32Array, mlpForward(model, x, 4));
    });
  }

  for (const padding of ['SAME', 'VALID'] as const) {
    it(`conv net (${padding})`, async () => {
      const dir = path.join(tempDir('tfgate-writer-run-'), '1');
      const model = await writeConvSavedModel(dir, {
        height: 12,
        width: 10,
        channels: 3,
        filters: [4, 6],
        kernelSize: 3,
        classes: 7,
        padding,
        seed: 3,
      });
      const s = await runtime.load(dir, { tags: ['serve'] });
      const x = Float32Array.from({ length: 2 * 12 * 10 * 3 }, (_, i) => Math.sin(i * 0.13));
      const { probabilities } = await s.run('serving_default', { images: { dtype: 'float32', shape: [2, 12, 10, 3], values: x } });
      assert.deepEqual(probabilities.shape, [2, 7]);
      assertRelClose(probabilities.values as Float32Array, convForward(model, x, 2));
    });
  }

  it('restores large variables from the checkpoint (the graph holds compact zeros as their initial value)', async () => {
    const dir = path.join(tempDir('tfgate-writer-large-'), '1');
    const model = await writeMlpSavedModel(dir, { inputDim: 40, hiddenSizes: [64], outputDim: 3, activation: 'relu', seed: 8 });
    const init = new Map(
      readPb(dir).mg.graphDef.node.map((n) => [
        n.name,
        n.attr?.value?.tensor as { floatVal?: number[]; tensorContent?: Uint8Array; tensorShape: unknown },
      ]),
    );
    assert.deepEqual(init.get('dense/kernel/initial_value')!.floatVal, [0]); // 40×64 > EMBED_INITIAL_VALUE_LIMIT
    assert.deepEqual(normalize(init.get('dense/kernel/initial_value')!.tensorShape), { dim: [{ size: 40 }, { size: 64 }] });
    assert.equal(init.get('dense_1/kernel/initial_value')!.tensorContent!.length, 64 * 3 * 4); // embedded
    const s = await runtime.load(dir, { tags: ['serve'] });
    const x = Float32Array.from({ length: 2 * 40 }, (_, i) => Math.sin(i));
    const { y } = await s.run('serving_default', { x: { dtype: 'float32', shape: [2, 40], values: x } });
    assertRelClose(y.values as Float32Array, mlpForward(model, x, 2));
  });

  it('half_plus_two: y = 0.5·x + 2', async () => {
    const dir = path.join(tempDir('tfgate-writer-hp2-'), '1');
    await writeHalfPlusTwoSavedModel(dir);
    const s = await runtime.load(dir, { tags: ['serve'] });
    const { y } = await s.run('serving_default', { x: { dtype: 'float32', shape: [3, 1], values: Float32Array.of(1, 2, 5) } });
    assert.deepEqual(Array.from(y.values as Float32Array), [2.5, 3, 4.5]);
  });
});
