// The REST JSON codec against TF Serving's json_tensor.cc behaviour and messages.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parsePredictRequest, predictResponseJson } from '../../src/rest/json_tensor.js';
import { parseJsonBody } from '../../src/rest/json_parse.js';
import { formatFloat32, formatFloat64 } from '../../src/rest/float_format.js';
import type { SignatureSpec } from '../../src/runtimes/runtime.js';
import type { HostTensor } from '../../src/tensor/host_tensor.js';

const sig = (inputs: Record<string, string>, defaults: Record<string, HostTensor> = {}): SignatureSpec => ({
  key: 'serving_default',
  methodName: 'tensorflow/serving/predict',
  inputs: Object.fromEntries(Object.entries(inputs).map(([k, dtype]) => [k, { name: `${k}:0`, dtype, shape: null }])),
  outputs: {},
  defaults,
});
const LIMITS = { maxDepth: 64, maxElements: 1_000_000 };
const parse = (body: string, s: SignatureSpec) => parsePredictRequest(parseJsonBody(body, LIMITS), s);
const values = (t: HostTensor) => Array.from(t.values as ArrayLike<number | bigint>);

describe('parsePredictRequest', () => {
  it('row format: a plain list feeds the only input, batched along a new first dimension', () => {
    const { format, inputs } = parse('{"instances": [[1, 2], [3, 4], [5, 6]]}', sig({ x: 'DT_FLOAT' }));
    assert.equal(format, 'row');
    assert.deepEqual(inputs.x.shape, [3, 2]);
    assert.deepEqual(values(inputs.x), [1, 2, 3, 4, 5, 6]);
  });

  it('row format: objects name the inputs; each keeps its dtype', () => {
    const { inputs } = parse('{"instances": [{"a": 1, "b": "x"}, {"a": 2, "b": "y"}]}', sig({ a: 'DT_INT64', b: 'DT_STRING' }));
    assert.equal(inputs.a.dtype, 'int64');
    assert.deepEqual(values(inputs.a), [1n, 2n]);
    assert.deepEqual((inputs.b.values as Uint8Array[]).map((b) => Buffer.from(b).toString()), ['x', 'y']);
  });

  it('columnar format: tensors as given, no batch dimension added; scalars allowed', () => {
    const { format, inputs } = parse('{"inputs": {"a": 3, "b": [[true, false]]}}', sig({ a: 'DT_INT32', b: 'DT_BOOL' }));
    assert.equal(format, 'columnar');
    assert.deepEqual(inputs.a.shape, []);
    assert.deepEqual(inputs.b.shape, [1, 2]);
    assert.deepEqual(values(inputs.b), [1, 0]);
  });

  it('{"b64": …} decodes to bytes for string inputs', () => {
    const { inputs } = parse('{"instances": [{"b64": "aGVsbG8="}]}', sig({ s: 'DT_STRING' }));
    assert.equal(Buffer.from((inputs.s.values as Uint8Array[])[0]).toString(), 'hello');
  });

  it('NaN and Infinity are accepted for floats', () => {
    const { inputs } = parse('{"inputs": [NaN, -Infinity]}', sig({ x: 'DT_FLOAT' }));
    assert.ok(Number.isNaN((inputs.x.values as Float32Array)[0]));
    assert.equal((inputs.x.values as Float32Array)[1], -Infinity);
  });

  it('a missing columnar input with a SignatureDef default is left to the default', () => {
    const { inputs } = parse('{"inputs": {}}', sig({ x: 'DT_FLOAT' }, { x: { dtype: 'float32', shape: [1], values: Float32Array.of(0) } }));
    assert.deepEqual(Object.keys(inputs), []);
  });

  const ERRORS: Array<[string, string, Record<string, string>, RegExp]> = [
    ['plain list for two inputs', '{"instances": [1, 2]}', { a: 'DT_FLOAT', b: 'DT_FLOAT' }, /^instances is a plain list, but expecting list of objects as multiple input tensors required as per tensorinfo_map$/],
    ['mixed objects and lists', '{"instances": [{"x": 1}, [2]]}', { x: 'DT_FLOAT' }, /^Expecting object but got list at item 1 of input list$/],
    ['keys differ between instances', '{"instances": [{"a": 1, "b": 2}, {"a": 1}]}', { a: 'DT_FLOAT', b: 'DT_FLOAT' }, /keys must be equal to: a,b$/],
    ['int32 out of range', '{"inputs": [3000000000]}', { x: 'DT_INT32' }, /Type: Number is not of expected type: int32$/],
    ['fraction for int', '{"inputs": [1.5]}', { x: 'DT_INT64' }, /is not of expected type: int64$/],
    ['bool as number', '{"inputs": [1]}', { x: 'DT_BOOL' }, /Type: Number is not of expected type: bool$/],
    ['object for a float', '{"inputs": [{"b64": "AA=="}]}', { x: 'DT_FLOAT' }, /Type: Object is not of expected type: float$/],
    ['bad b64 object', '{"inputs": [{"b64": 1}]}', { x: 'DT_STRING' }, /not formatted correctly for base64 data$/],
    ['value at the wrong depth', '{"inputs": [[1], 2]}', { x: 'DT_FLOAT' }, /found at incorrect level: 2 in the JSON DOM. Expected at level: 2$/],
    ['list deeper than the first element', '{"inputs": [1, [2]]}', { x: 'DT_FLOAT' }, /^Encountered list at unexpected level: 1 expected < 1$/],
    ['columnar plain value for two inputs', '{"inputs": [1]}', { a: 'DT_FLOAT', b: 'DT_FLOAT' }, /^inputs is a plain value\/list, but expecting an object/],
    ['columnar missing input', '{"inputs": {"a": 1}}', { a: 'DT_FLOAT', b: 'DT_FLOAT' }, /^Missing named input: b in 'inputs' object.$/],
    ['instances not a list', '{"instances": 1}', { x: 'DT_FLOAT' }, /Expecting 'instances' to be an list\/array$/],
  ];
  for (const [what, body, inputs, message] of ERRORS) {
    it(`error: ${what}`, () => assert.throws(() => parse(body, sig(inputs)), (e: Error) => message.test(e.message)));
  }
});

describe('parseJsonBody limits', () => {
  it('rejects nesting deeper than the limit before any tensor is built', () => {
    assert.throws(() => parseJsonBody('{"inputs": [[[[1]]]]}', { maxDepth: 3, maxElements: 100 }), /deeper than the limit of 3/);
  });
  it('rejects more elements than the limit', () => {
    assert.throws(() => parseJsonBody(`{"inputs": [${new Array(101).fill(1).join(',')}]}`, { maxDepth: 10, maxElements: 100 }), /more than the limit of 100 elements/);
  });
  it('keeps NaN-looking text inside strings as text', () => {
    assert.deepEqual(parseJsonBody('{"s": "NaN Infinity", "v": NaN}', LIMITS), { s: 'NaN Infinity', v: NaN });
  });
});

describe('predictResponseJson', () => {
  const f32 = (shape: number[], v: number[]): HostTensor => ({ dtype: 'float32', shape, values: Float32Array.from(v) });
  it('row format, one output: the list of per-instance values, floats as TF Serving prints them', () => {
    assert.equal(predictResponseJson({ y: f32([3, 1], [2.5, 3, 0.1]) }, 'row'), '{"predictions": [[2.5], [3.0], [0.1]]}');
  });
  it('row format, several outputs: one object per instance', () => {
    const out = predictResponseJson({ a: f32([2], [1, 2]), b: { dtype: 'int64', shape: [2], values: BigInt64Array.of(7n, 9007199254740993n) } }, 'row');
    assert.equal(out, '{"predictions": [{"a": 1.0, "b": 7}, {"a": 2.0, "b": 9007199254740993}]}');
  });
  it('row format: outputs must share the batch size', () => {
    assert.throws(() => predictResponseJson({ a: f32([2], [1, 2]), b: f32([3], [1, 2, 3]) }, 'row'), (e: Error) => e.message === 'Tensor name: b has inconsistent batch size: 3 expecting: 2');
  });
  it('columnar: a bare value for one output, an object for several; *_bytes as b64', () => {
    assert.equal(predictResponseJson({ y: f32([], [1.5]) }, 'columnar'), '{"outputs": 1.5}');
    const bytes: HostTensor = { dtype: 'string', shape: [1], values: [Buffer.from('hi')] };
    assert.equal(predictResponseJson({ out_bytes: bytes, s: { ...bytes } }, 'columnar'), '{"outputs": {"out_bytes": [{"b64": "aGk="}], "s": ["hi"]}}');
  });
  it('float formatting: shortest form that reads back, %g style, whole numbers with .0', () => {
    assert.equal(formatFloat32(Math.fround(0.1)), '0.1');
    assert.equal(formatFloat32(3), '3.0');
    assert.equal(formatFloat32(Math.fround(1 / 3)), '0.333333343');
    assert.equal(formatFloat32(1e-5), '1e-05');
    assert.equal(formatFloat32(9000000), '9e+06');
    assert.equal(formatFloat64(1 / 3), '0.33333333333333331');
    assert.equal(formatFloat32(NaN), 'NaN');
    assert.equal(formatFloat32(-Infinity), '-Infinity');
  });
});
