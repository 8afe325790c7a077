// The gRPC deserializer of Classify, Regress and MultiInference requests, for the reason
// predict_request_codec.ts gives: protobufjs would make objects for every tf.Example (and
// every MultiInference task) inside grpc-js, on the event loop, before the budget or the
// signature could be consulted — 4 M empty Examples (8 MB) took a 512 MB heap to its end. The
// message is checked once here by its schema (wire_check.ts), building nothing; the model_spec
// is decoded, the Input and the tasks stay in the message. The handler charges the budget for
// the examples before it reads them (readExamples), and reads tasks one by one (readTasks),
// stopping at the first that fails its checks.
import protobuf from 'protobufjs';
import { invalidArgument } from '../errors/status.js';
import * as MSG from '../errors/messages.js';
import { protoRoot, protoType, TO_OBJECT } from '../proto/index.js';
import { decodedTensorBytes } from '../tensor/tensor_cost.js';
import type { ModelSpecMessage } from './grpc_messages.js';
import { checkMessage } from './wire_check.js';
import { WIRE_LENGTH_DELIMITED, WireReader } from './wire.js';

// tensorflow_serving/apis: {Classification,Regression}Request {model_spec = 1, input = 2};
// MultiInferenceRequest {tasks = 1, input = 2}; Input {oneof: example_list = 1,
// example_list_with_context = 2}; ExampleList {examples = 1}; ExampleListWithContext
// {examples = 1, context = 2}.
const REQUEST_INPUT = 2;
const MULTI_INFERENCE_TASKS = 1;
const INPUT_EXAMPLE_LIST = 1;
const INPUT_WITH_CONTEXT = 2;
const LIST_EXAMPLES = 1;
const LIST_CONTEXT = 2;

const OPTIONS: protobuf.IConversionOptions = { ...TO_OBJECT, longs: String };

/** The Input's list as found in the message: which kind, where, and its examples counted. */
interface InputWire {
  withContext: boolean;
  start: number;
  end: number;
  examples: number;
  exampleBytes: number;
}

/** A Classify / Regress / MultiInference request as deserialized: the rest stays in `bytes`. */
export interface ExampleRequestWire {
  modelSpec?: ModelSpecMessage;
  /** The message as received. */
  bytes: Uint8Array;
  /** MultiInference: tasks sent (read with readTasks), the first decoded (the request's model, for metrics). */
  taskCount: number;
  firstTask?: InferenceTaskMessage;
  input?: InputWire;
}

export interface InferenceTaskMessage {
  modelSpec?: ModelSpecMessage;
  methodName?: string;
}

const isField = (tag: number, field: number) => tag >>> 3 === field && (tag & 7) === WIRE_LENGTH_DELIMITED;

/** Counts and checks an ExampleList / ExampleListWithContext at [start, end). */
function readList(bytes: Uint8Array, start: number, end: number, withContext: boolean): InputWire {
  const example = protoType('tensorflow.Example');
  let examples = 0;
  let exampleBytes = 0;
  const r = new WireReader(bytes, start, end);
  while (!r.done) {
    const tag = r.uint32();
    if (isField(tag, LIST_EXAMPLES) || (withContext && isField(tag, LIST_CONTEXT))) {
      const length = r.skipLengthDelimited();
      checkMessage(example, bytes, r.pos - length, r.pos);
      if (tag >>> 3 === LIST_EXAMPLES) {
        examples++;
        exampleBytes += length;
      }
    } else {
      r.skip(tag & 7);
    }
  }
  return { withContext, start, end, examples, exampleBytes };
}

/** The Input at [start, end): its last list (a oneof: the last one set counts). */
function readInput(bytes: Uint8Array, start: number, end: number): InputWire | undefined {
  let input: InputWire | undefined;
  const r = new WireReader(bytes, start, end);
  while (!r.done) {
    const tag = r.uint32();
    if (isField(tag, INPUT_EXAMPLE_LIST) || isField(tag, INPUT_WITH_CONTEXT)) {
      const length = r.skipLengthDelimited();
      input = readList(bytes, r.pos - length, r.pos, tag >>> 3 === INPUT_WITH_CONTEXT);
    } else {
      r.skip(tag & 7);
    }
  }
  return input;
}

/**
 * A deserializer for `typeName` (one of the three requests): bytes that are no such request
 * throw, as protobufjs' decoding threw (grpc-js answers INTERNAL).
 */
export function exampleRequestDeserializer(typeName: string): (message: Buffer | Uint8Array) => ExampleRequestWire {
  const multiInference = typeName === 'tensorflow.serving.MultiInferenceRequest';
  let type: protobuf.Type | undefined;
  return (message) => {
    type ??= protoRoot().lookupType(typeName);
    const bytes = new Uint8Array(message.buffer, message.byteOffset, message.byteLength);
    const task = protoType('tensorflow.serving.InferenceTask');
    let input: InputWire | undefined;
    let taskCount = 0;
    let firstTask: InferenceTaskMessage | undefined;
    let restBytes = 0;
    const kept = (tag: number) => isField(tag, REQUEST_INPUT) || (multiInference && isField(tag, MULTI_INFERENCE_TASKS));
    const r = new WireReader(bytes);
    while (!r.done) {
      const start = r.pos;
      const tag = r.uint32();
      if (isField(tag, REQUEST_INPUT)) {
        const length = r.skipLengthDelimited();
        // A message field sent twice: the last counts, as protobufjs reads it.
        input = readInput(bytes, r.pos - length, r.pos);
      } else if (multiInference && isField(tag, MULTI_INFERENCE_TASKS)) {
        const length = r.skipLengthDelimited();
        checkMessage(task, bytes, r.pos - length, r.pos);
        if (taskCount++ === 0)
          firstTask = task.toObject(task.decode(bytes.subarray(r.pos - length, r.pos)), OPTIONS) as InferenceTaskMessage;
      } else {
        r.skip(tag & 7);
        restBytes += r.pos - start;
      }
    }
    // The other fields (the model_spec) alone are such a request for protobufjs.
    const rest = new Uint8Array(restBytes);
    let at = 0;
    r.pos = 0;
    while (restBytes > 0 && !r.done) {
      const start = r.pos;
      const tag = r.uint32();
      r.skip(tag & 7);
      if (kept(tag)) continue;
      rest.set(bytes.subarray(start, r.pos), at);
      at += r.pos - start;
    }
    const { modelSpec } = type.toObject(type.decode(rest), OPTIONS) as { modelSpec?: ModelSpecMessage };
    return { modelSpec, bytes, taskCount, firstTask, input };
  };
}

/** MultiInference's tasks, decoded one at a time as they are read. */
export function* readTasks(request: ExampleRequestWire): Generator<InferenceTaskMessage> {
  const task = protoType('tensorflow.serving.InferenceTask');
  const r = new WireReader(request.bytes);
  while (!r.done) {
    const tag = r.uint32();
    if (!isField(tag, MULTI_INFERENCE_TASKS)) {
      r.skip(tag & 7);
      continue;
    }
    const length = r.skipLengthDelimited();
    yield task.toObject(task.decode(request.bytes.subarray(r.pos - length, r.pos)), OPTIONS) as InferenceTaskMessage;
  }
}

type FeatureMap = Record<string, unknown>;

/**
 * The request's tf.Examples, serialized, as TF Serving feeds them to a classify / regress
 * signature; `charge` is told of their memory (one string element each) before any is read.
 * With ExampleListWithContext, TF Serving writes the context's bytes and then the example's
 * (servables/tensorflow/util.cc), which a protobuf parser reads as one Example with both
 * feature maps merged, the example's own entry winning on a shared name; tfgate merges the
 * maps itself and writes that Example, so the graph gets the same features whatever parser
 * runs ParseExample. A plain list's Examples are passed on as sent.
 */
export function readExamples(request: ExampleRequestWire, charge: (bytes: number) => void = () => {}): Uint8Array[] {
  const input = request.input;
  if (!input || input.examples === 0) throw invalidArgument(MSG.INPUT_IS_EMPTY);
  charge(decodedTensorBytes('string', input.examples, input.exampleBytes));
  const { bytes } = request;
  const Example = protoType('tensorflow.Example');
  const featuresOf = (start: number, end: number): FeatureMap => {
    const e = Example.toObject(Example.decode(bytes.subarray(start, end)), TO_OBJECT) as { features?: { feature?: FeatureMap } };
    return e.features?.feature ?? {};
  };
  let context: FeatureMap = {};
  const extents: number[] = [];
  const r = new WireReader(bytes, input.start, input.end);
  while (!r.done) {
    const tag = r.uint32();
    if (!isField(tag, LIST_EXAMPLES) && !(input.withContext && isField(tag, LIST_CONTEXT))) {
      r.skip(tag & 7);
      continue;
    }
    const length = r.skipLengthDelimited();
    if (tag >>> 3 === LIST_CONTEXT) context = featuresOf(r.pos - length, r.pos);
    else extents.push(r.pos - length, r.pos);
  }
  const out: Uint8Array[] = [];
  for (let i = 0; i < extents.length; i += 2) {
    if (!input.withContext) {
      // A copy: the element outlives the message and is cloned alone to the executor thread.
      out.push(Uint8Array.prototype.slice.call(bytes, extents[i], extents[i + 1]));
      continue;
    }
    const feature = { ...context, ...featuresOf(extents[i], extents[i + 1]) };
    out.push(Example.encode(Example.fromObject({ features: { feature } })).finish());
  }
  return out;
}
