// The save/restore subgraph `tf.compat.v1.train.Saver(sharded=False, write_version=V2)`
// adds (tensorflow/python/training/saver.py, BaseSaverBuilder._build_internal with the
// default BulkSaverBuilder), variables in name order:
//
//   save/filename/input   Const "model"
//   save/filename         PlaceholderWithDefault(save/filename/input), shape []
//   save/Const            PlaceholderWithDefault(save/filename), shape []   ← filename_tensor_name
//   save/SaveV2/tensor_names, save/SaveV2/shape_and_slices   Const [n] strings
//   save/SaveV2           SaveV2(save/Const, names, slices, var_0 … var_n-1)
//   save/control_dependency   Identity(save/Const, ^save/SaveV2)  ← save_tensor_name
//   save/RestoreV2/tensor_names, …/shape_and_slices, save/RestoreV2   (on /device:CPU:0)
//   save/Assign, save/Assign_1, …   Assign(var_i, save/RestoreV2:i)
//   save/restore_all      NoOp(^save/Assign, ^save/Assign_1, …)   ← restore_op_name
//
// A loader feeds `<export>/variables/variables` to save/Const:0 and runs save/restore_all.
import type { HostTensor } from '../../../src/tensor/host_tensor.js';
import { compareBytes } from '../../../src/savedmodel/tensor_bundle/coding.js';
import { attr, type GraphBuilder } from './graph_builder.js';

export interface SaverDefInit {
  filenameTensorName: string;
  saveTensorName: string;
  restoreOpName: string;
  maxToKeep: number;
  keepCheckpointEveryNHours: number;
  version: 'V2';
}

const enc = new TextEncoder();
const strings = (v: string[]): HostTensor => ({ dtype: 'string', shape: [v.length], values: v.map((x) => enc.encode(x)) });
const CPU = '/device:CPU:0';

/** Adds the saver for every variable in `g`; returns the SaverDef. */
export function addSaver(g: GraphBuilder, scope = 'save'): SaverDefInit {
  // saver.py orders saveables by name (Python str order = UTF-8 byte order).
  const vars = [...g.variables].sort((a, b) => compareBytes(enc.encode(a.name), enc.encode(b.name)));
  if (vars.length === 0) throw new Error('a Saver needs at least one variable');
  const name = g.uniqueName(scope);
  const input = g.constant(`${name}/filename/input`, { dtype: 'string', shape: [], values: [enc.encode('model')] });
  const filename = g.placeholderWithDefault(`${name}/filename`, input, []);
  const filenameTensor = g.placeholderWithDefault(`${name}/Const`, filename, []);

  const keys = vars.map((v) => v.name);
  const slices = vars.map(() => '');
  const dtypes = vars.map((v) => v.value.dtype);
  const saveNames = g.constant(`${name}/SaveV2/tensor_names`, strings(keys));
  const saveSlices = g.constant(`${name}/SaveV2/shape_and_slices`, strings(slices));
  const save = g.addNode('SaveV2', `${name}/SaveV2`, [filenameTensor, saveNames, saveSlices, ...vars.map((v) => v.variable)], {
    dtypes: attr.types(dtypes),
  });
  const saveTensor = g.identity(`${name}/control_dependency`, filenameTensor, { control: [save], colocateWith: filenameTensor.node });

  const restoreNames = g.constant(`${name}/RestoreV2/tensor_names`, strings(keys), { device: CPU });
  const restoreSlices = g.constant(`${name}/RestoreV2/shape_and_slices`, strings(slices), { device: CPU });
  const restore = g.addNode(
    'RestoreV2',
    `${name}/RestoreV2`,
    [filenameTensor, restoreNames, restoreSlices],
    { dtypes: attr.types(dtypes) },
    { device: CPU },
  );
  const assigns = vars.map((v, i) =>
    g.addNode(
      'Assign',
      `${name}/Assign`,
      [v.variable, i === 0 ? restore : `${restore}:${i}`],
      { T: attr.type(v.value.dtype), validate_shape: attr.b(true), use_locking: attr.b(true) },
      { colocateWith: v.name },
    ),
  );
  const restoreAll = g.noOp(`${name}/restore_all`, assigns);
  return {
    filenameTensorName: filenameTensor.name,
    saveTensorName: saveTensor.name,
    restoreOpName: restoreAll,
    maxToKeep: 5,
    keepCheckpointEveryNHours: 10000,
    version: 'V2',
  };
}
