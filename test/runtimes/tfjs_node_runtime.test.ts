// The tfjs-node runtime: --runtime selection with the optional packages present, absent or
// broken (only the import is replaced), the adapter between tfgate's Servable contract and
// tf.node.TFSavedModel, and — where @tensorflow/tfjs-node really imports — libtensorflow
// itself on the half_plus_two fixtures.
import { describe, it, before } from 'node:test';
import assert from 'node:assert/strict';
import * as tf from '@tensorflow/tfjs-core';
import '@tensorflow/tfjs-backend-cpu';
import { selectRuntime, RuntimeUnavailableError, importPackage, type PackageImporter } from '../../src/runtimes/runtime_selection.js';
import { createRuntime } from '../../src/runtimes/index.js';
import { TfjsNodeRuntime } from '../../src/runtimes/tfjs_node/tfjs_node_runtime.js';
import { EmbeddedRuntime } from '../../src/runtimes/embedded/embedded_runtime.js';
import type { NodeSavedModel, NodeTensor, NodeTensorMap, TfjsNodeModule } from '../../src/runtimes/tfjs_node/tfjs_node_module.js';
import { Code, ServingError } from '../../src/errors/status.js';
import type { HostTensor } from '../../src/tensor/host_tensor.js';
import { fixtureModel } from '../helpers/paths.js';
import { isError } from '../helpers/errors.js';

const HALF_PLUS_TWO = fixtureModel('saved_model_half_plus_two_cpu', '00000123');
const HALF_PLUS_TWO_TF2 = fixtureModel('saved_model_half_plus_two_tf2_cpu', '00000123');

const notFound = (pkg: string) =>
  Object.assign(new Error(`Cannot find package '${pkg}' imported from x`), { code: 'ERR_MODULE_NOT_FOUND' });

/** An importer where only `present` packages import; `broken` ones throw as a bad native binding does. */
function importer(present: Record<string, unknown>, broken: Record<string, string> = {}): PackageImporter & { asked: string[] } {
  const asked: string[] = [];
  const fn = async (pkg: string) => {
    asked.push(pkg);
    if (pkg in broken) throw new Error(broken[pkg]);
    if (pkg in present) return present[pkg];
    throw notFound(pkg);
  };
  return Object.assign(fn, { asked });
}

describe('--runtime selection', () => {
  it('auto with no libtensorflow package: ONNX Runtime with the WASM runtime behind it, saying why', async () => {
    const imp = importer({ 'onnxruntime-node': {} });
    const s = await selectRuntime('auto', imp);
    assert.equal(s.runtime, 'onnx+embedded');
    assert.deepEqual(imp.asked, ['@tensorflow/tfjs-node-gpu', '@tensorflow/tfjs-node', 'onnxruntime-node']);
    assert.match(s.reason, /ONNX Runtime .*\(@tensorflow\/tfjs-node-gpu not installed; @tensorflow\/tfjs-node not installed\)/);
  });

  it('auto with no package at all, not even onnxruntime-node: the embedded runtime, saying why', async () => {
    const imp = importer({});
    const s = await selectRuntime('auto', imp);
    assert.equal(s.runtime, 'embedded');
    assert.deepEqual(imp.asked, ['@tensorflow/tfjs-node-gpu', '@tensorflow/tfjs-node', 'onnxruntime-node']);
    assert.match(
      s.reason,
      /@tensorflow\/tfjs-node-gpu not installed; @tensorflow\/tfjs-node not installed; onnxruntime-node not installed/,
    );
  });

  it('--runtime=onnx insists on onnxruntime-node', async () => {
    await assert.rejects(
      selectRuntime('onnx', importer({})),
      (e: unknown) => e instanceof RuntimeUnavailableError && /--runtime=onnx: onnxruntime-node is not installed/.test(e.message),
    );
    assert.equal((await selectRuntime('onnx', importer({ 'onnxruntime-node': {} }))).runtime, 'onnx');
    assert.equal((await selectRuntime('onnx-cuda', importer({ 'onnxruntime-node': {} }))).runtime, 'onnx-cuda');
  });

  it('auto prefers tfjs-node-gpu, then tfjs-node', async () => {
    assert.equal(
      (await selectRuntime('auto', importer({ '@tensorflow/tfjs-node-gpu': {}, '@tensorflow/tfjs-node': {} }))).runtime,
      'tfjs-node-gpu',
    );
    const s = await selectRuntime('auto', importer({ '@tensorflow/tfjs-node': {} }));
    assert.equal(s.runtime, 'tfjs-node');
    assert.match(s.reason, /libtensorflow through @tensorflow\/tfjs-node \(@tensorflow\/tfjs-node-gpu not installed\)/);
  });

  it('auto passes over a package that is installed but does not load (no CUDA, no libtensorflow)', async () => {
    const s = await selectRuntime(
      'auto',
      importer({ '@tensorflow/tfjs-node': {} }, { '@tensorflow/tfjs-node-gpu': 'libcudart.so.11.0: cannot open shared object file\nmore' }),
    );
    assert.equal(s.runtime, 'tfjs-node');
    assert.match(s.reason, /tfjs-node-gpu installed but does not load \(libcudart\.so\.11\.0: cannot open shared object file\)/);
  });

  it('a runtime asked for by name must be there: no silent fallback', async () => {
    await assert.rejects(
      selectRuntime('tfjs-node-gpu', importer({ '@tensorflow/tfjs-node': {} })),
      (e: unknown) =>
        e instanceof RuntimeUnavailableError && /--runtime=tfjs-node-gpu: @tensorflow\/tfjs-node-gpu is not installed/.test(e.message),
    );
    assert.equal((await selectRuntime('tfjs-node', importer({ '@tensorflow/tfjs-node': {} }))).runtime, 'tfjs-node');
  });

  it('wasm and cpu never import the optional packages', async () => {
    const imp = importer({});
    assert.equal((await selectRuntime('wasm', imp)).runtime, 'wasm');
    assert.equal((await selectRuntime('cpu', imp)).runtime, 'cpu');
    assert.deepEqual(imp.asked, []);
  });

  it('on this machine: the real import decides, and the answer matches what is installed', async () => {
    const installed = await importPackage('@tensorflow/tfjs-node').then(
      () => true,
      () => false,
    );
    const s = await selectRuntime('auto');
    // onnxruntime-node is a regular dependency: without libtensorflow, auto is ONNX Runtime.
    if (!installed) assert.equal(s.runtime, 'onnx+embedded');
    else assert.match(s.runtime, /^tfjs-node/);
  });

  it('createRuntime builds the runtime the selection named, from the imported module', async () => {
    const mod = standInTfjsNode();
    const rt = await createRuntime('tfjs-node', undefined, importer({ '@tensorflow/tfjs-node': { default: mod } }));
    assert.ok(rt instanceof TfjsNodeRuntime);
    assert.equal(rt.name, 'tfjs-node');
    assert.ok((await createRuntime('embedded')) instanceof EmbeddedRuntime);
  });
});

/**
 * Stands in for @tensorflow/tfjs-node where libtensorflow cannot install: TF.js tensors on the
 * CPU backend, and a `loadSavedModel` that knows half_plus_two's two float signatures
 * (y = x/2 + 2, y3 = x2/2 + 3) and fails on the others as libtensorflow does on an unknown op.
 * It exercises the adapter (signatures, defaults, dtypes, errors, tensor disposal), not TF.
 */
function standInTfjsNode(): TfjsNodeModule & { loads: string[] } {
  const loads: string[] = [];
  // tidy: like libtensorflow, a run leaves only its outputs behind.
  const graphs: Record<string, (feed: NodeTensorMap) => NodeTensorMap> = {
    serving_default: (f) => ({ y: tf.tidy(() => tf.add(tf.mul(f.x as tf.Tensor, 0.5), 2)) as unknown as NodeTensor }),
    regress_x2_to_y3: (f) => ({ outputs: tf.tidy(() => tf.add(tf.mul(f.inputs as tf.Tensor, 0.5), 3)) as unknown as NodeTensor }),
  };
  return {
    loads,
    tensor: (values, shape, dtype) => tf.tensor(values as Float32Array, shape, dtype as tf.DataType) as unknown as NodeTensor,
    getBackend: () => tf.getBackend(),
    node: {
      async loadSavedModel(path: string, tags?: string[], signature?: string): Promise<NodeSavedModel> {
        loads.push(`${signature}@${tags?.join(',')}`);
        const graph = graphs[signature ?? 'serving_default'];
        if (!graph)
          throw new Error(`Op type not registered 'ParseExample' in binary running on host.\nMake sure the Op and Kernel are registered`);
        return {
          predict: (feed) => {
            if ((feed.x ?? feed.inputs).shape.at(-1) !== 1) throw new Error('Incompatible shapes: [2,3] vs. [1]');
            return graph(feed);
          },
          dispose: () => {},
        };
      },
    },
  };
}

const floats = (shape: number[], values: number[]): HostTensor => ({ dtype: 'float32', shape, values: Float32Array.from(values) });

describe('tfjs-node runtime adapter (stand-in module)', () => {
  before(async () => {
    await tf.setBackend('cpu');
  });

  it('serves the signatures libtensorflow loads, refuses the others by name, reads specs from the SavedModel', async () => {
    const mod = standInTfjsNode();
    const servable = await new TfjsNodeRuntime(mod, 'tfjs-node').load(HALF_PLUS_TWO, { tags: ['serve'] });
    try {
      assert.equal(servable.backend, 'tfjs-node');
      assert.ok(mod.loads.includes('serving_default@serve'));
      assert.deepEqual(Object.keys(servable.signatures).sort(), [
        'classify_x_to_y',
        'regress_x2_to_y3',
        'regress_x_to_y',
        'regress_x_to_y2',
        'serving_default',
      ]);
      assert.match(servable.refusals.classify_x_to_y, /Op type not registered 'ParseExample'/);
      assert.doesNotMatch(servable.refusals.classify_x_to_y, /Make sure/, 'first line only');
      assert.equal(servable.signatures.serving_default.inputs.x.dtype, 'DT_FLOAT');
      assert.deepEqual(servable.signatures.serving_default.outputs.y.shape, [-1, 1]);

      const out = await servable.run('serving_default', { x: floats([3, 1], [1, 2, 5]) });
      assert.deepEqual(out.y, floats([3, 1], [2.5, 3, 4.5]));
      const y3 = await servable.run('regress_x2_to_y3', { inputs: floats([1, 1], [4]) }, ['outputs']);
      assert.deepEqual(y3.outputs, floats([1, 1], [5]));
    } finally {
      servable.dispose();
    }
  });

  it('request errors: unknown input or output alias, missing input, refused signature, unknown signature, bad shapes', async () => {
    const servable = await new TfjsNodeRuntime(standInTfjsNode(), 'tfjs-node').load(HALF_PLUS_TWO, { tags: ['serve'] });
    try {
      await assert.rejects(
        servable.run('serving_default', { z: floats([1, 1], [1]) }),
        isError(Code.INVALID_ARGUMENT, /input tensor alias not found in signature: z\. Inputs expected to be in the set \{x\}/),
      );
      await assert.rejects(
        servable.run('serving_default', { x: floats([1, 1], [1]) }, ['w']),
        isError(Code.INVALID_ARGUMENT, /output tensor alias not found in signature: w/),
      );
      await assert.rejects(servable.run('serving_default', {}), isError(Code.INVALID_ARGUMENT, /Missing input tensor alias: x/));
      await assert.rejects(servable.run('classify_x_to_y', {}), isError(Code.FAILED_PRECONDITION, /ParseExample/));
      await assert.rejects(servable.run('nope', {}), isError(Code.FAILED_PRECONDITION, /Serving signature key "nope" not found/));
      await assert.rejects(
        servable.run('serving_default', { x: floats([2, 3], [1, 2, 3, 4, 5, 6]) }),
        isError(Code.INVALID_ARGUMENT, /Incompatible shapes/),
      );
    } finally {
      servable.dispose();
    }
  });

  it('frees every tensor it makes: 10 000 runs, successes and failures, leave TF.js memory where it was', async () => {
    const servable = await new TfjsNodeRuntime(standInTfjsNode(), 'tfjs-node').load(HALF_PLUS_TWO, { tags: ['serve'] });
    try {
      await servable.run('serving_default', { x: floats([1, 1], [0]) });
      const before = tf.memory().numTensors;
      for (let i = 0; i < 10_000; i++) {
        if (i % 10 === 9) await servable.run('serving_default', { x: floats([1, 3], [1, 2, 3]) }).catch(() => {});
        else await servable.run('serving_default', { x: floats([2, 1], [i, i + 1]) });
      }
      assert.equal(tf.memory().numTensors, before);
    } finally {
      servable.dispose();
    }
  });

  it("load errors are the embedded runtime's: an unknown tag set is named", async () => {
    await assert.rejects(
      new TfjsNodeRuntime(standInTfjsNode(), 'tfjs-node').load(HALF_PLUS_TWO, { tags: ['gpu'] }),
      (e: unknown) => e instanceof ServingError && /gpu/.test(e.message),
    );
  });
});

describe('tfjs-node runtime on libtensorflow', () => {
  let real: TfjsNodeModule | undefined;
  let why = '';
  before(async () => {
    try {
      const mod = (await importPackage('@tensorflow/tfjs-node')) as TfjsNodeModule & { default?: TfjsNodeModule };
      real = mod.node ? mod : mod.default;
    } catch (e) {
      why =
        (e as NodeJS.ErrnoException).code === 'ERR_MODULE_NOT_FOUND'
          ? 'not installed (its install downloads libtensorflow, which this machine cannot reach)'
          : (e as Error).message.split('\n')[0];
    }
  });

  it('runs the TF1 and TF2 half_plus_two fixtures and frees its tensors over 10 000 requests', async (t) => {
    if (!real) {
      t.skip(`skipped: @tensorflow/tfjs-node is ${why}`);
      return;
    }
    for (const dir of [HALF_PLUS_TWO, HALF_PLUS_TWO_TF2]) {
      const servable = await new TfjsNodeRuntime(real, 'tfjs-node').load(dir, { tags: ['serve'] });
      try {
        const out = await servable.run('serving_default', { x: floats([3, 1], [1, 2, 5]) });
        assert.deepEqual([...(out.y.values as Float32Array)], [2.5, 3, 4.5]);
        const memory: () => { numTensors: number } = (real as unknown as { memory(): { numTensors: number } }).memory;
        const before: number = memory().numTensors;
        for (let i = 0; i < 10_000; i++) await servable.run('serving_default', { x: floats([1, 1], [i]) });
        assert.equal(memory().numTensors, before);
      } finally {
        servable.dispose();
      }
    }
  });
});
