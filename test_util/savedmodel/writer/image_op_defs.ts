// OpDefs of the object-detection ops the writer emits inside TF2 functions (a While body's
// NonMaxSuppressionV5, as TF2's tf.map_fn writes it), from their REGISTER_OP texts in
// tensorflow/core/ops/image_ops.cc.
import type { OpDefInit } from './op_defs.js';
import { opDefFromRegistration } from './op_registration.js';

export const IMAGE_OP_DEFS: OpDefInit[] = [
  'REGISTER_OP("NonMaxSuppressionV5").Input("boxes: T").Input("scores: T").Input("max_output_size: int32").Input("iou_threshold: T").Input("score_threshold: T").Input("soft_nms_sigma: T").Output("selected_indices: int32").Output("selected_scores: T").Output("valid_outputs: int32").Attr("T: {half, float} = DT_FLOAT").Attr("pad_to_max_output_size: bool = false")',
].map(opDefFromRegistration);
