// A parser thread reads float bodies in one pass into storage it keeps from body to body
// (json_tensor_reader.ts, growthScratch): each body's tensors are what the event loop reads
// from the same bytes, bit for bit, and charged the same, whatever bodies came before it —
// larger ones (their numbers left in the scratch), several inputs, float64 after float32.
import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import { parsePredictBody } from '../../src/rest/predict_body.js';
import { BodyParserPool } from '../../src/rest/body_parser_pool.js';
import { MemoryBudget, MemoryClaim } from '../../src/services/memory_budget.js';
import type { HostTensor } from '../../src/tensor/host_tensor.js';
import type { SignatureSpec } from '../../src/savedmodel/signature_spec.js';

const LIMITS = { jsonMaxDepth: 8, jsonMaxElements: 1 << 20 };
const pool = new BodyParserPool(1, 0);
after(() => pool.close());

function signature(inputs: Record<string, { dtype: string; shape: number[] | null }>): Record<string, SignatureSpec> {
  const spec: SignatureSpec = {
    key: 'serving_default',
    methodName: 'tensorflow/serving/predict',
    inputs: Object.fromEntries(Object.entries(inputs).map(([k, v]) => [k, { name: `${k}:0`, ...v }])) as SignatureSpec['inputs'],
    outputs: {},
    defaults: {},
  };
  return { serving_default: spec };
}

/** Numbers of 1 to 17 significant digits, some past float32's range of exact integers. */
function numbers(count: number, seed: number): string[] {
  return Array.from({ length: count }, (_, i) => {
    const x = Math.sin(seed * 7919 + i) * 10 ** ((i % 9) - 4);
    return String(Number(x.toPrecision(1 + ((i + seed) % 17))));
  });
}

const rows = (count: number, width: number, seed: number) => {
  const xs = numbers(count * width, seed);
  return `[${Array.from({ length: count }, (_, r) => `[${xs.slice(r * width, (r + 1) * width).join(', ')}]`).join(', ')}]`;
};

const bytesOf = (t: HostTensor) => {
  const v = t.values as Float32Array | Float64Array;
  return Buffer.from(v.buffer, v.byteOffset, v.byteLength);
};

async function bothWays(body: string, served: Record<string, SignatureSpec>) {
  const charged: number[] = [];
  const here = await (
    await parsePredictBody(new TextEncoder().encode(body), LIMITS, (n) => charged.push(n), false, served)
  ).tensors(served.serving_default);
  const claim = new MemoryClaim(new MemoryBudget(1 << 30));
  const there = await (await pool.parsePredict(new TextEncoder().encode(body), LIMITS, claim, served)).tensors(served.serving_default);
  const chargedThere = claim.bytes;
  claim.release();
  return { here, there, chargedHere: charged.reduce((a, b) => a + b, 0), chargedThere };
}

describe('float bodies read in one pass on a parser thread, one after another', () => {
  const images = signature({ x: { dtype: 'DT_FLOAT', shape: [-1, 3] } });
  const two = signature({ a: { dtype: 'DT_FLOAT', shape: null }, b: { dtype: 'DT_FLOAT', shape: null } });
  const doubles = signature({ x: { dtype: 'DT_DOUBLE', shape: null } });
  const wide = signature({ x: { dtype: 'DT_FLOAT', shape: [-1, 32] } });
  const cases: Array<[what: string, body: string, served: Record<string, SignatureSpec>]> = [
    ['20 000 rows of 3 floats', `{"instances": ${rows(20_000, 3, 1)}}`, images],
    ['two float inputs, columnar', `{"inputs": {"a": [${numbers(30_000, 2).join(', ')}], "b": [${numbers(10_000, 3).join(', ')}]}}`, two],
    ['a smaller body after them', `{"instances": ${rows(500, 3, 4)}}`, images],
    ['float64 after float32', `{"inputs": {"x": [${numbers(15_000, 5).join(', ')}]}}`, doubles],
    ['the first body again', `{"instances": ${rows(20_000, 3, 1)}}`, images],
    ['one row', `{"instances": ${rows(1, 3, 6)}}`, images],
    // Stored at its size from the first number on (the signature's row): not left in the scratch.
    ['one row of a signature fixing it, after a large body', `{"instances": ${rows(1, 32, 7)}}`, wide],
  ];
  for (const [what, body, served] of cases) {
    it(what, async () => {
      const r = await bothWays(body, served);
      assert.deepEqual(Object.keys(r.there.inputs).sort(), Object.keys(r.here.inputs).sort());
      for (const name of Object.keys(r.here.inputs)) {
        const [h, t] = [r.here.inputs[name], r.there.inputs[name]];
        assert.deepEqual([t.dtype, t.shape], [h.dtype, h.shape], name);
        assert.ok(bytesOf(t).equals(bytesOf(h)), `${name}: the same numbers, bit for bit`);
        const v = t.values as Float32Array;
        assert.ok(v.byteOffset === 0 && v.byteLength === v.buffer.byteLength, `${name}: a buffer of its own, to be moved`);
      }
      assert.equal(r.chargedThere, r.chargedHere, 'charged the same');
    });
  }
});
