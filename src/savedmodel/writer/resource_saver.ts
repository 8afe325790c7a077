// The save/restore part of a TF2 SavedModel (tensorflow/python/saved_model/save.py):
// two library functions called from the graph with the filename and every variable handle,
//
//   saver_filename              Placeholder string []           ← filename_tensor_name
//   StatefulPartitionedCall_1   (saver_filename, handles…) f=__inference__traced_save     ← save_tensor_name
//   StatefulPartitionedCall_2   (saver_filename, handles…) f=__inference__traced_restore  ← restore_op_name
//
// The restore body is RestoreV2 (keys in checkpoint order) then AssignVariableOp(handle_i,
// Identity(RestoreV2:tensors:i)); the save body ReadVariableOp + SaveV2. TF's own save
// function also shards and merges the checkpoint; a loader never runs it.
import type { HostTensor } from '../../tensor/host_tensor.js';
import { compareBytes } from '../tensor_bundle/coding.js';
import { emit, type OpEmitter, type Value } from './function_library.js';
import type { SaverDefInit } from './saver.js';
import { call, constant, identity, readVariable, tfType } from './tf2_ops.js';
import type { Tf2GraphBuilder } from './tf2_graph_builder.js';

const enc = new TextEncoder();
const strings = (v: string[]): HostTensor => ({ dtype: 'string', shape: [v.length], values: v.map((x) => enc.encode(x)) });

function tensorNamesAndSlices(e: OpEmitter, scope: string, keys: string[]): [Value, Value] {
  return [constant(e, `${scope}/tensor_names`, strings(keys)), constant(e, `${scope}/shape_and_slices`, strings(keys.map(() => '')))];
}

/** Adds the save and restore functions and their calls for every resource variable of `g`. */
export function addResourceSaver(g: Tf2GraphBuilder): SaverDefInit {
  const vars = [...g.resourceVariables].sort((a, b) => compareBytes(enc.encode(a.key), enc.encode(b.key)));
  if (vars.length === 0) throw new Error('a saver needs at least one variable');
  const keys = vars.map((v) => v.key);
  const dtypes = { list: { type: vars.map((v) => tfType(v.value.dtype)) } };
  const args: Array<[string, string]> = [['file_prefix', 'DT_STRING'], ...vars.map((_, i): [string, string] => [`resource_${i}`, 'DT_RESOURCE'])];

  const save = g.library.define('__inference__traced_save', args, (f, [prefix, ...handles]) => {
    const reads = handles.map((h, i) => readVariable(f, `Read_${i}/ReadVariableOp`, h, tfType(vars[i].value.dtype)));
    const [names, slices] = tensorNamesAndSlices(f, 'SaveV2', keys);
    const saveOp = f.addNode('SaveV2', 'SaveV2', [prefix, names, slices, ...reads], { dtypes });
    return { identity: identity(f, 'Identity', prefix, [saveOp]) };
  });
  const restore = g.library.define('__inference__traced_restore', args, (f, [prefix, ...handles]) => {
    const [names, slices] = tensorNamesAndSlices(f, 'RestoreV2', keys);
    const restored = emit(f, 'RestoreV2', 'RestoreV2', [prefix, names, slices], { dtypes });
    const assigns = handles.map((h, i) =>
      f.addNode('AssignVariableOp', 'AssignVariableOp', [h, identity(f, 'Identity', restored[i])], { dtype: { type: restored[i].type }, validate_shape: { b: false } }),
    );
    const done = f.addNode('NoOp', 'NoOp', [], {}, { control: assigns });
    return { identity: identity(f, 'Identity', prefix, [done]) };
  });

  const filename = g.top.placeholder('saver_filename', 'DT_STRING', []);
  const handles = vars.map((v) => v.handle);
  const saveCall = call(g.top, 'StatefulPartitionedCall', save, [filename, ...handles])[0];
  const restoreCall = call(g.top, 'StatefulPartitionedCall', restore, [filename, ...handles])[0];
  return {
    filenameTensorName: filename.tensorName,
    saveTensorName: saveCall.tensorName,
    restoreOpName: restoreCall.tensorName.replace(/:0$/, ''),
    maxToKeep: 5,
    keepCheckpointEveryNHours: 10000,
    version: 'V2',
  };
}
