// A detection-shaped model (test_util/savedmodel/detection_model.ts: a uint8 image, a TF1
// map_fn of padded NonMaxSuppressionV5 over TensorArrays, CombinedNonMaxSuppression,
// CropAndResize) served by a real tfgate process with its default --runtime: ONNX Runtime
// refuses the detection ops, the embedded runtime answers. Over REST and over gRPC from
// Python's grpcio (the image as a uint8 tensor_content, as tf.make_tensor_proto writes it),
// the answers are the values TensorFlow's kernel tests state:
//   crops      core/kernels/image/crop_and_resize_op_test.cc CropAndResizeOpTest.TestCropAndResize2x2To3x3
//   nms_*      core/kernels/image/non_max_suppression_op_test.cc NonMaxSuppressionV5OpTest.TestSelectFromThreeClustersPadFive
//              (the second image's corners in either order: TestSelectFromThreeClustersFlippedCoordinates)
//   detection_* the same file, CombinedNonMaxSuppressionOpTest.TestSelectFromTwoBatchesTwoClasses
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { freePort, postJson, startServer, type RunningServer } from '../helpers/server_process.js';
import { runPythonClient } from '../helpers/python_grpc.js';
import { tempDir } from '../helpers/temp.js';
import { writeDetectionModel } from '../../test_util/savedmodel/detection_model.js';

const CLUSTERS = [
  [0, 0, 1, 1],
  [0, 0.1, 1, 1.1],
  [0, -0.1, 1, 0.9],
  [0, 10, 1, 11],
  [0, 10.1, 1, 11.1],
  [0, 100, 1, 101],
];
const FLIPPED = [
  [1, 1, 0, 0],
  [0, 0.1, 1, 1.1],
  [0, 0.9, 1, -0.1],
  [0, 10, 1, 11],
  [1, 10.1, 0, 11.1],
  [1, 101, 0, 100],
];
const SCORES = [0.9, 0.75, 0.6, 0.95, 0.5, 0.3];
const SMALL = [
  [0, 0, 0.1, 0.1],
  [0, 0.01, 0.1, 0.11],
  [0, -0.01, 0.1, 0.09],
  [0, 0.11, 0.1, 0.2],
  [0, 0.12, 0.1, 0.21],
  [0, 0.3, 1, 0.4],
];
const SMALL_2 = [
  [0, 0, 0.2, 0.2],
  [0, 0.02, 0.2, 0.22],
  [0, -0.02, 0.2, 0.19],
  [0, 0.21, 0.2, 0.3],
  [0, 0.22, 0.2, 0.31],
  [0, 0.4, 1, 0.5],
];
const TWO_CLASS_SCORES = [
  [0.1, 0.9],
  [0.75, 0.8],
  [0.6, 0.3],
  [0.95, 0.1],
  [0.5, 0.5],
  [0.3, 0.1],
];

const INPUTS = {
  image_tensor: [
    [
      [[1], [2]],
      [[3], [4]],
    ],
  ],
  boxes: [CLUSTERS, FLIPPED],
  scores: [SCORES, SCORES],
  multiclass_boxes: [SMALL.map((b) => [b]), SMALL_2.map((b) => [b])],
  multiclass_scores: [TWO_CLASS_SCORES, TWO_CLASS_SCORES],
};

/** What TF states, flattened. */
const WANT: Record<string, number[]> = {
  crops: [1, 1.5, 2, 2, 2.5, 3, 3, 3.5, 4],
  nms_indices: [3, 0, 5, 0, 0, 3, 0, 5, 0, 0],
  nms_scores: [0.95, 0.9, 0.3, 0, 0, 0.95, 0.9, 0.3, 0, 0],
  num_detections: [3, 3],
  detection_boxes: [0, 0.11, 0.1, 0.2, 0, 0, 0.1, 0.1, 0, 0.01, 0.1, 0.11, 0, 0.21, 0.2, 0.3, 0, 0, 0.2, 0.2, 0, 0.02, 0.2, 0.22],
  detection_scores: [0.95, 0.9, 0.75, 0.95, 0.9, 0.75],
  detection_classes: [0, 1, 0, 0, 1, 0],
  valid_detections: [3, 3],
};
const SHAPES: Record<string, number[]> = {
  crops: [1, 3, 3, 1],
  nms_indices: [2, 5],
  nms_scores: [2, 5],
  num_detections: [2],
  detection_boxes: [2, 3, 4],
  detection_scores: [2, 3],
  detection_classes: [2, 3],
  valid_detections: [2],
};

/** Each output equal to TF's value as float32 (the JSON and the wire carry float32 values). */
function assertOutputs(got: Record<string, number[]>): void {
  assert.deepEqual(Object.keys(got).sort(), Object.keys(WANT).sort());
  for (const [name, want] of Object.entries(WANT)) assert.deepEqual(got[name].map(Math.fround), want.map(Math.fround), name);
}

const flat = (v: unknown): number[] => (Array.isArray(v) ? v.flatMap(flat) : [v as number]);

describe('a detection-shaped model served end to end (real process)', () => {
  let server: RunningServer;
  let grpcPort: number;
  before(async () => {
    const base = tempDir('tfgate-detection-');
    await writeDetectionModel(path.join(base, '1'));
    grpcPort = await freePort();
    server = await startServer([`--model_name=det`, `--model_base_path=${base}`, `--port=${grpcPort}`, '--num_executors=1']);
    for (
      let i = 0;
      i < 300 && (await (await fetch(server.url('/v1/models/det'))).json()).model_version_status?.[0]?.state !== 'AVAILABLE';
      i++
    ) {
      await new Promise((r) => setTimeout(r, 100));
    }
  });
  after(async () => {
    assert.equal(await server.stop(), 0);
  });

  it("REST: a uint8 image and two images' boxes answer TF's crops, per-image NMS and combined NMS", async () => {
    const r = await postJson(server.url('/v1/models/det:predict'), JSON.stringify({ inputs: INPUTS }));
    assert.equal(r.status, 200, r.text);
    const outputs = r.json.outputs as Record<string, unknown>;
    assertOutputs(Object.fromEntries(Object.entries(outputs).map(([k, v]) => [k, flat(v)])));
  });

  it('gRPC from Python grpcio: the same answers, the image sent as uint8 tensor_content', async () => {
    const reply = (await runPythonClient(
      `127.0.0.1:${grpcPort}`,
      `
import struct
from tensorflow.core.framework import tensor_pb2, types_pb2
INPUTS = json.loads(${JSON.stringify(JSON.stringify(INPUTS))})
def flat(v):
    return [x for e in v for x in flat(e)] if isinstance(v, list) else [v]
def shape(v):
    return [len(v)] + shape(v[0]) if isinstance(v, list) else []
req = predict_pb2.PredictRequest()
req.model_spec.name = 'det'
for name, value in INPUTS.items():
    t = req.inputs[name]
    t.tensor_shape.dim.extend([t.tensor_shape.Dim(size=d) for d in shape(value)])
    if name == 'image_tensor':
        t.dtype = types_pb2.DT_UINT8
        t.tensor_content = bytes(flat(value))
    else:
        t.dtype = types_pb2.DT_FLOAT
        t.float_val.extend(flat(value))
channel = grpc.insecure_channel(ADDRESS)
predict = channel.unary_unary('/tensorflow.serving.PredictionService/Predict', request_serializer=predict_pb2.PredictRequest.SerializeToString, response_deserializer=predict_pb2.PredictResponse.FromString)
resp = predict(req, timeout=60)
out = {}
for name, t in resp.outputs.items():
    n = 1
    for d in t.tensor_shape.dim: n *= d.size
    fmt = 'f' if t.dtype == types_pb2.DT_FLOAT else 'i'
    vals = list(struct.unpack('<%d%s' % (n, fmt), t.tensor_content)) if t.tensor_content else list(t.float_val if fmt == 'f' else t.int_val)
    out[name] = {'dtype': t.dtype, 'shape': [d.size for d in t.tensor_shape.dim], 'values': vals}
print(json.dumps(out))
`,
    )) as Record<string, { dtype: number; shape: number[]; values: number[] }>;
    for (const [name, o] of Object.entries(reply)) {
      assert.deepEqual(o.shape, SHAPES[name], `${name} shape`);
      assert.equal(o.dtype, name === 'nms_indices' || name === 'num_detections' || name === 'valid_detections' ? 3 : 1, `${name} dtype`);
    }
    assertOutputs(Object.fromEntries(Object.entries(reply).map(([k, o]) => [k, o.values])));
  });
});
