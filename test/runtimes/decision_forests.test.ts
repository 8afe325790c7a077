// TF Decision Forests on Yggdrasil's WASM engine (src/runtimes/embedded/ops/decision_forests/):
//   - the inference op against the predictions TF-DF's own kernel tests state for their toy
//     models (tensorflow_decision_forests/tensorflow/ops/inference/test_utils.py), built here
//     the same way (test/helpers/yggdrasil_models.ts), and against TF's kernel rules;
//   - the real TF-DF SavedModel of the corpus (test/corpus/models/tfdf_adult_rf) through the
//     embedded runtime: the three rows TF-DF's keras_test.py states, one with a missing value;
//   - the engine's models released when a version is disposed, over load/unload cycles;
//   - --verify_on_load's check not calling the forest verified (one Yggdrasil engine);
//   - a model whose Yggdrasil files are damaged refused at load, naming the op.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { YggdrasilForest, type ForestInputs } from '../../src/runtimes/embedded/ops/decision_forests/yggdrasil_forest.js';
import { NoFastEngine, yggdrasilUsage } from '../../src/runtimes/embedded/ops/decision_forests/yggdrasil_wasm.js';
import { EmbeddedRuntime } from '../../src/runtimes/embedded/embedded_runtime.js';
import { toStatusData } from '../../src/errors/status.js';
import { verifySignatures } from '../../src/runtimes/verify/verify_signatures.js';
import { hostTensorToProto } from '../../src/savedmodel/tensor_proto.js';
import { writeTfRecords } from '../../src/savedmodel/tfrecord.js';
import { WARMUP_FILE } from '../../src/savedmodel/warmup_requests.js';
import { protoType } from '../../src/proto/index.js';
import { toyGradientBoostedTrees, toyRandomForest } from '../helpers/yggdrasil_models.js';
import { REPO_ROOT } from '../helpers/paths.js';
import { adultFeatures } from '../helpers/adult_census.js';
import { tempDir } from '../helpers/temp.js';

const ADULT_RF = path.join(REPO_ROOT, 'test', 'corpus', 'models', 'tfdf_adult_rf', '1');

// ---- the op on TF-DF's toy models ------------------------------------------------------------

/**
 * build_toy_input_feature_values, as TF-DF's op wrapper (api.py) hands it to the op: a = 2, 2,
 * 0, 0; b = x, z, x, z (vocabulary index 1, 3); c = 1, 2, 1, 2; bool_feature = 1, 0, 1, 1;
 * with categorical sets, d = {x}, {y}, {y, z}, missing and e = {11, 12}, {}, {14, 15, 16},
 * missing, packed as the op's ragged [example, feature, item] tensor.
 */
function toyInputs(opts: { booleanFeature?: boolean; categoricalSets?: boolean; b?: number[] } = {}): ForestInputs {
  const b = opts.b ?? [1, 3, 1, 3];
  const c = [1, 2, 1, 2];
  const sets = opts.categoricalSets
    ? { values: [1, 11, 12, 2, 2, 3, 14, 15, 16, -1, -1], dim1: [0, 1, 3, 4, 4, 6, 9, 10, 11], dim2: [0, 2, 4, 6, 8] }
    : { values: [], dim1: [0], dim2: [0] };
  return {
    numerical: { values: Float32Array.of(2, 2, 0, 0), shape: [4, 1] },
    boolean: opts.booleanFeature ? { values: Float32Array.of(1, 0, 1, 1), shape: [4, 1] } : { values: new Float32Array(0), shape: [0, 0] },
    categorical: { values: Int32Array.from(b.flatMap((v, i) => [v, c[i]])), shape: [4, 2] },
    categoricalSetValues: sets.values,
    rowSplitsDim1: sets.dim1,
    rowSplitsDim2: sets.dim2,
  };
}

const rows = (values: Float32Array, width: number) =>
  Array.from({ length: values.length / width }, (_, i) => [...values.subarray(i * width, (i + 1) * width)]);

function assertClose(got: number[][], want: number[][], tolerance: number, what: string): void {
  assert.equal(got.length, want.length, what);
  got.forEach((row, i) =>
    row.forEach((v, j) => assert.ok(Math.abs(v - want[i][j]) <= tolerance, `${what}: [${i}][${j}] = ${v}, TF-DF states ${want[i][j]}`)),
  );
}

async function withForest<T>(files: Map<string, Uint8Array>, use: (f: YggdrasilForest) => T): Promise<T> {
  const forest = await YggdrasilForest.load(files, '');
  try {
    return use(forest);
  } finally {
    forest.dispose();
  }
}

describe('SimpleMLInferenceOp on the toy models of TF-DF’s kernel tests', () => {
  // expected_toy_predictions_rf_wta: the same for the base and categorical-set models.
  const WTA = [
    [0, 1, 0],
    [1, 0, 0],
    [0, 1, 0],
    [1, 0, 0],
  ];
  for (const variant of [{}, { categoricalSets: true }]) {
    it(`random forest, winner takes all ${JSON.stringify(variant)}: expected_toy_predictions_rf_wta`, async () => {
      const out = await withForest(toyRandomForest({ winnerTakeAll: true, ...variant }), (f) => f.infer(toyInputs(variant), 3));
      assertClose(rows(out.densePredictions, 3), WTA, 1e-6, 'dense_predictions');
      assert.deepEqual(out.denseColRepresentation, ['v1', 'v2', 'v3']);
    });
  }

  it('random forest, weighted votes: expected_toy_predictions_rf_weighted', async () => {
    const out = await withForest(toyRandomForest({ winnerTakeAll: false }), (f) => f.infer(toyInputs(), 3));
    assertClose(
      rows(out.densePredictions, 3),
      [
        [0, 0.5, 0.5],
        [0.5, 0.5, 0],
        [0.1, 0.8, 0.1],
        [0.8, 0.1, 0.1],
      ],
      1e-6,
      'dense_predictions',
    );
  });

  it('a random forest with a boolean condition is refused: no fast engine of the WASM build runs it (TF uses its slow engine)', async () => {
    for (const winnerTakeAll of [true, false]) {
      await assert.rejects(YggdrasilForest.load(toyRandomForest({ winnerTakeAll, booleanFeature: true }), ''), (e: Error) => {
        assert.ok(e instanceof NoFastEngine, String(e));
        assert.match(e.message, /No compatible engine available for model RANDOM_FOREST/);
        return true;
      });
    }
    assert.equal((await yggdrasilUsage()).liveModels, 0, 'nothing is left loaded');
  });

  it('gradient boosted trees, two classes: one engine probability p answered as [1 − p, p] (expected_toy_predictions_gbdt_binary)', async () => {
    const out = await withForest(toyGradientBoostedTrees(2), (f) => f.infer(toyInputs(), 2));
    assertClose(
      rows(out.densePredictions, 2),
      [
        [1.67e-5, 0.9999833],
        [1.67e-5, 0.9999833],
        [0.0474259, 0.9525741],
        [0.0474259, 0.9525741],
      ],
      1e-6,
      'dense_predictions',
    );
    assert.deepEqual(out.denseColRepresentation, ['v1', 'v2']);
  });

  it('gradient boosted trees, three classes: the engine’s rows as they are, not zero-padded (expected_toy_predictions_gbdt_multiclass)', async () => {
    const out = await withForest(toyGradientBoostedTrees(3), (f) => f.infer(toyInputs(), 3));
    const p1 = [0.0003345212, 0.002471796, 0.9971936828];
    const p0 = [0.01587624, 0.11731043, 0.86681333];
    assertClose(rows(out.densePredictions, 3), [p1, p1, p0, p0], 1e-6, 'dense_predictions');
    assert.deepEqual(out.denseColRepresentation, ['v1', 'v2', 'v3']);
  });

  // Yggdrasil's fast engines index tables by these values: unclamped, a gradient boosted
  // tree reads past them (b = 7 gave 0.8808 here) and a categorical set traps the WASM module.
  it('categorical values outside [-1, vocabulary) are read as 0 (out of vocabulary), as TF’s kernel reads them', async () => {
    await withForest(toyGradientBoostedTrees(2, 'b'), (f) => {
      const p = (b: number) => f.infer(toyInputs({ b: [b, b, b, b] }), 2).densePredictions[1];
      assert.notEqual(p(1), p(0), 'b = x is in {x, y}, OOV is not');
      // 3 is "z" in the vocabulary, but the column has 3 values: TF reads it as OOV too.
      for (const b of [3, 7, 8, -2, -5, 1000]) assert.equal(p(b), p(0), `b = ${b}`);
    });
    await withForest(toyGradientBoostedTrees(2, 'd'), (f) => {
      const p = (d: number[]) => {
        const inputs = toyInputs({ categoricalSets: true });
        const sets = [
          [d, [11]],
          [[1], []],
          [[2], []],
          [[-1], [-1]],
        ];
        const values = sets.flat(2);
        const dim1 = [0];
        for (const s of sets.flat()) dim1.push(dim1.at(-1)! + s.length);
        return f.infer({ ...inputs, categoricalSetValues: values, rowSplitsDim1: dim1 }, 2).densePredictions[1];
      };
      assert.notEqual(p([1]), p([0]), 'x ∈ {x, z}, OOV is not');
      for (const d of [[4], [9], [2, 5], [2, -5], [1000]]) assert.equal(p(d), p([0]), `d = {${d}}`);
      // A set is missing when its first item is below 0 after clamping: −5 becomes OOV, not missing.
      assert.equal(p([-5, 1]), p([1]), 'd = {-5, 1} is {OOV, x}');
    });
  });

  it('refuses inputs as TF’s kernel does, with its messages', async () => {
    await withForest(toyRandomForest({ winnerTakeAll: true }), (f) => {
      const inputs = toyInputs();
      const error = (i: ForestInputs, dim = 3) => {
        try {
          f.infer(i, dim);
        } catch (e) {
          return toStatusData(e);
        }
        return assert.fail('no error');
      };
      assert.deepEqual(error({ ...inputs, numerical: { values: new Float32Array(3), shape: [3, 1] } }), {
        code: 3,
        message: 'The batch size of the input features are inconsistent: 3 vs 4.',
      });
      assert.deepEqual(error({ ...inputs, numerical: { values: new Float32Array(8), shape: [4, 2] } }), {
        code: 3,
        message: 'Unexpected dimension of numerical_features bank.',
      });
      assert.deepEqual(error({ ...inputs, categorical: { values: new Int32Array(4), shape: [4, 1] } }), {
        code: 3,
        message: 'Unexpected dimension of categorical_int_features bank.',
      });
      assert.deepEqual(error(inputs, 2), {
        code: 3,
        message: 'The "dense_output_dim"=2 attribute does not match the model output dimension=3',
      });
      // No example at all: an empty answer, the engine not asked.
      const empty = f.infer(
        { ...inputs, numerical: { values: new Float32Array(0), shape: [0, 1] }, categorical: { values: new Int32Array(0), shape: [0, 2] } },
        3,
      );
      assert.equal(empty.batch, 0);
    });
  });
});

// ---- the real model --------------------------------------------------------------------------

/**
 * The first three rows of Yggdrasil's adult_test.csv; the second has no native_country, which
 * TF-DF feeds as "" (pd_dataframe_to_tf_dataset fills missing strings with "").
 */
const ADULT_ROWS: Array<Array<number | string>> = [
  [
    39,
    'State-gov',
    77516,
    'Bachelors',
    13,
    'Never-married',
    'Adm-clerical',
    'Not-in-family',
    'White',
    'Male',
    2174,
    0,
    40,
    'United-States',
  ],
  [40, 'Private', 121772, 'Assoc-voc', 11, 'Married-civ-spouse', 'Craft-repair', 'Husband', 'Asian-Pac-Islander', 'Male', 0, 0, 40, ''],
  [40, 'Private', 193524, 'Doctorate', 16, 'Married-civ-spouse', 'Prof-specialty', 'Husband', 'White', 'Male', 0, 0, 60, 'United-States'],
];
/** keras_test.py test_golden_model_gbt (assertNear 1e-5). */
const ADULT_STATED = [0.13323984, 0.47678572, 0.81846154];

describe('the TF-DF Adult random forest (corpus tfdf_adult_rf) on the embedded runtime', () => {
  const runtime = new EmbeddedRuntime('wasm');

  it('answers the three rows keras_test.py states, the one with a missing value included', async () => {
    const servable = await runtime.load(ADULT_RF, { tags: ['serve'] });
    try {
      const out = await servable.run('serving_default', adultFeatures(ADULT_ROWS));
      assert.deepEqual(out.output_1.shape, [3, 1]);
      [...(out.output_1.values as Float32Array)].forEach((v, i) =>
        assert.ok(Math.abs(v - ADULT_STATED[i]) <= 1e-5, `row ${i}: ${v}, stated ${ADULT_STATED[i]}`),
      );
      assert.match(
        servable.engines.serving_default.singleEngine ?? '',
        /Yggdrasil's WASM engine/,
        'the engine tells --verify_on_load what it cannot check',
      );
    } finally {
      servable.dispose();
    }
  });

  it('releases its decision forest when the version is disposed: no model left, no engine memory kept over load/unload cycles', async () => {
    const before = (await yggdrasilUsage()).liveModels;
    const marks: number[] = [];
    for (let cycle = 0; cycle < 4; cycle++) {
      const servable = await runtime.load(ADULT_RF, { tags: ['serve'] });
      assert.equal((await yggdrasilUsage()).liveModels, before + 1, `cycle ${cycle}: one model loaded`);
      await servable.run('serving_default', adultFeatures(ADULT_ROWS));
      servable.dispose();
      const usage = await yggdrasilUsage();
      assert.equal(usage.liveModels, before, `cycle ${cycle}: the model is released`);
      marks.push(usage.heapMark);
    }
    // After the first cycle sized the engine's buffers, a cycle that frees all it took leaves
    // the heap as it found it; a leak moves the mark up every cycle.
    assert.deepEqual(marks.slice(2), [marks[1], marks[1]], `heap mark after each cycle: ${marks.join(', ')}`);
  });

  it('--verify_on_load compares the graph around the forest but does not call the signature verified', async () => {
    // The version with the stated rows as a warmup record (string inputs cannot be made up).
    const dir = path.join(tempDir('tfgate-tfdf-'), '1');
    fs.cpSync(ADULT_RF, dir, { recursive: true });
    fs.mkdirSync(path.join(dir, 'assets.extra'));
    const PredictionLog = protoType('tensorflow.serving.PredictionLog');
    const inputs = Object.fromEntries(Object.entries(adultFeatures(ADULT_ROWS)).map(([k, t]) => [k, hostTensorToProto(t)]));
    const record = PredictionLog.encode(
      PredictionLog.fromObject({ predictLog: { request: { modelSpec: { name: 'adult' }, inputs } } }),
    ).finish();
    fs.writeFileSync(path.join(dir, WARMUP_FILE), writeTfRecords([record]));
    const primary = await runtime.load(dir, { tags: ['serve'] });
    try {
      const report = await verifySignatures(
        { run: (k, i) => primary.run(k, i), trace: (k, i) => primary.trace!(k, i) },
        { engines: primary.engines, signatures: primary.signatures },
        dir,
        async () => {
          const reference = await runtime.load(dir, { tags: ['serve'] });
          return {
            engines: reference.engines,
            refusals: reference.refusals,
            run: (k, i) => reference.run(k, i),
            trace: (k, i) => reference.trace!(k, i),
            close: async () => reference.dispose(),
          };
        },
      );
      assert.deepEqual(report.verified, {});
      assert.deepEqual(report.refused, {});
      assert.match(
        report.unchecked.serving_default ?? '',
        /^its decision forest runs on Yggdrasil's WASM engine, the only one tfgate has for TF-DF models, under wasm as well: only the graph around it was compared with wasm \(it agreed\)$/,
      );
    } finally {
      primary.dispose();
    }
  });

  const damaged: Array<[string, (name: string, bytes: Buffer) => Buffer | null, RegExp]> = [
    ['a truncated nodes file', (n, b) => (n.startsWith('nodes-') ? b.subarray(0, 5000) : b), /Unexpected EOF/],
    [
      'a header.pb that is not a proto',
      (n, b) => (n === 'header.pb' ? Buffer.from('not a header') : b),
      /Cannot parse binary proto from header\.pb$/,
    ],
    ['no data_spec.pb', (n, b) => (n === 'data_spec.pb' ? null : b), /Failed to open data_spec\.pb$/],
  ];
  for (const [what, damage, reason] of damaged) {
    it(`refuses the version at load when its Yggdrasil model has ${what}, naming the op`, async () => {
      const dir = path.join(tempDir('tfgate-tfdf-'), '1');
      fs.cpSync(ADULT_RF, dir, { recursive: true });
      const assets = path.join(dir, 'assets');
      for (const name of fs.readdirSync(assets)) {
        const bytes = damage(name, fs.readFileSync(path.join(assets, name)));
        if (bytes === null) fs.rmSync(path.join(assets, name));
        else fs.writeFileSync(path.join(assets, name), bytes);
      }
      const before = (await yggdrasilUsage()).liveModels;
      const error = await runtime.load(dir, { tags: ['serve'] }).then(
        () => assert.fail('loaded'),
        (e: unknown) => toStatusData(e),
      );
      assert.match(
        error.message,
        /SimpleMLLoadModelFromPathWithHandle '\S*simple_ml\/SimpleMLLoadModelFromPathWithHandle' \(init op\) cannot load the Yggdrasil model in \S+\/assets\/: /,
      );
      assert.match(error.message, reason);
      assert.equal((await yggdrasilUsage()).liveModels, before, 'nothing is left loaded');
    });
  }
});
