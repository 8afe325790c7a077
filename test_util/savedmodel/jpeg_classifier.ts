// The example model `jpeg_classifier`: model_repository/image_classifier (MCUNet, unchanged:
// its graph, functions and weights) behind the serving function TF Serving's image examples
// put in front of a classifier — JPEG bytes in (`{"b64": …}` over REST), decoded and
// preprocessed per image inside a TF1 `tf.map_fn` (Enter/Merge/Switch/LoopCond/NextIteration/
// Exit over TensorArrayV3s, as TF1 exports and the Object Detection API write it), then the
// classifier's own PartitionedCall on the batch. Per image, MCUNet's evaluation transform for
// a square picture: resize to 182 × 182 (bilinear, half-pixel centers), the centre 160 × 160,
// / 255, minus ImageNet's mean, over its std, channels first.
//
// The new nodes are built and checked with tfgate's GraphBuilder (OpDefs from TF's
// REGISTER_OP texts), then added to MCUNet's own MetaGraphDef with a `serving_default` that
// reads them; MCUNet's variables/ and fingerprint are copied byte for byte.
import fs from 'node:fs/promises';
import path from 'node:path';
import { protoType } from '../../src/proto/index.js';
import { attr, GraphBuilder, Tensor, validateGraph } from './writer/graph_builder.js';
import { opDefFromRegistration } from './writer/op_registration.js';
import { tf1MapFnLength } from './writer/tf1_map_fn.js';
import { OP_DEFS, type OpDefInit } from './writer/op_defs.js';

const REGISTRATIONS = [
  'REGISTER_OP("Enter").Input("data: T").Output("output: T").Attr("T: type").Attr("frame_name: string").Attr("is_constant: bool = false").Attr("parallel_iterations: int = 10")',
  'REGISTER_OP("Exit").Input("data: T").Output("output: T").Attr("T: type")',
  'REGISTER_OP("Merge").Input("inputs: N * T").Output("output: T").Output("value_index: int32").Attr("T: type").Attr("N: int >= 1")',
  'REGISTER_OP("Switch").Input("data: T").Input("pred: bool").Output("output_false: T").Output("output_true: T").Attr("T: type")',
  'REGISTER_OP("NextIteration").Input("data: T").Output("output: T").Attr("T: type")',
  'REGISTER_OP("LoopCond").Input("input: bool").Output("output: bool")',
  'REGISTER_OP("Less").Input("x: T").Input("y: T").Output("z: bool").Attr("T: realnumbertype")',
  'REGISTER_OP("TensorArrayV3").Input("size: int32").Attr("dtype: type").Attr("element_shape: shape").Attr("dynamic_size: bool = false").Attr("clear_after_read: bool = true").Attr("identical_element_shapes: bool = false").Attr("tensor_array_name: string = \'\'").Output("handle: resource").Output("flow: float")',
  'REGISTER_OP("TensorArrayWriteV3").Input("handle: resource").Input("index: int32").Input("value: T").Input("flow_in: float").Output("flow_out: float").Attr("T: type")',
  'REGISTER_OP("TensorArrayReadV3").Input("handle: resource").Input("index: int32").Input("flow_in: float").Output("value: dtype").Attr("dtype: type")',
  'REGISTER_OP("TensorArrayGatherV3").Input("handle: resource").Input("indices: int32").Input("flow_in: float").Output("value: dtype").Attr("dtype: type").Attr("element_shape: shape")',
  'REGISTER_OP("TensorArrayScatterV3").Input("handle: resource").Input("indices: int32").Input("value: T").Input("flow_in: float").Output("flow_out: float").Attr("T: type")',
  'REGISTER_OP("TensorArraySizeV3").Input("handle: resource").Input("flow_in: float").Output("size: int32")',
  'REGISTER_OP("Range").Input("start: Tidx").Input("limit: Tidx").Input("delta: Tidx").Output("output: Tidx").Attr("Tidx: {float, double, int32, int64} = DT_INT32")',
  'REGISTER_OP("Cast").Input("x: SrcT").Output("y: DstT").Attr("SrcT: type").Attr("DstT: type").Attr("Truncate: bool = false")',
  'REGISTER_OP("ExpandDims").Input("input: T").Input("dim: Tdim").Output("output: T").Attr("T: type").Attr("Tdim: {int32, int64} = DT_INT32")',
  'REGISTER_OP("ResizeBilinear").Input("images: T").Input("size: int32").Output("resized_images: float").Attr("T: {int8, uint8, int16, uint16, int32, int64, half, float, double}").Attr("align_corners: bool = false").Attr("half_pixel_centers: bool = false")',
  'REGISTER_OP("Slice").Input("input: T").Input("begin: Index").Input("size: Index").Output("output: T").Attr("T: type").Attr("Index: {int32, int64}")',
  'REGISTER_OP("RealDiv").Input("x: T").Input("y: T").Output("z: T").Attr("T: {half, float, double, uint8, int8, uint16, int16, int32, int64}")',
  'REGISTER_OP("DecodeJpeg").Input("contents: string").Attr("channels: int = 0").Attr("ratio: int = 1").Attr("fancy_upscaling: bool = true").Attr("try_recover_truncated: bool = false").Attr("acceptable_fraction: float = 1.0").Attr("dct_method: string = \'\'").Output("image: uint8")',
];

const FRAME = 'map/while/while_context';
const i32 = (values: number[], shape = [values.length]) => ({ dtype: 'int32' as const, shape, values: Int32Array.from(values) });
const f32 = (values: number[], shape = [values.length]) => ({ dtype: 'float32' as const, shape, values: Float32Array.from(values) });

/** The serving function's nodes: image_bytes string[-1] → float[-1, 3, 160, 160] (`preprocessed`). */
function buildPreprocessing(defs: Map<string, OpDefInit>): { g: GraphBuilder; input: Tensor; output: Tensor } {
  const g = new GraphBuilder();
  const T = (d: string) => attr.type(d);
  const node = (
    op: string,
    name: string,
    inputs: Array<Tensor | string>,
    attrs: Record<string, Record<string, unknown>>,
    control?: string[],
  ) => g.addNode(op, name, inputs, attrs, control ? { control } : {});
  const input = g.placeholder('image_bytes', 'string', [-1]);
  const n = tf1MapFnLength(g, input, 1);
  const zero = g.constant('map/Const', i32([0], []));
  const one = g.constant('map/Const_1', i32([1], []));
  const taIn = node('TensorArrayV3', 'map/TensorArray', [n], {
    dtype: T('string'),
    element_shape: attr.shape([]),
    dynamic_size: attr.b(false),
    clear_after_read: attr.b(true),
    identical_element_shapes: attr.b(true),
    tensor_array_name: attr.s(''),
  });
  const taOut = node('TensorArrayV3', 'map/TensorArray_1', [n], {
    dtype: T('float32'),
    element_shape: attr.shape([160, 160, 3]),
    dynamic_size: attr.b(false),
    clear_after_read: attr.b(true),
    identical_element_shapes: attr.b(true),
    tensor_array_name: attr.s(''),
  });
  const range = new Tensor(node('Range', 'map/TensorArrayUnstack/range', [zero, n, one], { Tidx: T('int32') }), 0, 'int32', [-1]);
  const scatter = node(
    'TensorArrayScatterV3',
    'map/TensorArrayUnstack/TensorArrayScatter/TensorArrayScatterV3',
    [`${taIn}`, range, input, `${taIn}:1`],
    { T: T('string') },
  );

  const enter = (name: string, x: Tensor | string, dtype: string, constant: boolean) =>
    node('Enter', `map/while/${name}`, [x], {
      T: T(dtype),
      frame_name: attr.s(FRAME),
      is_constant: attr.b(constant),
      parallel_iterations: attr.i(10),
    });
  const iEnter = enter('Enter', zero, 'int32', false);
  const flowEnter = enter('Enter_1', `${taOut}:1`, 'float32', false);
  const nEnter = enter('Less/Enter', n, 'int32', true);
  const inHandle = enter('TensorArrayReadV3/Enter', `${taIn}`, 'DT_RESOURCE', true);
  const inFlow = enter('TensorArrayReadV3/Enter_1', scatter, 'float32', true);
  const outHandle = enter('TensorArrayWrite/TensorArrayWriteV3/Enter', `${taOut}`, 'DT_RESOURCE', true);
  // Merge's second input is the NextIteration made below: a back edge, patched in afterwards.
  const iMerge = node('Merge', 'map/while/Merge', [iEnter, iEnter], { T: T('int32'), N: attr.i(2) });
  const flowMerge = node('Merge', 'map/while/Merge_1', [flowEnter, flowEnter], { T: T('float32'), N: attr.i(2) });
  const less = node('Less', 'map/while/Less', [iMerge, nEnter], { T: T('int32') });
  const cond = node('LoopCond', 'map/while/LoopCond', [less], {});
  const iSwitch = node('Switch', 'map/while/Switch', [iMerge, cond], { T: T('int32') });
  const flowSwitch = node('Switch', 'map/while/Switch_1', [flowMerge, cond], { T: T('float32') });
  const i = new Tensor(node('Identity', 'map/while/Identity', [`${iSwitch}:1`], { T: T('int32') }), 0, 'int32', []);
  const flow = node('Identity', 'map/while/Identity_1', [`${flowSwitch}:1`], { T: T('float32') });
  // Constants of the body hang on the loop's pivot (TF's control edge puts them in the frame).
  const k = (name: string, value: ReturnType<typeof i32> | ReturnType<typeof f32>) =>
    new Tensor(
      g.addNode('Const', `map/while/${name}`, [], { dtype: attr.type(value.dtype), value: attr.tensor(value) }, { control: [i.node] }),
      0,
      value.dtype,
      value.shape,
    );
  const contents = node('TensorArrayReadV3', 'map/while/TensorArrayReadV3', [inHandle, i, inFlow], { dtype: T('string') });
  const decoded = node('DecodeJpeg', 'map/while/DecodeJpeg', [contents], {
    channels: attr.i(3),
    ratio: attr.i(1),
    fancy_upscaling: attr.b(true),
    try_recover_truncated: attr.b(false),
    acceptable_fraction: attr.f(1),
    dct_method: attr.s(''),
  });
  const asFloat = node('Cast', 'map/while/Cast', [decoded], { SrcT: T('uint8'), DstT: T('float32'), Truncate: attr.b(false) });
  const batch1 = node('ExpandDims', 'map/while/ExpandDims', [asFloat, k('ExpandDims/dim', i32([0], []))], {
    T: T('float32'),
    Tdim: T('int32'),
  });
  const resized = node('ResizeBilinear', 'map/while/resize/ResizeBilinear', [batch1, k('resize/size', i32([182, 182]))], {
    T: T('float32'),
    align_corners: attr.b(false),
    half_pixel_centers: attr.b(true),
  });
  const crop = node(
    'Slice',
    'map/while/central_crop',
    [resized, k('central_crop/begin', i32([0, 11, 11, 0])), k('central_crop/size', i32([1, 160, 160, 3]))],
    { T: T('float32'), Index: T('int32') },
  );
  const hwc = node('Reshape', 'map/while/Reshape', [crop, k('Reshape/shape', i32([160, 160, 3]))], { T: T('float32'), Tshape: T('int32') });
  const unit = node('RealDiv', 'map/while/truediv', [hwc, k('truediv/y', f32([255], []))], { T: T('float32') });
  const centred = node('Sub', 'map/while/sub', [unit, k('mean', f32([0.485, 0.456, 0.406]))], { T: T('float32') });
  const scaled = node('RealDiv', 'map/while/truediv_1', [centred, k('std', f32([0.229, 0.224, 0.225]))], { T: T('float32') });
  const write = node('TensorArrayWriteV3', 'map/while/TensorArrayWrite/TensorArrayWriteV3', [outHandle, i, scaled, flow], {
    T: T('float32'),
  });
  const next = node('AddV2', 'map/while/add', [i, k('add/y', i32([1], []))], { T: T('int32') });
  const iNext = node('NextIteration', 'map/while/NextIteration', [next], { T: T('int32') });
  const flowNext = node('NextIteration', 'map/while/NextIteration_1', [write], { T: T('float32') });
  g.node(iMerge)!.input[1] = iNext;
  g.node(flowMerge)!.input[1] = flowNext;
  node('Exit', 'map/while/Exit', [iSwitch], { T: T('int32') });
  const flowOut = node('Exit', 'map/while/Exit_1', [flowSwitch], { T: T('float32') });

  const size = node('TensorArraySizeV3', 'map/TensorArrayStack/TensorArraySizeV3', [`${taOut}`, flowOut], {});
  const all = node(
    'Range',
    'map/TensorArrayStack/range',
    [g.constant('map/TensorArrayStack/range/start', i32([0], [])), size, g.constant('map/TensorArrayStack/range/delta', i32([1], []))],
    { Tidx: T('int32') },
  );
  const images = node('TensorArrayGatherV3', 'map/TensorArrayStack/TensorArrayGatherV3', [`${taOut}`, all, flowOut], {
    dtype: T('float32'),
    element_shape: attr.shape([160, 160, 3]),
  });
  const nchw = node('Transpose', 'preprocessed', [images, g.constant('preprocessed/perm', i32([0, 3, 1, 2]))], {
    T: T('float32'),
    Tperm: T('int32'),
  });
  const problems = validateGraph(g.nodes, defs).filter((p) => !/^map\/while\/Merge(_1)?: input map\/while\/NextIteration/.test(p));
  if (problems.length) throw new Error(`preprocessing graph:\n  ${problems.join('\n  ')}`);
  return { g, input, output: new Tensor(nchw, 0, 'float32', [-1, 3, 160, 160]) };
}

type Proto = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** Writes `<dst>` (a version folder) from the image_classifier version folder `src`. */
export async function writeJpegClassifier(src: string, dst: string): Promise<void> {
  const defs = new Map(REGISTRATIONS.map(opDefFromRegistration).map((d) => [d.name, d]));
  const { g, input, output } = buildPreprocessing(defs);
  const type = protoType('tensorflow.SavedModel');
  const saved = type.toObject(type.decode(await fs.readFile(path.join(src, 'saved_model.pb'))), {
    longs: Number,
    bytes: Uint8Array,
  }) as Proto;
  const mg = saved.metaGraphs[0] as Proto;
  const nodes = mg.graphDef.node as Proto[];
  const call = nodes.find((n) => n.name === 'PartitionedCall')!;
  const classify: Proto = { ...call, name: 'classifier/PartitionedCall', input: [output.name.replace(/:0$/, ''), ...call.input.slice(1)] };
  mg.graphDef.node = [...nodes, ...g.nodes, classify];
  const known = new Set((mg.metaInfoDef.strippedOpList.op as Proto[]).map((o) => o.name));
  const used = new Set(g.nodes.map((n) => n.op));
  for (const op of used) if (!known.has(op)) mg.metaInfoDef.strippedOpList.op.push(defs.get(op) ?? OP_DEFS.get(op));
  mg.metaInfoDef.strippedOpList.op.sort((a: Proto, b: Proto) => (a.name < b.name ? -1 : 1));
  const info = (name: string, dtype: string, dims: number[]) => ({ name, dtype, tensorShape: { dim: dims.map((size) => ({ size })) } });
  mg.signatureDef = {
    serving_default: {
      inputs: { image_bytes: info(input.name, 'DT_STRING', [-1]) },
      outputs: { output: info('classifier/PartitionedCall:0', 'DT_FLOAT', [-1, 1000]) },
      methodName: 'tensorflow/serving/predict',
    },
    __saved_model_init_op: mg.signatureDef.__saved_model_init_op,
  };
  if (!mg.signatureDef.__saved_model_init_op) delete mg.signatureDef.__saved_model_init_op;
  const message = type.fromObject(saved);
  const err = type.verify(message);
  if (err) throw new Error(`jpeg_classifier: ${err}`);
  await fs.mkdir(path.join(dst, 'variables'), { recursive: true });
  await fs.writeFile(path.join(dst, 'saved_model.pb'), type.encode(message).finish());
  for (const f of await fs.readdir(path.join(src, 'variables')))
    await fs.copyFile(path.join(src, 'variables', f), path.join(dst, 'variables', f));
}
