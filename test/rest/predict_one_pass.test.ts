// A :predict body read in one pass when it names its signature certainly and the version
// serves it (predict_route.ts hands the parse PredictionService.servedSignatures): its tensors
// are read, and charged, during the parse, on the event loop or a parser thread, and handed
// over as they are when predict() resolves the same signature. Any other body, or a version
// replaced meanwhile, is read in two passes against the signature predict() resolves: the same
// tensors either way.
import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import { parsePredictBody } from '../../src/rest/predict_body.js';
import { BodyParserPool } from '../../src/rest/body_parser_pool.js';
import { MemoryBudget, MemoryClaim } from '../../src/services/memory_budget.js';
import type { HostTensor } from '../../src/tensor/host_tensor.js';
import { halfPlusTwoSignatures } from '../helpers/fake_versions.js';

const LIMITS = { jsonMaxDepth: 8, jsonMaxElements: 10_000 };
const served = halfPlusTwoSignatures();
const pool = new BodyParserPool(1, 0);
after(() => pool.close());

const bytes = (s: string) => new TextEncoder().encode(s);
const valuesOf = (inputs: Record<string, HostTensor>) => [inputs.x.shape, Array.from(inputs.x.values as Float32Array)];

/** The body parsed on the event loop: the bytes charged by the parse, then by tensors(signature). */
async function parseHere(body: string, signatures = served, signature = served.serving_default) {
  const charged: number[] = [];
  const parsed = await parsePredictBody(bytes(body), LIMITS, (n) => charged.push(n), false, signatures);
  const atParse = charged.length;
  const { inputs } = await parsed.tensors(signature);
  return { atParse, atTensors: charged.length - atParse, values: valuesOf(inputs), charged };
}

describe('a :predict body read in one pass', () => {
  it('the signature named first, or nowhere: the tensors are read by the parse and handed over as they are', async () => {
    for (const body of ['{"signature_name": "serving_default", "instances": [1.0, 2.0, 5.0]}', '{"instances": [[1.0], [2.0], [5.0]]}']) {
      const r = await parseHere(body);
      assert.ok(r.atParse > 0, `${body}: charged by the parse`);
      assert.equal(r.atTensors, 0, `${body}: nothing more read`);
      assert.deepEqual(r.values[1], [1, 2, 5]);
    }
  });

  it("a signature fixing every dimension but the first: a one-row body's tensor is stored once, at its size", async () => {
    const rows = structuredClone(served);
    rows.serving_default.inputs.x.shape = [-1, 32];
    const row = (k: number) => `[${Array.from({ length: 32 }, (_, j) => k + j / 8).join(', ')}]`;
    const one = await parseHere(`{"instances": [${row(0)}]}`, rows, rows.serving_default);
    assert.deepEqual(one.values, [[1, 32], Array.from({ length: 32 }, (_, j) => j / 8)]);
    assert.equal(one.charged.length, 1, `one allocation, charged once: ${one.charged}`);
    assert.equal(one.charged[0], 32 * 4);
    // More rows grow from there, to the same tensor.
    const three = await parseHere(`{"instances": [${row(0)}, ${row(1)}, ${row(2)}]}`, rows, rows.serving_default);
    assert.deepEqual(three.values, [[3, 32], [0, 1, 2].flatMap((k) => Array.from({ length: 32 }, (_, j) => k + j / 8))]);
  });

  it('a name that is not certain before the tensors, or a signature not served: two passes, the same tensors', async () => {
    for (const body of [
      '{"instances": [1.0, 2.0, 5.0], "signature_name": "serving_default"}',
      '{"signature_name": "nope", "instances": [1.0, 2.0, 5.0]}',
    ]) {
      const r = await parseHere(body);
      assert.equal(r.atParse, 0, `${body}: nothing read by the parse`);
      assert.ok(r.atTensors > 0);
      assert.deepEqual(r.values, [[3], [1, 2, 5]]);
    }
    // The same on a long body (its rest searched natively): the name after the tensors, or an
    // escape that may spell it (then the general parser reads the body, charged as it parses).
    const long = Array.from({ length: 200 }, (_, k) => k / 4).join(', ');
    const named = await parseHere(`{"instances": [${long}], "signature_name": "serving_default"}`);
    assert.equal(named.atParse, 0, 'nothing read by the parse');
    assert.equal(named.values[1].length, 200);
    const escaped = await parseHere(`{"instances": [${long}], "signature\\u005fname": "serving_default"}`);
    assert.ok(escaped.atParse > 0 && escaped.atTensors > 0, 'read by the general parser');
    assert.equal(escaped.values[1].length, 200);
    assert.ok((await parseHere(`{"instances": [${long}]}`)).atParse > 0, 'no name anywhere: one pass');
    const unserved = await parseHere('{"instances": [1.0, 2.0, 5.0]}', {});
    assert.equal(unserved.atParse, 0);
  });

  it('a version replaced between the parse and the run: its own signature is read anew', async () => {
    const replaced = structuredClone(served.serving_default);
    const r = await parseHere('{"instances": [[1.5], [2.5]]}', served, replaced);
    assert.ok(r.atParse > 0 && r.atTensors > 0, 'read twice');
    assert.deepEqual(r.values, [
      [2, 1],
      [1.5, 2.5],
    ]);
  });

  it('on a parser thread: read and charged before tensors() is asked for, handed over without sending the signature again', async () => {
    for (const signature of [served.serving_default, structuredClone(served.serving_default)]) {
      const claim = new MemoryClaim(new MemoryBudget(1 << 20));
      const parsed = await pool.parsePredict(bytes('{"instances": [[1.0], [2.0]]}'), LIMITS, claim, served);
      assert.ok(claim.bytes > 0, 'charged by the parse');
      const { inputs } = await parsed.tensors(signature);
      assert.deepEqual(valuesOf(inputs), [
        [2, 1],
        [1, 2],
      ]);
      claim.release();
    }
  });
});
