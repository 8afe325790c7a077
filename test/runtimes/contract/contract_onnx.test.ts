// The runtime contract on ONNX Runtime alone (--runtime=onnx): a signature it cannot convert is refused, naming op and node.
import { fixtureCases } from './fixture_cases.js';
import { onnxRuntime } from './runtime_under_test.js';

fixtureCases(onnxRuntime());
