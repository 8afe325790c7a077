// The runtime contract on libtensorflow through @tensorflow/tfjs-node, where it imports.
import { describe, it } from 'node:test';
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
  describe('tfjs-node: runtime contract', () => {
    it('runs every fixture case', { skip: '@tensorflow/tfjs-node is not installed (its install downloads libtensorflow, which this machine cannot reach)' }, () => {});
  });
}
