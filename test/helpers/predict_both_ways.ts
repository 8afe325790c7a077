// A :predict body parsed both ways: by the general parser (parseJsonBody + parsePredictRequest)
// and by the tensor reader (json_tensor_reader.ts), which must give the same tensors, bit for
// bit, or decline the body. The general path's outcome is what the caller gets, so a test of
// the general path checks the reader on every one of its cases for free.
import assert from 'node:assert/strict';
import { parsePredictRequest, type ParsedPredictRequest } from '../../src/rest/json_tensor.js';
import { readPredictBody } from '../../src/rest/predict_body_reader.js';
import { parseJsonBody, type JsonLimits } from '../../src/rest/json_parse.js';
import { bindTensorBody, planTensorBody, readFloatBody, readTensorBody, signatureNameAhead } from '../../src/rest/json_tensor_reader.js';
import { ServingError } from '../../src/errors/status.js';
import type { SignatureSpec } from '../../src/savedmodel/signature_spec.js';
import type { HostTensor } from '../../src/tensor/host_tensor.js';

/**
 * How the reader answered each body so far: read to tensors in two passes, or declined (when
 * planning, binding or filling); read in one pass (float inputs, the signature name certain ahead).
 */
export const readerOutcomes = { read: 0, declinedPlan: 0, declinedBind: 0, declinedFill: 0, onePass: 0 };

/** The general path's outcome for `body`, after checking that the reader agrees with it. */
export function parseBothWays(body: string, signature: SignatureSpec, limits: JsonLimits): ParsedPredictRequest {
  let general: ParsedPredictRequest | undefined;
  let error: unknown;
  try {
    general = parsePredictRequest(parseJsonBody(body, limits), signature);
  } catch (e) {
    error = e;
  }
  const bytes = new TextEncoder().encode(body);
  const read = readerOutcome(bytes, signature, limits);
  if (read !== undefined) {
    assert.equal(error, undefined, `the reader read a body the general path refuses (${String(error)}): ${body.slice(0, 200)}`);
    assertSameRequest(read.request, general!, body);
    const doc = parseJsonBody(body, limits) as { signature_name?: unknown };
    assert.equal(read.signatureName, typeof doc.signature_name === 'string' ? doc.signature_name : undefined);
  }
  const ahead = signatureNameAhead(bytes, limits);
  const onePass = ahead && readFloatBody(bytes, limits, signature, () => {});
  if (onePass) {
    readerOutcomes.onePass++;
    assert.equal(error, undefined, `one pass read a body the general path refuses (${String(error)}): ${body.slice(0, 200)}`);
    assertSameRequest(onePass, general!, body);
  }
  if (ahead !== undefined && error === undefined) {
    const doc = parseJsonBody(body, limits) as { signature_name?: unknown };
    assert.equal(ahead.name, typeof doc.signature_name === 'string' ? doc.signature_name : undefined, body.slice(0, 200));
  }
  // The entry, fallbacks included: the general path's tensors or its very error.
  const entry = readPredictBody(bytes, limits, { signature: () => signature, charge: () => {} });
  if (entry !== undefined) {
    let got: ParsedPredictRequest | undefined;
    try {
      got = entry.tensors(signature);
    } catch (e) {
      assert.ok(
        error instanceof ServingError && e instanceof ServingError,
        `${String(e)} where the general path gave ${String(error)}: ${body.slice(0, 200)}`,
      );
      assert.equal(e.message, error.message);
      assert.equal(e.code, error.code);
    }
    if (got !== undefined) {
      assert.equal(error, undefined, `readPredictBody read a body the general path refuses (${String(error)}): ${body.slice(0, 200)}`);
      assertSameRequest(got, general!, body);
    }
  }
  if (error !== undefined) throw error;
  return general!;
}

function readerOutcome(
  bytes: Uint8Array,
  signature: SignatureSpec,
  limits: JsonLimits,
): { request: ParsedPredictRequest; signatureName: string | undefined } | undefined {
  const plan = planTensorBody(bytes, limits);
  if (plan === undefined) {
    readerOutcomes.declinedPlan++;
    return undefined;
  }
  const binding = bindTensorBody(plan, signature);
  if (binding === undefined) {
    readerOutcomes.declinedBind++;
    return undefined;
  }
  const request = readTensorBody(bytes, limits, plan, binding, signature);
  if (request === undefined) {
    readerOutcomes.declinedFill++;
    return undefined;
  }
  readerOutcomes.read++;
  return { request, signatureName: plan.signatureName };
}

/** Same format, same inputs, each the same dtype, shape and bytes (NaN payloads and -0 included). */
function assertSameRequest(got: ParsedPredictRequest, want: ParsedPredictRequest, body: string): void {
  const what = body.length > 200 ? `${body.slice(0, 200)}…` : body;
  assert.equal(got.format, want.format, what);
  assert.deepEqual(Object.keys(got.inputs).sort(), Object.keys(want.inputs).sort(), what);
  for (const name of Object.keys(want.inputs)) assertSameTensor(got.inputs[name], want.inputs[name], `${name} of ${what}`);
}

function assertSameTensor(got: HostTensor, want: HostTensor, what: string): void {
  assert.equal(got.dtype, want.dtype, what);
  assert.deepEqual(got.shape, want.shape, what);
  if (want.dtype === 'string') {
    const g = got.values as Uint8Array[];
    const w = want.values as Uint8Array[];
    assert.equal(g.length, w.length, what);
    for (let k = 0; k < w.length; k++) assert.ok(Buffer.from(g[k]).equals(Buffer.from(w[k])), `${what}: string ${k}`);
    return;
  }
  const g = got.values as unknown as ArrayBufferView & { length: number };
  const w = want.values as unknown as ArrayBufferView & { length: number };
  assert.equal(g.length, w.length, what);
  const gb = Buffer.from(g.buffer, g.byteOffset, g.byteLength);
  const wb = Buffer.from(w.buffer, w.byteOffset, w.byteLength);
  if (!gb.equals(wb)) {
    const k = firstDifference(g as unknown as ArrayLike<unknown>, w as unknown as ArrayLike<unknown>);
    assert.fail(
      `${what}: element ${k} is ${String((g as unknown as ArrayLike<unknown>)[k])}, the general path's ${String((w as unknown as ArrayLike<unknown>)[k])}`,
    );
  }
}

function firstDifference(a: ArrayLike<unknown>, b: ArrayLike<unknown>): number {
  for (let k = 0; k < a.length; k++) if (!Object.is(a[k], b[k])) return k;
  return -1;
}
