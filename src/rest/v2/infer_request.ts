// The inference request object ("Inference Request JSON Object", inference_rest.md) and its
// binary tensor data (Triton's binary tensor data extension) → tensors ready to predict:
//
//   {"id": "42", "parameters": {…}, "inputs": [{"name": "x", "shape": [2, 1], "datatype": "FP32",
//    "data": [1, 2]}, …], "outputs": [{"name": "y", "parameters": {"binary_data": true}}]}
//
// An input without `data` carries `"parameters": {"binary_data_size": n}`: its n bytes follow
// the JSON in the body, after those of the inputs before it. Request parameters tfgate reads:
// `binary_data_output` (every output as binary data, unless an output's own `binary_data`
// says otherwise) and its own `signature_name` (the signature to run; serving_default when
// absent, as TF Serving's :predict). Other parameters are accepted and ignored.
import { invalidArgument } from '../../errors/status.js';
import type { DType } from '../../tensor/dtype.js';
import type { HostTensor } from '../../tensor/host_tensor.js';
import type { JsonObject, JsonValue } from '../json_parse.js';
import { dtypeOfDatatype } from './datatypes.js';
import { checkJsonData, ReadData, tensorFromBytes, tensorFromJson, type ChargeMemory } from './tensor_data.js';

/** Members of the request object the server reads (the JSON parser's depth check skips others). */
export const INFER_REQUEST_MEMBERS: ReadonlySet<string> = new Set(['id', 'parameters', 'inputs', 'outputs']);

export interface RequestedOutput {
  name: string;
  binary: boolean;
}

/**
 * An input as the request declares it, its data not decoded yet: the server checks the
 * datatype against the signature and charges the memory it will take first (decodeInferInput).
 */
export interface InferInput {
  name: string;
  dtype: DType;
  shape: number[];
  /** JSON `data` (an array), `data` read from the body's bytes, or the input's binary tensor data. */
  data?: JsonValue;
  read?: ReadData;
  bytes?: Uint8Array;
}

/** An input's values; `charge` is told of their memory before it is taken. */
export function decodeInferInput(input: InferInput, charge?: ChargeMemory): HostTensor {
  if (input.read) return input.read.take(charge ?? (() => {}));
  if (input.bytes) return tensorFromBytes(input.name, input.dtype, input.shape, input.bytes, charge);
  return tensorFromJson(input.name, input.dtype, input.shape, input.data!, charge);
}

export interface InferRequest {
  id?: string;
  signatureName?: string;
  /** By input name (the signature's input keys), in the order sent. */
  inputs: Record<string, InferInput>;
  /** As listed; undefined when the request lists none (every output is returned). */
  outputs?: RequestedOutput[];
  /** `binary_data_output`: outputs not listed, or listed without `binary_data`, come back binary. */
  binaryOutputs: boolean;
}

const isObject = (v: JsonValue | undefined): v is JsonObject =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && typeof v !== 'bigint';
const member = (o: JsonObject, key: string): JsonValue | undefined => (Object.hasOwn(o, key) ? o[key] : undefined);

/** `$parameters`: an object of string / number / boolean values. */
function parameters(v: JsonValue | undefined, where: string): JsonObject {
  if (v === undefined) return {};
  if (!isObject(v)) throw invalidArgument(`${where}: 'parameters' must be an object`);
  for (const [k, p] of Object.entries(v)) {
    if (!['string', 'number', 'bigint', 'boolean'].includes(typeof p))
      throw invalidArgument(`${where}: parameter '${k}' must be a string, number or boolean`);
  }
  return v;
}

function boolParameter(params: JsonObject, key: string, where: string): boolean | undefined {
  const v = member(params, key);
  if (v === undefined) return undefined;
  if (typeof v !== 'boolean') throw invalidArgument(`${where}: parameter '${key}' must be true or false`);
  return v;
}

function shapeOf(v: JsonValue | undefined, where: string, maxElements: number): number[] {
  if (!Array.isArray(v)) throw invalidArgument(`${where}: 'shape' must be an array of dimension sizes`);
  let elements = 1;
  const shape = v.map((d) => {
    if (typeof d !== 'number' || !Number.isSafeInteger(d) || d < 0)
      throw invalidArgument(`${where}: 'shape' [${v.join(', ')}] must hold non-negative integers`);
    elements *= d;
    return d;
  });
  // Refused from the shape alone, before anything is allocated (as gRPC Predict refuses a TensorProto).
  if (elements > maxElements)
    throw invalidArgument(
      `${where}: shape [${shape.join(', ')}] has ${elements} elements, more than the ${maxElements} allowed (--json_max_elements)`,
    );
  return shape;
}

/** Hands out the binary section's bytes to the inputs that ask for them, in order. */
class BinaryCursor {
  private at = 0;
  constructor(private readonly bytes: Uint8Array) {}

  take(size: number, where: string): Uint8Array {
    if (this.at + size > this.bytes.byteLength) {
      throw invalidArgument(
        `${where}: binary_data_size ${size} runs past the end of the body's binary data (${this.bytes.byteLength - this.at} bytes left)`,
      );
    }
    const slice = this.bytes.subarray(this.at, this.at + size);
    this.at += size;
    return slice;
  }

  finish(): void {
    const left = this.bytes.byteLength - this.at;
    if (left !== 0)
      throw invalidArgument(`The body has ${left} bytes of binary data after the JSON that no input's binary_data_size accounts for`);
  }
}

function parseInput(v: JsonValue, index: number, binary: BinaryCursor, maxElements: number): InferInput {
  if (!isObject(v)) throw invalidArgument(`inputs[${index}] must be an object`);
  const name = member(v, 'name');
  if (typeof name !== 'string') throw invalidArgument(`inputs[${index}]: 'name' must be a string`);
  const where = `Input '${name}'`;
  const datatype = member(v, 'datatype');
  if (typeof datatype !== 'string') throw invalidArgument(`${where}: 'datatype' must be a string`);
  const dtype: DType | undefined = dtypeOfDatatype(datatype);
  if (!dtype) throw invalidArgument(`${where}: unknown datatype '${datatype}'`);
  const shape = shapeOf(member(v, 'shape'), where, maxElements);
  const params = parameters(member(v, 'parameters'), where);
  const size = member(params, 'binary_data_size');
  const data = member(v, 'data');
  if (size === undefined) {
    if (data === undefined) throw invalidArgument(`${where}: neither 'data' nor a binary_data_size parameter`);
    if ((data as unknown) instanceof ReadData) return { name, dtype, shape, read: data as unknown as ReadData };
    checkJsonData(name, data);
    return { name, dtype, shape, data };
  }
  if (data !== undefined) throw invalidArgument(`${where}: both 'data' and a binary_data_size parameter`);
  if (typeof size !== 'number' || !Number.isSafeInteger(size) || size < 0)
    throw invalidArgument(`${where}: binary_data_size must be a non-negative integer`);
  return { name, dtype, shape, bytes: binary.take(size, where) };
}

function parseOutput(v: JsonValue, index: number, binaryDefault: boolean): RequestedOutput {
  if (!isObject(v)) throw invalidArgument(`outputs[${index}] must be an object`);
  const name = member(v, 'name');
  if (typeof name !== 'string') throw invalidArgument(`outputs[${index}]: 'name' must be a string`);
  const binary = boolParameter(parameters(member(v, 'parameters'), `Output '${name}'`), 'binary_data', `Output '${name}'`);
  return { name, binary: binary ?? binaryDefault };
}

/**
 * A parsed request body (`json`) and the bytes after it (`binary`, empty without the
 * extension) → the request, its inputs' data not decoded yet. Throws INVALID_ARGUMENT naming
 * the member at fault.
 */
export function parseInferRequest(json: JsonValue, binary: Uint8Array, maxElements: number): InferRequest {
  if (!isObject(json)) throw invalidArgument('The inference request must be a JSON object');
  const id = member(json, 'id');
  if (id !== undefined && typeof id !== 'string') throw invalidArgument("'id' must be a string");
  const params = parameters(member(json, 'parameters'), 'The request');
  const signatureName = member(params, 'signature_name');
  if (signatureName !== undefined && typeof signatureName !== 'string')
    throw invalidArgument("The request: parameter 'signature_name' must be a string");
  const binaryOutputs = boolParameter(params, 'binary_data_output', 'The request') ?? false;

  const rawInputs = member(json, 'inputs');
  if (!Array.isArray(rawInputs)) throw invalidArgument("'inputs' must be an array of input tensors");
  const cursor = new BinaryCursor(binary);
  const inputs: Record<string, InferInput> = {};
  rawInputs.forEach((v, i) => {
    const input = parseInput(v, i, cursor, maxElements);
    if (Object.hasOwn(inputs, input.name)) throw invalidArgument(`Input '${input.name}' is given twice`);
    Object.defineProperty(inputs, input.name, { value: input, enumerable: true, writable: true, configurable: true });
  });
  cursor.finish();

  const rawOutputs = member(json, 'outputs');
  if (rawOutputs !== undefined && !Array.isArray(rawOutputs)) throw invalidArgument("'outputs' must be an array of requested outputs");
  const outputs = rawOutputs?.map((v, i) => parseOutput(v, i, binaryOutputs));
  return { id, signatureName, inputs, outputs, binaryOutputs };
}
