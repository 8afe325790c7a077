// Loads the project's TensorFlow / TF Serving .proto files once, by reflection.
// The .proto sources stay in src/proto (tsc does not copy them); compiled code
// finds them relative to the package root.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import protobuf from 'protobufjs';

const here = path.dirname(fileURLToPath(import.meta.url));
/** Folder holding `tensorflow/...` and `tensorflow_serving/...` proto files, from src/proto or dist/src/proto. */
const PROTO_ROOT = here.includes(`${path.sep}dist${path.sep}`) ? path.resolve(here, '../../../src/proto') : here;

/** The gRPC services tfgate serves (server reflection describes them from these files too). */
export const SERVICE_FILES: readonly string[] = [
  'tensorflow_serving/apis/prediction_service.proto',
  'tensorflow_serving/apis/model_service.proto',
  'grpc/health/v1/health.proto',
];

const FILES = [
  'tensorflow/core/protobuf/saved_model.proto',
  'tensorflow/core/protobuf/tensor_bundle.proto',
  'tensorflow/core/example/example.proto',
  // TF Serving's APIs: gRPC services, and PredictionLog for warmup records.
  ...SERVICE_FILES,
  'tensorflow_serving/apis/prediction_log.proto',
  // What the ONNX Runtime executor hands to onnxruntime-node.
  'onnx/onnx.proto',
  // A TF-DF model's Yggdrasil files in assets/ (header, data spec; tests write trees too).
  'yggdrasil_decision_forests/yggdrasil_model.proto',
];

/** A new root holding `files` (relative to src/proto, or absolute) and what they import, resolved. */
export function loadProtoFiles(files: readonly string[], options: protobuf.IParseOptions): protobuf.Root {
  const r = new protobuf.Root();
  r.resolvePath = (_origin, target) => {
    // google/protobuf/*.proto are protobufjs' bundled common types.
    if (target.startsWith('google/protobuf/')) return target;
    return path.isAbsolute(target) ? target : path.join(PROTO_ROOT, target);
  };
  r.loadSync([...files], options);
  r.resolveAll();
  return r;
}

let root: protobuf.Root | undefined;

export function protoRoot(): protobuf.Root {
  root ??= loadProtoFiles(FILES, { keepCase: false });
  return root;
}

export function protoType(fullName: string): protobuf.Type {
  return protoRoot().lookupType(fullName);
}

/** Options giving plain JS objects: enums as names, int64 as numbers, bytes as Uint8Array. */
export const TO_OBJECT: protobuf.IConversionOptions = {
  enums: String,
  longs: Number,
  defaults: false,
  arrays: true,
  objects: true,
  oneofs: true,
};
