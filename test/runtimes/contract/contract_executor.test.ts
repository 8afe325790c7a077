// The runtime contract as the server runs it by default without libtensorflow (--runtime=auto:
// ONNX Runtime with the embedded runtime behind it), on an executor thread: what each case
// feeds and gets back crosses the thread protocol.
import { fixtureCases } from './fixture_cases.js';
import { executorRuntime } from './runtime_under_test.js';

fixtureCases(executorRuntime('onnx+embedded'));
