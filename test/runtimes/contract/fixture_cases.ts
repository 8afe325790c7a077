// The runtime contract over the real SavedModels in ../shared/fixtures/models: on every
// runtime, each predict-style signature matches the value PROVENANCE.md states, implies or
// computes (within 1e-4), or is refused with a reason that names what is missing.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { Servable } from '../../../src/runtimes/runtime.js';
import type { HostTensor } from '../../../src/tensor/host_tensor.js';
import { FIXTURES, fixtureModel } from '../../helpers/paths.js';
import { runCase, skipReason, type RuntimeUnderTest } from './runtime_under_test.js';
import { Code, ServingError } from '../../../src/errors/status.js';
import { protoType } from '../../../src/proto/index.js';

const f32 = (shape: number[], values: number[]): HostTensor => ({ dtype: 'float32', shape, values: Float32Array.from(values) });
const i32 = (shape: number[], values: number[]): HostTensor => ({ dtype: 'int32', shape, values: Int32Array.from(values) });

function assertClose(actual: HostTensor, expected: number[], shape?: number[], tol = 1e-4): void {
  if (shape) assert.deepEqual(actual.shape, shape);
  const got = Array.from(actual.values as Float32Array, Number);
  assert.equal(got.length, expected.length, `got ${got} want ${expected}`);
  got.forEach((v, i) => assert.ok(Math.abs(v - expected[i]) <= tol, `element ${i}: got ${v}, want ${expected[i]}`));
}

async function assertRefused(s: Servable, signature: string, pattern: RegExp): Promise<void> {
  await assert.rejects(s.run(signature, {}), (e: unknown) => e instanceof ServingError && pattern.test(e.message));
}

function mnistImage(file: string): number[] {
  const body = JSON.parse(fs.readFileSync(path.join(FIXTURES, 'requests', file), 'utf8')) as { instances: unknown[] };
  return (body.instances.flat(4) as number[]).map(Number);
}

const ExampleType = protoType('tensorflow.Example');
/** A serialized tf.Example; numbers as float lists, bigint arrays as int64 lists, strings as bytes. */
function example(features: Record<string, number[] | string[] | { int64: number[] }>): Uint8Array {
  const feature = Object.fromEntries(
    Object.entries(features).map(([k, v]) => [
      k,
      Array.isArray(v)
        ? typeof v[0] === 'string'
          ? { bytesList: { value: (v as string[]).map((x) => Buffer.from(x)) } }
          : { floatList: { value: v } }
        : { int64List: { value: v.int64 } },
    ]),
  );
  return ExampleType.encode(ExampleType.fromObject({ features: { feature } })).finish();
}
const strings = (...values: Uint8Array[]): HostTensor => ({ dtype: 'string', shape: [values.length], values });

const HALF_PLUS_TWO_TF1 = [
  ['saved_model_half_plus_two_cpu', '00000123'],
  ['saved_model_half_plus_two_2_versions', '00000123'],
  ['saved_model_half_plus_two_2_versions', '00000124'],
  ['saved_model_half_plus_two_gpu', '00000123'],
  ['saved_model_half_plus_two_gpu_trt', '00000123'],
  ['saved_model_half_plus_two_mkl', '00000123'],
  ['saved_model_half_plus_two_mlmd', '00000123'],
  ['saved_model_half_plus_two_cpu_with_saved_model_config', '00000123'],
  ['saved_model_half_plus_two_cpu_with_empty_saved_model_config', '00000123'],
];

export function fixtureCases(rt: RuntimeUnderTest): void {
  const load = (name: string, version: string, tags = ['serve']) => rt.load(fixtureModel(name, version), { tags });
  /** One case: skipped with its reason when the runtime declares it, else run (see runCase). */
  const test = (name: string, body: () => Promise<void>) => it(name, { skip: skipReason(rt, name) }, (t) => runCase(rt, t, body));

  describe(`${rt.name}: runtime on TF Serving test models`, () => {
    for (const [name, version] of HALF_PLUS_TWO_TF1) {
      test(`${name}/${version}: y = 0.5x + 2 through x:0, y3 = 0.5x2 + 3, classify and regress through ParseExample`, async () => {
        const s = await load(name, version);
        const { y } = await s.run('serving_default', { x: f32([3, 1], [1, 2, 5]) });
        assertClose(y, [2.5, 3, 4.5], [3, 1]);
        const { outputs } = await s.run('regress_x2_to_y3', { inputs: f32([1, 1], [2]) });
        // mkl's y3 is a [1,10,10,1] conv output (all zeros) plus 0.5·x2 + 3, broadcast.
        assertClose(outputs, new Array(outputs.values.length).fill(4));
        // One example each: mkl's outputs broadcast against a [1,10,10,1] conv, as in TF.
        const { scores } = await s.run('classify_x_to_y', { inputs: strings(example({ x: [20] })) });
        assertClose(scores, new Array(scores.values.length).fill(12));
        const { outputs: y2 } = await s.run('regress_x_to_y2', { inputs: strings(example({ x: [80] })) });
        assertClose(y2, new Array(y2.values.length).fill(43));
        s.dispose();
      });
    }

    test('saved_model_half_plus_three: TF 1.0 export without shapes, y = 0.5x + 3', async () => {
      const s = await load('saved_model_half_plus_three', '00000123');
      assert.equal(s.signatures.serving_default.inputs.x.shape, null);
      assertClose((await s.run('serving_default', { x: f32([3], [1, 2, 5]) })).y, [3.5, 4, 5.5]);
    });

    test('saved_model_half_plus_two_tf2_cpu: inlined functions, frozen resource variables, signature default', async () => {
      const s = await load('saved_model_half_plus_two_tf2_cpu', '00000123');
      assertClose((await s.run('serving_default', { x: f32([1], [2]) })).y, [3]);
      // SignatureDef.defaults holds x = [0.0]: a request without x gets y = [2].
      assertClose((await s.run('serving_default', {})).y, [2]);
      assertClose((await s.run('regress_x2_to_y3', { inputs: f32([1], [2]) })).outputs, [4]);
      assertClose((await s.run('classify_x2_to_y3', { inputs: f32([1], [2]) })).scores, [4]);
    });

    test('matrix_half_plus_two: constants only, no variables folder', async () => {
      const s = await load('matrix_half_plus_two', '1');
      assertClose(
        (await s.run('serving_default', { x: f32([1, 3, 3], [1, 2, 3, 4, 5, 6, 7, 8, 9]) })).y,
        [2.5, 3, 3.5, 4, 4.5, 5, 5.5, 6, 6.5],
        [1, 3, 3],
      );
    });

    test('saved_model_counter: reads serve the stored value, updates are refused by op', async () => {
      const s = await load('saved_model_counter', '00000123');
      const out = await s.run('get_counter', {});
      assert.equal(out.output.dtype, 'float32'); // DT_FLOAT_REF in the SignatureDef
      assertClose(out.output, [0], []);
      await assertRefused(s, 'incr_counter', /AssignAdd/);
      await assertRefused(s, 'reset_counter', /Assign/);
    });
  });

  describe(`${rt.name}: runtime on tfjs-node test models`, () => {
    test('times_three_float: rank-1 feed into a rank-0 signature', async () => {
      const s = await load('tfjs_times_three_float', '1');
      assertClose((await s.run('serving_default', { x: f32([3], [1, 2, 3]) })).output_0, [3, 6, 9], [3]);
    });
    test('times_two_int: int32 in and out', async () => {
      const s = await load('tfjs_times_two_int', '1');
      const out = (await s.run('serving_default', { x: i32([3], [1, 2, 3]) })).output_0;
      assert.equal(out.dtype, 'int32');
      assert.deepEqual(Array.from(out.values as Int32Array), [2, 4, 6]);
    });
    test('module_with_multiple_signatures', async () => {
      const s = await load('tfjs_module_with_multiple_signatures', '1');
      assertClose((await s.run('serving_default', { x: f32([3], [1, 2, 3]) })).output_0, [3, 6, 9]);
      assertClose((await s.run('timestwo', { x: f32([3], [1, 2, 3]) })).output_0, [2, 4, 6]);
    });
    test('single_input_multi_output', async () => {
      const s = await load('tfjs_model_single_input_multi_output', '1');
      const out = await s.run('serving_default', { x: i32([3], [1, 2, 3]) });
      assert.deepEqual(Array.from(out.output_0.values as Int32Array), [2, 4, 6]);
      assert.deepEqual(Array.from(out.output_1.values as Int32Array), [1, 2, 3]);
    });
    test('multi_output: two inputs kept apart', async () => {
      const s = await load('tfjs_model_multi_output', '1');
      const out = await s.run('serving_default', { x: i32([3], [1, 2, 3]), y: i32([3], [4, 5, 6]) });
      assert.deepEqual(Array.from(out.output_0.values as Int32Array), [2, 4, 6]);
      assert.deepEqual(Array.from(out.output_1.values as Int32Array), [4, 5, 6]);
    });
    test('uint8_multiply: uint8 in, int32 out', async () => {
      const s = await load('tfjs_uint8_multiply', '1');
      const out = (await s.run('serving_default', { x: { dtype: 'uint8', shape: [1], values: Uint8Array.from([3]) } })).output_0;
      assert.equal(out.dtype, 'int32');
      assert.deepEqual(Array.from(out.values as Int32Array), [18]);
    });
    test('int64_multiply: int64 in and out', async () => {
      const s = await load('tfjs_int64_multiply', '1');
      const out = (await s.run('serving_default', { x: { dtype: 'int64', shape: [2], values: BigInt64Array.from([3n, 4n]) } })).output_0;
      assert.equal(out.dtype, 'int64');
      assert.deepEqual(Array.from(out.values as BigInt64Array), [18n, 24n]);
    });
  });

  describe(`${rt.name}: runtime on Keras and tensorflow/rust exports`, () => {
    test('keras3_iris_dense: normalization + dense + softmax', async () => {
      const s = await load('keras3_iris_dense', '1');
      const out = (await s.run('serving_default', { inputs: f32([3, 4], [6.0, 3.4, 4.5, 1.6, 6.2, 3.4, 5.4, 2.3, 5.1, 3.5, 1.4, 0.2]) }))
        .output_0;
      assertClose(out, [0.038557, 0.825477, 0.135966, 0.000946, 0.122639, 0.876414, 0.996537, 0.003151, 0.000312], [3, 3]);
    });

    test('keras3_mnist_conv: both signatures classify test image 0 as a 7', async () => {
      const s = await load('keras3_mnist_conv', '1');
      const image = f32([1, 28, 28, 1], mnistImage('mnist_test0_instances_1x28x28x1.json'));
      for (const sig of ['serving_default', 'serve']) {
        const p = Array.from((await s.run(sig, { keras_tensor: image })).output_0.values as Float32Array);
        assert.equal(p.indexOf(Math.max(...p)), 7);
        assert.ok(Math.abs(p[7] - 0.999916) < 1e-4, `p7 = ${p[7]}`);
      }
    });

    const MNIST_DENSE: Record<string, [number, number]> = {
      '1': [0.004188, 0.995411],
      '2': [0.006541, 0.992924],
      '3': [0.005935, 0.993447],
      '4': [0.003189, 0.99666],
    };
    for (const [version, [p3, p7]] of Object.entries(MNIST_DENSE)) {
      test(`keras2_mnist_dense_4versions/${version}: weights tell the versions apart`, async () => {
        const s = await load('keras2_mnist_dense_4versions', version);
        const p = (await s.run('serving_default', { flatten_input: f32([1, 28, 28], mnistImage('mnist_test0_instances_1x28x28.json')) }))
          .dense.values as Float32Array;
        assert.ok(Math.abs(p[3] - p3) < 1e-4 && Math.abs(p[7] - p7) < 1e-4, `p3 ${p[3]} p7 ${p[7]}`);
      });
    }

    test('keras2_churn_ann_dropout: dropout is the inference path', async () => {
      const s = await load('keras2_churn_ann_dropout', '1');
      const scaled = [0.989555, -0.575041, -1.542402, -1.094166, 0.306666, 1.033803, 1.329925, 2.533738, 0.644926, -1.021992, 0.236739];
      const out = (
        await s.run('serving_default', { dense_input: f32([3, 11], [...new Array(11).fill(0), ...new Array(11).fill(1), ...scaled]) })
      ).dense_2;
      assertClose(out, [0.19115, 0.297409, 0.644775], [3, 1]);
    });

    test('keras2_mobilenet_gesture: batch-norm, depthwise conv, resize; probabilities sum to 1', async () => {
      const s = await load('keras2_mobilenet_gesture', '1');
      const out = (await s.run('serving_default', { sequential_input: f32([1, 160, 120, 1], new Array(160 * 120).fill(128)) })).model;
      assert.deepEqual(out.shape, [1, 5]);
      const sum = Array.from(out.values as Float32Array).reduce((a, b) => a + b, 0);
      assert.ok(Math.abs(sum - 1) < 1e-4, `sum ${sum}`);
    });

    const POTATO: Record<string, { key: string; rows: Record<number, number[]> }> = {
      '1': {
        key: 'dense_9',
        rows: { 0: [0.948324, 0.048453, 0.003223], 255: [0.131025, 0.241013, 0.627962], 128: [0, 0.999896, 0.000104] },
      },
      '2': {
        key: 'dense_3',
        rows: { 0: [0.944679, 0.055298, 0.000023], 255: [0.65494, 0.286693, 0.058367], 128: [0.190873, 0.651425, 0.157702] },
      },
      '3': {
        key: 'dense_1',
        rows: { 0: [0.633946, 0.363775, 0.002278], 255: [0.140923, 0.52504, 0.334038], 128: [0.126508, 0.824921, 0.048571] },
      },
    };
    for (const [version, { key, rows }] of Object.entries(POTATO)) {
      test(`keras2_potato_cnn/${version}: output '${key}' for constant images`, async () => {
        const s = await load('keras2_potato_cnn', version);
        const colours = [0, 255, 128];
        const pixels = colours.flatMap((c) => new Array(256 * 256 * 3).fill(c));
        const out = (await s.run('serving_default', { sequential_input: f32([3, 256, 256, 3], pixels) }))[key];
        assertClose(
          out,
          colours.flatMap((c) => rows[c]),
          [3, 3],
          2e-4,
        );
      });
    }

    test('keras2_traffic_sign_cnn_warmup: the all-zero warmup image', async () => {
      const s = await load('keras2_traffic_sign_cnn_warmup', '1');
      const p = Array.from(
        (await s.run('serving_default', { conv2d_input: f32([1, 30, 30, 3], new Array(2700).fill(0)) })).dense_3.values as Float32Array,
      );
      const top = p
        .map((v, i) => [v, i])
        .sort((a, b) => b[0] - a[0])
        .slice(0, 5);
      assert.deepEqual(
        top.map(([, i]) => i),
        [3, 5, 20, 1, 8],
      );
      assert.ok(Math.abs(top[0][0] - 0.216677) < 1e-4);
    });

    test('tfrust_keras_single_input', async () => {
      const s = await load('tfrust_keras_single_input', '1');
      assertClose((await s.run('serving_default', { test_in_input: f32([1, 5], [0.1, 0.2, 0.3, 0.4, 0.5]) })).test_out, [0.5003079]);
    });

    test('tfrust_keras_multiple_inputs: a shared inner model; swapped inputs give another value', async () => {
      const s = await load('tfrust_keras_multiple_inputs', '1');
      const a = f32([1, 5], [0.1, 0.2, 0.3, 0.4, 0.5]);
      const b = f32([1, 5], [0.6, 0.7, 0.8, 0.9, 0.1]);
      assertClose((await s.run('serving_default', { test_in1: a, test_in2: b })).test_out, [0.5401027]);
      assertClose((await s.run('serving_default', { test_in1: b, test_in2: a })).test_out, [0.5301834]);
    });

    test('tfrust_regression_savedmodel: variable readers serve, the training signature is refused', async () => {
      const s = await load('tfrust_regression_savedmodel', '1');
      assertClose((await s.run('w', {})).output, [0.20429754]);
      assertClose((await s.run('b', {})).output, [0]);
      await assertRefused(s, 'train', /AssignAddVariableOp|AssignVariableOp|ResourceApplyGradientDescent|updates variables/);
    });

    test('tfrust_regression_model_train_serve_tags: {serve} does not match {train, serve}', async () => {
      await assert.rejects(
        load('tfrust_regression_model_train_serve_tags', '1'),
        (e: unknown) =>
          e instanceof ServingError &&
          e.code === Code.NOT_FOUND &&
          /Could not find meta graph def matching supplied tags: \{ serve \}/.test(e.message),
      );
      const s = await load('tfrust_regression_model_train_serve_tags', '1', ['train', 'serve']);
      const out = await s.run('tensorflow/serving/regress', { x: f32([1], [2]), y: f32([1], [4]) });
      assertClose(out.out, [-1.7157244]);
    });
  });

  describe(`${rt.name}: runtime on TF.js graph models (model.json)`, () => {
    const dir = (n: string) => path.join(FIXTURES, 'tfjs_graph_models', n);
    test('matmul_2x2', async () => {
      const s = await rt.load(dir('matmul_2x2'), { tags: ['serve'] });
      const [key] = Object.keys(s.signatures.serving_default.inputs);
      const out = Object.values(await s.run('serving_default', { [key]: f32([2, 2], [1, 1, 1, 1]) }))[0];
      assertClose(out, [0.7567615509033203, -0.18349379301071167, 0.7567615509033203, -0.18349379301071167]);
    });
    test('dense_1x1 (_FusedMatMul)', async () => {
      const s = await rt.load(dir('dense_1x1'), { tags: ['serve'] });
      const [key] = Object.keys(s.signatures.serving_default.inputs);
      assertClose(Object.values(await s.run('serving_default', { [key]: f32([1, 1], [20]) }))[0], [38.17822265625]);
    });
    test('dense_10x1', async () => {
      const s = await rt.load(dir('dense_10x1'), { tags: ['serve'] });
      const [key] = Object.keys(s.signatures.serving_default.inputs);
      const out = Object.values(
        await s.run('serving_default', { [key]: f32([2, 10], [...new Array(10).fill(1), 0, 1, 2, 3, 4, 5, 6, 7, 8, 9]) }),
      )[0];
      assertClose(out, [0.9954263, -2.3041925]);
    });
  });

  describe(`${rt.name}: ParseExample / ParseExampleV2`, () => {
    test('TF2 (ParseExampleV2) and half_plus_three (a DT_FLOAT-declared string input) regress through tf.Example', async () => {
      const tf2 = await load('saved_model_half_plus_two_tf2_cpu', '00000123');
      assertClose((await tf2.run('regress_x_to_y', { inputs: strings(example({ x: [2] })) })).outputs, [3], [1, 1]);
      assertClose(
        (await tf2.run('classify_x_to_y', { inputs: strings(example({ x: [20] }), example({ x: [10] })) })).scores,
        [12, 7],
        [2, 1],
      );
      tf2.dispose();
      const three = await load('saved_model_half_plus_three', '00000123');
      assertClose(
        (await three.run('tensorflow/serving/regress', { inputs: strings(example({ x: [1] }), example({ x: [2] })) })).outputs,
        [3.5, 4],
      );
      three.dispose();
    });

    test("refuses examples as TF's parser does: missing feature, wrong kind, wrong count, not a proto", async () => {
      const s = await load('saved_model_half_plus_two_cpu', '00000123');
      const run = (e: Uint8Array) => s.run('regress_x_to_y', { inputs: strings(e) });
      const rejects = (e: Uint8Array, re: RegExp) =>
        assert.rejects(run(e), (err: unknown) => err instanceof ServingError && err.code === Code.INVALID_ARGUMENT && re.test(err.message));
      // A good example first: a runtime that refuses the signature says so here.
      assertClose((await run(example({ x: [2] }))).outputs, [3], [1, 1], 1e-6);
      await rejects(example({ y: [1] }), /^Name: <unknown>, Feature: x \(data type: float\) is required but could not be found\.$/);
      await rejects(
        example({ x: { int64: [2] } }),
        /^Name: <unknown>, Feature: x\.  Data types don't match\. Data type: int64 but expected type: float$/,
      );
      await rejects(
        example({ x: [1, 2] }),
        /^Name: <unknown>, Key: x, Index: 0\.  Number of float values != expected\.  values size: 2 but output shape: \[1\]$/,
      );
      await rejects(Uint8Array.from([0x0a, 0xff, 0xff]), /^Could not parse example input/);
      s.dispose();
    });
  });
}
