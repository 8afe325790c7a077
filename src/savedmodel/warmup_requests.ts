// TF Serving's model warmup records: assets.extra/tf_serving_warmup_requests in a version
// folder, a TFRecord file of PredictionLog protos (predict, classify, regress or
// multi_inference), at most 1000 records, replayed before the version serves.
// Each record becomes one or more signature runs (multi_inference: one per task).
import path from 'node:path';
import { Code, ServingError, invalidArgument } from '../errors/status.js';
import { protoType, TO_OBJECT } from '../proto/index.js';
import type { HostTensor } from '../tensor/host_tensor.js';
import { hostTensorFromProto, tensorProtoFootprint, type TensorProtoObject } from './tensor_proto.js';
import { readTfRecords } from './tfrecord.js';
import { readVersionFile, versionPathExists } from './version_files.js';
import { loadMemoryBound, type LoadMemoryBound } from './load_bounds.js';

export const WARMUP_FILE = path.join('assets.extra', 'tf_serving_warmup_requests');
/** TF Serving's kMaxNumRecords. */
const MAX_WARMUP_RECORDS = 1000;
const DEFAULT_SIGNATURE = 'serving_default';

export interface WarmupRun {
  signature: string;
  inputs: Record<string, HostTensor>;
  outputKeys: string[];
}

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** Input (example_list / example_list_with_context) → one serialized tf.Example per example. */
function serializedExamples(input: Obj | undefined): HostTensor {
  const Example = protoType('tensorflow.Example');
  const list = input?.exampleList ?? input?.exampleListWithContext;
  if (!list) throw invalidArgument('Input is empty');
  const context = input?.exampleListWithContext?.context?.features?.feature ?? {};
  const values = ((list.examples ?? []) as Obj[]).map((e) =>
    Example.encode(Example.fromObject({ features: { feature: { ...context, ...(e.features?.feature ?? {}) } } })).finish(),
  );
  return { dtype: 'string', shape: [values.length], values };
}

/** A record's tensor, refused before it is expanded when it would exceed the load's bound (a broadcast value may declare billions of elements). */
function recordTensor(t: TensorProtoObject, key: string, bound: LoadMemoryBound): HostTensor {
  const { bytes } = tensorProtoFootprint(t);
  if (bytes > bound.bytes)
    throw new ServingError(
      Code.RESOURCE_EXHAUSTED,
      `input '${key}' would take ${bytes} bytes, over this load's memory bound of ${bound.bytes} bytes (${bound.rule})`,
    );
  return hostTensorFromProto(t, `input '${key}'`);
}

function runsOf(log: Obj, bound: LoadMemoryBound): WarmupRun[] {
  const examples = (request: Obj): WarmupRun => ({
    signature: request.modelSpec?.signatureName || DEFAULT_SIGNATURE,
    inputs: { inputs: serializedExamples(request.input) },
    outputKeys: [],
  });
  if (log.predictLog) {
    const r = log.predictLog.request ?? {};
    const inputs = Object.fromEntries(
      Object.entries((r.inputs ?? {}) as Record<string, TensorProtoObject>).map(([k, t]) => [k, recordTensor(t, k, bound)]),
    );
    return [{ signature: r.modelSpec?.signatureName || DEFAULT_SIGNATURE, inputs, outputKeys: r.outputFilter ?? [] }];
  }
  if (log.classifyLog) return [examples(log.classifyLog.request ?? {})];
  if (log.regressLog) return [examples(log.regressLog.request ?? {})];
  if (log.multiInferenceLog) {
    const r = log.multiInferenceLog.request ?? {};
    return ((r.tasks ?? []) as Obj[]).map((t) => examples({ modelSpec: t.modelSpec, input: r.input }));
  }
  throw invalidArgument(`Unsupported log_type for warmup: ${log.logType ?? 'none'}`);
}

/** The warmup runs of a version folder, or undefined when it has no warmup file. */
export async function readWarmupRuns(versionDir: string): Promise<WarmupRun[][] | undefined> {
  const file = path.join(versionDir, WARMUP_FILE);
  if (!(await versionPathExists(file))) return undefined;
  // A FIFO or a link out of the folder fails the load, as any unreadable warmup file does in TF Serving.
  const bytes = await readVersionFile(versionDir, file);
  // The records' tensors are bounded as the load's own: by the warmup file's size.
  const bound = loadMemoryBound(bytes.length);
  const records = readTfRecords(bytes, file, MAX_WARMUP_RECORDS + 1);
  if (records.length > MAX_WARMUP_RECORDS)
    throw invalidArgument(`Number of warmup records exceeds the maximum (${MAX_WARMUP_RECORDS}) at ${file}`);
  const PredictionLog = protoType('tensorflow.serving.PredictionLog');
  return records.map((rec, i) => {
    try {
      return runsOf(PredictionLog.toObject(PredictionLog.decode(rec), TO_OBJECT), bound);
    } catch (e) {
      const code = e instanceof ServingError ? e.code : Code.INVALID_ARGUMENT;
      throw new ServingError(code, `${file}: warmup record ${i}: ${(e as Error).message}`);
    }
  });
}
