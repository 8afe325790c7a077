// The corpus of real SavedModels (test/corpus/models, where each comes from: test/corpus/
// PROVENANCE.md): every signature of every model, loaded once per engine — the WASM runtime
// (in this process), TF.js's plain-JS CPU backend (in an executor thread: one TF.js backend per
// thread) and ONNX Runtime without fallback — must end in the outcome recorded for it in CORPUS
// below, so that any change in behaviour fails the test:
//   stated   — the outputs equal the value the source states (test/corpus/expected.json) on
//              every engine that serves the signature, and those engines agree on seeded inputs;
//   agree    — the listed engines agree on seeded inputs (or the entry's own inputs), within
//              the differential harness's tolerance (1e-4 relative);
//   refused  — the load refuses the signature with a message naming the listed ops;
//   disagree — a KNOWN bug: the engines disagree and the harness names this first differing
//              node (recorded, so never silent; a fix or another node fails the test);
//   fails    — a KNOWN bug: the signature loads but running it fails with this message;
//   wrong    — a KNOWN bug: the engines agree with each other but not with the stated value.
// Run the compiled file with `--record` to print what is observed now (to update the table
// after a deliberate change), or with `--table` (test/corpus/print_table.ts) for the markdown
// table of the corpus.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { referenceThread } from '../../src/servables/version_verifier.js';
import type { ReferenceEngine } from '../../src/runtimes/verify/verify_signatures.js';
import { checkSignature, type EngineUnderCheck } from '../../src/runtimes/verify/differential.js';
import { seededInputs } from '../../src/runtimes/verify/seeded_inputs.js';
import { tensorDifference } from '../../src/runtimes/verify/compare_tensors.js';
import { EmbeddedRuntime } from '../../src/runtimes/embedded/embedded_runtime.js';
import { OnnxRuntime } from '../../src/runtimes/onnx/onnx_runtime.js';
import type { Servable } from '../../src/runtimes/runtime.js';
import type { SignatureSpec } from '../../src/savedmodel/signature_spec.js';
import { readSavedModelProto } from '../../src/savedmodel/saved_model_reader.js';
import { protoType } from '../../src/proto/index.js';
import { toStatusData } from '../../src/errors/status.js';
import type { HostTensor } from '../../src/tensor/host_tensor.js';
import type { DType } from '../../src/tensor/dtype.js';
import { MODELS, REPO_ROOT } from '../helpers/paths.js';
import { adultFeatures } from '../helpers/adult_census.js';

export const CORPUS_DIR = path.join(REPO_ROOT, 'test', 'corpus');
export const CORPUS_MODELS = path.join(CORPUS_DIR, 'models');
const TAGS = ['serve'];

type EngineName = 'onnxruntime' | 'wasm' | 'cpu';

export type Outcome =
  | { stated: EngineName[] }
  | { agree: EngineName[] }
  | { refused: string[]; says?: string }
  | { disagree: string }
  | { fails: string }
  | { wrong: string };

export interface CorpusEntry {
  family: string;
  /** Signature key → its recorded outcome (every served-or-refused signature is listed). */
  signatures: Record<string, Outcome>;
  /** Inputs for signatures whose inputs seeded_inputs cannot make up (strings, serialized Examples). */
  inputs?: (signature: string, spec: SignatureSpec) => Record<string, HostTensor> | undefined;
}

// ---- inputs the harness cannot make up -------------------------------------------------------

const utf8 = (s: string) => new TextEncoder().encode(s);
const strings = (values: string[]): HostTensor => ({ dtype: 'string', shape: [values.length], values: values.map(utf8) });

/** Token ids as the float tensor a Keras Embedding input declares. */
const tokenIds = (rows: number[][]): HostTensor => ({
  dtype: 'float32',
  shape: [rows.length, rows[0].length],
  values: Float32Array.from(rows.flat()),
});

/** A serialized tf.Example from plain values (number[] of floats, bigint[] of ints, string[]). */
function example(features: Record<string, number[] | bigint[] | string[]>): Uint8Array {
  const feature: Record<string, unknown> = {};
  for (const [name, v] of Object.entries(features)) {
    if (typeof v[0] === 'string') feature[name] = { bytesList: { value: (v as string[]).map(utf8) } };
    else if (typeof v[0] === 'bigint') feature[name] = { int64List: { value: (v as bigint[]).map((x) => x.toString()) } };
    else feature[name] = { floatList: { value: v } };
  }
  const type = protoType('tensorflow.Example');
  return type.encode(type.fromObject({ features: { feature } })).finish();
}

/**
 * Two Chicago-taxi trips as the TFX taxi models read them (feature names from their transform),
 * with census tracts as the data set has them: beyond int32, which the embedded runtime holds,
 * and answered since these graphs never read them (saturated_int64.test.ts).
 */
const TAXI_EXAMPLES: HostTensor = {
  dtype: 'string',
  shape: [2],
  values: [
    example({
      company: ['Taxi Affiliation Services'],
      payment_type: ['Cash'],
      dropoff_community_area: [8n],
      pickup_community_area: [8n],
      dropoff_census_tract: [17031081500n],
      pickup_census_tract: [17031081403n],
      dropoff_latitude: [41.892],
      dropoff_longitude: [-87.626],
      pickup_latitude: [41.899],
      pickup_longitude: [-87.633],
      fare: [5.85],
      tips: [0],
      trip_miles: [0.9],
      trip_seconds: [360n],
      trip_start_day: [3n],
      trip_start_hour: [14n],
      trip_start_month: [5n],
      trip_start_timestamp: [1400000000n],
    }),
    example({
      company: ['Flash Cab'],
      payment_type: ['Credit Card'],
      dropoff_community_area: [32n],
      pickup_community_area: [76n],
      dropoff_census_tract: [17031320100n],
      pickup_census_tract: [17031980000n],
      dropoff_latitude: [41.884],
      dropoff_longitude: [-87.62],
      pickup_latitude: [41.98],
      pickup_longitude: [-87.913],
      fare: [44.25],
      tips: [10],
      trip_miles: [17.6],
      trip_seconds: [2400n],
      trip_start_day: [6n],
      trip_start_hour: [8n],
      trip_start_month: [11n],
      trip_start_timestamp: [1450000000n],
    }),
  ],
};

/** Two Palmer penguins (an Adelie and a Chinstrap) as the TFX penguin model reads them. */
const PENGUIN_EXAMPLES: HostTensor = {
  dtype: 'string',
  shape: [2],
  values: [
    example({ culmen_length_mm: [39.1], culmen_depth_mm: [18.7], flipper_length_mm: [181], body_mass_g: [3750] }),
    example({ culmen_length_mm: [46.5], culmen_depth_mm: [17.9], flipper_length_mm: [192], body_mass_g: [3500] }),
  ],
};

/** Census rows as the TF-DF Adult model reads them: 14 columns, int64 or string (a missing string is ""). */

const taxiInputs = (_signature: string, spec: SignatureSpec) => {
  const keys = Object.keys(spec.inputs);
  return keys.length === 1 ? { [keys[0]]: TAXI_EXAMPLES } : undefined;
};

/**
 * A tf.Transform serving function's inputs: one SparseTensor a feature, fed as its components
 * `inputs_{3k}` (indices [n, 2]), `inputs_{3k+1}` (values [n]) and `inputs_{3k+2}` (dense_shape
 * [2]); here two rows of one value each.
 */
function sparseComponentInputs(_signature: string, spec: SignatureSpec): Record<string, HostTensor> {
  const out: Record<string, HostTensor> = {};
  for (const [key, input] of Object.entries(spec.inputs)) {
    const n = key === 'inputs' ? 0 : Number(key.slice('inputs_'.length));
    const role = n % 3;
    if (role === 0) out[key] = { dtype: 'int64', shape: [2, 2], values: BigInt64Array.from([0n, 0n, 1n, 0n]) };
    else if (role === 2) out[key] = { dtype: 'int64', shape: [2], values: BigInt64Array.from([2n, 1n]) };
    else if (input.dtype === 'DT_STRING') out[key] = strings(n % 2 ? ['Cash', 'Flash Cab'] : ['Credit Card', 'Taxi Affiliation Services']);
    else if (input.dtype === 'DT_FLOAT') out[key] = { dtype: 'float32', shape: [2], values: Float32Array.from([41.892 + n, -87.626 + n]) };
    else out[key] = { dtype: 'int64', shape: [2], values: BigInt64Array.from([BigInt(n), 1000n + BigInt(n)]) };
  }
  return out;
}

// ---- the recorded outcomes -------------------------------------------------------------------

export const CORPUS: Record<string, CorpusEntry> = {
  alina_text_classifier: {
    family: 'TextVectorization + Embedding + Dense text classifier (Keras 2)',
    signatures: { serving_default: { agree: ['cpu', 'wasm'] } },
    // Raw texts, with case and punctuation for the standardizer, one unknown word, and an empty one.
    inputs: () => ({
      text_vectorization_input: {
        dtype: 'string',
        shape: [3, 1],
        values: ['What a GREAT movie, I loved it!', 'terrible acting and a boring plot zzyzx', ''].map(utf8),
      },
    }),
  },
  autoencoder_test: {
    family: 'dense autoencoder, MNIST 28×28 (Keras 2, SELU)',
    signatures: { serving_default: { agree: ['cpu', 'onnxruntime', 'wasm'] } },
  },
  ecg_cnn_float: {
    family: 'CNN + transformer-encoder (attention) ECG classifier, float (Keras 2)',
    signatures: { serving_default: { agree: ['cpu', 'wasm'] } },
  },
  ecg_qat: {
    family: 'the same CNN + attention, quantisation-aware trained (tfmot QAT)',
    signatures: { serving_default: { agree: ['cpu', 'wasm'] } },
  },
  gearbox_autoencoder: {
    family: 'dense autoencoder, tabular gearbox vibration (Keras 2)',
    signatures: { serving_default: { agree: ['cpu', 'onnxruntime', 'wasm'] } },
  },
  gearbox_dnn: {
    family: 'dense classifier, quantisation-aware trained (tfmot QAT)',
    signatures: { serving_default: { agree: ['cpu', 'onnxruntime', 'wasm'] } },
  },
  mcunet: {
    family: 'MCUNet (MobileNet-style CNN, PyTorch → ONNX → TF via onnx-tf, NCHW input)',
    signatures: { serving_default: { agree: ['cpu', 'onnxruntime', 'wasm'] } },
  },
  nano_u: {
    family: 'Nano-U: tiny depthwise-separable U-Net segmenter (onnx-tf export, TF 2.19)',
    signatures: {
      // Its ResizeBilinear, written over `axes`, once made ORT's layout optimiser build a Resize
      // with empty sizes (no session, WASM served it); sizes now cover all four axes.
      serving_default: { agree: ['cpu', 'onnxruntime', 'wasm'] },
    },
  },
  speech_cnn: {
    family: 'CNN + BatchNorm audio classifier over MFCC features',
    signatures: { serving_default: { agree: ['cpu', 'onnxruntime', 'wasm'] } },
  },
  rnn_series_gru: {
    family: 'Keras GRU time-series regressor',
    signatures: { serving_default: { agree: ['cpu', 'wasm'] } },
  },
  rnn_series_lstm: {
    family: 'Keras LSTM time-series regressor',
    signatures: { serving_default: { agree: ['cpu', 'wasm'] } },
  },
  sentence_cnn: {
    family: 'Conv1D sentence classifier over word vectors (Kim CNN)',
    signatures: { serving_default: { agree: ['cpu', 'wasm'] } },
  },
  sms_phishing: {
    family: 'Embedding + Dense text classifier (SMS spam)',
    signatures: { serving_default: { agree: ['cpu', 'onnxruntime', 'wasm'] } },
    inputs: () => ({
      embedding_6_input: tokenIds([
        [12, 5, 230, 7, 41, 0, 0, 0],
        [3, 99, 1, 17, 8, 64, 2, 0],
      ]),
    }),
  },
  tathara_rnn: {
    family: 'stacked Keras LSTM sequence classifier',
    signatures: { serving_default: { agree: ['cpu', 'wasm'] } },
  },
  tf2onnx_regression: {
    family: 'TF1 linear regression (SavedModelBuilder)',
    signatures: { serving_default: { agree: ['cpu', 'onnxruntime', 'wasm'] } },
    // X has no declared shape; tf2onnx's own test feeds a ramp of shape [1].
    inputs: () => ({ X: { dtype: 'float32', shape: [3], values: Float32Array.from([1, 2, 3]) } }),
  },
  tfx_bench_tft_tf2: {
    family: 'tf.Transform TF2 preprocessing (vocabulary StaticHashTable, bucketize)',
    signatures: { serving_default: { agree: ['cpu', 'wasm'] } },
    inputs: sparseComponentInputs,
  },
  tfx_bench_trained: {
    family: 'TF Estimator wide-and-deep, ParseExample serving input + tf.Transform',
    signatures: {
      classification: { agree: ['cpu', 'wasm'] },
      predict: { agree: ['cpu', 'wasm'] },
      regression: { agree: ['cpu', 'wasm'] },
      serving_default: { agree: ['cpu', 'wasm'] },
    },
    inputs: taxiInputs,
  },
  tfx_taxi_estimator: {
    family: 'TF Estimator wide-and-deep, ParseExample serving input + tf.Transform',
    signatures: {
      classification: { agree: ['cpu', 'wasm'] },
      predict: { agree: ['cpu', 'wasm'] },
      regression: { agree: ['cpu', 'wasm'] },
      serving_default: { agree: ['cpu', 'wasm'] },
    },
    inputs: taxiInputs,
  },
  tfx_penguin_keras: {
    family: 'Keras tabular classifier behind a ParseExample + tf.Transform serving function (TFX penguin)',
    signatures: { serving_default: { agree: ['cpu', 'onnxruntime', 'wasm'] } },
    inputs: () => ({ examples: PENGUIN_EXAMPLES }),
  },
  tfdf_adult_rf: {
    family: 'TF Decision Forests random forest (Keras), its Yggdrasil model in assets/',
    signatures: {
      // The forest runs on Yggdrasil's WASM engine under both backends; the lookups, casts and
      // packing around it are what the two compare. The stated rows include a missing value.
      serving_default: { stated: ['cpu', 'wasm'] },
    },
    inputs: () =>
      adultFeatures([
        [25, 'Private', 226802, '11th', 7, 'Never-married', 'Machine-op-inspct', 'Own-child', 'Black', 'Male', 0, 0, 40, 'United-States'],
        [28, 'Local-gov', 336951, 'Assoc-acdm', 12, 'Married-civ-spouse', 'Protective-serv', 'Husband', 'White', 'Male', 0, 0, 40, ''],
      ]),
  },
  thai_word_segmentation: {
    family: 'TF1 bidirectional GRU tagger (tf.nn dynamic RNN, while loops, tf.data iterator)',
    signatures: { word_segmentation: { refused: ['IteratorFromStringHandle', 'IteratorGetNext'] } },
  },
  two_tower_retrieval: {
    family: 'TF Recommenders ranking model: StringLookup + Embedding towers, Dense head',
    signatures: {
      // The StringLookup tables are filled by __saved_model_init_op; before tfgate resolved tables
      // at load, every id looked up as out-of-vocabulary and user 42 and "Speed (1994)" gave
      // 3.5888 with WASM and CPU agreeing: the stated 3.6384823 is what caught it.
      serving_default: { stated: ['cpu', 'wasm'] },
    },
    inputs: () => ({ user_id: strings(['42', '138']), movie_title: strings(['Star Wars (1977)', 'Toy Story (1995)']) }),
  },
  walking_mlp: {
    family: 'tabular regressor (dense MLP)',
    signatures: { serving_default: { agree: ['cpu', 'onnxruntime', 'wasm'] } },
  },
  wjnnora_export: {
    family: 'tabular regressor (dense, TF 2.2 Keras with training graph)',
    signatures: { serving_default: { agree: ['cpu', 'onnxruntime', 'wasm'] } },
  },
};

// ---- observing a model -----------------------------------------------------------------------

export interface Observed {
  outcome: Outcome;
  /** Why ONNX Runtime does not serve it (its refusal), when it does not. */
  notOnnx?: string;
  /** The full message behind a refused / fails / disagree outcome. */
  detail?: string;
}

const message = (e: unknown) => toStatusData(e).message;

/** Op names a refusal message names: `Op (node …)`. */
export function namedOps(text: string): string[] {
  return [...new Set([...text.matchAll(/([A-Z][A-Za-z0-9]*) \(node /g)].map((m) => m[1]))].sort();
}

/**
 * The part of a whole-version refusal ("no signature can be served (a: …; b: …)") that is about
 * signature `key`, so that each signature is held to the ops its own graph uses.
 */
export function sectionFor(text: string, key: string, keys: string[]): string {
  const at = (k: string) => Math.max(text.indexOf(`(${k}: `), text.indexOf(`; ${k}: `));
  const start = at(key);
  if (start < 0) return text;
  const ends = keys.map(at).filter((i) => i > start);
  return text.slice(start + 1, ends.length ? Math.min(...ends) : text.endsWith(')') ? -1 : undefined).trim();
}

interface Stated {
  inputs: Record<string, { dtype: DType; shape: number[]; values: Array<number | string> }>;
  outputs: Record<string, { shape: number[]; values: number[] }>;
  tolerance: number;
}

function loadExpected(): Record<string, Record<string, Stated[]>> {
  const file = path.join(CORPUS_DIR, 'expected.json');
  const json = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
  return Object.fromEntries(Object.entries(json).filter(([k]) => !k.startsWith('_'))) as Record<string, Record<string, Stated[]>>;
}

function statedTensor(t: Stated['inputs'][string]): HostTensor {
  if (t.dtype === 'string') return { dtype: 'string', shape: t.shape, values: (t.values as string[]).map(utf8) };
  if (t.dtype === 'int64') return { dtype: 'int64', shape: t.shape, values: BigInt64Array.from(t.values as number[], (v) => BigInt(v)) };
  if (t.dtype === 'int32') return { dtype: 'int32', shape: t.shape, values: Int32Array.from(t.values as number[]) };
  return { dtype: 'float32', shape: t.shape, values: Float32Array.from(t.values as number[]) };
}

function statedDifference(got: Record<string, HostTensor>, want: Stated): string | null {
  for (const [key, w] of Object.entries(want.outputs)) {
    const g = got[key];
    if (!g) return `output '${key}' missing`;
    const d = tensorDifference(g, { dtype: 'float32', shape: w.shape, values: Float32Array.from(w.values) }, want.tolerance);
    if (d) return `output '${key}': ${d}`;
  }
  return null;
}

/** Loads `model` once per engine and observes every signature. */
export async function observeModel(
  model: string,
  wasmRuntime: EmbeddedRuntime,
  onnxRuntime: OnnxRuntime,
): Promise<Record<string, Observed>> {
  const dir = path.join(CORPUS_MODELS, model, '1');
  const entry = CORPUS[model];
  const expected = loadExpected()[model] ?? {};
  const sm = await readSavedModelProto(dir);
  const mg = sm.metaGraphs!.find((m) => (m.metaInfoDef?.tags ?? []).join() === TAGS.join()) ?? sm.metaGraphs![0];
  const keys = Object.keys(mg.signatureDef ?? {})
    .filter((k) => k !== '__saved_model_init_op')
    .sort();

  const settle = async <T>(p: Promise<T>): Promise<T | Error> => p.catch((e) => new Error(message(e)));
  const wasm = await settle(wasmRuntime.load(dir, { tags: TAGS }));
  const onnx = await settle(onnxRuntime.load(dir, { tags: TAGS }));
  const cpu: ReferenceEngine | Error = wasm instanceof Error ? wasm : await settle(referenceThread(dir, TAGS)('cpu'));
  const out: Record<string, Observed> = {};
  try {
    for (const key of keys) {
      const notOnnx = onnx instanceof Error ? onnx.message : onnx.engines[key] ? undefined : (onnx.refusals[key] ?? 'not loaded');
      const refusal =
        wasm instanceof Error ? sectionFor(wasm.message, key, keys) : wasm.engines[key] ? undefined : (wasm.refusals[key] ?? 'not loaded');
      if (refusal !== undefined) {
        out[key] = { outcome: { refused: namedOps(refusal) }, notOnnx, detail: refusal };
        continue;
      }
      const w = wasm as Servable;
      const spec = w.signatures[key];
      const seeded = seededInputs(spec);
      const inputs = entry?.inputs?.(key, spec) ?? ('inputs' in seeded ? seeded.inputs : undefined);
      if (!inputs) {
        out[key] = { outcome: { fails: `no inputs: ${'skip' in seeded ? seeded.skip : ''}` }, notOnnx };
        continue;
      }
      try {
        await w.run(key, inputs);
      } catch (e) {
        out[key] = { outcome: { fails: message(e) }, notOnnx, detail: message(e) };
        continue;
      }
      const engines: EngineName[] = [];
      let problem: Observed | undefined;
      const wasmEngine: EngineUnderCheck = { name: 'wasm', run: (s, i) => w.run(s, i), trace: (s, i) => w.trace!(s, i) };
      const checks: Array<[EngineName, EngineUnderCheck, EngineUnderCheck]> = [];
      if (!(onnx instanceof Error) && onnx.engines[key]) {
        const o = onnx;
        checks.push(['onnxruntime', { name: 'onnxruntime', run: (s, i) => o.run(s, i), trace: (s, i) => o.trace!(s, i) }, wasmEngine]);
      }
      if (cpu instanceof Error || !cpu.engines[key]) {
        problem = {
          outcome: { fails: `the CPU backend does not serve it: ${cpu instanceof Error ? cpu.message : cpu.refusals[key]}` },
          notOnnx,
        };
      } else {
        const c = cpu;
        checks.push(['cpu', wasmEngine, { name: 'cpu', run: (s, i) => c.run(s, i), trace: (s, i) => c.trace(s, i) }]);
      }
      for (const [name, a, b] of checks) {
        if (problem) break;
        const r = await checkSignature(a, b, key, inputs, 'seeded inputs');
        if (r.kind === 'disagree') {
          const node = /first differing node: (\S+)/.exec(r.message)?.[1] ?? r.message;
          problem = { outcome: { disagree: node }, notOnnx, detail: r.message };
        } else if (r.kind === 'unchecked') {
          problem = { outcome: { fails: r.reason }, notOnnx, detail: r.reason };
        } else engines.push(name);
      }
      if (problem) {
        out[key] = problem;
        continue;
      }
      engines.unshift('wasm');
      const stated = expected[key];
      if (stated?.length) {
        const matched: EngineName[] = [];
        let why = '';
        const runners: Array<[EngineName, (i: Record<string, HostTensor>) => Promise<Record<string, HostTensor>>]> = [
          ['wasm', (i) => w.run(key, i)],
        ];
        if (!(cpu instanceof Error)) runners.push(['cpu', (i) => cpu.run(key, i)]);
        if (!(onnx instanceof Error) && onnx.engines[key]) runners.push(['onnxruntime', (i) => onnx.run(key, i)]);
        for (const [name, run] of runners) {
          let ok = true;
          for (const s of stated) {
            const got = await run(Object.fromEntries(Object.entries(s.inputs).map(([k, t]) => [k, statedTensor(t)]))).catch(
              (e) => new Error(message(e)),
            );
            const d = got instanceof Error ? got.message : statedDifference(got, s);
            if (d) {
              ok = false;
              why ||= `${name}: ${d}`;
            }
          }
          if (ok) matched.push(name);
        }
        out[key] =
          matched.length === runners.length
            ? { outcome: { stated: matched.sort() }, notOnnx }
            : { outcome: { wrong: why }, notOnnx, detail: why };
        continue;
      }
      out[key] = { outcome: { agree: engines.sort() }, notOnnx };
    }
  } finally {
    if (!(wasm instanceof Error)) wasm.dispose();
    if (!(onnx instanceof Error)) onnx.dispose();
    if (!(cpu instanceof Error)) await cpu.close();
  }
  return out;
}

// ---- the markdown table ----------------------------------------------------------------------

/** Every op of a SavedModel: graph nodes and function bodies, all MetaGraphDefs. */
export async function modelOps(dir: string): Promise<{ ops: Set<string>; tfVersion: string }> {
  const sm = await readSavedModelProto(dir);
  const ops = new Set<string>();
  let tfVersion = '';
  for (const mg of sm.metaGraphs ?? []) {
    tfVersion ||= mg.metaInfoDef?.tensorflowVersion ?? '';
    for (const n of mg.graphDef?.node ?? []) ops.add(n.op!);
    for (const f of mg.graphDef?.library?.function ?? []) for (const n of f.nodeDef ?? []) ops.add(n.op!);
  }
  return { ops, tfVersion };
}

function describeOutcome(o: Outcome): string {
  if ('stated' in o) return `matches stated (${o.stated.join(', ')})`;
  if ('agree' in o) return `engines agree (${o.agree.join(' = ')})`;
  if ('refused' in o) return `refused: ${o.refused.join(', ') || o.says}`;
  if ('disagree' in o) return `DISAGREE at ${o.disagree}`;
  if ('wrong' in o) return `WRONG (engines agree, stated value differs): ${o.wrong}`;
  return `FAILS: ${o.fails}`;
}

export async function markdownTable(): Promise<string> {
  const fixtureOps = new Set<string>();
  const walk = async (d: string): Promise<void> => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) await walk(p);
      else if (e.name === 'saved_model.pb') for (const op of (await modelOps(d)).ops) fixtureOps.add(op);
    }
  };
  await walk(MODELS);
  const rows = ['| model | family | TF version | ops new to tfgate | result |', '|---|---|---|---|---|'];
  for (const [model, entry] of Object.entries(CORPUS).sort(([a], [b]) => a.localeCompare(b))) {
    const { ops, tfVersion } = await modelOps(path.join(CORPUS_MODELS, model, '1'));
    const fresh = [...ops].filter((op) => !fixtureOps.has(op)).sort();
    const result = Object.entries(entry.signatures)
      .map(([sig, o]) => `${sig}: ${describeOutcome(o)}`)
      .join('<br>');
    rows.push(`| ${model} | ${entry.family} | ${tfVersion} | ${fresh.join(' ') || '—'} | ${result} |`);
  }
  const outcomes = Object.values(CORPUS).flatMap((e) => Object.values(e.signatures));
  const answered = outcomes.filter((o) => 'stated' in o || 'agree' in o).length;
  const refused = outcomes.filter((o) => 'refused' in o).length;
  const bad = outcomes.length - answered - refused;
  rows.push(
    '',
    `${Object.keys(CORPUS).length} models, ${outcomes.length} signatures: ${answered} answered (stated or engines agree), ${refused} refused, ${bad} disagree or fail.`,
  );
  return rows.join('\n');
}

// ---- the test --------------------------------------------------------------------------------

const mode = process.argv.includes('--table') ? 'table' : process.argv.includes('--record') ? 'record' : 'test';

if (mode === 'table') {
  console.log(await markdownTable());
} else if (mode === 'record') {
  const wasmRuntime = new EmbeddedRuntime('wasm');
  const onnxRuntime = new OnnxRuntime({ device: 'cpu' });
  for (const model of fs.readdirSync(CORPUS_MODELS).sort()) {
    const t0 = Date.now();
    const observed = await observeModel(model, wasmRuntime, onnxRuntime);
    console.log(`// ${model} (${Date.now() - t0} ms)`);
    for (const [sig, o] of Object.entries(observed)) {
      console.log(
        `//   ${sig}: ${JSON.stringify(o.outcome)}${o.notOnnx ? `\n//     not ONNX: ${o.notOnnx}` : ''}${o.detail ? `\n//     detail: ${o.detail}` : ''}`,
      );
    }
  }
} else {
  describe('corpus: every real SavedModel ends in its recorded outcome', () => {
    const wasmRuntime = new EmbeddedRuntime('wasm');
    const onnxRuntime = new OnnxRuntime({ device: 'cpu' });

    it('every model folder has an entry, and every entry a folder', () => {
      assert.deepEqual(fs.readdirSync(CORPUS_MODELS).sort(), Object.keys(CORPUS).sort());
    });

    for (const [model, entry] of Object.entries(CORPUS)) {
      it(model, async (t) => {
        const observed = await observeModel(model, wasmRuntime, onnxRuntime);
        assert.deepEqual(Object.keys(observed).sort(), Object.keys(entry.signatures).sort(), 'every signature has a recorded outcome');
        for (const [sig, want] of Object.entries(entry.signatures)) {
          const got = observed[sig];
          const context = `${model} ${sig}: ${got.detail ?? ''}${got.notOnnx ? ` [not ONNX: ${got.notOnnx}]` : ''}`;
          if ('refused' in want && 'refused' in got.outcome) {
            assert.deepEqual(got.outcome.refused, [...want.refused].sort(), `the refusal names the recorded ops — ${context}`);
            if (want.says) assert.ok(got.detail?.includes(want.says), `the refusal says "${want.says}" — ${context}`);
            assert.ok(want.refused.length || want.says, 'a refusal names an op or records what it says');
          } else if ('fails' in want && 'fails' in got.outcome) {
            assert.ok(got.outcome.fails.includes(want.fails), `fails with "${want.fails}" — ${context}`);
          } else if ('wrong' in want && 'wrong' in got.outcome) {
            assert.ok(got.outcome.wrong.includes(want.wrong), `differs from the stated value as recorded ("${want.wrong}") — ${context}`);
          } else {
            assert.deepEqual(got.outcome, want, context);
          }
          t.diagnostic(
            `${sig}: ${describeOutcome(got.outcome)}${got.notOnnx ? ` (not on ONNX Runtime: ${got.notOnnx.slice(0, 300)})` : ''}`,
          );
        }
      });
    }
  });
}
