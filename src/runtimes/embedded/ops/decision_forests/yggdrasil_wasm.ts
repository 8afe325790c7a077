// Yggdrasil Decision Forests' inference compiled to WASM, as @tensorflow/tfjs-tfdf ships it:
// dist/inference_bundle.js is an Emscripten module around inference.wasm (Yggdrasil's
// port/javascript/inference.cc). Only that module is used, not the package's TF.js glue (its
// SimpleMLInferenceOpWithHandle keeps one model per process, and the module's own TF-DF
// output path pads every multi-class or regression row with zeros — measured on a 3-class
// model: [0,0,0,p1,p2,p3]); tfgate feeds the engine and shapes its raw predictions as TF's
// kernel does (yggdrasil_forest.ts).
//
// One module instance per thread, made on first use (~3 MB of WASM, ~0.2 s); each loaded
// model lives in its heap until deleted. Yggdrasil reports why a load failed only in its log,
// so the module's log lines are caught around each load.
import path from 'node:path';
import { createRequire } from 'node:module';

/** An Emscripten-bound std::vector. */
export interface EmVector<T> {
  size(): number;
  get(i: number): T;
  push_back(v: T): void;
  delete(): void;
}

/** A feature as the engine (or the model's input_features list) knows it. */
interface EngineFeature {
  name: string;
  /** Yggdrasil's ColumnType name: NUMERICAL, CATEGORICAL, CATEGORICAL_SET, BOOLEAN … */
  type: string;
  /** Index of the feature in the engine's examples; -1 in the input_features list. */
  internalIdx: number;
  /** Index of the column in the model's data spec. */
  specIdx: number;
}

/** inference.cc's Model: a compiled fast engine and one batch of examples. Not thread-safe (one per thread). */
export interface InternalModel {
  /** Allocates (when the size changes) and fills with "missing" a batch of `n` examples. */
  newBatchOfExamples(n: number): void;
  setNumerical(example: number, feature: number, value: number): void;
  setBoolean(example: number, feature: number, value: boolean): void;
  setCategoricalInt(example: number, feature: number, value: number): void;
  setCategoricalSetInt(example: number, feature: number, values: EmVector<number>): void;
  /** The engine's raw predictions, example-major: batch × NumPredictionDimension floats. */
  predict(): EmVector<number>;
  /** The features the engine reads (a model may list inputs no tree uses). */
  getInputFeatures(): EmVector<EngineFeature>;
  delete(): void;
}

interface YggdrasilModule {
  FS: {
    mkdirTree(dir: string): void;
    writeFile(file: string, data: Uint8Array): void;
    readdir(dir: string): string[];
    unlink(file: string): void;
    rmdir(dir: string): void;
  };
  /** null when the model cannot be loaded or compiled (the reason is logged). */
  InternalLoadModel(dir: string, createdTfdfSignature: boolean, filePrefix: string): InternalModel | null;
  CreateVectorInt(reserve: number): EmVector<number>;
  _malloc(bytes: number): number;
  _free(pointer: number): void;
}

/**
 * The model loaded but none of the fast engines compiled into the WASM build runs it (a random
 * forest with a boolean condition, say): TF would fall back to its slow generic engine, which
 * the WASM build does not have.
 */
export class NoFastEngine extends Error {}

type ModuleFactory = (options: {
  locateFile: (file: string) => string;
  print: (line: string) => void;
  printErr: (line: string) => void;
}) => Promise<YggdrasilModule>;

let instance: Promise<YggdrasilModule> | undefined;
/** Where the module's log lines go: collected during a load, dropped otherwise. */
let logSink: string[] | null = null;
let liveModels = 0;
let loads = 0;

function yggdrasilModule(): Promise<YggdrasilModule> {
  instance ??= (async () => {
    const require = createRequire(import.meta.url);
    // The package exports only its TF.js entry point: reach the bundle beside it by path.
    const dist = path.dirname(require.resolve('@tensorflow/tfjs-tfdf'));
    const factory = require(path.join(dist, 'inference_bundle.js')) as ModuleFactory;
    const log = (line: string) => logSink?.push(line);
    return factory({ locateFile: (file) => path.join(dist, file), print: log, printErr: log });
  })();
  return instance;
}

/** A Yggdrasil log line without its "[WARNING 26-01-01 00:00:00.0000 UTC file.cc:1] " head. */
const logMessage = (line: string) => line.replace(/^\[[A-Z]+ [^\]]*\] /, '');

/**
 * Compiles the model whose files are `files` (name → bytes, the folder's contents) into the
 * engine; `filePrefix` as TF-DF's load op passes it. Rejects with Yggdrasil's own reason.
 */
export async function loadYggdrasilModel(files: ReadonlyMap<string, Uint8Array>, filePrefix: string): Promise<InternalModel> {
  const m = await yggdrasilModule();
  const dir = `/tfgate_model_${++loads}`;
  m.FS.mkdirTree(dir);
  const lines: string[] = [];
  logSink = lines;
  let model: InternalModel | null;
  try {
    for (const [name, bytes] of files) m.FS.writeFile(`${dir}/${name}`, bytes);
    model = m.InternalLoadModel(dir, false, filePrefix);
  } catch (e) {
    // A C++ exception surfaces as a bare pointer: say so rather than print the number.
    throw new Error(`the engine aborted while reading it (${e instanceof Error ? e.message : 'a C++ exception'})`);
  } finally {
    logSink = null;
    for (const name of m.FS.readdir(dir)) if (name !== '.' && name !== '..') m.FS.unlink(`${dir}/${name}`);
    m.FS.rmdir(dir);
  }
  if (!model) {
    // Yggdrasil names its in-memory folder: the files' own names say enough.
    const reasons = lines.filter((l) => !l.startsWith('[INFO')).map((l) => logMessage(l).split(`${dir}/`).join(''));
    const reason = reasons.join('; ') || 'Yggdrasil could not load it';
    throw reasons.some((r) => r.startsWith('No compatible engine')) ? new NoFastEngine(reason) : new Error(reason);
  }
  liveModels++;
  const del = model.delete.bind(model);
  let deleted = false;
  model.delete = () => {
    if (deleted) return;
    deleted = true;
    liveModels--;
    del();
  };
  return model;
}

/** A bound vector's elements; the vector (returned by the engine, owned by the caller) is deleted. */
export function takeValues<T>(v: EmVector<T>): T[] {
  try {
    const out: T[] = [];
    for (let i = 0; i < v.size(); i++) out.push(v.get(i));
    return out;
  } finally {
    v.delete();
  }
}

/** A new bound vector of ints (the caller deletes it). */
export async function intVectorFactory(): Promise<(values: ArrayLike<number>) => EmVector<number>> {
  const m = await yggdrasilModule();
  return (values) => {
    const v = m.CreateVectorInt(values.length);
    for (let i = 0; i < values.length; i++) v.push_back(values[i]);
    return v;
  };
}

/**
 * Models loaded in this thread and not yet deleted, and where a 4 MiB allocation lands in the
 * engine's heap now (0 before first use): the allocator puts it at the same address after
 * every load/unload cycle that frees all it took, higher after one that leaves memory behind
 * (measured: +16 KB a cycle when the Adult forest is not deleted). What release tests watch.
 */
export async function yggdrasilUsage(): Promise<{ liveModels: number; heapMark: number }> {
  if (!instance) return { liveModels, heapMark: 0 };
  const m = await instance;
  const probe = m._malloc(4 << 20);
  m._free(probe);
  return { liveModels, heapMark: probe };
}
