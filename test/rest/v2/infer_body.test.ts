// A /v2 infer body read by the tensor reader (infer_body_reader.ts), on the event loop and on a
// body-parser thread, gives the request, tensors and errors the general parser gives
// (json_parse.ts + parseInferRequest + decodeInferInput, the way every body was read before),
// at the same step: the request (before the inputs are checked against the signature) or the
// tensors (after). Tensors are compared byte for byte.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseJsonBody } from '../../../src/rest/json_parse.js';
import { decodeInferInput, INFER_REQUEST_MEMBERS, parseInferRequest, type InferRequest } from '../../../src/rest/v2/infer_request.js';
import { splitInferenceBody } from '../../../src/rest/v2/binary_body.js';
import { inferRequestHead, parseInferBody, type InferBody } from '../../../src/rest/v2/infer_body.js';
import { readInferBody } from '../../../src/rest/v2/infer_body_reader.js';
import { readTensorList } from '../../../src/rest/json_tensor_reader.js';
import { BodyParserPool } from '../../../src/rest/body_parser_pool.js';
import { MemoryBudget } from '../../../src/services/memory_budget.js';
import { toStatusData } from '../../../src/errors/status.js';
import type { HostTensor } from '../../../src/tensor/host_tensor.js';
import { decodedTensorBytes } from '../../../src/tensor/tensor_cost.js';

const LIMITS = { jsonMaxDepth: 16, jsonMaxElements: 10_000 };
const pool = new BodyParserPool(1, 0);
after(() => pool.close());

type Outcome = { parse: string } | { request: InferRequest; tensors: unknown } | { request: InferRequest; decode: string };

const failure = (e: unknown) => {
  const s = toStatusData(e);
  return `${s.code} ${s.message}`;
};

/** Values as bytes (bit for bit: -0, NaN payloads), strings as lists of bytes, each its own copy (not a view of the body). */
function bits(tensors: Record<string, HostTensor>) {
  return Object.entries(tensors).map(([name, t]) => [
    name,
    t.dtype,
    t.shape,
    Array.isArray(t.values)
      ? t.values.map((v) => [v.byteOffset, v.buffer.byteLength - v.byteLength, ...v])
      : [...new Uint8Array(t.values.buffer, t.values.byteOffset, t.values.byteLength)],
  ]);
}

/** The general parser's way, as every body was read before the tensor reader. */
function generalWay(body: Uint8Array, header?: string, limits = LIMITS): Outcome {
  let request: InferRequest;
  try {
    const { json, binary } = splitInferenceBody(body, header);
    const text = Buffer.from(json).toString('utf8');
    const doc = parseJsonBody(text, {
      maxDepth: limits.jsonMaxDepth,
      maxElements: limits.jsonMaxElements,
      rootMembers: INFER_REQUEST_MEMBERS,
    });
    request = parseInferRequest(doc, binary, limits.jsonMaxElements);
  } catch (e) {
    return { parse: failure(e) };
  }
  const head = inferRequestHead(request);
  try {
    const tensors: Record<string, HostTensor> = {};
    for (const [name, input] of Object.entries(request.inputs))
      Object.defineProperty(tensors, name, { value: decodeInferInput(input), enumerable: true });
    return { request: head, tensors: bits(tensors) };
  } catch (e) {
    return { request: head, decode: failure(e) };
  }
}

async function outcome(parse: () => Promise<InferBody>): Promise<Outcome> {
  let body: InferBody;
  try {
    body = await parse();
  } catch (e) {
    return { parse: failure(e) };
  }
  const request = inferRequestHead(body.request);
  try {
    return { request, tensors: bits(await body.tensors()) };
  } catch (e) {
    return { request, decode: failure(e) };
  }
}

const onLoop = (body: Uint8Array, header?: string, limits = LIMITS) => outcome(() => parseInferBody(body, header, limits, () => {}));
const onThread = (body: Uint8Array, header?: string, limits = LIMITS) =>
  outcome(() => pool.parseInfer(body, header, limits, new MemoryBudget(Number.MAX_SAFE_INTEGER).claim()));

const input = (datatype: string, shape: unknown, data: string, name = 'x') =>
  `{"name": "${name}", "shape": ${JSON.stringify(shape)}, "datatype": "${datatype}", "data": ${data}}`;
const body = (...inputs: string[]) => `{"inputs": [${inputs.join(', ')}]}`;

/** Bodies the reader reads itself (besides giving the general parser's answer). */
const READ: Array<[string, string]> = [
  ['FP32 flat', body(input('FP32', [2, 2], '[1, 2, 3, 4.5]'))],
  ['FP32 nested as its shape', body(input('FP32', [2, 2], '[[1, 2], [3, 4.5]]'))],
  ['FP32 nested otherwise (3×2 for [2, 3]: the leaves count)', body(input('FP32', [2, 3], '[[1, 2], [3, 4], [5, 6]]'))],
  ['FP32 nested deeper', body(input('FP32', [2], '[[[1]], [[2]]]'))],
  [
    'FP32 numbers of every form',
    body(
      input(
        'FP32',
        [17],
        '[-0, -0.0, 0.1, 1e-7, 3.4028235e38, 1e39, -1E+2, NaN, -NaN, Inf, -Infinity, 0.30000000000000004, 12345678901234567890, 9007199254740993, 1.00000001, 123456789012345678901234567890, 2.5e-45]',
      ),
    ),
  ],
  ['FP64 the same numbers', body(input('FP64', [8], '[-0, -0.0, 0.1, 1e-300, 1.7976931348623157e308, NaN, -Infinity, 9007199254740993]'))],
  [
    'FP64 and FP32 at the ends of the range',
    body(
      input('FP64', [7], '[1e-400, -1e-400, 4.9e-324, 2.4e-324, 1e308, 1.7976931348623159e308, 0.000000000000000000000000000001]'),
      input('FP32', [4], '[1e-400, 1.4e-45, 3.4028236e38, 1e308]', 'y'),
    ),
  ],
  ['FP16 and BF16', body(input('FP16', [5], '[1.5, 65504, 1e6, 0.1, -0.0]'), input('BF16', [3], '[1.5, 3.4e38, 0.1]', 'y'))],
  [
    'INT8, INT16, UINT8, UINT16 at their bounds',
    body(
      input('INT8', [2], '[127, -128]'),
      input('UINT8', [2], '[0, 255]', 'u8'),
      input('INT16', [2], '[32767, -32768]', 'i16'),
      input('UINT16', [1], '[65535]', 'u16'),
    ),
  ],
  ['INT32, UINT32 at their bounds', body(input('INT32', [3], '[2147483647, -2147483648, -0]'), input('UINT32', [1], '[4294967295]', 'u'))],
  [
    'INT64, UINT64 past 2^53',
    body(
      input('INT64', [3], '[9007199254740993, -9223372036854775808, 9223372036854775807]'),
      input('UINT64', [1], '[18446744073709551615]', 'u'),
    ),
  ],
  ['BOOL', body(input('BOOL', [1, 3], '[[true, false, true]]'))],
  ['BYTES: ASCII, UTF-8, empty', body(input('BYTES', [4], '["a", "é", "", "ÿ"]'))],
  [
    'the rest of the request: id, parameters, outputs, members nobody reads, whitespace',
    `{ "id" : "42", "parameters": {"signature_name": "serving_default", "binary_data_output": false, "n": 1.5, "z": null},
       "inputs": [ {"name":"x","datatype":"FP32","shape":[1,2],"parameters":{"k":"v"},"data":[ 1 ,2 ] } ],
       "outputs": [{"name": "y", "parameters": {"binary_data": true}}], "extra": [{"a": [1, {"b": 2}]}] } trailing text`,
  ],
  ['a shape of 2.0 (accepted: 2)', `{"inputs": [{"name": "x", "shape": [2.0], "datatype": "FP32", "data": [1, 2]}]}`],
  [
    'data before its datatype and shape (counted, then read)',
    `{"inputs": [{"name": "x", "data": [[1, 2]], "shape": [1, 2], "datatype": "FP32"}, {"data": ["a"], "name": "s", "datatype": "BYTES", "shape": [1]}]}`,
  ],
  ['an input named __proto__ and a shape of [1, 1]', body(input('FP32', [1, 1], '[7]', '__proto__'))],
  ['an id that is a number (refused as before)', `{"id": 1, "inputs": [${input('FP32', [1], '[1]')}]}`],
  ['inputs not a list (refused as before)', '{"inputs": {}}'],
  ['no inputs (refused as before)', '{}'],
  ['an input given twice', body(input('FP32', [1], '[1]'), input('FP32', [1], '[2]'))],
  [
    'an input with both data and binary_data_size',
    `{"inputs": [{"name": "x", "shape": [1], "datatype": "FP32", "data": [1], "parameters": {"binary_data_size": 4}}]}`,
  ],
];

/** Bodies the reader leaves to the general parser: anything wrong or unusual, and what it does not read. */
const DECLINED: Array<[string, string]> = [
  ['too few elements', body(input('FP32', [3], '[1, 2]'))],
  ['too many elements', body(input('FP32', [2], '[1, 2, 3]'))],
  ['ragged nested lists (accepted: 3 leaves)', body(input('FP32', [3], '[[1, 2], [3]]'))],
  ['an empty inner list (accepted: 2 leaves)', body(input('FP32', [2], '[[], [1, 2]]'))],
  ['an element of the wrong type', body(input('FP32', [2], '[1, "2"]'))],
  ['a boolean for FP32', body(input('FP32', [1], '[true]'))],
  ['null', body(input('FP32', [1], '[null]'))],
  ['INT32: 1.0 and 1e2 (accepted as integers)', body(input('INT32', [2], '[1.0, 1e2]'))],
  ['INT32: 1.5', body(input('INT32', [1], '[1.5]'))],
  ['INT32 out of range', body(input('INT32', [1], '[2147483648]'))],
  ['INT8 out of range', body(input('INT8', [2], '[1, 128]'))],
  ['UINT8 below 0', body(input('UINT8', [1], '[-1]'))],
  ['UINT64 below 0', body(input('UINT64', [1], '[-1]'))],
  ['INT64 past its range', body(input('INT64', [1], '[9223372036854775808]'))],
  ['BOOL as a number', body(input('BOOL', [1], '[1]'))],
  ['BYTES with an escape', body(input('BYTES', [1], '["a\\"b"]'))],
  ['BYTES as a number', body(input('BYTES', [1], '[1]'))],
  ['BYTES as a b64 object', body(input('BYTES', [1], '[{"b64": "YQ=="}]'))],
  ['an unknown datatype', body(input('FP8', [1], '[1]'))],
  ['a lower-case datatype', body(input('fp32', [1], '[1]'))],
  ['data not a list', body(input('FP32', [1], '1'))],
  ['data before its datatype, one short', `{"inputs": [{"name": "x", "data": [1, 2], "shape": [3], "datatype": "FP32"}]}`],
  ['data before its datatype, a bad number', `{"inputs": [{"name": "x", "data": [1, 2e], "shape": [2], "datatype": "FP32"}]}`],
  ['a negative shape', body(input('FP32', [-1], '[1]'))],
  ['a zero shape', body(input('FP32', [0], '[]'))],
  ['a duplicate data member', `{"inputs": [{"name": "x", "shape": [1], "datatype": "FP32", "data": [1], "data": [2]}]}`],
  ['an id with an escape', `{"id": "a\\nb", "inputs": [${input('FP32', [1], '[1]')}]}`],
  ['a later input wrong, an earlier one read', body(input('FP32', [1], '[1]'), input('FP32', [2], '[1]', 'y'))],
  ['truncated', '{"inputs": [{"name": "x", "shape": [2], "datatype": "FP32", "data": [1, 2'],
  ['a missing item', body(input('FP32', [2], '[1,,2]'))],
  ['a bad number', body(input('FP32', [2], '[1, 2e]'))],
  ['a NUL inside', body(input('FP32', [2], '[1, \u00002]'))],
  ['a number too big', body(input('FP64', [1], '[1e309]'))],
  ['a leading zero', body(input('INT64', [1], '[00]'))],
  ['not JSON', 'not json'],
  ['empty', ''],
];

describe('/v2 infer body: the tensor reader gives the general parser’s request, tensors and errors', () => {
  for (const [name, text] of [...READ, ...DECLINED]) {
    it(name, async () => {
      const bytes = Buffer.from(text, 'utf8');
      const wanted = generalWay(bytes);
      assert.deepEqual(await onLoop(bytes), wanted, 'on the event loop');
      assert.deepEqual(await onThread(Buffer.from(bytes)), wanted, 'on a parser thread');
    });
  }

  it('the reader reads the bodies it should (no JSON tree), and leaves the others', () => {
    const limits = { maxDepth: LIMITS.jsonMaxDepth, maxElements: LIMITS.jsonMaxElements };
    for (const [name, text] of READ)
      assert.notEqual(
        readInferBody(Buffer.from(text), limits, () => {}),
        undefined,
        name,
      );
    for (const [name, text] of DECLINED)
      assert.equal(
        readInferBody(Buffer.from(text), limits, () => {}),
        undefined,
        name,
      );
  });

  it('BYTES and names with invalid UTF-8: U+FFFD, as the body decoded as text reads them', async () => {
    // latin1: each character one byte (0xff, and 0xe2 that starts a sequence the quote cuts short).
    const bytes = Buffer.from(body(input('BYTES', [2], '["a\u00ff", "\u00e2"]', 'n\u00ff')), 'latin1');
    const wanted = generalWay(bytes);
    assert.ok('tensors' in wanted, JSON.stringify(wanted));
    assert.deepEqual(await onLoop(bytes), wanted);
    assert.notEqual(
      readInferBody(bytes, { maxDepth: 16, maxElements: 100 }, () => {}),
      undefined,
    );
  });

  it('readTensorList: strings, not :predict\'s {"b64": …} objects; exactly the declared count', () => {
    const limits = { maxDepth: 8, maxElements: 100 };
    const list = (text: string, dtype: 'string' | 'float32', size: number) =>
      readTensorList(new TextEncoder().encode(text), 0, limits, dtype, size, 3, 0);
    assert.deepEqual(list('["a", "b"]', 'string', 2)?.values, [new Uint8Array([97]), new Uint8Array([98])]);
    assert.equal(list('[{"b64": "YQ=="}]', 'string', 1), undefined);
    assert.deepEqual(list('[[1], [2.5]] ', 'float32', 2)?.values, new Float32Array([1, 2.5]));
    assert.equal(list('[[1], [2.5]]', 'float32', 2)?.end, 12);
    assert.equal(list('[1, 2]', 'float32', 3), undefined);
    assert.equal(list('[1, 2, 3]', 'float32', 2), undefined);
  });

  it('binary tensor data beside JSON data', async () => {
    const json = Buffer.from(
      `{"inputs": [{"name": "b", "shape": [2], "datatype": "INT32", "parameters": {"binary_data_size": 8}}, ${input('FP32', [2], '[0.5, 1]')}]}`,
    );
    const bytes = Buffer.concat([json, Buffer.from(new Int32Array([7, -7]).buffer)]);
    const wanted = generalWay(bytes, String(json.length));
    assert.ok('tensors' in wanted);
    assert.deepEqual(await onLoop(bytes, String(json.length)), wanted);
    assert.deepEqual(await onThread(Buffer.from(bytes), String(json.length)), wanted);
    assert.deepEqual(await onLoop(bytes, String(json.length + 1)), generalWay(bytes, String(json.length + 1)));
  });

  it('--json_max_elements and --json_max_depth: the same answer on either side of each limit', async () => {
    // 1 + 1 + 5 members and items before the data; a list of n more.
    for (const n of [1, 2, 3, 4, 5]) {
      for (const limits of [
        { jsonMaxDepth: 16, jsonMaxElements: 10 },
        { jsonMaxDepth: 16, jsonMaxElements: 11 },
        { jsonMaxDepth: 16, jsonMaxElements: 12 },
      ]) {
        const data = `[${Array(n).fill(1).join(', ')}]`;
        for (const text of [
          body(input('FP32', [n], data)),
          `{"inputs": [{"data": ${data}, "name": "x", "shape": [${n}], "datatype": "FP32"}]}`,
        ]) {
          const bytes = Buffer.from(text);
          assert.deepEqual(
            await onLoop(bytes, undefined, limits),
            generalWay(bytes, undefined, limits),
            `${text} ${limits.jsonMaxElements}`,
          );
        }
      }
    }
    for (const depth of [3, 4, 5, 6]) {
      const limits = { jsonMaxDepth: depth, jsonMaxElements: 100 };
      for (const data of ['[1, 2]', '[[1, 2]]', '[[[1], [2]]]']) {
        const bytes = Buffer.from(body(input('FP32', [2], data)));
        assert.deepEqual(await onLoop(bytes, undefined, limits), generalWay(bytes, undefined, limits), `${depth} ${data}`);
      }
    }
  });

  it('memory: the reader charges the tensors and the little it builds, far under the general parse', async () => {
    const n = 4096;
    const bytes = Buffer.from(body(input('FP32', [n], `[${Array.from({ length: n }, (_, i) => i / 7).join(', ')}]`)));
    let read = 0;
    await parseInferBody(bytes, undefined, LIMITS, (b) => (read += b));
    assert.ok(read >= decodedTensorBytes('float32', n) && read < decodedTensorBytes('float32', n) + 2048, `${read}`);
    // Strings are charged once the input is checked, as tensorFromJson charges them.
    const strings = Buffer.from(body(input('BYTES', [3], '["ab", "", "c"]')));
    let charged = 0;
    const parsed = await parseInferBody(strings, undefined, LIMITS, (b) => (charged += b));
    assert.ok(charged < 2048, `${charged}`);
    await parsed.tensors();
    assert.ok(charged >= decodedTensorBytes('string', 3, 3), `${charged}`);
  });
});
