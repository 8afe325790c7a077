// What the detection kernels borrow from the C++ runtime TF links (libstdc++'s heap and
// introsort, glibc's expf), checked against outputs of libstdc++ 12 and glibc 2.36 (Debian
// 12, g++ -O2 -mavx, an FMA CPU) recorded for these inputs; and the load-time checks the
// op cases cannot reach (the writer refuses an attr value outside the OpDef's set): the
// kernel's constructor check, and TF's registry check of a graph that carries no OpDefs;
// and a detection op inside a TF2 loop body (TF2 exports' tf.map_fn), which op cases cannot write.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { PriorityQueue, stdSort } from '../../../src/runtimes/embedded/ops/libstdcxx_algorithms.js';
import { glibcExpf } from '../../../src/runtimes/embedded/ops/image/glibc_expf.js';
import { cropAndResizeNodeProblem } from '../../../src/runtimes/embedded/ops/image/crop_and_resize.js';
import type { NodeDef } from '../../../src/savedmodel/graph/types.js';
import path from 'node:path';
import { Code } from '../../../src/errors/status.js';
import { readMetaGraph } from '../../../src/savedmodel/saved_model_reader.js';
import { prepareSignatureGraph } from '../../../src/savedmodel/graph/prepare_signature_graph.js';
import { writeRawSavedModel } from '../../../test_util/savedmodel/raw_saved_model.js';
import { attr } from '../../../test_util/savedmodel/writer/graph_builder.js';
import { constNode, placeholder } from '../../../test_util/savedmodel/hostile_graphs.js';
import { isError } from '../../helpers/errors.js';
import { EmbeddedRuntime } from '../../../src/runtimes/embedded/embedded_runtime.js';
import { writeTf2MapFnNmsModel } from '../../../test_util/savedmodel/detection_model.js';
import { tempDir } from '../../helpers/temp.js';

// 40 keys with many ties; an element is [key, index].
const KEYS = [3, 1, 3, 2, 0, 3, 1, 1, 2, 3, 0, 0, 2, 3, 1, 2, 3, 0, 1, 2, 3, 3, 1, 0, 2, 2, 1, 3, 0, 1, 2, 0, 3, 1, 2, 3, 0, 2, 1, 3];

describe('libstdc++ algorithms', () => {
  it("std::sort by key alone (CombinedNonMaxSuppression's candidate sort) leaves ties as libstdc++ does", () => {
    const v = KEYS.map((key, idx) => ({ key, idx }));
    stdSort(v, (a, b) => b.key < a.key);
    const libstdcxx = [
      20, 39, 35, 32, 27, 21, 0, 16, 13, 9, 5, 2, 25, 24, 30, 3, 19, 34, 15, 37, 8, 12, 33, 29, 38, 1, 26, 22, 6, 18, 7, 14, 4, 28, 23, 31,
      17, 36, 11, 10,
    ];
    assert.deepEqual(
      v.map((e) => e.idx),
      libstdcxx,
    );
  });

  it('std::priority_queue by key alone (the per-class queue) pops ties as libstdc++ does', () => {
    const q = new PriorityQueue<{ key: number; idx: number }>((a, b) => a.key < b.key);
    KEYS.forEach((key, idx) => q.push({ key, idx }));
    const popped: number[] = [];
    while (q.size) popped.push(q.pop().idx);
    assert.deepEqual(
      popped,
      [
        0, 2, 13, 27, 5, 9, 20, 21, 39, 16, 35, 32, 30, 12, 25, 24, 19, 34, 3, 37, 15, 8, 14, 38, 6, 26, 18, 22, 33, 29, 7, 1, 28, 36, 23,
        10, 31, 4, 17, 11,
      ],
    );
  });
});

describe("glibc's expf (soft-NMS weights)", () => {
  const f = new Float32Array(1);
  const u = new Uint32Array(f.buffer);
  const fromBits = (b: number) => ((u[0] = b), f[0]);
  const toBits = (x: number) => ((f[0] = x), u[0]);
  // x → glibc's expf(x), as bits; the first three are inputs where Math.fround(Math.exp(x)) is one ulp lower.
  const GLIBC: Array<[number, number]> = [
    [0xc09cd603, 0x3bf3bc44],
    [0xc038b81a, 0x3d647f9c],
    [0xc053bfd2, 0x3d15c84a],
    [0xbf000000, 0x3f1b4598],
    [0xba83126f, 0x3f7fbe7f],
    [0xc2b50000, 0x00056969],
    [0xc2cfcccd, 0x00000001],
  ];
  for (const [x, y] of GLIBC) {
    it(`expf(${fromBits(x)}) has bits 0x${y.toString(16)}`, () =>
      assert.equal(toBits(glibcExpf(fromBits(x))).toString(16), y.toString(16)));
  }
  it('is not merely exp rounded to float', () => assert.notEqual(toBits(Math.fround(Math.exp(fromBits(0xc09cd603)))), 0x3bf3bc44));
  it('keeps its special cases: -inf → 0, NaN, overflow, underflow', () => {
    assert.equal(glibcExpf(-Infinity), 0);
    assert.ok(Number.isNaN(glibcExpf(NaN)));
    assert.equal(glibcExpf(89), Infinity);
    assert.equal(glibcExpf(-104), 0);
  });
});

describe('CropAndResize load check', () => {
  const node = (method?: string): NodeDef => ({
    name: 'crop',
    op: 'CropAndResize',
    input: [],
    attr: method === undefined ? {} : { method: { s: new TextEncoder().encode(method) } },
  });
  it("refuses a method other than 'bilinear' or 'nearest' with TF's constructor message", () => {
    assert.equal(cropAndResizeNodeProblem(node('area')), "method must be 'bilinear' or 'nearest'area");
    assert.equal(cropAndResizeNodeProblem(node('nearest')), null);
    assert.equal(cropAndResizeNodeProblem(node()), null);
  });
});

describe("the detection ops' registrations", () => {
  it("a graph without OpDefs whose CropAndResize method is 'area' is refused at load with TF's registry message", async () => {
    const dir = path.join(tempDir('tfgate-detection-registry-'), '1');
    const f32 = (values: number[], shape: number[]) => ({ dtype: 'float32' as const, shape, values: Float32Array.from(values) });
    const i32 = (values: number[], shape: number[]) => ({ dtype: 'int32' as const, shape, values: Int32Array.from(values) });
    await writeRawSavedModel(dir, {
      nodes: [
        placeholder('image', 'float32', [1, 2, 2, 1]),
        constNode('boxes', f32([0, 0, 1, 1], [1, 4])),
        constNode('box_ind', i32([0], [1])),
        constNode('crop_size', i32([3, 3], [2])),
        {
          name: 'crops',
          op: 'CropAndResize',
          input: ['image', 'boxes', 'box_ind', 'crop_size'],
          attr: { T: attr.type('float32'), method: attr.s('area'), extrapolation_value: attr.f(0) },
        },
      ],
      signatures: {
        serving_default: {
          inputs: { image: { name: 'image:0', dtype: 'DT_FLOAT', shape: [1, 2, 2, 1] } },
          outputs: { crops: { name: 'crops:0', dtype: 'DT_FLOAT', shape: [1, 3, 3, 1] } },
        },
      },
    });
    const meta = await readMetaGraph(dir, ['serve']);
    assert.throws(
      () => prepareSignatureGraph(meta, 'serving_default', null, { isSupportedOp: () => true }),
      isError(Code.INVALID_ARGUMENT, /Value for attr 'method' of "area" is not in the list of allowed values: "bilinear", "nearest"/),
    );
  });
});

describe('NonMaxSuppressionV5 inside a TF2 tf.map_fn (StatelessWhile over TensorLists)', () => {
  it("answers, per image, what non_max_suppression_op_test.cc's TestSelectFromThreeClustersPadFive states", async () => {
    const dir = path.join(tempDir('tfgate-detection-tf2-'), '1');
    await writeTf2MapFnNmsModel(dir);
    const servable = await new EmbeddedRuntime('cpu').load(dir, { tags: ['serve'] });
    // The second image's corners in either order (TestSelectFromThreeClustersFlippedCoordinates).
    const clusters = [0, 0, 1, 1, 0, 0.1, 1, 1.1, 0, -0.1, 1, 0.9, 0, 10, 1, 11, 0, 10.1, 1, 11.1, 0, 100, 1, 101];
    const flipped = [1, 1, 0, 0, 0, 0.1, 1, 1.1, 0, 0.9, 1, -0.1, 0, 10, 1, 11, 1, 10.1, 0, 11.1, 1, 101, 0, 100];
    const scores = [0.9, 0.75, 0.6, 0.95, 0.5, 0.3];
    const out = await servable.run('serving_default', {
      boxes: { dtype: 'float32', shape: [2, 6, 4], values: Float32Array.from([...clusters, ...flipped]) },
      scores: { dtype: 'float32', shape: [2, 6], values: Float32Array.from([...scores, ...scores]) },
    });
    assert.deepEqual(out.nms_indices.shape, [2, 5]);
    assert.deepEqual(Array.from(out.nms_indices.values as Int32Array), [3, 0, 5, 0, 0, 3, 0, 5, 0, 0]);
    servable.dispose();
  });
});
