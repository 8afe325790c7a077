// The object-detection ops of the image family (tensorflow/core/ops/image_ops.cc): every
// NonMaxSuppression version, NonMaxSuppressionWithOverlaps, CombinedNonMaxSuppression and
// CropAndResize, with the values TF's kernel tests state. ONNX Runtime refuses them all (its
// NonMaxSuppression, RoiAlign differ from TF's: src/runtimes/onnx/ops/image.ts says how).
import { Code } from '../../../../src/errors/status.js';
import type { DType } from '../../../../src/tensor/dtype.js';
import type { HostTensor } from '../../../../src/tensor/host_tensor.js';
import { floatToHalf } from '../../../../src/tensor/half_encode.js';
import { attr } from '../../../../test_util/savedmodel/writer/graph_builder.js';
import { MAX_REQUESTED_OUTPUT_ELEMENTS } from '../../../../src/runtimes/embedded/ops/image/kernel_support.js';
import { f32, f64, failsAtRun, i32, type CaseInput, type OpCase, type OpFamilyCases } from '../op_case.js';

const NMS_TEST = 'tensorflow/core/kernels/image/non_max_suppression_op_test.cc@0698f751';
const NMS_KERNEL = 'tensorflow/core/kernels/image/non_max_suppression_op.cc@0698f751';
const CROP_TEST = 'tensorflow/core/kernels/image/crop_and_resize_op_test.cc@0e152a80';
const CROP_KERNEL = 'tensorflow/core/kernels/image/crop_and_resize_op.cc@0983cbc9';

const f16 = (shape: number[], values: number[]): HostTensor => ({ dtype: 'float16', shape, values: Uint16Array.from(values, floatToHalf) });
const ints = (dtype: DType, shape: number[], values: number[]): HostTensor => ({
  dtype,
  shape,
  values:
    dtype === 'int64'
      ? BigInt64Array.from(values, BigInt)
      : dtype === 'uint8'
        ? Uint8Array.from(values)
        : dtype === 'uint16'
          ? Uint16Array.from(values)
          : dtype === 'int8'
            ? Int8Array.from(values)
            : dtype === 'int16'
              ? Int16Array.from(values)
              : Int32Array.from(values),
});
const scalarI = (v: number) => i32([], [v]);
const scalarF = (v: number) => f32([], [v]);

// The boxes and scores of TF's "three clusters" tests.
const CLUSTERS = [0, 0, 1, 1, 0, 0.1, 1, 1.1, 0, -0.1, 1, 0.9, 0, 10, 1, 11, 0, 10.1, 1, 11.1, 0, 100, 1, 101];
const FLIPPED = [1, 1, 0, 0, 0, 0.1, 1, 1.1, 0, 0.9, 1, -0.1, 0, 10, 1, 11, 1, 10.1, 0, 11.1, 1, 101, 0, 100];
const SCORES = [0.9, 0.75, 0.6, 0.95, 0.5, 0.3];
const TEN_IDENTICAL = Array.from({ length: 10 }, () => [0, 0, 1, 1]).flat();

const boxesOf = (v: number[]) => f32([v.length / 4, 4], v);
const selected = (v: number[]) => ({ selected_indices: i32([v.length], v) });

// ---------------------------------------------------------------------------------------------
// NonMaxSuppression (v1: iou_threshold is an attribute).

const v1 = (name: string, test: string, boxes: number[], scores: number[], max: number, want: number[] | string, iou = 0.5): OpCase => ({
  name,
  source: `${NMS_TEST} NonMaxSuppressionOpTest.${test}`,
  op: 'NonMaxSuppression',
  attrs: { iou_threshold: attr.f(iou) },
  inputs: [boxesOf(boxes), f32([scores.length], scores), scalarI(max)],
  want: typeof want === 'string' ? failsAtRun(want) : selected(want),
});

const V1_CASES: OpCase[] = [
  v1('three clusters, at most 3 → [3, 0, 5]', 'TestSelectFromThreeClusters', CLUSTERS, SCORES, 3, [3, 0, 5]),
  v1('corners in either order → [3, 0, 5]', 'TestSelectFromThreeClustersFlippedCoordinates', FLIPPED, SCORES, 3, [3, 0, 5]),
  v1('at most 2 → [3, 0]', 'TestSelectAtMostTwoBoxesFromThreeClusters', CLUSTERS, SCORES, 2, [3, 0]),
  v1(
    'negative scores are candidates too → [3, 0, 5]',
    'TestSelectWithNegativeScores',
    CLUSTERS,
    SCORES.map((s) => Math.fround(s) - 10),
    6,
    [3, 0, 5],
  ),
  v1(
    'a degenerate first box overlaps nothing → [0, 1, 2]',
    'TestFirstBoxDegenerate',
    [0, 0, 0, 0, 1, 1, 2, 2, 2, 2, 3, 3],
    [0.9, 0.75, 0.6],
    3,
    [0, 1, 2],
  ),
  v1('at most 30 → [3, 0, 5]', 'TestSelectAtMostThirtyBoxesFromThreeClusters', CLUSTERS, SCORES, 30, [3, 0, 5]),
  v1('a single box → [0]', 'TestSelectSingleBox', [0, 0, 1, 1], [0.9], 3, [0]),
  v1('ten identical boxes of equal score → the first, [0]', 'TestSelectFromTenIdenticalBoxes', TEN_IDENTICAL, Array(10).fill(0.9), 3, [0]),
  v1(
    '6 boxes and 5 scores are refused',
    'TestInconsistentBoxAndScoreShapes',
    CLUSTERS,
    SCORES.slice(0, 5),
    30,
    'scores has incompatible shape (Dimensions must be equal, but are 6 and 5)',
  ),
  v1(
    'iou_threshold 1.2 fails the run (v1 checks its attribute in Compute)',
    'TestInvalidIOUThreshold',
    [0, 0, 1, 1],
    [0.9],
    3,
    'iou_threshold must be in [0, 1]',
    1.2,
  ),
  v1('no boxes → []', 'TestEmptyInput', [], [], 30, []),
];

// ---------------------------------------------------------------------------------------------
// NonMaxSuppressionV2 … V5 (thresholds as inputs; V3 and V4 take them as T_threshold).

interface Thresholds {
  iou?: number;
  score?: number;
  sigma?: number;
}

/** Boxes and scores as T (float or half), thresholds as T_threshold (V5: as T). */
function nmsInputs(
  version: 2 | 3 | 4 | 5,
  boxes: number[],
  scores: number[],
  max: number,
  th: Thresholds,
  t: 'float32' | 'float16' = 'float32',
  tThreshold = t,
): CaseInput[] {
  const v = (shape: number[], x: number[], dtype: 'float32' | 'float16') => (dtype === 'float16' ? f16(shape, x) : f32(shape, x));
  const thr = version === 5 ? t : tThreshold;
  const inputs: CaseInput[] = [
    v([boxes.length / 4, 4], boxes, t),
    v([scores.length], scores, t),
    scalarI(max),
    v([], [th.iou ?? 0.5], thr),
  ];
  if (version >= 3) inputs.push(v([], [th.score ?? 0], thr));
  if (version === 5) inputs.push(v([], [th.sigma ?? 0], thr));
  return inputs;
}

const V2_CASES: OpCase[] = (
  [
    ['three clusters, at most 3 → [3, 0, 5]', 'TestSelectFromThreeClusters', CLUSTERS, SCORES, 3, [3, 0, 5]],
    ['corners in either order → [3, 0, 5]', 'TestSelectFromThreeClustersFlippedCoordinates', FLIPPED, SCORES, 3, [3, 0, 5]],
    ['at most 2 → [3, 0]', 'TestSelectAtMostTwoBoxesFromThreeClusters', CLUSTERS, SCORES, 2, [3, 0]],
    ['ten identical boxes → [0]', 'TestSelectFromTenIdenticalBoxes', TEN_IDENTICAL, Array(10).fill(0.9), 3, [0]],
    ['no boxes → []', 'TestEmptyInput', [], [], 30, []],
  ] as const
).map(([name, test, boxes, scores, max, want]) => ({
  name,
  source: `${NMS_TEST} NonMaxSuppressionV2OpTest.${test}`,
  op: 'NonMaxSuppressionV2',
  inputs: nmsInputs(2, [...boxes], [...scores], max, {}),
  want: selected([...want]),
}));
V2_CASES.push({
  name: 'iou_threshold 1.2 is refused',
  source: `${NMS_TEST} NonMaxSuppressionV2OpTest.TestInvalidIOUThreshold`,
  op: 'NonMaxSuppressionV2',
  inputs: nmsInputs(2, [0, 0, 1, 1], [0.9], 3, { iou: 1.2 }),
  want: failsAtRun('iou_threshold must be in [0, 1]'),
});

/** TF runs each V3/V4 test with float and half boxes and thresholds (NmsValidTypes). */
const TYPE_PAIRS = [
  ['float32', 'float32'],
  ['float16', 'float16'],
  ['float32', 'float16'],
  ['float16', 'float32'],
] as const;
const typesName = (t: string, th: string) =>
  t === 'float32' && th === 'float32'
    ? ''
    : ` (boxes and scores ${t === 'float16' ? 'half' : 'float'}, thresholds ${th === 'float16' ? 'half' : 'float'})`;

const v3 = (
  name: string,
  test: string,
  boxes: number[],
  scores: number[],
  max: number,
  th: Thresholds,
  want: number[] | string,
  types: ReadonlyArray<(typeof TYPE_PAIRS)[number]> = TYPE_PAIRS.slice(0, 1),
): OpCase[] =>
  types.map(([t, tt]) => ({
    name: `${name}${typesName(t, tt)}`,
    source: `${NMS_TEST} NonMaxSuppressionV3OpTest.${test}`,
    op: 'NonMaxSuppressionV3',
    inputs: nmsInputs(3, boxes, scores, max, th, t, tt),
    want: typeof want === 'string' ? failsAtRun(want) : selected(want),
  }));

const V3_CASES: OpCase[] = [
  ...v3('three clusters, at most 3 → [3, 0, 5]', 'TestSelectFromThreeClusters', CLUSTERS, SCORES, 3, {}, [3, 0, 5], TYPE_PAIRS),
  ...v3(
    'score_threshold 0.4 → [3, 0]',
    'TestSelectFromThreeClustersWithScoreThreshold',
    CLUSTERS,
    SCORES,
    3,
    { score: 0.4 },
    [3, 0],
    TYPE_PAIRS,
  ),
  ...v3(
    'zero scores above score_threshold -3, at most 6 → [3, 0]',
    'TestSelectFromThreeClustersWithScoreThresholdZeroScores',
    CLUSTERS,
    [0.1, 0, 0, 0.3, 0.2, -5],
    6,
    { score: -3 },
    [3, 0],
    TYPE_PAIRS,
  ),
  ...v3('corners in either order → [3, 0, 5]', 'TestSelectFromThreeClustersFlippedCoordinates', FLIPPED, SCORES, 3, {}, [3, 0, 5]),
  ...v3('at most 2 → [3, 0]', 'TestSelectAtMostTwoBoxesFromThreeClusters', CLUSTERS, SCORES, 2, {}, [3, 0]),
  ...v3('at most 30 → [3, 0, 5]', 'TestSelectAtMostThirtyBoxesFromThreeClusters', CLUSTERS, SCORES, 30, {}, [3, 0, 5]),
  ...v3('a single box → [0]', 'TestSelectSingleBox', [0, 0, 1, 1], [0.9], 3, {}, [0]),
  ...v3('ten identical boxes → [0]', 'TestSelectFromTenIdenticalBoxes', TEN_IDENTICAL, Array(10).fill(0.9), 3, {}, [0], TYPE_PAIRS),
  ...v3(
    '6 boxes and 5 scores are refused',
    'TestInconsistentBoxAndScoreShapes',
    CLUSTERS,
    SCORES.slice(0, 5),
    30,
    {},
    'scores has incompatible shape (Dimensions must be equal, but are 6 and 5)',
  ),
  ...v3('iou_threshold 1.2 is refused', 'TestInvalidIOUThreshold', [0, 0, 1, 1], [0.9], 3, { iou: 1.2 }, 'iou_threshold must be in [0, 1]'),
  ...v3('no boxes → []', 'TestEmptyInput', [], [], 30, {}, []),
  {
    name: 'a negative max_output_size is refused',
    source: `${NMS_KERNEL} DoNonMaxSuppressionOp`,
    op: 'NonMaxSuppressionV3',
    inputs: nmsInputs(3, CLUSTERS, SCORES, -1, {}),
    want: failsAtRun('output size must be non-negative'),
  },
  {
    name: 'boxes of rank 1 are refused with the shape and rank',
    source: `${NMS_KERNEL} ParseAndCheckBoxSizes`,
    op: 'NonMaxSuppressionV3',
    inputs: [f32([4], [0, 0, 1, 1]), f32([1], [0.9]), scalarI(3), scalarF(0.5), scalarF(0)],
    want: failsAtRun('boxes must be 2-D[4] (Shape must be rank 2 but is rank 1)'),
  },
];

const padded = (indices: number[], valid: number) => ({
  selected_indices: i32([indices.length], indices),
  valid_outputs: i32([], [valid]),
});

const V4_CASES: OpCase[] = TYPE_PAIRS.flatMap(([t, tt]) => [
  {
    name: `at most 5, padded → [3, 0, 5, 0, 0], 3 valid${typesName(t, tt)}`,
    source: `${NMS_TEST} NonMaxSuppressionV4OpTest.TestSelectFromThreeClustersPadFive`,
    op: 'NonMaxSuppressionV4',
    attrs: { pad_to_max_output_size: attr.b(true) },
    inputs: nmsInputs(4, CLUSTERS, SCORES, 5, {}, t, tt),
    want: padded([3, 0, 5, 0, 0], 3),
  },
  {
    name: `at most 6 above score_threshold 0.4, padded → [3, 0, 0, 0, 0, 0], 2 valid${typesName(t, tt)}`,
    source: `${NMS_TEST} NonMaxSuppressionV4OpTest.TestSelectFromThreeClustersPadFiveScoreThr`,
    op: 'NonMaxSuppressionV4',
    attrs: { pad_to_max_output_size: attr.b(true) },
    inputs: nmsInputs(4, CLUSTERS, SCORES, 6, { score: 0.4 }, t, tt),
    want: padded([3, 0, 0, 0, 0, 0], 2),
  },
]);
V4_CASES.push(
  {
    name: 'not padded: [3, 0, 5], 3 valid',
    source: `${NMS_TEST} NonMaxSuppressionV3OpTest.TestSelectFromThreeClusters (V4 runs DoNonMaxSuppressionOp as V3 does when not padding: ${NMS_KERNEL})`,
    op: 'NonMaxSuppressionV4',
    inputs: nmsInputs(4, CLUSTERS, SCORES, 5, {}),
    want: padded([3, 0, 5], 3),
  },
  {
    name: `a padded output over tfgate's bound of ${MAX_REQUESTED_OUTPUT_ELEMENTS} elements fails with RESOURCE_EXHAUSTED before any allocation`,
    source: `${NMS_KERNEL} (TF allocates max_output_size ints and fails when it cannot)`,
    op: 'NonMaxSuppressionV4',
    attrs: { pad_to_max_output_size: attr.b(true) },
    inputs: nmsInputs(4, CLUSTERS, SCORES, 2147483647, {}),
    want: failsAtRun(
      /^NonMaxSuppressionV4: selected_indices of shape \[2147483647\] would hold 2147483647 elements, over tfgate's bound/,
      Code.RESOURCE_EXHAUSTED,
    ),
  },
);

const V5_CASES: OpCase[] = [
  {
    name: 'sigma 0 (hard NMS), padded: [3, 0, 5, 0, 0] with their scores [.95, .9, .3, 0, 0], 3 valid',
    source: `${NMS_TEST} NonMaxSuppressionV5OpTest.TestSelectFromThreeClustersPadFive`,
    op: 'NonMaxSuppressionV5',
    attrs: { pad_to_max_output_size: attr.b(true) },
    inputs: nmsInputs(5, CLUSTERS, SCORES, 5, {}),
    want: { ...padded([3, 0, 5, 0, 0], 3), selected_scores: f32([5], [0.95, 0.9, 0.3, 0, 0]) },
  },
  {
    name: 'soft-NMS, sigma 0.5: box 1 soft-suppressed by box 0 still comes before box 5 → [3, 0, 1, 5, 4, 2]',
    source: `${NMS_TEST} NonMaxSuppressionV5OpTest.TestSelectFromThreeClustersWithSoftNMS`,
    op: 'NonMaxSuppressionV5',
    attrs: { pad_to_max_output_size: attr.b(true) },
    inputs: nmsInputs(5, CLUSTERS, SCORES, 6, { sigma: 0.5 }),
    // TF states the soft scores to 1e-2.
    want: { ...padded([3, 0, 1, 5, 4, 2], 6), selected_scores: f32([6], [0.95, 0.9, 0.384, 0.3, 0.256, 0.197]) },
    tol: 1e-2,
  },
  {
    name: 'a negative soft_nms_sigma is refused',
    source: `${NMS_KERNEL} NonMaxSuppressionV5Op::Compute`,
    op: 'NonMaxSuppressionV5',
    inputs: nmsInputs(5, CLUSTERS, SCORES, 6, { sigma: -1 }),
    want: failsAtRun('soft_nms_sigma_val must be >= 0'),
  },
];

// ---------------------------------------------------------------------------------------------
// NonMaxSuppressionWithOverlaps: the overlaps the test builds from boxes (AddIoUInput).

function overlapsOf(boxes: number[]): HostTensor {
  const n = boxes.length / 4;
  const f = Math.fround;
  const at = (i: number, c: number) => boxes[i * 4 + c];
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) {
      const [yi0, xi0, yi1, xi1] = [
        Math.min(at(i, 0), at(i, 2)),
        Math.min(at(i, 1), at(i, 3)),
        Math.max(at(i, 0), at(i, 2)),
        Math.max(at(i, 1), at(i, 3)),
      ].map(f);
      const [yj0, xj0, yj1, xj1] = [
        Math.min(at(j, 0), at(j, 2)),
        Math.min(at(j, 1), at(j, 3)),
        Math.max(at(j, 0), at(j, 2)),
        Math.max(at(j, 1), at(j, 3)),
      ].map(f);
      const ai = f(f(yi1 - yi0) * f(xi1 - xi0));
      const aj = f(f(yj1 - yj0) * f(xj1 - xj0));
      if (ai <= 0 || aj <= 0) {
        out.push(0);
        continue;
      }
      const inter = f(Math.max(f(Math.min(yi1, yj1) - Math.max(yi0, yj0)), 0) * Math.max(f(Math.min(xi1, xj1) - Math.max(xi0, xj0)), 0));
      out.push(f(inter / f(f(ai + aj) - inter)));
    }
  }
  return f32([n, n], out);
}

const overlapsCase = (
  name: string,
  test: string,
  overlaps: HostTensor,
  scores: number[],
  max: number,
  want: number[] | string,
): OpCase => ({
  name,
  source: `${NMS_TEST} NonMaxSuppressionWithOverlapsOpTest.${test}`,
  op: 'NonMaxSuppressionWithOverlaps',
  inputs: [overlaps, f32([scores.length], scores), scalarI(max), scalarF(0.5), scalarF(0)],
  want: typeof want === 'string' ? failsAtRun(want) : selected(want),
});

const OVERLAPS_CASES: OpCase[] = [
  overlapsCase('three clusters, at most 3 → [3, 0, 5]', 'TestSelectFromThreeClusters', overlapsOf(CLUSTERS), SCORES, 3, [3, 0, 5]),
  overlapsCase(
    'corners in either order → [3, 0, 5]',
    'TestSelectFromThreeClustersFlippedCoordinates',
    overlapsOf(FLIPPED),
    SCORES,
    3,
    [3, 0, 5],
  ),
  overlapsCase('at most 2 → [3, 0]', 'TestSelectAtMostTwoBoxesFromThreeClusters', overlapsOf(CLUSTERS), SCORES, 2, [3, 0]),
  overlapsCase('ten identical boxes → [0]', 'TestSelectFromTenIdenticalBoxes', overlapsOf(TEN_IDENTICAL), Array(10).fill(0.9), 3, [0]),
  overlapsCase(
    '6 overlaps and 5 scores are refused',
    'TestInconsistentBoxAndScoreShapes',
    overlapsOf(CLUSTERS),
    SCORES.slice(0, 5),
    30,
    'scores has incompatible shape (Dimensions must be equal, but are 6 and 5)',
  ),
  overlapsCase(
    'a [2, 3] overlaps input is refused',
    'TestInvalidOverlapsShape',
    f32([2, 3], [0, 0, 0, 0, 0, 0]),
    [0.5, 0.5],
    30,
    'overlaps must be square[2,3]',
  ),
  overlapsCase('no boxes → []', 'TestEmptyInput', f32([0, 0], []), [], 30, []),
];

// ---------------------------------------------------------------------------------------------
// CombinedNonMaxSuppression.

const SMALL = [0, 0, 0.1, 0.1, 0, 0.01, 0.1, 0.11, 0, -0.01, 0.1, 0.09, 0, 0.11, 0.1, 0.2, 0, 0.12, 0.1, 0.21, 0, 0.3, 1, 0.4];
const SMALL_2 = [0, 0, 0.2, 0.2, 0, 0.02, 0.2, 0.22, 0, -0.02, 0.2, 0.19, 0, 0.21, 0.2, 0.3, 0, 0.22, 0.2, 0.31, 0, 0.4, 1, 0.5];
const TWO_CLASS_SCORES = [0.1, 0.9, 0.75, 0.8, 0.6, 0.3, 0.95, 0.1, 0.5, 0.5, 0.3, 0.1];

interface Combined {
  boxes: HostTensor;
  scores: HostTensor;
  perClass: number;
  total: number;
  iou?: number;
  score?: number;
  padPerClass?: boolean;
  clipBoxes?: boolean;
}

interface CombinedWant {
  boxes: number[];
  scores: number[];
  classes: number[];
  valid: number[];
}

function combined(name: string, test: string, c: Combined, want: CombinedWant | string): OpCase {
  const batch = c.boxes.shape[0];
  const per = typeof want === 'string' ? 0 : want.scores.length / Math.max(1, want.valid.length);
  return {
    name,
    source: `${NMS_TEST} CombinedNonMaxSuppressionOpTest.${test}`,
    op: 'CombinedNonMaxSuppression',
    attrs: { pad_per_class: attr.b(c.padPerClass ?? false), clip_boxes: attr.b(c.clipBoxes ?? true) },
    inputs: [c.boxes, c.scores, scalarI(c.perClass), scalarI(c.total), scalarF(c.iou ?? 0.5), scalarF(c.score ?? 0)],
    want:
      typeof want === 'string'
        ? failsAtRun(want)
        : {
            nmsed_boxes: f32([batch, per, 4], want.boxes),
            nmsed_scores: f32([batch, per], want.scores),
            nmsed_classes: f32([batch, per], want.classes),
            valid_detections: i32([batch], want.valid),
          },
  };
}

const oneBatch = (boxes: number[], scores: number[], classes = 1) => ({
  boxes: f32([1, boxes.length / 4, 1, 4], boxes),
  scores: f32([1, scores.length / classes, classes], scores),
});
const twoBatches = (scores: number[], classes: number) => ({
  boxes: f32([2, 6, 1, 4], [...SMALL, ...SMALL_2]),
  scores: f32([2, 6, classes], scores),
});

const COMBINED_CASES: OpCase[] = [
  {
    name: 'no batches: outputs [0, 10, 4], [0, 10], [0, 10], [0]',
    source: `${NMS_TEST} CombinedNonMaxSuppressionOpTest.TestEmptyInput`,
    op: 'CombinedNonMaxSuppression',
    inputs: [f32([0, 0, 0, 4], []), f32([0, 0, 0], []), scalarI(30), scalarI(10), scalarF(0.5), scalarF(0)],
    want: {
      nmsed_boxes: f32([0, 10, 4], []),
      nmsed_scores: f32([0, 10], []),
      nmsed_classes: f32([0, 10], []),
      valid_detections: i32([0], []),
    },
  },
  combined(
    'three clusters, one class',
    'TestSelectFromThreeClusters',
    { ...oneBatch(SMALL, SCORES), perClass: 3, total: 3 },
    { boxes: [0, 0.11, 0.1, 0.2, 0, 0, 0.1, 0.1, 0, 0.3, 1, 0.4], scores: [0.95, 0.9, 0.3], classes: [0, 0, 0], valid: [3] },
  ),
  combined(
    'clip_boxes false keeps coordinates past 1',
    'TestSelectFromThreeClustersNoBoxClipping',
    {
      ...oneBatch([0, 0, 10, 10, 0, 1, 10, 11, 0, 1, 10, 9, 0, 11, 10, 20, 0, 12, 10, 21, 0, 30, 100, 40], SCORES),
      perClass: 3,
      total: 3,
      clipBoxes: false,
    },
    { boxes: [0, 11, 10, 20, 0, 0, 10, 10, 0, 30, 100, 40], scores: [0.95, 0.9, 0.3], classes: [0, 0, 0], valid: [3] },
  ),
  combined(
    'score_threshold 0.4: two detections, then zeros',
    'TestSelectFromThreeClustersWithScoreThreshold',
    { ...oneBatch(SMALL, SCORES), perClass: 3, total: 3, score: 0.4 },
    { boxes: [0, 0.11, 0.1, 0.2, 0, 0, 0.1, 0.1, 0, 0, 0, 0], scores: [0.95, 0.9, 0], classes: [0, 0, 0], valid: [2] },
  ),
  combined(
    'zero scores above score_threshold -3, padded to max_total_size 5',
    'TestSelectFromThreeClustersWithScoreThresholdZeroScores',
    { ...oneBatch(SMALL, [0.1, 0, 0, 0.3, 0.2, -5]), perClass: 4, total: 5, score: -3 },
    { boxes: [0, 0.11, 0.1, 0.2, 0, 0, 0.1, 0.1, ...Array(12).fill(0)], scores: [0.3, 0.1, 0, 0, 0], classes: [0, 0, 0, 0, 0], valid: [2] },
  ),
  combined(
    'a single box',
    'TestSelectSingleBox',
    { ...oneBatch([0, 0, 1, 1], [0.9]), perClass: 3, total: 1 },
    { boxes: [0, 0, 1, 1], scores: [0.9], classes: [0], valid: [1] },
  ),
  combined(
    'two batches, score_threshold 0.4',
    'TestSelectFromTwoBatchesWithScoreThreshold',
    { ...twoBatches([...SCORES, ...SCORES], 1), perClass: 3, total: 3, score: 0.4 },
    {
      boxes: [0, 0.11, 0.1, 0.2, 0, 0, 0.1, 0.1, 0, 0, 0, 0, 0, 0.21, 0.2, 0.3, 0, 0, 0.2, 0.2, 0, 0, 0, 0],
      scores: [0.95, 0.9, 0, 0.95, 0.9, 0],
      classes: [0, 0, 0, 0, 0, 0],
      valid: [2, 2],
    },
  ),
  combined(
    'two batches, two classes: the best of both classes by score',
    'TestSelectFromTwoBatchesTwoClasses',
    { ...twoBatches([...TWO_CLASS_SCORES, ...TWO_CLASS_SCORES], 2), perClass: 3, total: 3 },
    {
      boxes: [0, 0.11, 0.1, 0.2, 0, 0, 0.1, 0.1, 0, 0.01, 0.1, 0.11, 0, 0.21, 0.2, 0.3, 0, 0, 0.2, 0.2, 0, 0.02, 0.2, 0.22],
      scores: [0.95, 0.9, 0.75, 0.95, 0.9, 0.75],
      classes: [0, 1, 0, 0, 1, 0],
      valid: [3, 3],
    },
  ),
  combined(
    'two batches, two classes, score_threshold 0.8',
    'TestSelectFromTwoBatchesTwoClassesWithScoreThreshold',
    { ...twoBatches([...TWO_CLASS_SCORES, ...TWO_CLASS_SCORES], 2), perClass: 3, total: 3, score: 0.8 },
    {
      boxes: [0, 0.11, 0.1, 0.2, 0, 0, 0.1, 0.1, 0, 0, 0, 0, 0, 0.21, 0.2, 0.3, 0, 0, 0.2, 0.2, 0, 0, 0, 0],
      scores: [0.95, 0.9, 0, 0.95, 0.9, 0],
      classes: [0, 1, 0, 0, 1, 0],
      valid: [2, 2],
    },
  ),
  combined(
    'pad_per_class with max_total_size 3 under 10 per class · 2 classes: 3 slots',
    'TestSelectFromTwoBatchesTwoClassesWithScoreThresholdPaddedTotalSize',
    { ...twoBatches([...TWO_CLASS_SCORES, ...TWO_CLASS_SCORES], 2), perClass: 10, total: 3, score: 0.8, padPerClass: true },
    {
      boxes: [0, 0.11, 0.1, 0.2, 0, 0, 0.1, 0.1, 0, 0, 0, 0, 0, 0.21, 0.2, 0.3, 0, 0, 0.2, 0.2, 0, 0, 0, 0],
      scores: [0.95, 0.9, 0, 0.95, 0.9, 0],
      classes: [0, 1, 0, 0, 1, 0],
      valid: [2, 2],
    },
  ),
  combined(
    'pad_per_class with 2 per class · 2 classes under max_total_size 50: 4 slots',
    'TestSelectFromTwoBatchesTwoClassesWithScoreThresholdPaddedPerClass',
    { ...twoBatches([...TWO_CLASS_SCORES, ...TWO_CLASS_SCORES], 2), perClass: 2, total: 50, score: 0.8, padPerClass: true },
    {
      boxes: [0, 0.11, 0.1, 0.2, 0, 0, 0.1, 0.1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0.21, 0.2, 0.3, 0, 0, 0.2, 0.2, 0, 0, 0, 0, 0, 0, 0, 0],
      scores: [0.95, 0.9, 0, 0, 0.95, 0.9, 0, 0],
      classes: [0, 1, 0, 0, 0, 1, 0, 0],
      valid: [2, 2],
    },
  ),
  combined(
    'max_total_size 5 over 3 per class: classes interleaved by score',
    'TestSelectFromTwoBatchesTwoClassesTotalSize',
    { ...twoBatches([...TWO_CLASS_SCORES, ...TWO_CLASS_SCORES], 2), perClass: 3, total: 5, score: 0.1 },
    {
      boxes: [
        0, 0.11, 0.1, 0.2, 0, 0, 0.1, 0.1, 0, 0.01, 0.1, 0.11, 0, 0.12, 0.1, 0.21, 0, 0.3, 1, 0.4, 0, 0.21, 0.2, 0.3, 0, 0, 0.2, 0.2, 0,
        0.02, 0.2, 0.22, 0, 0.22, 0.2, 0.31, 0, 0.4, 1, 0.5,
      ],
      scores: [0.95, 0.9, 0.75, 0.5, 0.3, 0.95, 0.9, 0.75, 0.5, 0.3],
      classes: [0, 1, 0, 1, 0, 0, 1, 0, 1, 0],
      valid: [5, 5],
    },
  ),
  combined(
    'boxes per class (q = 2): each class suppresses with its own boxes',
    'TestSelectFromTwoBatchesTwoClassesForBoxesAndScores',
    {
      boxes: f32(
        [2, 6, 2, 4],
        [
          0, 0, 0.1, 0.1, 0, 0, 0.1, 0.1, 0, 0.01, 0.1, 0.11, 0, 0.6, 0.1, 0.7, 0, -0.01, 0.1, 0.09, 0, -0.01, 0.1, 0.09, 0, 0.11, 0.1, 0.2,
          0, 0.11, 0.1, 0.2, 0, 0.12, 0.1, 0.21, 0, 0.12, 0.1, 0.21, 0, 0.3, 1, 0.4, 0, 0.3, 1, 0.4, 0, 0, 0.2, 0.2, 0, 0, 0.2, 0.2, 0,
          0.02, 0.2, 0.22, 0, 0.02, 0.2, 0.22, 0, -0.02, 0.2, 0.19, 0, -0.02, 0.2, 0.19, 0, 0.21, 0.2, 0.3, 0, 0.21, 0.2, 0.3, 0, 0.22, 0.2,
          0.31, 0, 0.22, 0.2, 0.31, 0, 0.4, 1, 0.5, 0, 0.4, 1, 0.5,
        ],
      ),
      scores: f32([2, 6, 2], [...TWO_CLASS_SCORES, ...TWO_CLASS_SCORES]),
      perClass: 3,
      total: 3,
    },
    {
      boxes: [0, 0.11, 0.1, 0.2, 0, 0, 0.1, 0.1, 0, 0.6, 0.1, 0.7, 0, 0.21, 0.2, 0.3, 0, 0, 0.2, 0.2, 0, 0.02, 0.2, 0.22],
      scores: [0.95, 0.9, 0.8, 0.95, 0.9, 0.75],
      classes: [0, 1, 1, 0, 1, 0],
      valid: [3, 3],
    },
  ),
  combined(
    'scores below -1 over score_threshold -10: one of two identical boxes',
    'TestSelectWithNegativeScores',
    { ...oneBatch([0, 0, 1, 1, 0, 0, 1, 1], [-5, -6]), perClass: 2, total: 2, score: -10 },
    { boxes: [0, 0, 1, 1, 0, 0, 0, 0], scores: [-5, 0], classes: [0, 0], valid: [1] },
  ),
  combined(
    'boxes [1, 1, 2, 4] with 3 classes are refused',
    'TestInvalidBoxesThirdDimension',
    { boxes: f32([1, 1, 2, 4], [0, 0, 1, 1, 0, 0, 1, 1]), scores: f32([1, 1, 3], [0.9, 0.8, 0.7]), perClass: 1, total: 1 },
    'third dimension of boxes must be either 1 or num classes',
  ),
  combined(
    'boxes with 3 columns are refused',
    'TestInvalidBoxesColumns',
    { boxes: f32([1, 1, 1, 3], [0, 0, 1]), scores: f32([1, 1, 1], [0.9]), perClass: 1, total: 1 },
    'boxes must have 4 columns',
  ),
  combined(
    '2 boxes and 1 score are refused',
    'TestInconsistentBoxAndScoreShapes',
    { boxes: f32([1, 2, 1, 4], [0, 0, 1, 1, 0, 0, 1, 1]), scores: f32([1, 1, 1], [0.9]), perClass: 1, total: 1 },
    'scores has incompatible shape',
  ),
  {
    name: `max_total_size past tfgate's bound of ${MAX_REQUESTED_OUTPUT_ELEMENTS} output elements fails with RESOURCE_EXHAUSTED before any allocation`,
    source: `${NMS_KERNEL} BatchedNonMaxSuppressionOp (TF allocates [batch, max_total_size, 4] floats, logging a warning past 10^6)`,
    op: 'CombinedNonMaxSuppression',
    inputs: [f32([1, 1, 1, 4], [0, 0, 1, 1]), f32([1, 1, 1], [0.9]), scalarI(1), scalarI(2 ** 30), scalarF(0.5), scalarF(0)],
    want: failsAtRun(
      /^CombinedNonMaxSuppression: nmsed_boxes of shape \[1,1073741824,4\] would hold 4294967296 elements, over tfgate's bound/,
      Code.RESOURCE_EXHAUSTED,
    ),
  },
];

// ---------------------------------------------------------------------------------------------
// CropAndResize.

const IMAGE_2X2 = [1, 2, 3, 4];
const IMAGE_3X3 = [1, 2, 3, 4, 5, 6, 7, 8, 9];

function crop(
  name: string,
  test: string,
  image: HostTensor,
  boxes: number[],
  boxIndex: number[],
  size: [number, number],
  method: 'bilinear' | 'nearest',
  want: number[] | string,
  extrapolation = 0,
): OpCase {
  const n = boxes.length / 4;
  return {
    name: `${method}: ${name}`,
    source: `${CROP_TEST} CropAndResizeOpTest.${test}`,
    op: 'CropAndResize',
    attrs: { method: attr.s(method), extrapolation_value: attr.f(extrapolation) },
    inputs: [image, f32([n, 4], boxes), i32([n], boxIndex), i32([2], size)],
    want: typeof want === 'string' ? failsAtRun(want) : { crops: f32([n, size[0], size[1], image.shape[3]], want) },
  };
}

const image = (dtype: DType, hw: number, values: number[]) =>
  dtype === 'float32'
    ? f32([1, hw, hw, 1], values)
    : dtype === 'float64'
      ? f64([1, hw, hw, 1], values)
      : ints(dtype, [1, hw, hw, 1], values);
const TEST_TYPE: Partial<Record<DType, string>> = {
  float32: 'float',
  float64: 'double',
  uint8: 'uint8',
  uint16: 'uint16',
  int8: 'int8',
  int16: 'int16',
  int32: 'int32',
  int64: 'int64_t',
};

const CROP_CASES: OpCase[] = [
  ...(['float32', 'float64', 'uint8', 'int32'] as const).flatMap((d) => [
    crop(
      `a ${d} 2×2 image to 1×1 is its centre, 2.5`,
      `TestCropAndResize${TEST_TYPE[d]}`,
      image(d, 2, IMAGE_2X2),
      [0, 0, 1, 1],
      [0],
      [1, 1],
      'bilinear',
      [2.5],
    ),
    crop(
      `a ${d} 2×2 image to 1×1 rounds the centre to 4`,
      `TestCropAndResize${TEST_TYPE[d]}nearest`,
      image(d, 2, IMAGE_2X2),
      [0, 0, 1, 1],
      [0],
      [1, 1],
      'nearest',
      [4],
    ),
  ]),
  ...(['uint16', 'int8', 'int16', 'int64'] as const).map((d) =>
    crop(
      `a ${d} 2×2 image to 1×1 → 2.5`,
      `TestCropAndResize${TEST_TYPE[d]}`,
      image(d, 2, IMAGE_2X2),
      [0, 0, 1, 1],
      [0],
      [1, 1],
      'bilinear',
      [2.5],
    ),
  ),
  crop(
    'a flipped box to 1×1 → 2.5',
    'TestCropAndResize2x2To1x1Flipped',
    image('float32', 2, IMAGE_2X2),
    [1, 1, 0, 0],
    [0],
    [1, 1],
    'bilinear',
    [2.5],
  ),
  crop(
    'a flipped box to 1×1 → 4',
    'TestCropAndResize2x2To1x1FlippedNearestNeighbor',
    image('float32', 2, IMAGE_2X2),
    [1, 1, 0, 0],
    [0],
    [1, 1],
    'nearest',
    [4],
  ),
  crop(
    '2×2 to 3×3',
    'TestCropAndResize2x2To3x3',
    image('float32', 2, IMAGE_2X2),
    [0, 0, 1, 1],
    [0],
    [3, 3],
    'bilinear',
    [1, 1.5, 2, 2, 2.5, 3, 3, 3.5, 4],
  ),
  crop(
    '2×2 to 3×3',
    'TestCropAndResize2x2To3x3NearestNeighbor',
    image('float32', 2, IMAGE_2X2),
    [0, 0, 1, 1],
    [0],
    [3, 3],
    'nearest',
    [1, 2, 2, 3, 4, 4, 3, 4, 4],
  ),
  crop(
    'a flipped box, 2×2 to 3×3',
    'TestCropAndResize2x2To3x3Flipped',
    image('float32', 2, IMAGE_2X2),
    [1, 1, 0, 0],
    [0],
    [3, 3],
    'bilinear',
    [4, 3.5, 3, 3, 2.5, 2, 2, 1.5, 1],
  ),
  crop(
    'a flipped box, 2×2 to 3×3',
    'TestCropAndResize2x2To3x3FlippedNearestNeighbor',
    image('float32', 2, IMAGE_2X2),
    [1, 1, 0, 0],
    [0],
    [3, 3],
    'nearest',
    [4, 4, 3, 4, 4, 3, 2, 2, 1],
  ),
  crop(
    'two boxes of a 3×3 image to 2×2',
    'TestCropAndResize3x3To2x2',
    image('float32', 3, IMAGE_3X3),
    [0, 0, 1, 1, 0, 0, 0.5, 0.5],
    [0, 0],
    [2, 2],
    'bilinear',
    [1, 3, 7, 9, 1, 2, 4, 5],
  ),
  crop(
    'two boxes of a 3×3 image to 2×2',
    'TestCropAndResize3x3To2x2NearestNeighbor',
    image('float32', 3, IMAGE_3X3),
    [0, 0, 1, 1, 0, 0, 0.5, 0.5],
    [0, 0],
    [2, 2],
    'nearest',
    [1, 3, 7, 9, 1, 2, 4, 5],
  ),
  crop(
    'two flipped boxes of a 3×3 image',
    'TestCropAndResize3x3To2x2Flipped',
    image('float32', 3, IMAGE_3X3),
    [1, 1, 0, 0, 0.5, 0.5, 0, 0],
    [0, 0],
    [2, 2],
    'bilinear',
    [9, 7, 3, 1, 5, 4, 2, 1],
  ),
  crop(
    'two flipped boxes of a 3×3 image',
    'TestCropAndResize3x3To2x2FlippedNearestNeighbor',
    image('float32', 3, IMAGE_3X3),
    [1, 1, 0, 0, 0.5, 0.5, 0, 0],
    [0, 0],
    [2, 2],
    'nearest',
    [9, 7, 3, 1, 5, 4, 2, 1],
  ),
  crop(
    'a box reaching outside the image gets extrapolation_value -1 there',
    'TestCropAndResize2x2To3x3Extrapolated',
    image('float32', 2, IMAGE_2X2),
    [-1, -1, 1, 1],
    [0],
    [3, 3],
    'bilinear',
    [-1, -1, -1, -1, 1, 2, -1, 3, 4],
    -1,
  ),
  crop('no boxes → [0, 3, 3, 1]', 'TestCropAndResize2x2To3x3NoCrop', image('float32', 2, IMAGE_2X2), [], [], [3, 3], 'bilinear', []),
  {
    name: 'bilinear: a 999×999 image halved into two 500×500 crops, exactly (TF shards it)',
    source: `${CROP_TEST} CropAndResizeOpTest.TestWithSharding`,
    op: 'CropAndResize',
    inputs: [
      f32(
        [1, 999, 999, 1],
        Array.from({ length: 999 * 999 }, (_, i) => i % 999),
      ),
      f32([2, 4], [0, 0, 0.5, 0.5, 0.5, 0.5, 1, 1]),
      i32([2], [0, 0]),
      i32([2], [500, 500]),
    ],
    want: {
      crops: f32(
        [2, 500, 500, 1],
        Array.from({ length: 2 * 500 * 500 }, (_, i) => (i < 250000 ? i % 500 : 499 + (i % 500))),
      ),
    },
  },
  crop(
    'a rank-3 image is refused',
    'TestInvalidInputShape',
    f32([2, 2, 1], IMAGE_2X2) as HostTensor,
    [0, 0, 1, 1],
    [0],
    [4, 4],
    'bilinear',
    'input image must be 4-D[2,2,1]',
  ),
  {
    name: 'bilinear: 1 box and 2 box indices are refused',
    source: `${CROP_TEST} CropAndResizeOpTest.TestInvalidBoxIndexShape`,
    op: 'CropAndResize',
    inputs: [image('float32', 2, IMAGE_2X2), f32([1, 4], [0, 0, 1, 1]), i32([2], [0, 0]), i32([2], [4, 4])],
    want: failsAtRun('box_index has incompatible shape'),
  },
  {
    name: 'bilinear: box index 1 of a batch of 1 is OUT_OF_RANGE',
    source: `${CROP_TEST} CropAndResizeOpTest.TestInvalidBoxIndex; the code: ${CROP_KERNEL} RunIfBoxIndexIsValid (errors::OutOfRange)`,
    op: 'CropAndResize',
    inputs: [image('float32', 2, IMAGE_2X2), f32([1, 4], [0, 0, 1, 1]), i32([1], [1]), i32([2], [3, 3])],
    want: failsAtRun('box_index has values outside [0, batch_size)', Code.OUT_OF_RANGE),
  },
  {
    name: 'bilinear: a box with a NaN corner is refused',
    source: `${CROP_KERNEL} CropAndResize<CPUDevice> (boxes.isfinite().all())`,
    op: 'CropAndResize',
    inputs: [image('float32', 2, IMAGE_2X2), f32([1, 4], [0, 0, NaN, 1]), i32([1], [0]), i32([2], [3, 3])],
    want: failsAtRun('Boxes contains at least one element that is not finite'),
  },
  {
    name: `bilinear: crops past tfgate's bound of ${MAX_REQUESTED_OUTPUT_ELEMENTS} elements fail with RESOURCE_EXHAUSTED before any allocation`,
    source: `${CROP_KERNEL} (TF allocates [num_boxes, crop_height, crop_width, depth] floats and fails when it cannot)`,
    op: 'CropAndResize',
    inputs: [image('float32', 2, IMAGE_2X2), f32([1, 4], [0, 0, 1, 1]), i32([1], [0]), i32([2], [100000, 100000])],
    want: failsAtRun(
      /^CropAndResize: crops of shape \[1,100000,100000,1\] would hold 10000000000 elements, over tfgate's bound/,
      Code.RESOURCE_EXHAUSTED,
    ),
  },
];

// The OpDefs, as tensorflow/core/ops/image_ops.cc registers them.
const IMAGE_REGISTRATIONS = [
  `REGISTER_OP("NonMaxSuppression")
    .Input("boxes: float")
    .Input("scores: float")
    .Input("max_output_size: int32")
    .Output("selected_indices: int32")
    .Attr("iou_threshold: float = 0.5")`,
  `REGISTER_OP("NonMaxSuppressionV2")
    .Input("boxes: T")
    .Input("scores: T")
    .Input("max_output_size: int32")
    .Input("iou_threshold: T_threshold")
    .Output("selected_indices: int32")
    .Attr("T: {half, float} = DT_FLOAT")
    .Attr("T_threshold: {half, float} = DT_FLOAT")`,
  `REGISTER_OP("NonMaxSuppressionV3")
    .Input("boxes: T")
    .Input("scores: T")
    .Input("max_output_size: int32")
    .Input("iou_threshold: T_threshold")
    .Input("score_threshold: T_threshold")
    .Output("selected_indices: int32")
    .Attr("T: {half, float} = DT_FLOAT")
    .Attr("T_threshold: {half, float} = DT_FLOAT")`,
  `REGISTER_OP("NonMaxSuppressionV4")
    .Input("boxes: T")
    .Input("scores: T")
    .Input("max_output_size: int32")
    .Input("iou_threshold: T_threshold")
    .Input("score_threshold: T_threshold")
    .Output("selected_indices: int32")
    .Output("valid_outputs: int32")
    .Attr("T: {half, float} = DT_FLOAT")
    .Attr("T_threshold: {half, float} = DT_FLOAT")
    .Attr("pad_to_max_output_size: bool = false")`,
  `REGISTER_OP("NonMaxSuppressionV5")
    .Input("boxes: T")
    .Input("scores: T")
    .Input("max_output_size: int32")
    .Input("iou_threshold: T")
    .Input("score_threshold: T")
    .Input("soft_nms_sigma: T")
    .Output("selected_indices: int32")
    .Output("selected_scores: T")
    .Output("valid_outputs: int32")
    .Attr("T: {half, float} = DT_FLOAT")
    .Attr("pad_to_max_output_size: bool = false")`,
  `REGISTER_OP("NonMaxSuppressionWithOverlaps")
    .Input("overlaps: float")
    .Input("scores: float")
    .Input("max_output_size: int32")
    .Input("overlap_threshold: float")
    .Input("score_threshold: float")
    .Output("selected_indices: int32")`,
  `REGISTER_OP("CombinedNonMaxSuppression")
    .Input("boxes: float")
    .Input("scores: float")
    .Input("max_output_size_per_class: int32")
    .Input("max_total_size: int32")
    .Input("iou_threshold: float")
    .Input("score_threshold: float")
    .Output("nmsed_boxes: float")
    .Output("nmsed_scores: float")
    .Output("nmsed_classes: float")
    .Output("valid_detections: int32")
    .Attr("pad_per_class: bool = false")
    .Attr("clip_boxes: bool = true")`,
  `REGISTER_OP("CropAndResize")
    .Input("image: T")
    .Input("boxes: float")
    .Input("box_ind: int32")
    .Input("crop_size: int32")
    .Output("crops: float")
    .Attr("T: {uint8, uint16, int8, int16, int32, int64, half, float, double}")
    .Attr("method: {'bilinear', 'nearest'} = 'bilinear'")
    .Attr("extrapolation_value: float = 0")`,
];

export const IMAGE_DETECTION_CASES: OpFamilyCases = {
  family: 'image (detection)',
  registrations: IMAGE_REGISTRATIONS,
  engines: {
    onnx: { refuse: /ONNX('s)? (has no|NonMaxSuppression|RoiAlign).*not converted/ },
  },
  cases: [...V1_CASES, ...V2_CASES, ...V3_CASES, ...V4_CASES, ...V5_CASES, ...OVERLAPS_CASES, ...COMBINED_CASES, ...CROP_CASES],
};
