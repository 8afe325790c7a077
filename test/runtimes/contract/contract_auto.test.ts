// The runtime contract on ONNX Runtime with the WASM runtime for what it cannot run (--runtime=auto without libtensorflow).
import { fixtureCases } from './fixture_cases.js';
import { autoRuntime } from './runtime_under_test.js';

fixtureCases(autoRuntime());
