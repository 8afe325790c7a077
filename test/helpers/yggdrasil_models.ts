// Small Yggdrasil models written here, as TF-DF's own kernel tests write them
// (tensorflow_decision_forests/tensorflow/ops/inference/test_utils.py: build_toy_data_spec,
// build_toy_random_forest, build_toy_gbdt), so that the predictions those tests state
// (expected_toy_predictions_*) can be checked on the engine tfgate runs. Files are returned
// as name → bytes, the form YggdrasilForest.load takes.
import { protoType } from '../../src/proto/index.js';

const encode = (type: string, value: object): Uint8Array => {
  const t = protoType(`yggdrasil_decision_forests.${type}`);
  return t.encode(t.fromObject(value)).finish();
};

/** A blob sequence (yggdrasil_decision_forests/utils/blob_sequence.h, version 0): "BS", u16 version, 4 reserved bytes, then u32-LE-length-prefixed blobs. */
function blobSequence(blobs: Uint8Array[]): Uint8Array {
  const parts: Uint8Array[] = [Uint8Array.from([0x42, 0x53, 0, 0, 0, 0, 0, 0])];
  for (const b of blobs) {
    const length = new Uint8Array(4);
    new DataView(length.buffer).setUint32(0, b.length, true);
    parts.push(length, b);
  }
  return Uint8Array.from(parts.flatMap((p) => [...p]));
}

const vocabulary = (names: string[]) => Object.fromEntries(names.map((n, index) => [n, { index }]));

/** build_toy_data_spec: a (numerical), b (categorical x/y/z), c (integerized, 5 values), label (v1–v3), label_binary (v1, v2), then optional extras. */
function toyDataSpec(opts: { booleanFeature?: boolean; categoricalSets?: boolean }): Uint8Array {
  const columns: object[] = [
    { name: 'a', type: 'NUMERICAL' },
    { name: 'b', type: 'CATEGORICAL', categorical: { numberOfUniqueValues: 3, items: vocabulary(['oov', 'x', 'y', 'z']) } },
    { name: 'c', type: 'CATEGORICAL', categorical: { numberOfUniqueValues: 5, isAlreadyIntegerized: true } },
    { name: 'label', type: 'CATEGORICAL', categorical: { numberOfUniqueValues: 4, items: vocabulary(['oov', 'v1', 'v2', 'v3']) } },
    { name: 'label_binary', type: 'CATEGORICAL', categorical: { numberOfUniqueValues: 3, items: vocabulary(['oov', 'v1', 'v2']) } },
  ];
  if (opts.booleanFeature) columns.push({ name: 'bool_feature', type: 'BOOLEAN' });
  if (opts.categoricalSets) {
    columns.push({
      name: 'd',
      type: 'CATEGORICAL_SET',
      categorical: { numberOfUniqueValues: 4, items: vocabulary(['oov', 'x', 'y', 'z']) },
    });
    columns.push({ name: 'e', type: 'CATEGORICAL_SET', categorical: { numberOfUniqueValues: 20, isAlreadyIntegerized: true } });
  }
  return encode('DataSpecification', { columns });
}

const higher = (attribute: number, threshold: number) => ({
  condition: { naValue: false, attribute, condition: { higherCondition: { threshold } } },
});
const classifier = (topValue: number, counts: number[], sum: number) => ({ classifier: { topValue, distribution: { counts, sum } } });

/**
 * build_toy_random_forest: `trees` copies of
 *   [a > 1] → no: [b in {x, y}] → no: 80/10/10 %, yes: 10/80/10 %
 *           → yes: [c in {1, 3}] (with categoricalSets: [d ∩ {1, 3} ≠ ∅]) → no: 50/50/0 %, yes: 0/50/50 %
 * where with booleanFeature the last leaf becomes [bool_feature] → no: 0/20/80 %, yes: 0/80/20 %.
 * (Yggdrasil stores a node, then its negative subtree, then its positive one.)
 */
export function toyRandomForest(opts: {
  winnerTakeAll: boolean;
  booleanFeature?: boolean;
  categoricalSets?: boolean;
  trees?: number;
}): Map<string, Uint8Array> {
  const trees = opts.trees ?? 2;
  const inputFeatures = [0, 1, 2, ...(opts.booleanFeature ? [5] : []), ...(opts.categoricalSets ? [5, 6] : [])];
  const tree = [
    higher(0, 1),
    { condition: { naValue: false, attribute: 1, condition: { containsBitmapCondition: { elementsBitmap: Uint8Array.of(0x06) } } } },
    classifier(1, [0, 0.8, 0.1, 0.1], 1),
    classifier(2, [0, 0.1, 0.8, 0.1], 1),
    { condition: { naValue: false, attribute: opts.categoricalSets ? 5 : 2, condition: { containsCondition: { elements: [1, 3] } } } },
    classifier(1, [0, 1, 1, 0], 2),
    ...(opts.booleanFeature
      ? [
          { condition: { naValue: false, attribute: 5, condition: { trueValueCondition: {} } } },
          classifier(3, [0, 0, 0.2, 0.8], 1),
          classifier(2, [0, 0, 0.8, 0.2], 1),
        ]
      : [classifier(2, [0, 0, 1, 1], 2)]),
  ].map((n) => encode('Node', n));
  return new Map([
    ['done', new TextEncoder().encode('Something')],
    ['data_spec.pb', toyDataSpec(opts)],
    ['header.pb', encode('AbstractModel', { name: 'RANDOM_FOREST', task: 'CLASSIFICATION', labelColIdx: 3, inputFeatures })],
    [
      'random_forest_header.pb',
      encode('RandomForestHeader', {
        numNodeShards: 1,
        numTrees: trees,
        winnerTakeAllInference: opts.winnerTakeAll,
        nodeFormat: 'BLOB_SEQUENCE',
      }),
    ],
    ['nodes-00000-of-00001', blobSequence(Array.from({ length: trees }, () => tree).flat())],
  ]);
}

/**
 * build_toy_gbdt: two iterations of one tree per class (one for 2 classes): [a > 1] → no: 1 + k,
 * yes: 5 + k². `splitOn` puts another condition at the root instead (not in TF-DF's tests):
 * 'b' = [b ∈ {x, y}], 'd' = [d ∩ {1, 3} ≠ ∅] (with the categorical-set columns).
 */
export function toyGradientBoostedTrees(classes: 2 | 3, splitOn: 'a' | 'b' | 'd' = 'a'): Map<string, Uint8Array> {
  const perIteration = classes === 2 ? 1 : classes;
  const root = {
    a: higher(0, 1),
    b: { condition: { naValue: false, attribute: 1, condition: { containsBitmapCondition: { elementsBitmap: Uint8Array.of(0x06) } } } },
    d: { condition: { naValue: false, attribute: 5, condition: { containsCondition: { elements: [1, 3] } } } },
  }[splitOn];
  const nodes: Uint8Array[] = [];
  for (let iteration = 0; iteration < 2; iteration++) {
    for (let k = 0; k < perIteration; k++) {
      nodes.push(
        encode('Node', root),
        encode('Node', { regressor: { topValue: 1 + k } }),
        encode('Node', { regressor: { topValue: 5 + k * k } }),
      );
    }
  }
  const categoricalSets = splitOn === 'd';
  return new Map([
    ['done', new TextEncoder().encode('Something')],
    ['data_spec.pb', toyDataSpec({ categoricalSets })],
    [
      'header.pb',
      encode('AbstractModel', {
        name: 'GRADIENT_BOOSTED_TREES',
        task: 'CLASSIFICATION',
        labelColIdx: classes === 2 ? 4 : 3,
        inputFeatures: [0, 1, 2, ...(categoricalSets ? [5, 6] : [])],
      }),
    ],
    [
      'gradient_boosted_trees_header.pb',
      encode('GradientBoostedTreesHeader', {
        numNodeShards: 1,
        numTrees: 2 * perIteration,
        loss: classes === 2 ? 'BINOMIAL_LOG_LIKELIHOOD' : 'MULTINOMIAL_LOG_LIKELIHOOD',
        initialPredictions: classes === 2 ? [1] : [0, 0, 0],
        numTreesPerIter: perIteration,
        nodeFormat: 'BLOB_SEQUENCE',
      }),
    ],
    ['nodes-00000-of-00001', blobSequence(nodes)],
  ]);
}
