// tensorflow.serving.PredictionService over gRPC: Predict, Classify, Regress, MultiInference
// and GetModelMetadata on the same service layer as REST (prediction_service.ts,
// example_inference.ts), so batching, executors, deadlines and errors are the same.
import type { sendUnaryData, ServerUnaryCall, UntypedServiceImplementation } from '@grpc/grpc-js';
import { Code, ServingError, invalidArgument } from '../errors/status.js';
import * as MSG from '../errors/messages.js';
import type { PredictionService } from '../services/prediction_service.js';
import { checkFedDtypes, checkInputAliases, checkOutputFilter } from '../services/predict_checks.js';
import {
  CLASSIFY_METHOD_NAME,
  REGRESS_METHOD_NAME,
  runExamples,
  type Classification,
  type ExampleApi,
} from '../services/example_inference.js';
import type { ModelSpec, RunStats } from '../services/servable_version.js';
import { markRequestOwned, markRequestOwnedView, MIN_MOVED_BYTES } from '../tensor/request_owned.js';
import { hostTensorToProto } from '../savedmodel/tensor_proto.js';
import { readInputEntries, readOutputFilter, type PredictRequestWire } from './predict_request_codec.js';
import { checkTensorProto, decodeTensorProto, summarizeTensorProto } from './tensor_proto_wire.js';
import { outputTensorProto } from './predict_response_codec.js';
import type { MemoryBudget, MemoryClaim } from '../services/memory_budget.js';
import type { HostTensor } from '../tensor/host_tensor.js';
import type { SignatureSpec } from '../savedmodel/signature_spec.js';
import type { SignatureDefObject } from '../savedmodel/saved_model_reader.js';
import { protoType } from '../proto/index.js';
import type { Metrics } from '../monitoring/metrics.js';
import { grpcError } from './grpc_status.js';
import { readExamples, readTasks, type ExampleRequestWire, type InferenceTaskMessage } from './example_request_codec.js';
import { hasOwnKey, setOwn } from '../util/own_property.js';
import { modelSpecFrom, modelSpecMessage, type GetModelMetadataRequestMessage, type ModelSpecMessage } from './grpc_messages.js';

export interface PredictionGrpcDeps {
  prediction: PredictionService;
  /** The version a spec resolves to and its SignatureDefs as stored (GetModelMetadata). */
  signatureDefs(spec: ModelSpec): { version: number; defs: Record<string, SignatureDefObject> };
  /** --enable_serialization_as_tensor_content. */
  serializeAsTensorContent: boolean;
  /** --enable_signature_method_name_check for Classify / Regress. */
  checkMethodName: boolean;
  metrics: Metrics;
  /** Memory requests in flight may hold (--max_inflight_request_bytes), shared with REST. */
  budget: MemoryBudget;
  /** Most tensor elements one request may declare (--json_max_elements, REST's limit). */
  maxElements: number;
}

/** What reading one inputs map entry holds besides its key's characters (the key string, a Map slot, its place in the message). */
const INPUT_ENTRY_BYTES = 128;
/** What one output_filter string holds besides its characters. */
const OUTPUT_FILTER_ENTRY_BYTES = 64;

/**
 * PredictRequest.inputs and output_filter → HostTensors and the filter, checked in TF
 * Serving's order (predict_util.cc: the input names, each TensorProto's parse, the
 * output_filter, then the session's dtype check) with every check made on what the message
 * declares, before anything is decoded; then the tensors' memory is charged to the budget
 * and only then are their values decoded. A 32 MB message of 16 M empty string_val sent for
 * a float input is "Expects arg[0] to be float but string is provided" after one walk over
 * its bytes, and for a string input RESOURCE_EXHAUSTED unless the budget holds its 3 GB.
 */
export function predictInputs(
  request: PredictRequestWire,
  signature: SignatureSpec,
  claim: MemoryClaim,
  maxElements: number,
): { inputs: Record<string, HostTensor>; outputFilter: string[] } {
  claim.add(
    request.inputEntries * INPUT_ENTRY_BYTES +
      2 * request.inputKeyBytes +
      request.outputFilterEntries * OUTPUT_FILTER_ENTRY_BYTES +
      2 * request.outputFilterBytes,
  );
  const entries = readInputEntries(request);
  checkInputAliases(signature, [...entries.keys()]);
  const { bytes } = request;
  const read = [...entries].map(([alias, [start, end]]) => {
    const summary = summarizeTensorProto(bytes, start, end);
    return { alias, start, end, summary, check: checkTensorProto(summary) };
  });
  // What decoding would allocate, from the shapes alone, checked before anything is decoded.
  let elements = 0;
  for (const r of read) elements += r.check.elements;
  if (elements > maxElements)
    throw invalidArgument(
      `The request's input tensors have ${elements} elements; at most ${maxElements} are accepted (--json_max_elements)`,
    );
  for (const r of read) if (r.check.refusal !== undefined) throw invalidArgument(MSG.tensorParsingError(r.alias));
  const outputFilter = readOutputFilter(request);
  checkOutputFilter(signature, outputFilter);
  checkFedDtypes(
    signature,
    read.map((r) => [r.alias, r.check.dtype!] as const),
  );
  let tensorBytes = 0;
  for (const r of read) tensorBytes += r.check.bytes;
  claim.add(tensorBytes);
  const inputs: Record<string, HostTensor> = {};
  // One tensor may view the message, when grpc-js allocated its buffer for it alone: that
  // tensor then takes the whole buffer to the executor thread (a move, not a copy of its
  // values); the others get storage of their own, as they may be moved too.
  let mayView = request.bufferAlone;
  for (const r of read) {
    const t = decodeTensorProto(bytes, r.start, r.end, r.summary, r.check.dtype!, mayView && r.check.bytes >= MIN_MOVED_BYTES);
    const viewed = !Array.isArray(t.values) && t.values.buffer === bytes.buffer;
    if (viewed) mayView = false;
    setOwn(inputs, r.alias, viewed ? markRequestOwnedView(t) : markRequestOwned(t));
  }
  return { inputs, outputFilter };
}

/** A gRPC deadline as a performance.now() instant (what the batch queues compare against). */
function deadlineOf(call: ServerUnaryCall<unknown, unknown>): number | undefined {
  const d = call.getDeadline();
  const at = d instanceof Date ? d.getTime() : Number(d);
  if (!Number.isFinite(at)) return undefined;
  return performance.now() + (at - Date.now());
}

/**
 * The API label of request_latency and runtime_latency, as prediction_service_impl.cc writes
 * it; MultiInference and GetModelMetadata are counted by neither, as in TF Serving.
 */
type GrpcApi = 'Predict' | 'Classify' | 'Regress';

/** Wraps a handler: resolves to the response, or fails with the canonical code and message. */
function unary<Req, Res>(
  api: GrpcApi | undefined,
  deps: PredictionGrpcDeps,
  handle: (
    request: Req,
    call: ServerUnaryCall<Req, Res>,
    claim: MemoryClaim,
  ) => Promise<{ model: string; response: Res; stats?: RunStats }>,
) {
  return (call: ServerUnaryCall<Req, Res>, callback: sendUnaryData<Res>) => {
    // The request's share of the memory budget: the tensor bytes its message already holds,
    // then what decoding adds; given back once the response is handed to gRPC.
    const claim = deps.budget.claim();
    const started = performance.now();
    const request = call.request as { modelSpec?: ModelSpecMessage; firstTask?: InferenceTaskMessage } | undefined;
    const model = request?.modelSpec?.name ?? request?.firstTask?.modelSpec?.name ?? '';
    const record = api ? deps.metrics.requestRecorder(model, api, 'GRPC', started) : () => {};
    const admitted = new Promise<void>((resolve) => {
      claim.add(heldMessageBytes(call.request));
      resolve();
    });
    admitted
      .then(() => handle(call.request, call, claim))
      .then(
        ({ response, stats }) => {
          record('OK');
          if (api && stats) deps.metrics.recordRuntimeLatency(model, api, stats.inferMs);
          callback(null, response);
          claim.release();
        },
        (e: unknown) => {
          claim.release();
          const err = grpcError(e);
          record(Code[err.code as number] ?? 'UNKNOWN');
          callback(err);
        },
      );
  };
}

/** The bytes of a Predict, Classify, Regress or MultiInference message, which the request holds until it is answered (the others are small). */
function heldMessageBytes(request: unknown): number {
  const bytes = (request as { bytes?: unknown } | undefined)?.bytes;
  return bytes instanceof Uint8Array ? bytes.byteLength : 0;
}

function classificationResult(results: Classification[]) {
  return { classifications: results.map((row) => ({ classes: row.map(([label, score]) => ({ label, score })) })) };
}

function regressionResult(results: number[]) {
  return { regressions: results.map((value) => ({ value })) };
}

export function predictionServiceImplementation(deps: PredictionGrpcDeps): UntypedServiceImplementation {
  const toProto = deps.serializeAsTensorContent ? hostTensorToProto : outputTensorProto;

  const examples = (api: ExampleApi) =>
    unary<ExampleRequestWire, object>(api === 'classify' ? 'Classify' : 'Regress', deps, async (request, call, claim) => {
      const { spec, signatureName } = modelSpecFrom(request.modelSpec);
      const r = await runExamples(deps.prediction, api, spec, signatureName, () => readExamples(request, (bytes) => claim.add(bytes)), {
        deadline: deadlineOf(call),
        checkMethodName: deps.checkMethodName,
        claim,
      });
      const result = api === 'classify' ? classificationResult(r.results as Classification[]) : regressionResult(r.results as number[]);
      return {
        model: spec.name,
        response: { modelSpec: modelSpecMessage(spec.name, r.version, signatureName ?? 'serving_default'), result },
        stats: r.stats,
      };
    });

  return {
    Predict: unary<PredictRequestWire, object>('Predict', deps, async (request, call, claim) => {
      const { spec, signatureName } = modelSpecFrom(request.modelSpec);
      const result = await deps.prediction.predict(
        spec,
        signatureName,
        (signature) => predictInputs(request, signature, claim, deps.maxElements),
        { deadline: deadlineOf(call), claim },
      );
      const outputs = Object.fromEntries(Object.entries(result.outputs).map(([k, t]) => [k, toProto(t)]));
      // Serialized by serializePredictResponse (float and double outputs kept as typed arrays).
      return {
        model: spec.name,
        response: { modelSpec: modelSpecMessage(spec.name, result.version, result.signatureName), outputs },
        stats: result.stats,
      };
    }),

    Classify: examples('classify'),
    Regress: examples('regress'),

    MultiInference: unary<ExampleRequestWire, object>(undefined, deps, async (request, call, claim) => {
      // multi_inference_helper.cc resolves the first task's model before looking at any task.
      const signatures = deps.prediction.signatures(modelSpecFrom(request.firstTask?.modelSpec ?? {}).spec);
      // multi_inference.cc's checks, in its order and words. Tasks are read one by one: past
      // the model's signatures one must fail (a duplicate), so no more are ever read.
      let modelName = '';
      const seen = new Set<string>();
      const tasks: InferenceTaskMessage[] = [];
      for (const task of readTasks(request)) {
        tasks.push(task);
        const name = task.modelSpec?.name ?? '';
        if (!name) throw invalidArgument(MSG.MULTI_INFERENCE_EMPTY_MODEL_NAME);
        if (!modelName) modelName = name;
        else if (name !== modelName) throw invalidArgument(MSG.MULTI_INFERENCE_MODEL_NAMES_DIFFER);
        const signature = task.modelSpec?.signatureName || 'serving_default';
        if (seen.has(signature)) throw invalidArgument(MSG.duplicateSignatureEvaluation(signature));
        seen.add(signature);
        if (!hasOwnKey(signatures, signature)) throw invalidArgument(MSG.multiInferenceSignatureNotFound(signature));
        if (task.methodName !== CLASSIFY_METHOD_NAME && task.methodName !== REGRESS_METHOD_NAME) {
          throw new ServingError(Code.UNIMPLEMENTED, MSG.unsupportedMethodName(task.methodName ?? ''));
        }
      }
      let serialized: Uint8Array[] | undefined;
      const examples = () => (serialized ??= readExamples(request, (bytes) => claim.add(bytes)));
      const deadline = deadlineOf(call);
      // Each task runs its signature through the batch queues (TF runs one session call over
      // the union of outputs; the answers are the same). The method-name check is the
      // server's (--enable_signature_method_name_check, off by default), as for Classify.
      const runs = await Promise.all(
        tasks.map(async (task) => {
          const { spec, signatureName } = modelSpecFrom(task.modelSpec);
          const api: ExampleApi = task.methodName === CLASSIFY_METHOD_NAME ? 'classify' : 'regress';
          const r = await runExamples(deps.prediction, api, spec, signatureName, examples, {
            deadline,
            claim,
            checkMethodName: deps.checkMethodName,
            signatureNotFound: (n) => invalidArgument(MSG.multiInferenceSignatureNotFound(n)),
            loggedByCaller: true,
          });
          return { spec, signatureName, methodName: task.methodName ?? '', kind: api, version: r.version, results: r.results };
        }),
      );
      deps.metrics.recordExampleCount(modelName, serialized?.length ?? 0);
      deps.prediction.requestLog?.sample(modelName)?.log({
        kind: 'multi_inference',
        tasks: runs,
        examples: serialized ?? [],
        runs: runs.map((r) => ({ ...r, signatureName: r.signatureName ?? 'serving_default' })),
      });
      const results = runs.map((r) => {
        const modelSpec = modelSpecMessage(r.spec.name, r.version, r.signatureName ?? 'serving_default');
        return r.kind === 'classify'
          ? { modelSpec, classificationResult: classificationResult(r.results as Classification[]) }
          : { modelSpec, regressionResult: regressionResult(r.results as number[]) };
      });
      return { model: modelName, response: { results } };
    }),

    GetModelMetadata: unary<GetModelMetadataRequestMessage, object>(undefined, deps, async (request) => {
      const { spec } = modelSpecFrom(request.modelSpec);
      const fields = request.metadataField ?? [];
      if (!fields.length) throw invalidArgument('GetModelMetadataRequest must specify at least one metadata_field');
      for (const f of fields) if (f !== 'signature_def') throw invalidArgument(`Metadata field ${f} is not supported`);
      const { version, defs } = deps.signatureDefs(spec);
      const SignatureDefMap = protoType('tensorflow.serving.SignatureDefMap');
      const value = SignatureDefMap.encode(SignatureDefMap.fromObject({ signatureDef: defs })).finish();
      return {
        model: spec.name,
        response: {
          modelSpec: modelSpecMessage(spec.name, version, ''),
          // protobufjs' bundled Any keeps the .proto's field names (type_url), unlike our camelCase root.
          metadata: { signature_def: { type_url: 'type.googleapis.com/tensorflow.serving.SignatureDefMap', value } },
        },
      };
    }),
  };
}
