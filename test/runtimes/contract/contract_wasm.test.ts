// The runtime contract on the embedded runtime on TF.js's WASM backend.
import { fixtureCases } from './fixture_cases.js';
import { wasmRuntime } from './runtime_under_test.js';

fixtureCases(wasmRuntime());
