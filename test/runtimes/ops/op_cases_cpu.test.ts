// The op cases (cases/) on the embedded runtime's CPU backend, in a process of its own: TF.js
// picks its backend once per process (op_cases_onnx_wasm.test.ts has the WASM one). Also checks
// that every op the embedded runtime implements has a case.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { EMBEDDED_OP_FAMILIES } from '../../../src/runtimes/embedded/ops/index.js';
import { runOpCases } from './run_op_cases.js';
import { OP_CASES, OPS_TESTED_ELSEWHERE } from './cases/index.js';

runOpCases('cpu', OP_CASES);

describe("op cases cover the embedded runtime's op tables", () => {
  it('every op tfgate implements for TF.js has a case, or names the older test that covers it', () => {
    const withCase = new Set(OP_CASES.flatMap((f) => f.cases.map((c) => c.op)));
    const ops = Object.values(EMBEDDED_OP_FAMILIES).flatMap((table) => Object.keys(table));
    assert.deepEqual(
      ops.filter((op) => !withCase.has(op) && !OPS_TESTED_ELSEWHERE[op]),
      [],
    );
    assert.deepEqual(
      Object.keys(OPS_TESTED_ELSEWHERE).filter((op) => !ops.includes(op) || withCase.has(op)),
      [],
      'stale entries of OPS_TESTED_ELSEWHERE',
    );
  });
});
