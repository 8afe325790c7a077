// Builds a TF1-style GraphDef node by node, as TensorFlow's Python graph construction would:
// unique names, the attrs each op's registration requires, variables as VariableV2 +
// `<var>/Assign` + `<var>/read`. Attr values are protobufjs-ready objects.
import { dtypeToTf } from '../../tensor/dtype.js';
import type { HostTensor } from '../../tensor/host_tensor.js';
import { hostTensorToProto } from '../tensor_proto.js';

export type Attr = Record<string, unknown>;
export interface BuiltNode {
  name: string;
  op: string;
  input: string[];
  attr: Record<string, Attr>;
}

const enc = new TextEncoder();
export const attr = {
  type: (tf: string): Attr => ({ type: tf }),
  s: (v: string): Attr => ({ s: enc.encode(v) }),
  i: (v: number): Attr => ({ i: v }),
  f: (v: number): Attr => ({ f: v }),
  b: (v: boolean): Attr => ({ b: v }),
  shape: (dims: number[] | null): Attr => ({ shape: dims === null ? { unknownRank: true } : { dim: dims.map((size) => ({ size })) } }),
  ints: (v: number[]): Attr => ({ list: { i: v } }),
  types: (v: string[]): Attr => ({ list: { type: v } }),
  strings: (v: string[]): Attr => ({ list: { s: v.map((x) => enc.encode(x)) } }),
  tensor: (t: HostTensor): Attr => ({ tensor: hostTensorToProto(t) }),
};

export interface VariableRecord {
  name: string;
  value: HostTensor;
}

export class GraphBuilder {
  readonly nodes: BuiltNode[] = [];
  readonly variables: VariableRecord[] = [];
  private readonly used = new Set<string>();

  /** TF's name uniquing: `dense`, `dense_1`, `dense_2` … */
  uniqueName(base: string): string {
    let name = base;
    for (let k = 1; this.used.has(name); k++) name = `${base}_${k}`;
    this.used.add(name);
    return name;
  }

  add(op: string, name: string, input: string[], attrs: Record<string, Attr>): string {
    const unique = this.uniqueName(name);
    this.nodes.push({ name: unique, op, input, attr: attrs });
    return unique;
  }

  constant(name: string, value: HostTensor): string {
    return this.add('Const', name, [], { dtype: attr.type(dtypeToTf(value.dtype)), value: attr.tensor(value) });
  }

  placeholder(name: string, tfType: string, shape: number[] | null): string {
    return this.add('Placeholder', name, [], { dtype: attr.type(tfType), shape: attr.shape(shape) });
  }

  /** A TF1 variable; returns the `<name>/read` tensor that computations use. */
  variable(name: string, value: HostTensor): string {
    const tf = dtypeToTf(value.dtype);
    const v = this.add('VariableV2', name, [], { shape: attr.shape(value.shape), dtype: attr.type(tf), container: attr.s(''), shared_name: attr.s('') });
    const init = this.constant(`${v}/initial_value`, value);
    this.add('Assign', `${v}/Assign`, [v, init], { T: attr.type(tf), validate_shape: attr.b(true), use_locking: attr.b(true), _class: attr.strings([`loc:@${v}`]) });
    this.variables.push({ name: v, value });
    return this.add('Identity', `${v}/read`, [v], { T: attr.type(tf), _class: attr.strings([`loc:@${v}`]) });
  }

  op(op: string, name: string, inputs: string[], attrs: Record<string, Attr> = {}): string {
    return this.add(op, name, inputs, attrs);
  }
}

/**
 * The save/restore subgraph `tf.compat.v1.train.Saver(sharded=True)` adds (what
 * SavedModelBuilder uses): SaveV2 of every variable, and one RestoreV2 + Assign per variable
 * grouped under save/restore_shard → save/restore_all. Returns the SaverDef.
 */
export function addSaver(g: GraphBuilder) {
  const strings = (v: string[]): HostTensor => ({ dtype: 'string', shape: [v.length], values: v.map((x) => enc.encode(x)) });
  const scalarString = (v: string): HostTensor => ({ dtype: 'string', shape: [], values: [enc.encode(v)] });
  const int32 = (v: number): HostTensor => ({ dtype: 'int32', shape: [], values: Int32Array.of(v) });
  const vars = [...g.variables].sort((a, b) => (a.name < b.name ? -1 : 1));
  const types = vars.map((v) => dtypeToTf(v.value.dtype));
  const filename = g.constant('save/Const', scalarString('model'));
  const suffix = g.constant('save/StringJoin/inputs_1', scalarString('_temp_tfgate/part'));
  const join = g.op('StringJoin', 'save/StringJoin', [filename, suffix], { N: attr.i(2), separator: attr.s('') });
  const numShards = g.constant('save/num_shards', int32(1));
  const shard = g.constant('save/ShardedFilename/shard', int32(0));
  const sharded = g.op('ShardedFilename', 'save/ShardedFilename', [join, shard, numShards]);
  const names = g.constant('save/SaveV2/tensor_names', strings(vars.map((v) => v.name)));
  const slices = g.constant('save/SaveV2/shape_and_slices', strings(vars.map(() => '')));
  const save = g.op('SaveV2', 'save/SaveV2', [sharded, names, slices, ...vars.map((v) => v.name)], { dtypes: attr.types(types) });
  const control = g.op('Identity', 'save/control_dependency', [sharded, `^${save}`], { T: attr.type('DT_STRING'), _class: attr.strings([`loc:@${sharded}`]) });
  const prefixes = g.op('Pack', 'save/MergeV2Checkpoints/checkpoint_prefixes', [sharded, `^${control}`], { N: attr.i(1), T: attr.type('DT_STRING'), axis: attr.i(0) });
  const merge = g.op('MergeV2Checkpoints', 'save/MergeV2Checkpoints', [prefixes, filename], { delete_old_dirs: attr.b(true) });
  const saveIdentity = g.op('Identity', 'save/Identity', [filename, `^${control}`, `^${merge}`], { T: attr.type('DT_STRING') });
  const assigns = vars.map((v, k) => {
    const sfx = k === 0 ? '' : `_${k}`;
    const tn = g.constant(`save/RestoreV2${sfx}/tensor_names`, strings([v.name]));
    const ss = g.constant(`save/RestoreV2${sfx}/shape_and_slices`, strings(['']));
    const restore = g.op('RestoreV2', `save/RestoreV2${sfx}`, [filename, tn, ss], { dtypes: attr.types([types[k]]) });
    return g.op('Assign', `save/Assign${sfx}`, [v.name, restore], { T: attr.type(types[k]), validate_shape: attr.b(true), use_locking: attr.b(true), _class: attr.strings([`loc:@${v.name}`]) });
  });
  const shardOp = g.op('NoOp', 'save/restore_shard', assigns.map((a) => `^${a}`));
  const restoreAll = g.op('NoOp', 'save/restore_all', [`^${shardOp}`]);
  return {
    filenameTensorName: `${filename}:0`,
    saveTensorName: `${saveIdentity}:0`,
    restoreOpName: restoreAll,
    maxToKeep: 5,
    sharded: true,
    keepCheckpointEveryNHours: 10000,
    version: 'V2',
  };
}
