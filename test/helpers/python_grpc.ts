// A gRPC client tfgate did not write: Debian's Python grpcio (/usr/bin/python3), with message
// classes that grpc_tools' protoc generates from the project's .proto files into a temporary
// folder (predict.proto and what it imports; the Predict method is called by its path, so
// the service's other messages need not be generated). A test gives the Python code; it
// prints one JSON line, which is returned.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import path from 'node:path';
import { REPO_ROOT } from './paths.js';
import { tempDir } from './temp.js';

const run = promisify(execFile);
const PYTHON = '/usr/bin/python3';
const PROTOS = path.join(REPO_ROOT, 'src', 'proto');
const GENERATED = [
  'tensorflow_serving/apis/predict.proto',
  'tensorflow_serving/apis/model.proto',
  'tensorflow/core/framework/tensor.proto',
  'tensorflow/core/framework/tensor_shape.proto',
  'tensorflow/core/framework/types.proto',
  'tensorflow/core/framework/resource_handle.proto',
];

let stubs: Promise<string> | undefined;

/** The folder holding tensorflow_serving/apis/predict_pb2.py and its imports (generated once per process). */
function generatedStubs(): Promise<string> {
  return (stubs ??= (async () => {
    const out = tempDir('tfgate-pygrpc-');
    await run(PYTHON, ['-I', '-m', 'grpc_tools.protoc', `-I${PROTOS}`, `--python_out=${out}`, ...GENERATED]);
    return out;
  })());
}

/**
 * Runs `code` with `predict_pb2`, `grpc` and `sys` imported, `ADDRESS` set; it prints one JSON
 * line (e.g. the status code and details of a call), which is parsed and returned.
 */
export async function runPythonClient(address: string, code: string, timeoutMs = 60_000): Promise<unknown> {
  const dir = await generatedStubs();
  const script = [
    'import sys, json, grpc',
    'from tensorflow_serving.apis import predict_pb2',
    `ADDRESS = ${JSON.stringify(address)}`,
    code,
  ].join('\n');
  const { stdout } = await run(PYTHON, ['-I', '-c', `import sys; sys.path.insert(0, ${JSON.stringify(dir)})\n${script}`], {
    timeout: timeoutMs,
    maxBuffer: 1 << 20,
  });
  return JSON.parse(stdout.trim().split('\n').pop()!);
}
