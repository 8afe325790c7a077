// The runtime contract on ONNX Runtime alone (--runtime=onnx): a signature it cannot convert is refused, naming op and node.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { Code, ServingError } from '../../../src/errors/status.js';
import { FIXTURES } from '../../helpers/paths.js';
import { fixtureCases } from './fixture_cases.js';
import { onnxRuntime, TFJS_GRAPH_MODEL_CASES } from './runtime_under_test.js';

const rt = onnxRuntime();
fixtureCases(rt);

describe('onnx: what it declares it does not run', () => {
  it('a TF.js graph model folder is refused UNIMPLEMENTED, naming the folder and the runtimes that serve it', async () => {
    for (const name of TFJS_GRAPH_MODEL_CASES.map((c) => c.split(' ')[0])) {
      const dir = path.join(FIXTURES, 'tfjs_graph_models', name);
      await assert.rejects(
        rt.load(dir, { tags: ['serve'] }),
        (e: unknown) =>
          e instanceof ServingError &&
          e.code === Code.UNIMPLEMENTED &&
          e.message === `${dir}: ONNX Runtime cannot run a TF.js graph model folder (model.json); --runtime=auto or wasm serves it`,
      );
    }
  });
});
