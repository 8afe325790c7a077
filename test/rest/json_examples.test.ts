// JSON examples → serialized tf.Example protos, as TF Serving's json_tensor builds them.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseExampleRequest } from '../../src/rest/json_examples.js';
import { parseJsonBody } from '../../src/rest/json_parse.js';
import { protoType, TO_OBJECT } from '../../src/proto/index.js';
import { Code, ServingError } from '../../src/core/status.js';

const LIMITS = { maxDepth: 64, maxElements: 1 << 20 };
const Example = protoType('tensorflow.Example');
const decode = (b: Uint8Array) => (Example.toObject(Example.decode(b), { ...TO_OBJECT, oneofs: false }) as { features: { feature: Record<string, unknown> } }).features.feature;
const parse = (json: string) => parseExampleRequest(parseJsonBody(json, LIMITS));

describe('JSON → tf.Example', () => {
  it('integer literals are int64, fractions and exponents float, strings and b64 bytes; lists keep one kind', () => {
    const [e] = parse('{"examples": [{"i": 1, "f": 1.0, "e": 2e0, "l": [1, 2.5], "il": [1, 2], "s": "ab", "b": {"b64": "AAE="}, "big": 9007199254740993}]}').serialized.map(decode);
    assert.deepEqual(e.i, { int64List: { value: [1] } });
    assert.deepEqual(e.f, { floatList: { value: [1] } });
    assert.deepEqual(e.e, { floatList: { value: [2] } });
    assert.deepEqual(e.l, { floatList: { value: [1, 2.5] } });
    assert.deepEqual(e.il, { int64List: { value: [1, 2] } });
    const bytes = (f: unknown) => (f as { bytesList: { value: Uint8Array[] } }).bytesList.value.map((b) => [...b]);
    assert.deepEqual(bytes(e.s), [[0x61, 0x62]]);
    assert.deepEqual(bytes(e.b), [[0, 1]]);
    assert.ok('int64List' in (e.big as object));
  });

  it('merges the context into each example; the example wins on a shared key', () => {
    const r = parse('{"signature_name": "s", "context": {"c": 1.5, "x": 0.0}, "examples": [{"x": 2.0}, {}]}');
    assert.equal(r.signatureName, 's');
    assert.deepEqual(r.serialized.map(decode), [
      { c: { floatList: { value: [1.5] } }, x: { floatList: { value: [2] } } },
      { c: { floatList: { value: [1.5] } }, x: { floatList: { value: [0] } } },
    ]);
  });

  it('refuses what cannot become a feature, with INVALID_ARGUMENT', () => {
    for (const [json, re] of [
      ['{"examples": [{"x": [1, "a"]}]}', /mixes strings and numbers/],
      ['{"examples": [{"x": []}]}', /empty list/],
      ['{"examples": [{"x": {"b64": "!!"}}]}', /base64/],
      ['{"examples": [{"x": null}]}', /must be a number, a string/],
      ['{"examples": [{"x": 18446744073709551615}]}', /Only int64 is supported/],
      ['{"examples": [3]}', /Example 0 must be a JSON object/],
      ['{"instances": [1]}', /'examples' key/],
      ['{"context": [1], "examples": []}', /'context' must be a JSON object/],
      ['[1]', /must be a JSON object/],
    ] as const) {
      assert.throws(() => parse(json), (e: unknown) => e instanceof ServingError && e.code === Code.INVALID_ARGUMENT && re.test(e.message), json);
    }
  });
});
