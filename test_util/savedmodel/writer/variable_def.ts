// VariableDef (tensorflow/core/framework/variable.proto) for the `variables` and
// `trainable_variables` collections of TF1 exports. The project's proto subset does not
// include variable.proto, so the few fields a VariableV2 variable uses are encoded here:
//   1 variable_name "v:0" · 2 initializer_name "v/Assign" · 3 snapshot_name "v/read:0" ·
//   6 initial_value_name "v/initial_value:0" · 7 trainable
// (is_resource, save_slice_info_def, synchronization and aggregation keep their defaults
// and are absent, as in TF's own exports).
import protobuf from 'protobufjs';
import type { VariableRecord } from './graph_builder.js';

export function encodeVariableDef(v: VariableRecord): Uint8Array {
  const w = protobuf.Writer.create();
  w.uint32((1 << 3) | 2).string(v.variable.name);
  w.uint32((2 << 3) | 2).string(v.initializer);
  w.uint32((3 << 3) | 2).string(v.snapshot.name);
  w.uint32((6 << 3) | 2).string(v.initialValue.name);
  if (v.trainable) w.uint32(7 << 3).bool(true);
  return w.finish();
}
