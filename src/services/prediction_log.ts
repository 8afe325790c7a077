// The PredictionLog record of one served call (tensorflow_serving/apis/prediction_log.proto),
// as request logging writes it and model warmup reads it back:
//
//   PredictionLog {
//     log_metadata { model_spec { name version signature_name } sampling_config { sampling_rate }
//                    saved_model_tags timestamp_secs }
//     predict_log { request { PredictRequest } response { PredictResponse } }   // or classify_log,
//   }                                                                             // regress_log, multi_inference_log
//
// What each transport received is logged as the gRPC message it stands for: a REST :predict
// as the PredictRequest TF Serving's REST handler builds from the JSON, tensors written as
// tensor_content (strings as string_val); :classify / :regress examples as the serialized
// tf.Examples the signature ran on (an example_list; a context already merged into each
// example, as the signature sees it). Requests are encoded when captured: their input buffers
// move to an executor thread for the run. Responses are encoded only when the record is
// written, off the request path; until then the record holds the outputs themselves.
import protobuf from 'protobufjs';
import { protoType } from '../proto/index.js';
import { tensorProtoHead, type TensorProtoObject } from '../savedmodel/tensor_proto.js';
import type { HostTensor, TensorValues } from '../tensor/host_tensor.js';
import type { ModelSpec } from './servable_version.js';

/** One example's classes: [label, score] pairs ("" when the model has no classes output). */
export type Classification = Array<[string, number]>;

/** What every record of one logger carries besides the call (logging.proto's LogMetadata). */
export interface LogMetadataFields {
  samplingRate: number;
  savedModelTags: readonly string[];
}

/** One classify or regress run inside a call: which version and signature answered, and how. */
interface ExampleRun {
  version: number;
  signatureName: string;
  results: Classification[] | number[];
}

export type LoggedCall =
  | {
      kind: 'predict';
      /** The PredictRequest's bytes, encoded when the request was captured (capturePredictRequest). */
      request: Uint8Array;
      name: string;
      version: number;
      signatureName: string;
      outputs: Record<string, HostTensor>;
    }
  | { kind: 'classify' | 'regress'; spec: ModelSpec; signatureName?: string; examples: readonly Uint8Array[]; run: ExampleRun }
  | {
      kind: 'multi_inference';
      tasks: ReadonlyArray<{ spec: ModelSpec; signatureName?: string; methodName: string }>;
      examples: readonly Uint8Array[];
      runs: ReadonlyArray<ExampleRun & { kind: 'classify' | 'regress' }>;
    };

// Field numbers (prediction_log.proto, predict.proto, classification.proto, regression.proto,
// inference.proto, input.proto).
const LOG_METADATA = 1;
const LOG_FIELD = { classify: 2, regress: 3, multi_inference: 4, predict: 6 } as const;
const LOG_REQUEST = 1;
const LOG_RESPONSE = 2;
const EXAMPLES_REQUEST_MODEL_SPEC = 1;
const EXAMPLES_REQUEST_INPUT = 2;
const MULTI_REQUEST_TASKS = 1;
const MULTI_REQUEST_INPUT = 2;
const INPUT_EXAMPLE_LIST = 1;
const EXAMPLE_LIST_EXAMPLES = 1;

const lengthDelimited = (field: number) => (field << 3) | 2;

function modelSpecObject(spec: ModelSpec, signatureName: string | undefined): object {
  const o: Record<string, unknown> = { name: spec.name };
  if (spec.version !== undefined) o.version = { value: spec.version };
  else if (spec.label !== undefined) o.versionLabel = spec.label;
  if (signatureName) o.signatureName = signatureName;
  return o;
}

function servedSpec(name: string, version: number, signatureName: string): object {
  return { name, version: { value: version }, signatureName };
}

/** A tensor as a TensorProto whose tensor_content is a view of the tensor's own bytes (encode copies it). */
function tensorProtoView(t: HostTensor): TensorProtoObject {
  const proto = tensorProtoHead(t);
  if (t.dtype === 'string') proto.stringVal = t.values as Uint8Array[];
  else {
    const v = t.values as Exclude<TensorValues, Uint8Array[]>;
    proto.tensorContent = new Uint8Array(v.buffer, v.byteOffset, v.byteLength);
  }
  return proto;
}

function encode(type: string, object: object): Uint8Array {
  const T = protoType(type);
  return T.encode(T.fromObject(object)).finish();
}

/**
 * A Predict request's PredictRequest bytes, taken before it runs: the run may move the input
 * buffers to an executor thread. This copy is what logging a sampled request costs the
 * request itself.
 */
export function capturePredictRequest(
  spec: ModelSpec,
  signatureName: string | undefined,
  inputs: Record<string, HostTensor>,
  outputFilter: readonly string[],
): Uint8Array {
  const protos = Object.fromEntries(Object.entries(inputs).map(([k, t]) => [k, tensorProtoView(t)]));
  return encode('tensorflow.serving.PredictRequest', {
    modelSpec: modelSpecObject(spec, signatureName),
    inputs: protos,
    outputFilter: [...outputFilter],
  });
}

/** Input { example_list { examples } } from serialized tf.Examples, written as they are. */
function examplesInput(examples: readonly Uint8Array[]): Uint8Array {
  const list = protobuf.Writer.create();
  for (const e of examples) list.uint32(lengthDelimited(EXAMPLE_LIST_EXAMPLES)).bytes(e);
  return protobuf.Writer.create().uint32(lengthDelimited(INPUT_EXAMPLE_LIST)).bytes(list.finish()).finish();
}

function exampleResult(kind: 'classify' | 'regress', results: Classification[] | number[]): object {
  if (kind === 'regress') return { regressions: (results as number[]).map((value) => ({ value })) };
  return { classifications: (results as Classification[]).map((row) => ({ classes: row.map(([label, score]) => ({ label, score })) })) };
}

function requestAndResponse(call: LoggedCall): { request: Uint8Array; response: Uint8Array } {
  switch (call.kind) {
    case 'predict': {
      const outputs = Object.fromEntries(Object.entries(call.outputs).map(([k, t]) => [k, tensorProtoView(t)]));
      return {
        request: call.request,
        response: encode('tensorflow.serving.PredictResponse', {
          outputs,
          modelSpec: servedSpec(call.name, call.version, call.signatureName),
        }),
      };
    }
    case 'classify':
    case 'regress': {
      // ClassificationRequest / RegressionRequest { model_spec = 1; input = 2 }.
      const request = protobuf.Writer.create();
      request
        .uint32(lengthDelimited(EXAMPLES_REQUEST_MODEL_SPEC))
        .bytes(encode('tensorflow.serving.ModelSpec', modelSpecObject(call.spec, call.signatureName)));
      request.uint32(lengthDelimited(EXAMPLES_REQUEST_INPUT)).bytes(examplesInput(call.examples));
      const responseType = call.kind === 'classify' ? 'tensorflow.serving.ClassificationResponse' : 'tensorflow.serving.RegressionResponse';
      const response = encode(responseType, {
        modelSpec: servedSpec(call.spec.name, call.run.version, call.run.signatureName),
        result: exampleResult(call.kind, call.run.results),
      });
      return { request: request.finish(), response };
    }
    case 'multi_inference': {
      const request = protobuf.Writer.create();
      for (const t of call.tasks) {
        request
          .uint32(lengthDelimited(MULTI_REQUEST_TASKS))
          .bytes(
            encode('tensorflow.serving.InferenceTask', { modelSpec: modelSpecObject(t.spec, t.signatureName), methodName: t.methodName }),
          );
      }
      request.uint32(lengthDelimited(MULTI_REQUEST_INPUT)).bytes(examplesInput(call.examples));
      const results = call.runs.map((r) => ({
        modelSpec: servedSpec(call.tasks[0]?.spec.name ?? '', r.version, r.signatureName),
        [r.kind === 'classify' ? 'classificationResult' : 'regressionResult']: exampleResult(r.kind, r.results),
      }));
      return { request: request.finish(), response: encode('tensorflow.serving.MultiInferenceResponse', { results }) };
    }
  }
}

/** The model spec log_metadata names: the model, the version that answered, the signature (none for multi_inference). */
function metadataSpec(call: LoggedCall): object {
  if (call.kind === 'predict') return servedSpec(call.name, call.version, call.signatureName);
  if (call.kind === 'multi_inference')
    return { name: call.tasks[0]?.spec.name ?? '', ...(call.runs[0] && { version: { value: call.runs[0].version } }) };
  return servedSpec(call.spec.name, call.run.version, call.run.signatureName);
}

/** The serialized PredictionLog of `call`, stamped `timestampSecs` (seconds since the epoch). */
export function encodePredictionLog(call: LoggedCall, metadata: LogMetadataFields, timestampSecs: number): Uint8Array {
  const logMetadata = encode('tensorflow.serving.LogMetadata', {
    modelSpec: metadataSpec(call),
    samplingConfig: { samplingRate: metadata.samplingRate },
    savedModelTags: [...metadata.savedModelTags],
    timestampSecs,
  });
  const { request, response } = requestAndResponse(call);
  const log = protobuf.Writer.create()
    .uint32(lengthDelimited(LOG_REQUEST))
    .bytes(request)
    .uint32(lengthDelimited(LOG_RESPONSE))
    .bytes(response)
    .finish();
  return protobuf.Writer.create()
    .uint32(lengthDelimited(LOG_METADATA))
    .bytes(logMetadata)
    .uint32(lengthDelimited(LOG_FIELD[call.kind]))
    .bytes(log)
    .finish();
}

/** About what a call's record takes in memory until written, for the queue's bound. */
export function loggedCallBytes(call: LoggedCall): number {
  const tensorBytes = (t: HostTensor) =>
    Array.isArray(t.values) ? t.values.reduce((n, v) => n + v.length + 8, 0) : (t.values as ArrayBufferView).byteLength;
  const RECORD_OVERHEAD = 256;
  switch (call.kind) {
    case 'predict':
      return RECORD_OVERHEAD + call.request.length + Object.values(call.outputs).reduce((n, t) => n + tensorBytes(t), 0);
    case 'classify':
    case 'regress':
      return RECORD_OVERHEAD + call.examples.reduce((n, e) => n + e.length + 4, 0) + call.run.results.length * 32;
    case 'multi_inference':
      return (
        RECORD_OVERHEAD + call.examples.reduce((n, e) => n + e.length + 4, 0) + call.runs.reduce((n, r) => n + r.results.length * 32, 0)
      );
  }
}
