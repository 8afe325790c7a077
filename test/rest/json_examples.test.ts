// JSON examples → serialized tf.Example protos, as TF Serving's json_tensor builds them.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseExampleRequest } from '../../src/rest/json_examples.js';
import { parseJsonBody } from '../../src/rest/json_parse.js';
import { protoType, TO_OBJECT } from '../../src/proto/index.js';
import { Code, ServingError } from '../../src/errors/status.js';

const LIMITS = { maxDepth: 64, maxElements: 1 << 20 };
const Example = protoType('tensorflow.Example');
const decode = (b: Uint8Array) =>
  (Example.toObject(Example.decode(b), { ...TO_OBJECT, oneofs: false }) as { features: { feature: Record<string, unknown> } }).features
    .feature;
const parse = (json: string) => parseExampleRequest(parseJsonBody(json, LIMITS));

describe('JSON → tf.Example', () => {
  it('integer literals and booleans are int64, fractions and exponents float, strings and b64 bytes', () => {
    const [e] = parse(
      '{"examples": [{"i": 1, "t": [true, false], "f": 1.0, "e": 2e0, "fl": [1.5, 2.0], "il": [1, 2], "s": "ab", "b": {"b64": "AAE="}, "big": 9007199254740993, "huge": 18446744073709551616, "none": []}]}',
    ).serialized.map(decode);
    assert.deepEqual(e.i, { int64List: { value: [1] } });
    assert.deepEqual(e.t, { int64List: { value: [1, 0] } });
    assert.deepEqual(e.f, { floatList: { value: [1] } });
    assert.deepEqual(e.e, { floatList: { value: [2] } });
    assert.deepEqual(e.fl, { floatList: { value: [1.5, 2] } });
    assert.deepEqual(e.il, { int64List: { value: [1, 2] } });
    const bytes = (f: unknown) => (f as { bytesList: { value: Uint8Array[] } }).bytesList.value.map((b) => [...b]);
    assert.deepEqual(bytes(e.s), [[0x61, 0x62]]);
    assert.deepEqual(bytes(e.b), [[0, 1]]);
    assert.ok('int64List' in (e.big as object));
    assert.ok('floatList' in (e.huge as object), 'beyond uint64 RapidJSON reads a double');
    assert.deepEqual(e.none, {}, 'an empty list is a feature of no kind');
  });

  it('merges the context into each example; the example wins on a shared key', () => {
    const r = parse('{"signature_name": "s", "context": {"c": 1.5, "x": 0.0}, "examples": [{"x": 2.0}, {}]}');
    assert.equal(r.signatureName, 's');
    assert.deepEqual(r.serialized.map(decode), [
      { c: { floatList: { value: [1.5] } }, x: { floatList: { value: [2] } } },
      { c: { floatList: { value: [1.5] } }, x: { floatList: { value: [0] } } },
    ]);
  });

  it("refuses with TF Serving's texts (INVALID_ARGUMENT)", () => {
    for (const [json, text] of [
      ['{"examples": [{"x": [1, 2.5]}]}', 'Unexpected element type in feature: x expecting type: int64'],
      ['{"examples": [{"x": ["a", 1]}]}', 'Unexpected element type in feature: x expecting type: bytes'],
      ['{"examples": [{"x": [1.5, {"b64": "AA=="}]}]}', 'Unexpected element type in feature: x expecting type: float'],
      ['{"examples": [{"x": null}]}', 'Feature: x has element with unexpected JSON type: Null'],
      ['{"examples": [{"x": [[1]]}]}', 'Feature: x has element with unexpected JSON type: Array'],
      ['{"examples": [{"x": {"a": 1}}]}', 'Feature: x has element with unexpected JSON type: Object'],
      ['{"examples": [{"x": 18446744073709551615}]}', 'Feature: x has uint64 element. Only int64 is supported.'],
      ['{"examples": [3]}', 'Example must be JSON object but got JSON Number'],
      [
        '{"examples": [{"x": 1.7976931348623157e308}]}',
        'Cannot convert JSON value: 1.7976931348623157e+308 to float without loss of precision.',
      ],
      ['{"examples": [{"names": [10, 10.0]}]}', 'Unexpected element type in feature: names expecting type: int64'],
      ['{"context": [1], "examples": [{}]}', 'Example must be JSON object but got JSON Array'],
      [
        '{"instances": [1]}',
        `JSON Value: {\n    "instances": [1]\n} When method is classify, key 'examples' is expected and was not found`,
      ],
      ['{"examples": 1}', `JSON Value: {\n    "examples": 1\n} Expecting 'examples' value to be an list/array`],
      ['{"examples": []}', `JSON Value: {\n    "examples": []\n} 'examples' value is an empty array`],
    ] as const) {
      assert.throws(
        () => parse(json),
        (e: unknown) => e instanceof ServingError && e.code === Code.INVALID_ARGUMENT && e.message === text,
        json,
      );
    }
    assert.throws(
      () => parse('{"signature_name": ["hello"], "examples": [{"names": ["foo", "bar"]}]}'),
      (e: unknown) =>
        e instanceof ServingError &&
        /^JSON Value: \{[^]*\} not formatted correctly\. 'signature_name' key must be a string value\.$/.test(e.message),
    );
  });
});
