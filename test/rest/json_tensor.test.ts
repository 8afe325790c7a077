// The REST JSON codec against TF Serving's util/json_tensor.cc: cases adapted from
// json_tensor_test.cc and http_rest_api_handler_test.cc (request and response, row and
// columnar), error messages verbatim, floats as WriteDecimal prints them, the exact response
// layout of RapidJSON's PrettyWriter, and the half_plus_two examples of PROVENANCE.md.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { predictResponseJson, predictResponseJsonYielding, tensorJson } from '../../src/rest/json_tensor_writer.js';
import { formatFloat32, formatFloat64 } from '../../src/rest/float_format.js';
import { debugJson, rapidjsonDouble } from '../../src/rest/rapidjson_writer.js';
import { base64Unescape } from '../../src/rest/base64.js';
import { parseJsonBody } from '../../src/rest/json_parse.js';
import { Code, ServingError } from '../../src/errors/status.js';
import { readSavedModelProto, selectMetaGraph } from '../../src/savedmodel/saved_model_reader.js';
import { signatureSpec } from '../../src/savedmodel/signature_spec.js';
import type { SignatureSpec } from '../../src/savedmodel/signature_spec.js';
import type { HostTensor } from '../../src/tensor/host_tensor.js';
import { fixtureModel } from '../helpers/paths.js';
import { parseBothWays } from '../helpers/predict_both_ways.js';

const LIMITS = { maxDepth: 64, maxElements: 1 << 24 };

/** A signature with these input dtypes (TensorInfoMap in the C++ tests). */
const sig = (inputs: Record<string, string>, defaults: Record<string, HostTensor> = {}): SignatureSpec => ({
  key: 'serving_default',
  methodName: 'tensorflow/serving/predict',
  inputs: Object.fromEntries(Object.entries(inputs).map(([k, dtype]) => [k, { name: `${k}:0`, dtype, shape: null }])),
  outputs: {},
  defaults,
});
// Every body is read by the tensor reader too, which must agree or decline (predict_both_ways.ts).
const parse = (body: string, s: SignatureSpec, limits = LIMITS) => parseBothWays(body, s, limits);

/** A tensor as plain data for deepEqual: dtype, shape, values (strings as text). */
const plain = (t: HostTensor) => ({
  dtype: t.dtype,
  shape: t.shape,
  values:
    t.dtype === 'string'
      ? (t.values as Uint8Array[]).map((b) => Buffer.from(b).toString('latin1'))
      : Array.from(t.values as ArrayLike<number | bigint>),
});
const plainAll = (inputs: Record<string, HostTensor>) => Object.fromEntries(Object.entries(inputs).map(([k, t]) => [k, plain(t)]));

function throwsExactly(f: () => unknown, code: Code, message: string) {
  assert.throws(f, (e: unknown) => {
    assert.ok(e instanceof ServingError, String(e));
    assert.equal(e.message, message);
    assert.equal(Code[e.code], Code[code]);
    return true;
  });
}

// ------------------------------------------------------------------------------------------------

describe('FillPredictRequestFromJson: requests that succeed', () => {
  type Case = {
    name: string;
    body: string;
    inputs: Record<string, string>;
    format: 'row' | 'columnar';
    want: Record<string, ReturnType<typeof plain>>;
  };
  const f32 = (shape: number[], values: number[]) => ({ dtype: 'float32' as const, shape, values: Array.from(Float32Array.from(values)) });
  const CASES: Case[] = [
    {
      name: 'SingleUnnamedTensor',
      body: '{"instances": [[1,2],[3,4],[5,6]]}',
      inputs: { default: 'DT_INT32' },
      format: 'row',
      want: { default: { dtype: 'int32', shape: [3, 2], values: [1, 2, 3, 4, 5, 6] } },
    },
    {
      name: 'MixedInputForFloatTensor: ints and floats both fill a float',
      body: '{"instances": [1, 2.0, 3, 4, 5.003, 0.007, 0.0]}',
      inputs: { default: 'DT_FLOAT' },
      format: 'row',
      want: { default: f32([7], [1, 2, 3, 4, 5.003, 0.007, 0]) },
    },
    {
      name: 'MixedInputForDoubleTensor',
      body: '{"instances": [1.0, 2, 3, 4, 0.662, 0, 0.0]}',
      inputs: { default: 'DT_DOUBLE' },
      format: 'row',
      want: { default: { dtype: 'float64', shape: [7], values: [1, 2, 3, 4, 0.662, 0, 0] } },
    },
    {
      name: 'FloatTensorWithPrecisionLoss: 1435774380 and 1435774380.0 alike',
      body: '{"instances": [1435774380, 1435774380.0]}',
      inputs: { default: 'DT_FLOAT' },
      format: 'row',
      want: { default: f32([2], [1435774336, 1435774336]) },
    },
    {
      name: 'FloatTensorThatExceedsMaxReturnsInf / ExceedsMinReturnsZero',
      body: '{"instances": [1.79769e+308, -1.79769e+308, 2.22507e-308, -2.22507e-308]}',
      inputs: { default: 'DT_FLOAT' },
      format: 'row',
      want: { default: { dtype: 'float32', shape: [4], values: [Infinity, -Infinity, 0, -0] } },
    },
    {
      name: 'SingleUnnamedTensorWithSignature',
      body: '{"signature_name": "predict_images", "instances": [[1,2]]}',
      inputs: { default: 'DT_INT32' },
      format: 'row',
      want: { default: { dtype: 'int32', shape: [1, 2], values: [1, 2] } },
    },
    {
      name: 'TensorFromNonNullTerminatedBuffer: nothing after the document is read',
      body: '{"instances": [[1,2],[3,4],[5,6]]}X',
      inputs: { default: 'DT_INT32' },
      format: 'row',
      want: { default: { dtype: 'int32', shape: [3, 2], values: [1, 2, 3, 4, 5, 6] } },
    },
    {
      name: 'SingleUnnamedTensorBase64Scalars',
      body: '{"instances": [ { "b64" : "aGVsbG8=" }, { "b64": "d29ybGQ=" } ]}',
      inputs: { default: 'DT_STRING' },
      format: 'row',
      want: { default: { dtype: 'string', shape: [2], values: ['hello', 'world'] } },
    },
    {
      name: 'SingleUnnamedTensorBase64Lists',
      body: '{"instances": [ [{ "b64" : "aGVsbG8=" }], [{ "b64": "d29ybGQ=" }] ]}',
      inputs: { default: 'DT_STRING' },
      format: 'row',
      want: { default: { dtype: 'string', shape: [2, 1], values: ['hello', 'world'] } },
    },
    {
      name: 'SingleNamedTensorBase64',
      body: '{"instances": [{"default": [ [{ "b64" : "aGVsbG8=" }], [{ "b64": "d29ybGQ=" }] ]}]}',
      inputs: { default: 'DT_STRING' },
      format: 'row',
      want: { default: { dtype: 'string', shape: [1, 2, 1], values: ['hello', 'world'] } },
    },
    {
      name: 'MultipleNamedTensor: four dtypes, NaN and Infinity',
      body: `{"instances": [
        {"int_tensor": [[1,2],[3,4],[5,6]], "str_tensor": ["foo", "bar"], "float_tensor": [1.0, NaN], "dbl_tensor": [NaN]},
        {"int_tensor": [[7,8],[9,0],[1,2]], "str_tensor": ["baz", "bat"], "float_tensor": [2.0, Infinity], "dbl_tensor": [2.0]}
      ]}`,
      inputs: { int_tensor: 'DT_INT32', str_tensor: 'DT_STRING', float_tensor: 'DT_FLOAT', dbl_tensor: 'DT_DOUBLE' },
      format: 'row',
      want: {
        int_tensor: { dtype: 'int32', shape: [2, 3, 2], values: [1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2] },
        str_tensor: { dtype: 'string', shape: [2, 2], values: ['foo', 'bar', 'baz', 'bat'] },
        float_tensor: { dtype: 'float32', shape: [2, 2], values: [1, NaN, 2, Infinity] },
        dbl_tensor: { dtype: 'float64', shape: [2, 1], values: [NaN, 2] },
      },
    },
    {
      name: 'SingleUnnamedTensorColumnarFormat: named',
      body: '{"inputs": {"int_tensor": [[[1,2],[3,4],[5,6]]]}}',
      inputs: { int_tensor: 'DT_INT32' },
      format: 'columnar',
      want: { int_tensor: { dtype: 'int32', shape: [1, 3, 2], values: [1, 2, 3, 4, 5, 6] } },
    },
    {
      name: 'SingleUnnamedTensorColumnarFormat: unnamed',
      body: '{"inputs": [[[1,2],[3,4],[5,6]]]}',
      inputs: { int_tensor: 'DT_INT32' },
      format: 'columnar',
      want: { int_tensor: { dtype: 'int32', shape: [1, 3, 2], values: [1, 2, 3, 4, 5, 6] } },
    },
    {
      name: 'MultipleNamedTensorColumnarFormat: a b64 scalar',
      body: '{"inputs": {"int_tensor": [[[1,2],[3,4],[5,6]]], "str_tensor": ["foo", "bar"], "bin_tensor": { "b64" : "aGVsbG8=" }}}',
      inputs: { int_tensor: 'DT_INT32', str_tensor: 'DT_STRING', bin_tensor: 'DT_STRING' },
      format: 'columnar',
      want: {
        int_tensor: { dtype: 'int32', shape: [1, 3, 2], values: [1, 2, 3, 4, 5, 6] },
        str_tensor: { dtype: 'string', shape: [2], values: ['foo', 'bar'] },
        bin_tensor: { dtype: 'string', shape: [], values: ['hello'] },
      },
    },
    {
      name: 'columnar scalars of each kind',
      body: '{"inputs": {"i8": -3, "u8": 300, "u16": 65535, "i64": -9223372036854775808, "u64": 18446744073709551615, "u32": 4294967295, "b": true}}',
      inputs: { i8: 'DT_INT8', u8: 'DT_UINT8', u16: 'DT_UINT16', i64: 'DT_INT64', u64: 'DT_UINT64', u32: 'DT_UINT32', b: 'DT_BOOL' },
      format: 'columnar',
      want: {
        i8: { dtype: 'int8', shape: [], values: [-3] },
        // TF Serving checks IsInt() and narrows as static_cast does: 300 → 44.
        u8: { dtype: 'uint8', shape: [], values: [44] },
        u16: { dtype: 'uint16', shape: [], values: [65535] },
        i64: { dtype: 'int64', shape: [], values: [-9223372036854775808n] },
        u64: { dtype: 'uint64', shape: [], values: [18446744073709551615n] },
        u32: { dtype: 'uint32', shape: [], values: [4294967295] },
        b: { dtype: 'bool', shape: [], values: [1] },
      },
    },
    {
      name: 'columnar: members naming no input are ignored, as TF Serving ignores them',
      body: '{"inputs": {"x": [1.5], "not_an_input": "anything"}}',
      inputs: { x: 'DT_FLOAT' },
      format: 'columnar',
      want: { x: f32([1], [1.5]) },
    },
    {
      name: 'empty lists: shape from the JSON',
      body: '{"instances": [[], []]}',
      inputs: { x: 'DT_FLOAT' },
      format: 'row',
      want: { x: f32([2, 0], []) },
    },
    {
      name: 'strings are UTF-8 bytes; b64 padding optional, whitespace skipped',
      body: '{"inputs": ["héllo", {"b64": "aGk"}, {"b64": " aG k= "}]}',
      inputs: { s: 'DT_STRING' },
      format: 'columnar',
      want: { s: { dtype: 'string', shape: [3], values: [Buffer.from('héllo').toString('latin1'), 'hi', 'hi'] } },
    },
  ];
  for (const c of CASES) {
    it(c.name, () => {
      const r = parse(c.body, sig(c.inputs));
      assert.equal(r.format, c.format);
      assert.deepStrictEqual(plainAll(r.inputs), c.want);
      assert.equal(r.outputFilter, undefined);
    });
  }

  it('DeeplyNestedWellFormed: deep nesting elsewhere in the body is fine (within the limits)', () => {
    const body = `{"instances":[1], "nested":${'['.repeat(500000)}${']'.repeat(500000)}}`;
    const r = parse(body, sig({ default: 'DT_INT32' }), { maxDepth: 1_000_000, maxElements: 10_000_000 });
    assert.deepStrictEqual(plainAll(r.inputs), { default: { dtype: 'int32', shape: [1], values: [1] } });
  });

  it('DeeplyNestedMalformed: signature_name not a string', () => {
    const body = `{"signature_name":${'['.repeat(5000)}${']'.repeat(5000)}}`;
    assert.throws(
      () => parse(body, sig({ default: 'DT_INT32' }), { maxDepth: 10_000, maxElements: 100_000 }),
      /key must be a string value/,
    );
  });
});

describe('FillPredictRequestFromJson: errors, verbatim', () => {
  const IA = Code.INVALID_ARGUMENT;
  type Case = [name: string, body: string, inputs: Record<string, string>, message: string, code?: Code];
  const CASES: Case[] = [
    ['not an object', '[1]', { x: 'DT_FLOAT' }, 'JSON Value: [1] Is not object'],
    [
      'signature_name not a string',
      '{\n  "signature_name": 5,\n  "instances": [[1,2],[3,4],[5,6,7]]\n}',
      { x: 'DT_INT32' },
      'JSON Value: {\n    "signature_name": 5,\n    "instances": [[1, 2], [3, 4], [5, 6, 7]]\n} not formatted correctly. \'signature_name\' key must be a string value.',
    ],
    [
      'both instances and inputs',
      '{"instances": [[1,2]], "inputs": [[1,2]]}',
      { x: 'DT_INT32' },
      'JSON Value: {\n    "instances": [[1, 2]],\n    "inputs": [[1, 2]]\n} Not formatted correctly expecting only one of \'inputs\' or \'instances\' keys to exist ',
    ],
    ['neither', '{"foo": 1}', { x: 'DT_FLOAT' }, "Missing 'inputs' or 'instances' key"],
    [
      'instances not a list',
      '{"instances": 1}',
      { x: 'DT_FLOAT' },
      'JSON Value: {\n    "instances": 1\n} Expecting \'instances\' to be an list/array',
    ],
    ['instances empty', '{"instances": []}', { x: 'DT_FLOAT' }, 'JSON Value: {\n    "instances": []\n} No values in \'instances\' array'],
    [
      'ragged: size',
      '{"instances": [[1,2],[3,4],[5,6,7]]}',
      { x: 'DT_INT32' },
      "Failed to process element: 2 of 'instances' list. Error: INVALID_ARGUMENT: Expecting tensor size: 2 but got: 3",
    ],
    [
      'ragged: shape',
      '{"instances": [[1,2],[3,4],[[5,6]]]}',
      { x: 'DT_INT32' },
      "Failed to process element: 2 of 'instances' list. Error: INVALID_ARGUMENT: Expecting shape [2] but got: [1,2]",
    ],
    [
      'ragged: scalar then list',
      '{"instances": [1, [1]]}',
      { x: 'DT_INT32' },
      "Failed to process element: 1 of 'instances' list. Error: INVALID_ARGUMENT: Expecting shape [] but got: [1]",
    ],
    [
      'string for int32',
      '{"instances": [[1,2],["a", "b"]]}',
      { x: 'DT_INT32' },
      'Failed to process element: 1 of \'instances\' list. Error: INVALID_ARGUMENT: JSON Value: "a" Type: String is not of expected type: int32',
    ],
    [
      '1.0 is not an int32 (RapidJSON types it a double)',
      '{"instances": [1.0]}',
      { x: 'DT_INT32' },
      "Failed to process element: 0 of 'instances' list. Error: INVALID_ARGUMENT: JSON Value: 1.0 Type: Number is not of expected type: int32",
    ],
    [
      'int32 out of range',
      '{"inputs": [2147483648]}',
      { x: 'DT_INT32' },
      'JSON Value: 2147483648 Type: Number is not of expected type: int32',
    ],
    ['negative for uint32', '{"inputs": [-1]}', { x: 'DT_UINT32' }, 'JSON Value: -1 Type: Number is not of expected type: uint32'],
    [
      'uint64-only value for int64',
      '{"inputs": [9223372036854775808]}',
      { x: 'DT_INT64' },
      'JSON Value: 9223372036854775808 Type: Number is not of expected type: int64',
    ],
    ['fraction for int64', '{"inputs": [1.5]}', { x: 'DT_INT64' }, 'JSON Value: 1.5 Type: Number is not of expected type: int64'],
    ['2e3 for int64', '{"inputs": {"x": 2e3}}', { x: 'DT_INT64' }, 'JSON Value: 2000.0 Type: Number is not of expected type: int64'],
    ['number for bool', '{"inputs": [1]}', { x: 'DT_BOOL' }, 'JSON Value: 1 Type: Number is not of expected type: bool'],
    ['bool for float', '{"inputs": [true]}', { x: 'DT_FLOAT' }, 'JSON Value: true Type: True is not of expected type: float'],
    ['null for double', '{"inputs": null}', { x: 'DT_DOUBLE' }, 'JSON Value: null Type: Null is not of expected type: double'],
    [
      'string for float (handler test)',
      '{ "instances": ["x", "y"] }',
      { x: 'DT_FLOAT' },
      'Failed to process element: 0 of \'instances\' list. Error: INVALID_ARGUMENT: JSON Value: "x" Type: String is not of expected type: float',
    ],
    [
      'object for a float',
      '{"inputs": [{"b64": "AA=="}]}',
      { x: 'DT_FLOAT' },
      'JSON Value: {\n    "b64": "AA=="\n} Type: Object is not of expected type: float',
    ],
    [
      'b64 not a string',
      '{"inputs": [{"b64": 1}]}',
      { x: 'DT_STRING' },
      'JSON Value: {\n    "b64": 1\n} not formatted correctly for base64 data',
    ],
    [
      'b64 with another member',
      '{"inputs": {"x": [{"b64": "AA==", "y": 1}]}, "a": 1}',
      { x: 'DT_STRING' },
      'JSON Value: {\n    "b64": "AA==",\n    "y": 1\n} not formatted correctly for base64 data',
    ],
    ['b64 not base64', '{"inputs": [{"b64": "a-b_"}]}', { x: 'DT_STRING' }, 'Unable to base64 decode'],
    ['b64 wrong padding', '{"inputs": [{"b64": "aGk=="}]}', { x: 'DT_STRING' }, 'Unable to base64 decode'],
    [
      'value at the wrong level',
      '{"inputs": [[1], 2]}',
      { x: 'DT_FLOAT' },
      'JSON Value: 2 found at incorrect level: 2 in the JSON DOM. Expected at level: 2',
    ],
    [
      'list deeper than the first element',
      '{"inputs": [1, [2]]}',
      { x: 'DT_FLOAT' },
      'Encountered list at unexpected level: 1 expected < 1',
    ],
    [
      'ragged inside one value',
      '{"inputs": [[1.0, 2.0], [3.0]]}',
      { x: 'DT_FLOAT' },
      'Encountered list at unexpected size: 1 at level: 1 expected size: 2',
    ],
    [
      'plain list for two inputs',
      '{"instances": [1, 2]}',
      { a: 'DT_FLOAT', b: 'DT_FLOAT' },
      'instances is a plain list, but expecting list of objects as multiple input tensors required as per tensorinfo_map',
    ],
    [
      'columnar plain value for two inputs',
      '{"inputs": [1]}',
      { a: 'DT_FLOAT', b: 'DT_FLOAT' },
      'inputs is a plain value/list, but expecting an object as multiple input tensors required as per tensorinfo_map',
    ],
    ['columnar missing input', '{"inputs": {"a": 1}}', { a: 'DT_FLOAT', b: 'DT_FLOAT' }, "Missing named input: b in 'inputs' object."],
    [
      'unknown name in an instance',
      '{"instances": [{"z": 1.0}]}',
      { x: 'DT_FLOAT' },
      "Failed to process element: 0 key: z of 'instances' list. Error: INVALID_ARGUMENT: JSON object: does not have named input: z",
    ],
    [
      'instance keys differ',
      '{"instances": [{"a": 1, "b": 2}, {"a": 1}]}',
      { a: 'DT_FLOAT', b: 'DT_FLOAT' },
      'Failed to process element: 1 of \'instances\' list. JSON object: {\n    "a": 1\n} keys must be equal to: a,b',
    ],
    [
      'MultipleNamedTensorErrors: shapes differ across instances',
      '{"instances": [{"int_tensor": [[1,2],[3,4],[5,6]], "str_tensor": ["foo", "bar"]}, {"int_tensor": [[[7,8],[9,0],[1,2]]], "str_tensor": ["baz", "bat"]}]}',
      { int_tensor: 'DT_INT32', str_tensor: 'DT_STRING' },
      "Failed to process element: 1 key: int_tensor of 'instances' list. Error: INVALID_ARGUMENT: Expecting shape [3,2] but got: [1,3,2]",
    ],
    [
      'MultipleNamedTensorErrors: sizes differ across instances',
      '{"instances": [{"int_tensor": [[1,2],[3,4],[5,6],[7,8]], "str_tensor": ["foo", "bar"]}, {"int_tensor": [[7,8],[9,0],[1,2]], "str_tensor": ["baz", "bat"]}]}',
      { int_tensor: 'DT_INT32', str_tensor: 'DT_STRING' },
      "Failed to process element: 1 key: int_tensor of 'instances' list. Error: INVALID_ARGUMENT: Expecting tensor size: 8 but got: 6",
    ],
    [
      'MultipleNamedTensorErrors: object then list',
      '{"instances": [{"int_tensor": [1], "str_tensor": ["a"]}, [1, 20, 30]]}',
      { int_tensor: 'DT_INT32', str_tensor: 'DT_STRING' },
      'Expecting object but got list at item 1 of input list',
    ],
    [
      'MultipleNamedTensorErrors: list then object',
      '{"instances": [["baz", "bar"], {"str_tensor": ["baz", "bat"]}]}',
      { str_tensor: 'DT_STRING' },
      'Expecting value/list but got object at item 1 of input list',
    ],
    ['a signature without inputs', '{"signature_name": "w", "inputs": {}}', {}, 'Failed to get input map for signature: w'],
    ['a default signature without inputs', '{"inputs": {}}', {}, 'Failed to get input map for signature: DEFAULT'],
    ['half: UNIMPLEMENTED', '{"inputs": [1.5]}', { x: 'DT_HALF' }, 'Conversion of JSON Value: 1.5 to type: half', Code.UNIMPLEMENTED],
    [
      'complex64 in an instance: UNIMPLEMENTED inside INVALID_ARGUMENT',
      '{"instances": [1]}',
      { x: 'DT_COMPLEX64' },
      "Failed to process element: 0 of 'instances' list. Error: UNIMPLEMENTED: Conversion of JSON Value: 1 to type: complex64",
    ],
  ];
  for (const [name, body, inputs, message, code = IA] of CASES) {
    it(name, () => throwsExactly(() => parse(body, sig(inputs)), code, message));
  }
});

describe("SignatureDef defaults (tfgate: TF Serving's REST requires every input)", () => {
  const x0: HostTensor = { dtype: 'float32', shape: [1], values: Float32Array.of(0) };
  const two = sig({ x: 'DT_FLOAT', k: 'DT_INT32' }, { k: { dtype: 'int32', shape: [], values: Int32Array.of(7) } });

  it('columnar: a missing input takes its default tensor', () => {
    assert.deepStrictEqual(plainAll(parse('{"inputs": {}}', sig({ x: 'DT_FLOAT' }, { x: x0 })).inputs), {
      x: { dtype: 'float32', shape: [1], values: [0] },
    });
    assert.deepStrictEqual(plainAll(parse('{"inputs": {"x": [2.0]}}', two).inputs), {
      x: { dtype: 'float32', shape: [1], values: [2] },
      k: { dtype: 'int32', shape: [], values: [7] },
    });
  });

  it('a plain value feeds the one input without a default', () => {
    assert.deepStrictEqual(plainAll(parse('{"inputs": [2.0]}', two).inputs).x, { dtype: 'float32', shape: [1], values: [2] });
    assert.deepStrictEqual(plainAll(parse('{"instances": [2.0, 3.0]}', two).inputs), {
      x: { dtype: 'float32', shape: [2], values: [2, 3] },
      k: { dtype: 'int32', shape: [], values: [7] },
    });
  });

  it('row: instances may leave a defaulted input out, all alike', () => {
    assert.deepStrictEqual(plainAll(parse('{"instances": [{"x": 1.0}, {"x": 2.0}]}', two).inputs).k, {
      dtype: 'int32',
      shape: [],
      values: [7],
    });
    assert.deepStrictEqual(plainAll(parse('{"instances": [{"x": 1.0, "k": 1}, {"x": 2.0, "k": 2}]}', two).inputs).k, {
      dtype: 'int32',
      shape: [2],
      values: [1, 2],
    });
    throwsExactly(
      () => parse('{"instances": [{"x": 1.0}, {"x": 2.0, "k": 2}]}', two),
      Code.INVALID_ARGUMENT,
      'Failed to process element: 1 of \'instances\' list. JSON object: {\n    "x": 2.0,\n    "k": 2\n} keys must be equal to: x',
    );
    throwsExactly(
      () => parse('{"instances": [{"k": 1}]}', two),
      Code.INVALID_ARGUMENT,
      'Failed to process element: 0 of \'instances\' list. JSON object: {\n    "k": 1\n} keys must be equal to: k,x',
    );
  });

  it('an input without a default is still required', () => {
    throwsExactly(() => parse('{"inputs": {"k": 1}}', two), Code.INVALID_ARGUMENT, "Missing named input: x in 'inputs' object.");
  });
});

describe('JsonValueToDebugString', () => {
  const dbg = (text: string) => debugJson(parseJsonBody(text, LIMITS));
  it('PrettyWriter, single-line arrays, RapidJSON number forms', () => {
    assert.equal(
      dbg('{"a": [1, 2.0, 1e21, 1e20, 0.000001, 1.5e-7, -0.0, 9007199254740993], "b": {"c": "x\\u0001\\"y"}}'),
      '{\n    "a": [1, 2.0, 1e21, 100000000000000000000.0, 0.000001, 1.5e-7, -0.0, 9007199254740993],\n    "b": {\n        "c": "x\\u0001\\"y"\n    }\n}',
    );
    assert.equal(dbg('{}'), '{}');
    assert.equal(dbg('[[], {}]'), '[[], {}]');
  });
  it('a NaN / Infinity double stops the writer (RapidJSON refuses to write it)', () => {
    assert.equal(dbg('{"a": [1, NaN, 2], "b": 3}'), '{\n    "a": [1, ');
  });
  it('cut off once 256 bytes are written, at event granularity', () => {
    const s = dbg(`[${Array.from({ length: 200 }, (_, i) => i).join(',')}]`);
    assert.ok(s.length >= 256 && s.length < 262, String(s.length));
    assert.ok(s.startsWith('[0, 1, 2, '));
    assert.ok(!s.endsWith(']'));
  });
  it('rapidjsonDouble', () => {
    const cases: Array<[number, string]> = [
      [1, '1.0'],
      [0.1, '0.1'],
      [123.456, '123.456'],
      [1e-7, '1e-7'],
      [1.5e300, '1.5e300'],
      [5e-324, '5e-324'],
      [-2.5, '-2.5'],
      [0, '0.0'],
    ];
    for (const [v, s] of cases) assert.equal(rapidjsonDouble(v), s);
  });
});

describe('absl::Base64Unescape rules', () => {
  const ok = (s: string) => base64Unescape(s) && Buffer.from(base64Unescape(s)!).toString('latin1');
  it('accepts', () => {
    assert.equal(ok('aGVsbG8='), 'hello');
    assert.equal(ok('aGVsbG8'), 'hello');
    assert.equal(ok('aGVs\nbG8='), 'hello');
    assert.equal(ok('aGk.'), 'hi');
    assert.equal(ok(''), '');
  });
  it('rejects', () => {
    for (const s of ['a', 'aGk==', 'aGVsbG8=x', 'a-b_', 'aGk=a', 'QUJD=']) assert.equal(base64Unescape(s), undefined, s);
  });
});

// ------------------------------------------------------------------------------------------------

describe('MakeJsonFromTensors', () => {
  const f32 = (shape: number[], v: number[]): HostTensor => ({ dtype: 'float32', shape, values: Float32Array.from(v) });
  const i32 = (shape: number[], v: number[]): HostTensor => ({ dtype: 'int32', shape, values: Int32Array.from(v) });
  const str = (shape: number[], v: string[]): HostTensor => ({
    dtype: 'string',
    shape,
    values: v.map((s) => new Uint8Array(Buffer.from(s))),
  });
  const intTensor = i32([2, 3, 2], [1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2]);
  /** Compares as JSON (our parser reads NaN/Infinity), like the C++ tests' CompareJson. */
  const sameJson = (got: string, want: string) => assert.deepStrictEqual(parseJsonBody(got, LIMITS), parseJsonBody(want, LIMITS));

  it("FromJsonSingleTensor: row and columnar, in TF Serving's exact layout", () => {
    assert.equal(
      predictResponseJson({ int_tensor: intTensor }, 'row'),
      '{\n    "predictions": [[[1, 2], [3, 4], [5, 6]], [[7, 8], [9, 0], [1, 2]]\n    ]\n}',
    );
    const columnar = predictResponseJson({ int_tensor: intTensor }, 'columnar');
    sameJson(columnar, '{"outputs": [[[1, 2], [3, 4], [5, 6]], [[7, 8], [9, 0], [1, 2]]]}');
    assert.ok(
      columnar.startsWith('{\n    "outputs": [\n        [\n            [\n                1,\n                2\n            ],\n'),
      columnar,
    );
    assert.equal(
      predictResponseJson({ int_tensor: intTensor }, 'row', { layout: 'compact' }),
      '{"predictions": [[[1, 2], [3, 4], [5, 6]], [[7, 8], [9, 0], [1, 2]]]}',
    );
  });

  it('FromJsonSingleScalarTensor', () => {
    const t = i32([5], [1, 2, 3, 4, 5]);
    assert.equal(predictResponseJson({ int_tensor: t }, 'row'), '{\n    "predictions": [1, 2, 3, 4, 5\n    ]\n}');
    assert.equal(
      predictResponseJson({ int_tensor: t }, 'columnar'),
      '{\n    "outputs": [\n        1,\n        2,\n        3,\n        4,\n        5\n    ]\n}',
    );
    assert.equal(predictResponseJson({ s: f32([], [1.5]) }, 'columnar'), '{\n    "outputs": 1.5\n}');
  });

  it('FromJsonSingleBytesTensor: *_bytes outputs as {"b64": …} (objects are never single-line)', () => {
    const t = str([2, 2], ['hello', 'world', 'tf', 'serving']);
    const row = predictResponseJson({ str_tensor_bytes: t }, 'row');
    sameJson(row, '{"predictions": [[{"b64": "aGVsbG8="}, {"b64": "d29ybGQ="}], [{"b64": "dGY="}, {"b64": "c2VydmluZw=="}]]}');
    assert.ok(row.startsWith('{\n    "predictions": [[{\n                "b64": "aGVsbG8="\n            }, {\n'), row);
    assert.equal(
      predictResponseJson({ str_tensor_bytes: t }, 'row', { layout: 'compact' }),
      '{"predictions": [[{"b64": "aGVsbG8="}, {"b64": "d29ybGQ="}], [{"b64": "dGY="}, {"b64": "c2VydmluZw=="}]]}',
    );
  });

  it('FromJsonSingleFloatTensorSixDigitPrecision', () => {
    const t = f32([2, 3], [9000000, 999999, 0.5, 0.0003, 0.00003, 555557.5]);
    assert.equal(
      predictResponseJson({ float_tensor: t }, 'row'),
      '{\n    "predictions": [[9e+06, 999999.0, 0.5], [0.0003, 3e-05, 555557.5]\n    ]\n}',
    );
  });

  it('FromJsonSingleFloatTensorNonFinite: bare NaN, Infinity, -Infinity', () => {
    const t = f32([2, 2], [NaN, Infinity, 3, -Infinity]);
    assert.equal(predictResponseJson({ float_tensor: t }, 'row'), '{\n    "predictions": [[NaN, Infinity], [3.0, -Infinity]\n    ]\n}');
  });

  it('FromJsonSingleTensorErrors', () => {
    throwsExactly(() => predictResponseJson({}, 'row'), Code.INVALID_ARGUMENT, 'Cannot convert empty tensor map to JSON');
    throwsExactly(
      () => predictResponseJson({ tensor: { dtype: 'float16', shape: [2], values: Uint16Array.of(0, 0) } }, 'row'),
      Code.INVALID_ARGUMENT,
      'Failed to write JSON value for tensor type: half',
    );
    throwsExactly(
      () => predictResponseJson({ tensor: i32([], [1]) }, 'row'),
      Code.INVALID_ARGUMENT,
      'Tensor name: tensor has no shape information ',
    );
    throwsExactly(() => predictResponseJson({ t: i32([1], [1]) }, 'bogus' as 'row'), Code.INVALID_ARGUMENT, 'Invalid request format');
  });

  it('FromJsonMultipleNamedTensors: row objects and a columnar object', () => {
    const outputs: Record<string, HostTensor> = {
      int_tensor: intTensor,
      str_tensor: str([2, 2], ['foo', 'bar', 'baz', 'bat']),
      float_tensor: f32([2, 1], [1, 2]),
      double_scalar_tensor: { dtype: 'float64', shape: [2], values: Float64Array.of(8, 9) },
      str_tensor_bytes: str([2, 2], ['hello', 'world', 'tf', 'serving']),
    };
    sameJson(
      predictResponseJson(outputs, 'row'),
      `{"predictions": [
      {"double_scalar_tensor": 8.0, "float_tensor": [1.0], "int_tensor": [[1, 2], [3, 4], [5, 6]], "str_tensor": ["foo", "bar"], "str_tensor_bytes": [{"b64": "aGVsbG8="}, {"b64": "d29ybGQ="}]},
      {"double_scalar_tensor": 9.0, "float_tensor": [2.0], "int_tensor": [[7, 8], [9, 0], [1, 2]], "str_tensor": ["baz", "bat"], "str_tensor_bytes": [{"b64": "dGY="}, {"b64": "c2VydmluZw=="}]}]}`,
    );
    sameJson(
      predictResponseJson(outputs, 'columnar'),
      `{"outputs": {
      "double_scalar_tensor": [8.0, 9.0], "float_tensor": [[1.0], [2.0]], "int_tensor": [[[1, 2], [3, 4], [5, 6]], [[7, 8], [9, 0], [1, 2]]],
      "str_tensor": [["foo", "bar"], ["baz", "bat"]], "str_tensor_bytes": [[{"b64": "aGVsbG8="}, {"b64": "d29ybGQ="}], [{"b64": "dGY="}, {"b64": "c2VydmluZw=="}]]}}`,
    );
    const two = { a: f32([2], [1, 2]), b: i32([2, 1], [7, 9]) };
    assert.equal(
      predictResponseJson(two, 'row'),
      '{\n    "predictions": [\n        {\n            "a": 1.0,\n            "b": [7]\n        },\n        {\n            "a": 2.0,\n            "b": [9]\n        }\n    ]\n}',
    );
    assert.equal(
      predictResponseJson(two, 'columnar'),
      '{\n    "outputs": {\n        "a": [\n            1.0,\n            2.0\n        ],\n        "b": [\n            [\n                7\n            ],\n            [\n                9\n            ]\n        ]\n    }\n}',
    );
    assert.equal(predictResponseJson(two, 'row', { layout: 'compact' }), '{"predictions": [{"a": 1.0, "b": [7]}, {"a": 2.0, "b": [9]}]}');
    assert.equal(predictResponseJson(two, 'columnar', { layout: 'compact' }), '{"outputs": {"a": [1.0, 2.0], "b": [[7], [9]]}}');
  });

  it('FromJsonMultipleNamedTensorsErrors and ZeroBatch cases', () => {
    throwsExactly(
      () => predictResponseJson({ int_tensor: i32([2, 3], [1, 2, 3, 4, 5, 6]), str_tensor: str([1, 3], ['a', 'b', 'c']) }, 'row'),
      Code.INVALID_ARGUMENT,
      'Tensor name: str_tensor has inconsistent batch size: 1 expecting: 2',
    );
    assert.equal(predictResponseJson({ int_tensor: i32([0, 2], []) }, 'row'), '{\n    "predictions": []\n}');
    assert.equal(predictResponseJson({ s: str([0, 1, 2], []), f: f32([0, 3, 4], []) }, 'row'), '{\n    "predictions": []\n}');
    throwsExactly(
      () => predictResponseJson({ int_tensor: i32([0, 2], []), str_tensor: str([1, 2], ['foo', 'bar']) }, 'row'),
      Code.INVALID_ARGUMENT,
      'Tensor name: str_tensor has inconsistent batch size: 1 expecting: 0',
    );
  });

  it('every dtype: integers exact (int64 from BigInt), bool, strings escaped as RapidJSON does', () => {
    const outputs: Record<string, HostTensor> = {
      b: { dtype: 'bool', shape: [2], values: Uint8Array.of(1, 0) },
      i64: { dtype: 'int64', shape: [2], values: BigInt64Array.of(-9223372036854775808n, 9007199254740993n) },
      u64: { dtype: 'uint64', shape: [1], values: BigUint64Array.of(18446744073709551615n) },
      u8: { dtype: 'uint8', shape: [1], values: Uint8Array.of(255) },
      d: { dtype: 'float64', shape: [2], values: Float64Array.of(0.1, 1 / 3) },
      s: str([1], ['a"b\\c\n\u0001é/']),
    };
    assert.equal(
      predictResponseJson(outputs, 'columnar', { layout: 'compact' }),
      '{"outputs": {"b": [true, false], "d": [0.1, 0.33333333333333331], "i64": [-9223372036854775808, 9007199254740993], "s": ["a\\"b\\\\c\\n\\u0001é/"], "u64": [18446744073709551615], "u8": [255]}}',
    );
  });

  it('tensorJson (tfgate run): one compact value', () => {
    assert.equal(tensorJson('y', f32([2, 1], [2.5, 3])), '[[2.5], [3.0]]');
    assert.equal(tensorJson('y', f32([], [0.1])), '0.1');
  });
});

describe('WriteDecimal: floats as TF Serving prints them', () => {
  it('examples', () => {
    const f = (x: number) => formatFloat32(Math.fround(x));
    assert.deepEqual([0.1, 3, 1 / 3, 1e-5, 9000000, 999999, 555557.5, 0.0003, 1435774380, 1e30, -2.5, -0].map(f), [
      '0.1',
      '3.0',
      '0.333333343',
      '1e-05',
      '9e+06',
      '999999.0',
      '555557.5',
      '0.0003',
      '1.43577434e+09',
      '1e+30',
      '-2.5',
      '-0.0',
    ]);
    assert.deepEqual([0.1, 1 / 3, 1.23456789012, 100, 0.30000000000000004, 1e100, 5e-324].map(formatFloat64), [
      '0.1',
      '0.33333333333333331',
      '1.2345678901199999',
      '100.0',
      '0.30000000000000004',
      '1e+100',
      '4.94066e-324',
    ]);
    assert.deepEqual([NaN, Infinity, -Infinity].map(formatFloat32), ['NaN', 'Infinity', '-Infinity']);
  });

  it('exact ties round to even as printf does (toExponential would round up)', () => {
    // 1048576.125 is a float32 whose exact value has 10 significant digits ending in 5.
    assert.equal(formatFloat32(1048576.125), '1048576.12');
    assert.equal(formatFloat32(1048576.375), '1048576.38');
  });

  it('agrees with an exact printf model on many values (BigInt, round-half-even)', () => {
    const f32 = new Float32Array(1);
    const u32 = new Uint32Array(f32.buffer);
    const f64 = new Float64Array(1);
    const u64 = new BigUint64Array(f64.buffer);
    let seed = 12345;
    const rnd = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0);
    for (let i = 0; i < 20000; i++) {
      u32[0] = rnd();
      if (Number.isFinite(f32[0])) assert.equal(formatFloat32(f32[0]), referenceWriteDecimal(f32[0], true), String(f32[0]));
      const dyadic = Math.fround((rnd() % 10000000) / 2 ** (rnd() % 12));
      assert.equal(formatFloat32(dyadic), referenceWriteDecimal(dyadic, true), String(dyadic));
      u64[0] = (BigInt(rnd()) << 32n) | BigInt(rnd());
      if (Number.isFinite(f64[0])) assert.equal(formatFloat64(f64[0]), referenceWriteDecimal(f64[0], false), String(f64[0]));
    }
  });

  it('agrees with the exact printf model on float32 values as models output them (the arithmetic fast path)', () => {
    let seed = 777;
    const unit = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
    const draws = [
      () => unit() * 20 - 10,
      unit,
      () => Math.exp(unit() * 76 - 30),
      () => 10 ** Math.floor(unit() * 34 - 13) * (1 + (unit() - 0.5) * 1e-6),
    ];
    for (const draw of draws) {
      for (let i = 0; i < 5000; i++) {
        const v = Math.fround(draw());
        assert.equal(formatFloat32(v), referenceWriteDecimal(v, true), String(v));
        assert.equal(formatFloat32(-v), referenceWriteDecimal(-v, true), String(-v));
      }
    }
  });
});

/** printf("%.{p}g") from the exact binary value, rounding half to even. */
function exactG(x: number, p: number): string {
  if (x === 0) return Object.is(x, -0) ? '-0' : '0';
  const bits = new BigUint64Array(new Float64Array([Math.abs(x)]).buffer)[0];
  const field = Number((bits >> 52n) & 0x7ffn);
  let m = bits & 0xfffffffffffffn;
  let e = -1074;
  if (field !== 0) {
    m |= 1n << 52n;
    e = field - 1075;
  }
  const digits = e >= 0 ? (m << BigInt(e)).toString() : (m * 5n ** BigInt(-e)).toString();
  let exp = digits.length - 1 - (e >= 0 ? 0 : -e);
  let head = digits.slice(0, p).padEnd(p, '0');
  const rest = digits.slice(p).replace(/0+$/, '');
  if (rest.length > 0 && (rest[0] > '5' || (rest[0] === '5' && (rest.length > 1 || Number(head[p - 1]) % 2 === 1)))) {
    head = (BigInt(head) + 1n).toString();
    if (head.length > p) {
      head = head.slice(0, p);
      exp++;
    }
  }
  let out: string;
  if (exp < -4 || exp >= p) {
    const mm = head.replace(/0+$/, '');
    out = `${mm.length > 1 ? `${mm[0]}.${mm.slice(1)}` : mm}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  } else if (exp >= 0) {
    const frac = head.slice(exp + 1).replace(/0+$/, '');
    out = head.slice(0, exp + 1) + (frac ? `.${frac}` : '');
  } else {
    out = `0.${`${'0'.repeat(-exp - 1)}${head}`.replace(/0+$/, '')}`;
  }
  return x < 0 ? `-${out}` : out;
}

function referenceWriteDecimal(v: number, f32: boolean): string {
  let s = exactG(v, 6);
  if (f32 ? Math.fround(Number(s)) !== v : Number(s) !== v) s = exactG(v, f32 ? 9 : 17);
  return s.includes('.') || s.includes('e') ? s : `${s}.0`;
}

// ------------------------------------------------------------------------------------------------

describe('half_plus_two at the codec level (PROVENANCE.md examples)', async () => {
  const spec = async (model: string, key = 'serving_default') => {
    const mg = selectMetaGraph(await readSavedModelProto(fixtureModel(model, '00000123')), ['serve']);
    return signatureSpec(key, mg.signatureDef![key]);
  };
  const cpu = await spec('saved_model_half_plus_two_cpu');
  const tf2 = await spec('saved_model_half_plus_two_tf2_cpu');
  /** y = 0.5·x + 2 on the parsed input, as the model would compute it. */
  const halfPlusTwo = (x: HostTensor): HostTensor => ({
    dtype: 'float32',
    shape: x.shape,
    values: (x.values as Float32Array).map((v) => 0.5 * v + 2),
  });

  it("the signature is x: DT_FLOAT [-1,1], yet the request's own shape is used: [1.0, 2.0, 5.0] is [3]", () => {
    assert.deepEqual(cpu.inputs.x, { name: 'x:0', dtype: 'DT_FLOAT', shape: [-1, 1] });
    const { format, inputs } = parse('{"instances": [1.0, 2.0, 5.0]}', cpu);
    assert.equal(format, 'row');
    assert.deepStrictEqual(plainAll(inputs), { x: { dtype: 'float32', shape: [3], values: [1, 2, 5] } });
    assert.equal(predictResponseJson({ y: halfPlusTwo(inputs.x) }, format), '{\n    "predictions": [2.5, 3.0, 4.5\n    ]\n}');
  });

  const EXAMPLES: Array<[body: string, shape: number[], response: string]> = [
    ['{"instances": [2.0, 3.0, 4.0]}', [3], '{"predictions": [3.0, 3.5, 4.0]}'],
    ['{"inputs": [2.0, 3.0, 4.0]}', [3], '{"outputs": [3.0, 3.5, 4.0]}'],
    ['{"instances": [[1.0, 2.0], [3.0, 4.0]]}', [2, 2], '{"predictions": [[2.5, 3.0], [3.5, 4.0]]}'],
    ['{"instances": [1.0, 2.0]}', [2], '{"predictions": [2.5, 3.0]}'],
    ['{"signature_name": "serving_default", "instances": [3.0, 4.0]}', [2], '{"predictions": [3.5, 4.0]}'],
    ['{"signature_name": "serving_default", "inputs": [3.0, 4.0]}', [2], '{"outputs": [3.5, 4.0]}'],
  ];
  for (const [body, shape, response] of EXAMPLES) {
    it(body, () => {
      const { format, inputs } = parse(body, cpu);
      assert.deepEqual(inputs.x.shape, shape);
      assert.equal(predictResponseJson({ y: halfPlusTwo(inputs.x) }, format, { layout: 'compact' }), response);
    });
  }

  it('TF2 export: x has a stored default [0.0], so {"inputs": {}} is accepted', () => {
    assert.deepEqual(tf2.inputs.x.shape, [1]);
    const { inputs } = parse('{"inputs": {}}', tf2);
    assert.deepStrictEqual(plainAll(inputs), { x: { dtype: 'float32', shape: [1], values: [0] } });
    assert.equal(predictResponseJson({ y: halfPlusTwo(inputs.x) }, 'columnar', { layout: 'compact' }), '{"outputs": [2.0]}');
    assert.deepStrictEqual(plainAll(parse('{"inputs": {"x": [2.0]}}', tf2).inputs), { x: { dtype: 'float32', shape: [1], values: [2] } });
  });

  it('classify/regress signatures take serialized Examples: a JSON number is not a string', async () => {
    const regress = await spec('saved_model_half_plus_two_cpu', 'regress_x_to_y');
    throwsExactly(
      () => parse('{"instances": [2.0]}', regress),
      Code.INVALID_ARGUMENT,
      "Failed to process element: 0 of 'instances' list. Error: INVALID_ARGUMENT: JSON Value: 2.0 Type: Number is not of expected type: string",
    );
  });
});

describe('predictResponseJsonYielding: a large row response as UTF-8 bytes', () => {
  it('past one chunk of rows, the bytes of the text predictResponseJson writes (pretty and compact, one output and several)', async () => {
    const rows = 10_000;
    const y: HostTensor = { dtype: 'float32', shape: [rows, 1], values: Float32Array.from({ length: rows }, (_, i) => i / 3) };
    const s: HostTensor = {
      dtype: 'string',
      shape: [rows],
      values: Array.from({ length: rows }, (_, i) => new TextEncoder().encode(`é${i}`)),
    };
    for (const outputs of [{ y }, { y, s }] as Array<Record<string, HostTensor>>)
      for (const layout of ['tfserving', 'compact'] as const) {
        const got = await predictResponseJsonYielding(outputs, 'row', { layout });
        assert.ok(got instanceof Uint8Array, 'bytes');
        assert.equal(Buffer.from(got).toString('utf8'), predictResponseJson(outputs, 'row', { layout }));
      }
    // Rows that grow longer past the first run (its bytes per row size the buffer): the same bytes.
    const growing: HostTensor = {
      dtype: 'float32',
      shape: [rows],
      values: Float32Array.from({ length: rows }, (_, i) => (i < 5000 ? 0 : 1 / i)),
    };
    const grown = await predictResponseJsonYielding({ growing }, 'row');
    assert.equal(Buffer.from(grown as Uint8Array).toString('utf8'), predictResponseJson({ growing }, 'row'));
    const small = await predictResponseJsonYielding({ y: { dtype: 'float32', shape: [2], values: new Float32Array([1, 2]) } }, 'row');
    assert.equal(small, predictResponseJson({ y: { dtype: 'float32', shape: [2], values: new Float32Array([1, 2]) } }, 'row'));
  });
});
