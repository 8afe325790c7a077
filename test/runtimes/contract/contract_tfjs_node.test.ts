// The runtime contract on libtensorflow through @tensorflow/tfjs-node, where it imports;
// elsewhere every case is listed, skipped with the reason.
import { importPackage } from '../../../src/runtimes/runtime_selection.js';
import { createRuntime } from '../../../src/runtimes/index.js';
import { fixtureCases } from './fixture_cases.js';

const available = await importPackage('@tensorflow/tfjs-node').then(
  () => true,
  () => false,
);
if (available) {
  const runtime = await createRuntime('tfjs-node');
  fixtureCases({ name: 'tfjs-node', load: (dir, o) => runtime.load(dir, o), allowedRefusal: () => false });
} else {
  const reason = '@tensorflow/tfjs-node is not installed (its install downloads libtensorflow, which this machine cannot reach)';
  fixtureCases({
    name: 'tfjs-node',
    load: () => Promise.reject(new Error(reason)),
    allowedRefusal: () => false,
    skip: [{ reason, tests: 'every case' }],
  });
}
