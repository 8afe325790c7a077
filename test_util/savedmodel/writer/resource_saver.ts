// The save/restore part of a TF2 SavedModel (tensorflow/python/saved_model/save.py):
// two library functions called from the graph with the filename and every saved resource
// (variable handles, then checkpointed table handles),
//
//   saver_filename              Placeholder string []           ← filename_tensor_name
//   StatefulPartitionedCall_1   (saver_filename, handles…) f=__inference__traced_save     ← save_tensor_name
//   StatefulPartitionedCall_2   (saver_filename, handles…) f=__inference__traced_restore  ← restore_op_name
//
// The restore body is RestoreV2 (keys in checkpoint order) then AssignVariableOp(handle_i,
// Identity(RestoreV2:tensors:i)) per variable and LookupTableImportV2(table, keys, values) per
// table; the save body ReadVariableOp / LookupTableExportV2 + SaveV2. TF's own save function
// also shards and merges the checkpoint; a loader never runs it.
import type { HostTensor } from '../../../src/tensor/host_tensor.js';
import { compareBytes } from '../../../src/savedmodel/tensor_bundle/coding.js';
import { emit, type OpEmitter, type Value } from './function_library.js';
import type { SaverDefInit } from './saver.js';
import { call, constant, identity, readVariable, tfType } from './tf2_ops.js';
import type { Tf2GraphBuilder } from './tf2_graph_builder.js';

const enc = new TextEncoder();
const strings = (v: string[]): HostTensor => ({ dtype: 'string', shape: [v.length], values: v.map((x) => enc.encode(x)) });

function tensorNamesAndSlices(e: OpEmitter, scope: string, keys: string[]): [Value, Value] {
  return [constant(e, `${scope}/tensor_names`, strings(keys)), constant(e, `${scope}/shape_and_slices`, strings(keys.map(() => '')))];
}

/** One checkpoint tensor: which saved resource (argument) it belongs to and its role there. */
interface Entry {
  key: string;
  value: HostTensor;
  resource: number;
  role: 'variable' | 'table-keys' | 'table-values';
}

/** Every checkpoint tensor of `g`'s resource variables and checkpointed tables, by key. */
export function checkpointEntries(g: Tf2GraphBuilder): Array<[string, HostTensor]> {
  return entriesOf(g).map((e) => [e.key, e.value]);
}

function entriesOf(g: Tf2GraphBuilder): Entry[] {
  const vars = g.resourceVariables.map((v, i): Entry => ({ key: v.key, value: v.value, resource: i, role: 'variable' }));
  const tables = g.checkpointedTables.flatMap((t, j): Entry[] => [
    { key: t.keysKey, value: t.keys, resource: vars.length + j, role: 'table-keys' },
    { key: t.valuesKey, value: t.values, resource: vars.length + j, role: 'table-values' },
  ]);
  return [...vars, ...tables].sort((a, b) => compareBytes(enc.encode(a.key), enc.encode(b.key)));
}

/** Adds the save and restore functions and their calls for every resource variable and checkpointed table of `g`. */
export function addResourceSaver(g: Tf2GraphBuilder): SaverDefInit {
  const entries = entriesOf(g);
  if (entries.length === 0) throw new Error('a saver needs at least one variable');
  const resources = [...g.resourceVariables.map((v) => v.handle), ...g.checkpointedTables.map((t) => t.handle)];
  const keys = entries.map((e) => e.key);
  const dtypes = { list: { type: entries.map((e) => tfType(e.value.dtype)) } };
  const args: Array<[string, string]> = [
    ['file_prefix', 'DT_STRING'],
    ...resources.map((_, i): [string, string] => [`resource_${i}`, 'DT_RESOURCE']),
  ];
  const tableOf = (resource: number) => g.checkpointedTables[resource - g.resourceVariables.length];
  const kv = (resource: number) => ({
    Tin: { type: tfType(tableOf(resource).keys.dtype) },
    Tout: { type: tfType(tableOf(resource).values.dtype) },
  });

  const save = g.library.define('__inference__traced_save', args, (f, [prefix, ...handles]) => {
    const exported = new Map<number, Value[]>();
    const tensors = entries.map((e, i) => {
      if (e.role === 'variable') return readVariable(f, `Read_${i}/ReadVariableOp`, handles[e.resource], tfType(e.value.dtype));
      let out = exported.get(e.resource);
      if (!out) {
        const { Tin, Tout } = kv(e.resource);
        out = emit(f, 'LookupTableExportV2', `Export_${e.resource}/LookupTableExportV2`, [handles[e.resource]], {
          Tkeys: Tin,
          Tvalues: Tout,
        });
        exported.set(e.resource, out);
      }
      return out[e.role === 'table-keys' ? 0 : 1];
    });
    const [names, slices] = tensorNamesAndSlices(f, 'SaveV2', keys);
    const saveOp = f.addNode('SaveV2', 'SaveV2', [prefix, names, slices, ...tensors], { dtypes });
    return { identity: identity(f, 'Identity', prefix, [saveOp]) };
  });
  const restore = g.library.define('__inference__traced_restore', args, (f, [prefix, ...handles]) => {
    const [names, slices] = tensorNamesAndSlices(f, 'RestoreV2', keys);
    const restored = emit(f, 'RestoreV2', 'RestoreV2', [prefix, names, slices], { dtypes });
    const ops: string[] = [];
    entries.forEach((e, i) => {
      if (e.role === 'variable') {
        ops.push(
          f.addNode('AssignVariableOp', 'AssignVariableOp', [handles[e.resource], identity(f, 'Identity', restored[i])], {
            dtype: { type: restored[i].type },
            validate_shape: { b: false },
          }),
        );
      } else if (e.role === 'table-keys') {
        const values = restored[entries.findIndex((v) => v.resource === e.resource && v.role === 'table-values')];
        ops.push(f.addNode('LookupTableImportV2', 'LookupTableImportV2', [handles[e.resource], restored[i], values], kv(e.resource)));
      }
    });
    const done = f.addNode('NoOp', 'NoOp', [], {}, { control: ops });
    return { identity: identity(f, 'Identity', prefix, [done]) };
  });

  const filename = g.top.placeholder('saver_filename', 'DT_STRING', []);
  const saveCall = call(g.top, 'StatefulPartitionedCall', save, [filename, ...resources])[0];
  const restoreCall = call(g.top, 'StatefulPartitionedCall', restore, [filename, ...resources])[0];
  return {
    filenameTensorName: filename.tensorName,
    saveTensorName: saveCall.tensorName,
    restoreOpName: restoreCall.tensorName.replace(/:0$/, ''),
    maxToKeep: 5,
    keepCheckpointEveryNHours: 10000,
    version: 'V2',
  };
}
