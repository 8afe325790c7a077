// A detection-shaped SavedModel for the real-process test: the post-processing graph of the TF
// Object Detection API's exports, around the box predictor's outputs fed as inputs (the
// networks themselves are larger than what can be fetched here, and TF's kernel tests state
// the values of these ops, not of a network). As the exports write it:
// - `image_tensor`: uint8 [batch, height, width, 1], cast to float (ODAPI's ToFloat) and cropped
//   with CropAndResize (Faster R-CNN's second stage) → `crops`;
// - per image, inside a TF1 `tf.map_fn` (Enter/Merge/Switch/LoopCond/NextIteration/Exit over
//   TensorArrayV3s, as TF1 exports' batch_multiclass_non_max_suppression runs it), padded
//   NonMaxSuppressionV5 of `boxes` [batch, 6, 4] by `scores` [batch, 6] → `nms_indices`,
//   `nms_scores`, `num_detections`;
// - CombinedNonMaxSuppression (TF2 exports with use_combined_nms) of `multiclass_boxes`
//   [batch, 6, 1, 4] by `multiclass_scores` [batch, 6, 2] → `detection_boxes`,
//   `detection_scores`, `detection_classes`, `valid_detections`.
import { attr, GraphBuilder, Tensor } from './writer/graph_builder.js';
import { opDefFromRegistration } from './writer/op_registration.js';
import { tf1MapFnLength } from './writer/tf1_map_fn.js';
import { writeSavedModel } from './saved_model_writer.js';
import { Tf2GraphBuilder } from './writer/tf2_graph_builder.js';
import { emit, type Value } from './writer/function_library.js';
import {
  binary,
  identity,
  scalarF32,
  scalarI32,
  tensorListFromTensor,
  tensorListGetItem,
  tensorListLength,
  tensorListReserve,
  tensorListSetItem,
  tensorListStack,
  whileLoop,
} from './writer/tf2_ops.js';

/** REGISTER_OP texts (tensorflow/core/ops/{control_flow,data_flow,image}_ops.cc) of the ops the writer has no OpDef for. */
const REGISTRATIONS = [
  'REGISTER_OP("Enter").Input("data: T").Output("output: T").Attr("T: type").Attr("frame_name: string").Attr("is_constant: bool = false").Attr("parallel_iterations: int = 10")',
  'REGISTER_OP("Exit").Input("data: T").Output("output: T").Attr("T: type")',
  'REGISTER_OP("Merge").Input("inputs: N * T").Output("output: T").Output("value_index: int32").Attr("T: type").Attr("N: int >= 1")',
  'REGISTER_OP("Switch").Input("data: T").Input("pred: bool").Output("output_false: T").Output("output_true: T").Attr("T: type")',
  'REGISTER_OP("NextIteration").Input("data: T").Output("output: T").Attr("T: type")',
  'REGISTER_OP("LoopCond").Input("input: bool").Output("output: bool")',
  'REGISTER_OP("TensorArrayV3").Input("size: int32").Attr("dtype: type").Attr("element_shape: shape").Attr("dynamic_size: bool = false").Attr("clear_after_read: bool = true").Attr("identical_element_shapes: bool = false").Attr("tensor_array_name: string = \'\'").Output("handle: resource").Output("flow: float")',
  'REGISTER_OP("TensorArrayWriteV3").Input("handle: resource").Input("index: int32").Input("value: T").Input("flow_in: float").Output("flow_out: float").Attr("T: type")',
  'REGISTER_OP("TensorArrayReadV3").Input("handle: resource").Input("index: int32").Input("flow_in: float").Output("value: dtype").Attr("dtype: type")',
  'REGISTER_OP("TensorArrayGatherV3").Input("handle: resource").Input("indices: int32").Input("flow_in: float").Output("value: dtype").Attr("dtype: type").Attr("element_shape: shape")',
  'REGISTER_OP("TensorArrayScatterV3").Input("handle: resource").Input("indices: int32").Input("value: T").Input("flow_in: float").Output("flow_out: float").Attr("T: type")',
  'REGISTER_OP("TensorArraySizeV3").Input("handle: resource").Input("flow_in: float").Output("size: int32")',
  'REGISTER_OP("CropAndResize").Input("image: T").Input("boxes: float").Input("box_ind: int32").Input("crop_size: int32").Output("crops: float").Attr("T: {uint8, uint16, int8, int16, int32, int64, half, float, double}").Attr("method: {\'bilinear\', \'nearest\'} = \'bilinear\'").Attr("extrapolation_value: float = 0")',
  'REGISTER_OP("NonMaxSuppressionV5").Input("boxes: T").Input("scores: T").Input("max_output_size: int32").Input("iou_threshold: T").Input("score_threshold: T").Input("soft_nms_sigma: T").Output("selected_indices: int32").Output("selected_scores: T").Output("valid_outputs: int32").Attr("T: {half, float} = DT_FLOAT").Attr("pad_to_max_output_size: bool = false")',
  'REGISTER_OP("CombinedNonMaxSuppression").Input("boxes: float").Input("scores: float").Input("max_output_size_per_class: int32").Input("max_total_size: int32").Input("iou_threshold: float").Input("score_threshold: float").Output("nmsed_boxes: float").Output("nmsed_scores: float").Output("nmsed_classes: float").Output("valid_detections: int32").Attr("pad_per_class: bool = false").Attr("clip_boxes: bool = true")',
];

/** NonMaxSuppressionV5's max_output_size in the loop: each image's selections padded to it. */
const DETECTION_MAX_OUTPUTS = 5;

const FRAME = 'map/while/while_context';
const i32 = (values: number[], shape = [values.length]) => ({ dtype: 'int32' as const, shape, values: Int32Array.from(values) });
const f32 = (values: number[], shape = [values.length]) => ({ dtype: 'float32' as const, shape, values: Float32Array.from(values) });

/** Writes the model as the version folder `dir`. */
export async function writeDetectionModel(dir: string): Promise<void> {
  const defs = new Map(REGISTRATIONS.map(opDefFromRegistration).map((d) => [d.name, d]));
  const g = new GraphBuilder();
  const T = (d: string) => attr.type(d);
  const node = (op: string, name: string, inputs: Array<Tensor | string>, attrs: Record<string, Record<string, unknown>>) =>
    g.addNode(op, name, inputs, attrs);
  const out = (n: string, index: number, dtype: Tensor['dtype'], shape: number[] | null) => new Tensor(n, index, dtype, shape);

  // Crops of the uint8 image, cast to float first.
  const image = g.placeholder('image_tensor', 'uint8', [-1, -1, -1, 1]);
  const asFloat = out(
    node('Cast', 'ToFloat', [image], { SrcT: T('uint8'), DstT: T('float32'), Truncate: attr.b(false) }),
    0,
    'float32',
    [-1, -1, -1, 1],
  );
  const crop = node(
    'CropAndResize',
    'CropAndResize',
    [
      asFloat,
      g.constant('crop/boxes', f32([0, 0, 1, 1], [1, 4])),
      g.constant('crop/box_ind', i32([0])),
      g.constant('crop/size', i32([3, 3])),
    ],
    {
      T: T('float32'),
      method: attr.s('bilinear'),
      extrapolation_value: attr.f(0),
    },
  );

  // Per image: map_fn over the batch with TensorArrays, as TF1 writes it.
  const boxes = g.placeholder('boxes', 'float32', [-1, 6, 4]);
  const scores = g.placeholder('scores', 'float32', [-1, 6]);
  const n = tf1MapFnLength(g, boxes, 3);
  const zero = g.constant('map/Const', i32([0], []));
  const one = g.constant('map/Const_1', i32([1], []));
  const tensorArray = (name: string, dtype: string, elementShape: number[]) =>
    node('TensorArrayV3', name, [n], {
      dtype: T(dtype),
      element_shape: attr.shape(elementShape),
      dynamic_size: attr.b(false),
      clear_after_read: attr.b(true),
      identical_element_shapes: attr.b(true),
      tensor_array_name: attr.s(''),
    });
  const range = out(node('Range', 'map/TensorArrayUnstack/range', [zero, n, one], { Tidx: T('int32') }), 0, 'int32', [-1]);
  const unstack = (name: string, value: Tensor, elementShape: number[]) => {
    const ta = tensorArray(`map/${name}`, 'float32', elementShape);
    return {
      ta,
      flow: node('TensorArrayScatterV3', `map/${name}Unstack/TensorArrayScatterV3`, [ta, range, value, `${ta}:1`], { T: T('float32') }),
    };
  };
  const boxesIn = unstack('TensorArray', boxes, [6, 4]);
  const scoresIn = unstack('TensorArray_1', scores, [6]);
  const results = [
    { name: 'TensorArray_2', dtype: 'int32', shape: [DETECTION_MAX_OUTPUTS] },
    { name: 'TensorArray_3', dtype: 'float32', shape: [DETECTION_MAX_OUTPUTS] },
    { name: 'TensorArray_4', dtype: 'int32', shape: [] },
  ].map((r) => ({ ...r, ta: tensorArray(`map/${r.name}`, r.dtype, r.shape) }));

  const enter = (name: string, x: Tensor | string, dtype: string, constant: boolean) =>
    node('Enter', `map/while/${name}`, [x], {
      T: T(dtype),
      frame_name: attr.s(FRAME),
      is_constant: attr.b(constant),
      parallel_iterations: attr.i(10),
    });
  const iEnter = enter('Enter', zero, 'int32', false);
  const flowEnters = results.map((r, k) => enter(`Enter_${k + 1}`, `${r.ta}:1`, 'float32', false));
  const nEnter = enter('Less/Enter', n, 'int32', true);
  // Merge's second input is the NextIteration made below: a back edge, patched in afterwards.
  const iMerge = node('Merge', 'map/while/Merge', [iEnter, iEnter], { T: T('int32'), N: attr.i(2) });
  const flowMerges = flowEnters.map((e, k) => node('Merge', `map/while/Merge_${k + 1}`, [e, e], { T: T('float32'), N: attr.i(2) }));
  const cond = node('LoopCond', 'map/while/LoopCond', [node('Less', 'map/while/Less', [iMerge, nEnter], { T: T('int32') })], {});
  const iSwitch = node('Switch', 'map/while/Switch', [iMerge, cond], { T: T('int32') });
  const flowSwitches = flowMerges.map((m, k) => node('Switch', `map/while/Switch_${k + 1}`, [m, cond], { T: T('float32') }));
  const i = out(node('Identity', 'map/while/Identity', [`${iSwitch}:1`], { T: T('int32') }), 0, 'int32', []);
  const flows = flowSwitches.map((s, k) => node('Identity', `map/while/Identity_${k + 1}`, [`${s}:1`], { T: T('float32') }));
  // Constants of the body hang on the loop's pivot (TF's control edge puts them in the frame).
  const k = (name: string, value: ReturnType<typeof i32> | ReturnType<typeof f32>) =>
    new Tensor(
      g.addNode('Const', `map/while/${name}`, [], { dtype: attr.type(value.dtype), value: attr.tensor(value) }, { control: [i.node] }),
      0,
      value.dtype,
      value.shape,
    );
  const read = (name: string, input: { ta: string; flow: string }) =>
    node(
      'TensorArrayReadV3',
      `map/while/${name}`,
      [enter(`${name}/Enter`, input.ta, 'DT_RESOURCE', true), i, enter(`${name}/Enter_1`, input.flow, 'float32', true)],
      { dtype: T('float32') },
    );
  const nms = node(
    'NonMaxSuppressionV5',
    'map/while/non_max_suppression/NonMaxSuppressionV5',
    [
      read('TensorArrayReadV3', boxesIn),
      read('TensorArrayReadV3_1', scoresIn),
      k('max_output_size', i32([DETECTION_MAX_OUTPUTS], [])),
      k('iou_threshold', f32([0.5], [])),
      k('score_threshold', f32([0], [])),
      k('soft_nms_sigma', f32([0], [])),
    ],
    { T: T('float32'), pad_to_max_output_size: attr.b(true) },
  );
  const writes = results.map((r, j) =>
    node(
      'TensorArrayWriteV3',
      `map/while/TensorArrayWrite_${j}/TensorArrayWriteV3`,
      [enter(`TensorArrayWrite_${j}/Enter`, r.ta, 'DT_RESOURCE', true), i, j === 0 ? nms : `${nms}:${j}`, flows[j]],
      { T: T(r.dtype) },
    ),
  );
  const iNext = node(
    'NextIteration',
    'map/while/NextIteration',
    [node('AddV2', 'map/while/add', [i, k('add/y', i32([1], []))], { T: T('int32') })],
    { T: T('int32') },
  );
  g.node(iMerge)!.input[1] = iNext;
  writes.forEach(
    (w, j) => (g.node(flowMerges[j])!.input[1] = node('NextIteration', `map/while/NextIteration_${j + 1}`, [w], { T: T('float32') })),
  );
  node('Exit', 'map/while/Exit', [iSwitch], { T: T('int32') });
  const stacked = results.map((r, j) => {
    const flowOut = node('Exit', `map/while/Exit_${j + 1}`, [flowSwitches[j]], { T: T('float32') });
    const size = node('TensorArraySizeV3', `map/TensorArrayStack_${j}/TensorArraySizeV3`, [r.ta, flowOut], {});
    const all = node(
      'Range',
      `map/TensorArrayStack_${j}/range`,
      [
        g.constant(`map/TensorArrayStack_${j}/range/start`, i32([0], [])),
        size,
        g.constant(`map/TensorArrayStack_${j}/range/delta`, i32([1], [])),
      ],
      { Tidx: T('int32') },
    );
    return node('TensorArrayGatherV3', `map/TensorArrayStack_${j}/TensorArrayGatherV3`, [r.ta, all, flowOut], {
      dtype: T(r.dtype),
      element_shape: attr.shape(r.shape),
    });
  });

  // All classes of all images at once, as TF2 exports with use_combined_nms.
  const mcBoxes = g.placeholder('multiclass_boxes', 'float32', [-1, 6, 1, 4]);
  const mcScores = g.placeholder('multiclass_scores', 'float32', [-1, 6, 2]);
  const combined = node(
    'CombinedNonMaxSuppression',
    'combined_non_max_suppression/CombinedNonMaxSuppression',
    [
      mcBoxes,
      mcScores,
      g.constant('combined/max_per_class', i32([3], [])),
      g.constant('combined/max_total', i32([3], [])),
      g.constant('combined/iou', f32([0.5], [])),
      g.constant('combined/score', f32([0], [])),
    ],
    {
      pad_per_class: attr.b(false),
      clip_boxes: attr.b(true),
    },
  );

  const id = (name: string, t: Tensor) => g.identity(name, t);
  await writeSavedModel(
    dir,
    g,
    {
      serving_default: {
        inputs: { image_tensor: image, boxes, scores, multiclass_boxes: mcBoxes, multiclass_scores: mcScores },
        outputs: {
          crops: id('crops', out(crop, 0, 'float32', [1, 3, 3, 1])),
          nms_indices: id('nms_indices', out(stacked[0], 0, 'int32', [-1, DETECTION_MAX_OUTPUTS])),
          nms_scores: id('nms_scores', out(stacked[1], 0, 'float32', [-1, DETECTION_MAX_OUTPUTS])),
          num_detections: id('num_detections', out(stacked[2], 0, 'int32', [-1])),
          detection_boxes: id('detection_boxes', out(combined, 0, 'float32', [-1, 3, 4])),
          detection_scores: id('detection_scores', out(combined, 1, 'float32', [-1, 3])),
          detection_classes: id('detection_classes', out(combined, 2, 'float32', [-1, 3])),
          valid_detections: id('valid_detections', out(combined, 3, 'int32', [-1])),
        },
      },
    },
    { opDefs: [...defs.values()] },
  );
}

/**
 * The same per-image NonMaxSuppressionV5 (padded to 5) as TF2's `tf.map_fn` writes it: a
 * StatelessWhile over TensorLists inside the signature's graph, `boxes` [batch, 6, 4] and
 * `scores` [batch, 6] in, `nms_indices` [batch, 5] out.
 */
export async function writeTf2MapFnNmsModel(dir: string): Promise<void> {
  const F = 'DT_FLOAT';
  const I = 'DT_INT32';
  const V = 'DT_VARIANT';
  const g = new Tf2GraphBuilder();
  const loopArgs: Array<[string, string]> = [
    ['i', I],
    ['n', I],
    ['boxes', V],
    ['scores', V],
    ['out', V],
  ];
  const cond = g.library.define('map_while_cond_12', loopArgs, (f, [i, n]) => ({
    identity: identity(f, 'Identity', binary(f, 'Less', 'Less', i, n)),
  }));
  const body = g.library.define('map_while_body_13', loopArgs, (f, [i, n, boxes, scores, out]) => {
    const b = tensorListGetItem(f, 'TensorListGetItem', boxes, i, [6, 4], F);
    const s = tensorListGetItem(f, 'TensorListGetItem_1', scores, i, [6], F);
    const [selected] = emit(
      f,
      'NonMaxSuppressionV5',
      'NonMaxSuppressionV5',
      [
        b,
        s,
        scalarI32(f, 'max_output_size', DETECTION_MAX_OUTPUTS),
        scalarF32(f, 'iou_threshold', 0.5),
        scalarF32(f, 'score_threshold', 0),
        scalarF32(f, 'soft_nms_sigma', 0),
      ],
      {
        T: attr.type('float32'),
        pad_to_max_output_size: attr.b(true),
      },
    );
    const next = tensorListSetItem(f, 'TensorListSetItem', out, i, selected.withShape([DETECTION_MAX_OUTPUTS]));
    const names = ['identity', 'identity_1', 'identity_2', 'identity_3', 'identity_4'];
    const values = [binary(f, 'AddV2', 'add', i, scalarI32(f, 'add/y', 1)), n, boxes, scores, next];
    return Object.fromEntries(values.map((v, k) => [names[k], identity(f, k === 0 ? 'Identity' : `Identity_${k}`, v)]));
  });
  const boxes = g.top.placeholder('boxes', F, [-1, 6, 4]);
  const scores = g.top.placeholder('scores', F, [-1, 6]);
  const boxesList = tensorListFromTensor(g.top, 'map/TensorListFromTensor', boxes, [6, 4]);
  const scoresList = tensorListFromTensor(g.top, 'map/TensorListFromTensor_1', scores, [6]);
  const n = tensorListLength(g.top, 'map/TensorListLength', boxesList);
  const out = tensorListReserve(g.top, 'map/TensorListReserve', [DETECTION_MAX_OUTPUTS], n, I);
  const loop = whileLoop(g.top, 'map/while', [scalarI32(g.top, 'map/i', 0), n, boxesList, scoresList, out], cond, body);
  const stacked = tensorListStack(g.top, 'map/TensorListStack', loop[4], [DETECTION_MAX_OUTPUTS], I);
  const info = (v: Value, shape: number[]) => ({ name: v.tensorName, dtype: v.type, shape });
  await writeSavedModel(dir, g, {
    serving_default: {
      inputs: { boxes: info(boxes, [-1, 6, 4]), scores: info(scores, [-1, 6]) },
      outputs: { nms_indices: info(stacked, [-1, DETECTION_MAX_OUTPUTS]) },
    },
  });
}
