// The Open Inference Protocol's pure parts: routes, datatypes, tensor data both ways, half
// floats. The routes against the real process are in test/rest/server_open_inference.test.ts.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseV2Path, MethodNotAllowed } from '../../../src/rest/v2/v2_paths.js';
import { datatypeOfTf, dtypeOfDatatype } from '../../../src/rest/v2/datatypes.js';
import {
  DATA_SLICE_ELEMENTS,
  float32Text,
  jsonDataText,
  tensorFromBytes,
  tensorFromJson,
  tensorToBytes,
} from '../../../src/rest/v2/tensor_data.js';
import { decodeInferInput, parseInferRequest } from '../../../src/rest/v2/infer_request.js';
import { floatToBfloat16, floatToHalf } from '../../../src/tensor/half_encode.js';
import { bfloat16ToFloat, halfToFloat } from '../../../src/tensor/half.js';
import { Code, ServingError } from '../../../src/errors/status.js';

const refused = (f: () => unknown, code: Code, message: RegExp) =>
  assert.throws(f, (e: unknown) => e instanceof ServingError && e.code === code && message.test(e.message));

describe('v2 routes', () => {
  it('each route, versions as numbers, labels as labels, names decoded once', () => {
    assert.deepEqual(parseV2Path('GET', '/v2'), { kind: 'server_metadata' });
    assert.deepEqual(parseV2Path('GET', '/v2/health/ready'), { kind: 'ready' });
    assert.deepEqual(parseV2Path('GET', '/v2/models/m'), { kind: 'model_metadata', model: { name: 'm' } });
    assert.deepEqual(parseV2Path('GET', '/v2/models/m/versions/7/ready'), { kind: 'model_ready', model: { name: 'm', version: 7 } });
    assert.deepEqual(parseV2Path('POST', '/v2/models/m/versions/stable/infer'), { kind: 'infer', model: { name: 'm', label: 'stable' } });
    assert.deepEqual(parseV2Path('POST', '/v2/models/a%2Fb%25c/infer'), { kind: 'infer', model: { name: 'a/b%c' } });
  });

  it('not a route: NOT_FOUND; a route with the wrong method: MethodNotAllowed', () => {
    refused(() => parseV2Path('GET', '/v2/models'), Code.NOT_FOUND, /Not found/);
    refused(() => parseV2Path('GET', '/v2/models/m/versions/1/ready/x'), Code.NOT_FOUND, /Not found/);
    assert.throws(
      () => parseV2Path('GET', '/v2/models/m/infer'),
      (e) => e instanceof MethodNotAllowed && e.allow === 'POST',
    );
    assert.deepEqual(parseV2Path('OPTIONS', '/v2/models/m/infer'), { kind: 'infer', model: { name: 'm' } });
    refused(() => parseV2Path('OPTIONS', '/v2/elsewhere'), Code.NOT_FOUND, /Not found/);
    refused(() => parseV2Path('GET', '/v2/models/%E0%A4%A/ready'), Code.INVALID_ARGUMENT, /percent-encoding/);
  });
});

describe('v2 datatypes', () => {
  it('spec names ↔ TF dtypes; unknown and lower-case names are none', () => {
    assert.equal(dtypeOfDatatype('FP32'), 'float32');
    assert.equal(dtypeOfDatatype('BYTES'), 'string');
    assert.equal(dtypeOfDatatype('fp32'), undefined);
    assert.equal(dtypeOfDatatype('constructor'), undefined);
    assert.equal(datatypeOfTf('DT_HALF'), 'FP16');
    assert.equal(datatypeOfTf('DT_UINT64'), 'UINT64');
    assert.equal(datatypeOfTf('DT_RESOURCE'), 'DT_RESOURCE');
  });
});

describe('v2 tensor data', () => {
  it('JSON data, flat or nested, checked per datatype', () => {
    assert.deepEqual(
      tensorFromJson(
        'x',
        'float32',
        [2, 2],
        [
          [1, 2],
          [3, 4.5],
        ],
      ).values,
      new Float32Array([1, 2, 3, 4.5]),
    );
    assert.deepEqual(tensorFromJson('x', 'int64', [2], [1, 2n ** 62n]).values, new BigInt64Array([1n, 2n ** 62n]));
    assert.deepEqual(tensorFromJson('x', 'bool', [3], [true, false, true]).values, new Uint8Array([1, 0, 1]));
    assert.deepEqual(tensorFromJson('x', 'string', [1], ['é']).values, [new Uint8Array([0xc3, 0xa9])]);
    refused(() => tensorFromJson('x', 'int8', [1], [128]), Code.INVALID_ARGUMENT, /\[-128, 127\]/);
    refused(() => tensorFromJson('x', 'uint64', [1], [-1]), Code.INVALID_ARGUMENT, /\[0, 18446744073709551615\]/);
    refused(() => tensorFromJson('x', 'bool', [1], [1]), Code.INVALID_ARGUMENT, /expected true or false/);
    refused(() => tensorFromJson('x', 'string', [1], [1]), Code.INVALID_ARGUMENT, /expected a string/);
    refused(() => tensorFromJson('x', 'float32', [3], [[1, 2]]), Code.INVALID_ARGUMENT, /has 2 elements but shape \[3\] needs 3/);
  });

  it('binary data: fixed-size types by width, BOOL as bytes, BYTES length-prefixed', () => {
    const f = tensorFromBytes('x', 'float32', [2], new Uint8Array(new Float32Array([1.5, -2]).buffer));
    assert.deepEqual(f.values, new Float32Array([1.5, -2]));
    // An unaligned view into a larger body is copied, not reinterpreted in place.
    const body = new Uint8Array(9);
    body.set(new Uint8Array(new Float64Array([0.25]).buffer), 1);
    assert.deepEqual(tensorFromBytes('x', 'float64', [1], body.subarray(1)).values, new Float64Array([0.25]));
    assert.deepEqual(tensorFromBytes('x', 'bool', [2], new Uint8Array([0, 7])).values, new Uint8Array([0, 1]));
    const strings = tensorToBytes({ dtype: 'string', shape: [2], values: [new Uint8Array([97]), new Uint8Array([])] });
    assert.deepEqual([...strings], [1, 0, 0, 0, 97, 0, 0, 0, 0]);
    assert.deepEqual(tensorFromBytes('x', 'string', [2], strings).values, [new Uint8Array([97]), new Uint8Array([])]);
    refused(() => tensorFromBytes('x', 'string', [3], strings), Code.INVALID_ARGUMENT, /holds 2 elements but its shape needs 3/);
    refused(() => tensorFromBytes('x', 'string', [1], strings), Code.INVALID_ARGUMENT, /does not hold 1/);
    refused(() => tensorFromBytes('x', 'int32', [2], new Uint8Array(7)), Code.INVALID_ARGUMENT, /needs 8/);
  });

  it('output data: flat, float32 shortest round trip, int64 exact, NaN bare', async () => {
    assert.equal(float32Text(Math.fround(0.1)), '0.1');
    assert.equal(float32Text(Math.fround(1 / 3)), '0.33333334');
    for (const v of [Math.fround(Math.PI), 3.4028234663852886e38, 1.401298464324817e-45, -0])
      assert.equal(Math.fround(Number(float32Text(v))), v);
    assert.equal(
      await jsonDataText({ dtype: 'float32', shape: [2, 2], values: new Float32Array([NaN, Infinity, -Infinity, 2.5]) }),
      '[NaN,Infinity,-Infinity,2.5]',
    );
    assert.equal(await jsonDataText({ dtype: 'int64', shape: [1], values: new BigInt64Array([-(2n ** 63n)]) }), '[-9223372036854775808]');
    const large = new Float32Array(DATA_SLICE_ELEMENTS * 2 + 1).fill(0.5);
    assert.equal(
      await jsonDataText({ dtype: 'float32', shape: [large.length], values: large }),
      `[${Array(large.length).fill('0.5').join(',')}]`,
    );
    assert.equal(await jsonDataText({ dtype: 'string', shape: [1], values: [new TextEncoder().encode('a"b')] }), '["a\\"b"]');
  });
});

describe('v2 inference request', () => {
  it('binary inputs take their bytes in order; the rest are JSON; output binary flags', () => {
    const binary = new Uint8Array([...new Uint8Array(new Int32Array([7]).buffer), 1, 0]);
    const r = parseInferRequest(
      {
        id: 'a',
        parameters: { binary_data_output: true },
        inputs: [
          { name: 'i', shape: [1], datatype: 'INT32', parameters: { binary_data_size: 4 } },
          { name: 'j', shape: [1], datatype: 'FP64', data: [0.5] },
          { name: 'b', shape: [2], datatype: 'BOOL', parameters: { binary_data_size: 2 } },
        ],
        outputs: [{ name: 'o' }, { name: 'p', parameters: { binary_data: false } }],
      },
      binary,
      100,
    );
    assert.deepEqual(Object.keys(r.inputs), ['i', 'j', 'b']);
    assert.deepEqual(decodeInferInput(r.inputs.i).values, new Int32Array([7]));
    assert.deepEqual(decodeInferInput(r.inputs.b).values, new Uint8Array([1, 0]));
    assert.deepEqual(r.outputs, [
      { name: 'o', binary: true },
      { name: 'p', binary: false },
    ]);
    assert.equal(r.id, 'a');
  });

  it('input names are own members, even __proto__', () => {
    const r = parseInferRequest(
      JSON.parse('{"inputs": [{"name": "__proto__", "shape": [1], "datatype": "FP32", "data": [1]}]}'),
      new Uint8Array(0),
      100,
    );
    assert.ok(Object.hasOwn(r.inputs, '__proto__'));
    assert.equal(Object.getPrototypeOf(r.inputs), Object.prototype);
  });

  it('a shape over the element limit is refused before anything is allocated', () => {
    refused(
      () =>
        parseInferRequest(
          { inputs: [{ name: 'x', shape: [1e6, 1e6], datatype: 'FP32', parameters: { binary_data_size: 0 } }] },
          new Uint8Array(0),
          100,
        ),
      Code.INVALID_ARGUMENT,
      /more than the 100 allowed/,
    );
  });
});

describe('half and bfloat16 encoding', () => {
  it('round trips through the decoders; rounds to nearest even; overflow to Inf; NaN stays NaN', () => {
    for (const v of [0, -0, 1, -2.5, 65504, 6.103515625e-5, 5.960464477539063e-8, Infinity, -Infinity])
      assert.equal(halfToFloat(floatToHalf(v)), v, String(v));
    assert.equal(floatToHalf(1 + 2 ** -11), 0x3c00); // a tie rounds to the even 1.0
    assert.equal(floatToHalf(1 + 3 * 2 ** -11), 0x3c02); // a tie rounds up to the even neighbour
    assert.equal(floatToHalf(65520), 0x7c00);
    assert.ok(Number.isNaN(halfToFloat(floatToHalf(NaN))));
    for (const v of [0, 1, -3.5, 0.15625, 2 ** 100]) assert.equal(bfloat16ToFloat(floatToBfloat16(v)), v, String(v));
    assert.equal(floatToBfloat16(1), 0x3f80);
    assert.equal(floatToBfloat16(1 + 2 ** -8), 0x3f80); // tie → even
    assert.equal(floatToBfloat16(1 + 3 * 2 ** -8), 0x3f82);
    assert.ok(Number.isNaN(bfloat16ToFloat(floatToBfloat16(NaN))));
  });
});
