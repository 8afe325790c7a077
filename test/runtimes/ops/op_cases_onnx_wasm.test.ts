// The op cases (cases/) on ONNX Runtime (no fallback: what it cannot convert it refuses) and on
// the embedded runtime's WASM backend. Both in one process: TF.js's backend here is WASM, which
// ONNX Runtime's ParseExample step uses too. The CPU backend has a file (a process) of its own.
import { runOpCases } from './run_op_cases.js';
import { OP_CASES } from './cases/index.js';

runOpCases('onnx', OP_CASES);
runOpCases('wasm', OP_CASES);
