// Variables and tables of TF2 exports restored as TF's loader restores them: each handle is
// the object its functions' call sites bind it to (SavedObjectGraph concrete_functions'
// bound_inputs), and that object's value is the checkpoint tensor the checkpoint's own object
// graph names for it, found by walking both graphs from the root by child name. The models
// are Keras-3-shaped: VarHandleOps named `conv2d/kernel` whose values are saved under
// `_all_variables/0/.ATTRIBUTES/VARIABLE_VALUE`, written with tfgate's SavedModel writer.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { Code } from '../../src/errors/status.js';
import { EmbeddedRuntime } from '../../src/runtimes/embedded/embedded_runtime.js';
import { readTensorBundle } from '../../src/savedmodel/tensor_bundle/index.js';
import type { HostTensor } from '../../src/tensor/host_tensor.js';
import { writeSavedModel, type SavedModelWriterOptions, type WriterTensorInfo } from '../../test_util/savedmodel/saved_model_writer.js';
import { Tf2GraphBuilder } from '../../test_util/savedmodel/writer/tf2_graph_builder.js';
import { emit, type Value } from '../../test_util/savedmodel/writer/function_library.js';
import { biasAdd, call, constant, identity, matMul, readVariable } from '../../test_util/savedmodel/writer/tf2_ops.js';
import { isError } from '../helpers/errors.js';
import { f32, i64 } from '../helpers/tiny_graphs.js';
import { tempDir } from '../helpers/temp.js';

const enc = new TextEncoder();
const info = (v: Value, shape: number[] | null): WriterTensorInfo => ({ name: v.tensorName, dtype: v.type, shape });
const KERNEL = f32([2, 2], [1, 2, 3, 4]);
const BIAS = f32([2], [0.5, -1]);
/** [[1, 1]] · KERNEL + BIAS */
const EXPECTED = [4.5, 5];

interface DenseOptions extends SavedModelWriterOptions {
  /** The layer one level deeper (root.model._layers[0]) and nothing else tracking its variables. */
  nestedOnly?: boolean;
  /** A second signature whose function captures the same variables. */
  secondSignature?: boolean;
}

/** A dense layer as Keras 3 exports it: y = x · kernel + bias, the weights tracked by root._all_variables and the layer. */
async function writeKeras3Dense(o: DenseOptions = {}): Promise<string> {
  const g = new Tf2GraphBuilder();
  const kernel = g.resourceVariable('conv2d/kernel', KERNEL);
  const bias = g.resourceVariable('conv2d/bias', BIAS);
  const objects = g.objects;
  let k: number;
  let b: number;
  if (o.nestedOnly) {
    const model = objects.userObject(objects.root, 'model');
    const layers = objects.userObject(model, '_layers', 'trackable_list_wrapper');
    const layer = objects.userObject(layers, '0');
    k = objects.variable(layer, 'kernel', kernel, KERNEL, 'conv2d/kernel');
    b = objects.variable(layer, 'bias', bias, BIAS, 'conv2d/bias');
  } else {
    const all = objects.userObject(objects.root, '_all_variables', 'trackable_list_wrapper');
    k = objects.variable(all, '0', kernel, KERNEL, 'conv2d/kernel');
    b = objects.variable(all, '1', bias, BIAS, 'conv2d/bias');
    const layers = objects.userObject(objects.root, '_layers', 'trackable_list_wrapper');
    const layer = objects.userObject(layers, '0');
    objects.child(layer, 'kernel', k);
    objects.child(layer, 'bias', b);
  }
  const dense = (name: string) =>
    g.library.define(
      name,
      [
        ['x', 'DT_FLOAT'],
        ['matmul_readvariableop_resource', 'DT_RESOURCE'],
        ['biasadd_readvariableop_resource', 'DT_RESOURCE'],
      ],
      (f, [x, kh, bh]) => {
        const product = matMul(f, 'MatMul', x, readVariable(f, 'MatMul/ReadVariableOp', kh, 'DT_FLOAT'));
        return {
          output_0: identity(f, 'Identity', biasAdd(f, 'BiasAdd', product, readVariable(f, 'BiasAdd/ReadVariableOp', bh, 'DT_FLOAT'))),
        };
      },
    );
  const signatures: Parameters<typeof writeSavedModel>[2] = {};
  for (const key of o.secondSignature ? ['serve', 'serving_default'] : ['serving_default']) {
    const fn = dense(`__inference_signature_wrapper_${key}_41`);
    objects.captures(fn, [k, b]);
    const x = g.top.placeholder(`${key}_x`, 'DT_FLOAT', [-1, 2]);
    const [y] = call(g.top, key === 'serve' ? 'StatefulPartitionedCall' : 'StatefulPartitionedCall_1', fn, [x, kernel, bias]);
    signatures[key] = { inputs: { x: info(x, [-1, 2]) }, outputs: { y: info(y, [-1, 2]) } };
  }
  const dir = path.join(tempDir('tfgate-object-graph-'), '1');
  await writeSavedModel(dir, g, signatures, o);
  return dir;
}

const runtime = new EmbeddedRuntime('cpu');

async function predict(dir: string, key = 'serving_default'): Promise<number[]> {
  const s = await runtime.load(dir, { tags: ['serve'] });
  try {
    const out = await s.run(key, { x: f32([1, 2], [1, 1]) });
    return Array.from(out.y.values as Float32Array);
  } finally {
    s.dispose();
  }
}

describe('TF2 variables restored through the object graph (embedded runtime, CPU)', () => {
  it('a Keras 3 export saved with experimental_skip_saver: the conv2d/kernel handle gets _all_variables/0/.ATTRIBUTES/VARIABLE_VALUE', async () => {
    const dir = await writeKeras3Dense({ skipSaver: true });
    const bundle = await readTensorBundle(path.join(dir, 'variables', 'variables'));
    assert.ok(bundle.has('_all_variables/0/.ATTRIBUTES/VARIABLE_VALUE') && !bundle.has('conv2d/kernel'));
    assert.deepEqual(await predict(dir), EXPECTED);
  });

  it('two functions capturing the same variables, reached only through root.model._layers.0, checkpoint node ids numbered otherwise: both signatures answer', async () => {
    const dir = await writeKeras3Dense({
      skipSaver: true,
      nestedOnly: true,
      secondSignature: true,
      checkpointObjectGraph: { ids: 'reversed' },
    });
    const bundle = await readTensorBundle(path.join(dir, 'variables', 'variables'));
    assert.ok(bundle.has('model/_layers/0/kernel/.ATTRIBUTES/VARIABLE_VALUE'));
    assert.deepEqual(await predict(dir, 'serve'), EXPECTED);
    assert.deepEqual(await predict(dir, 'serving_default'), EXPECTED);
  });

  it('with the saver as tf.saved_model.save writes it, the object graph gives the same values', async () => {
    assert.deepEqual(await predict(await writeKeras3Dense()), EXPECTED);
  });

  it('a checkpoint without an object graph is restored by variable name (SavedVariable.name), as TF does', async () => {
    const dir = await writeKeras3Dense({ skipSaver: true, checkpointObjectGraph: false });
    const bundle = await readTensorBundle(path.join(dir, 'variables', 'variables'));
    assert.deepEqual(bundle.keys(), ['conv2d/bias', 'conv2d/kernel']);
    assert.deepEqual(await predict(dir), EXPECTED);
  });

  it("a captured variable the checkpoint's object graph does not reach fails the load, naming the object", async () => {
    const dir = await writeKeras3Dense({ skipSaver: true, checkpointObjectGraph: { omit: [2] } });
    await assert.rejects(
      runtime.load(dir, { tags: ['serve'] }),
      isError(
        Code.NOT_FOUND,
        /variable 'conv2d\/kernel' \(object root\._all_variables\.0\) has no value in the checkpoint: its object graph \(_CHECKPOINTABLE_OBJECT_GRAPH\) does not reach that object/,
      ),
    );
  });

  it('a variable no function captures is refused: TF restores no value for it', async () => {
    const g = new Tf2GraphBuilder();
    g.objects.userObject(g.objects.root, 'layer');
    const loose = g.resourceVariable('loose', f32([2], [7, 8]));
    const y = readVariable(g.top, 'loose/Read/ReadVariableOp', loose, 'DT_FLOAT');
    const x = g.top.placeholder('serving_default_x', 'DT_FLOAT', [-1, 2]);
    const dir = path.join(tempDir('tfgate-object-graph-'), '1');
    await writeSavedModel(
      dir,
      g,
      { serving_default: { inputs: { x: info(x, [-1, 2]) }, outputs: { y: info(y, [2]) } } },
      { skipSaver: true },
    );
    await assert.rejects(
      runtime.load(dir, { tags: ['serve'] }),
      isError(Code.FAILED_PRECONDITION, /variable 'loose' is no object of the SavedModel's object graph/),
    );
  });
});

describe('TF2 tables restored through the object graph (embedded runtime, CPU)', () => {
  it("Keras' adapted StringLookup in a skip-saver export: its MutableHashTable object's `table` attribute gives table-keys / table-values", async () => {
    const g = new Tf2GraphBuilder();
    const table = g.checkpointedTable(
      'string_lookup_index_table',
      { dtype: 'string', shape: [3], values: ['earth', 'wind', 'fire'].map((s) => enc.encode(s)) },
      i64([3], [1, 2, 3]),
    );
    const layer = g.objects.userObject(g.objects.root, 'layer_with_weights-0');
    const id = g.objects.resource(layer, '_table', table);
    const serve = g.library.define(
      '__inference_signature_wrapper_12',
      [
        ['k', 'DT_STRING'],
        ['unknown', 'DT_RESOURCE'],
      ],
      (f, [k, t]) => {
        const found = emit(f, 'LookupTableFindV2', 'None_Lookup/LookupTableFindV2', [t, k, constant(f, 'Const', i64([], [0]))], {
          Tin: { type: 'DT_STRING' },
          Tout: { type: 'DT_INT64' },
        })[0];
        return { output_0: identity(f, 'Identity', found) };
      },
    );
    g.objects.captures(serve, [id]);
    const k = g.top.placeholder('serving_default_k', 'DT_STRING', null);
    const [ids] = call(g.top, 'StatefulPartitionedCall', serve, [k, table]);
    const dir = path.join(tempDir('tfgate-object-graph-'), '1');
    await writeSavedModel(
      dir,
      g,
      { serving_default: { inputs: { k: info(k, null) }, outputs: { ids: info(ids, null) } } },
      { skipSaver: true },
    );
    const bundle = await readTensorBundle(path.join(dir, 'variables', 'variables'));
    assert.ok(bundle.has('layer_with_weights-0/_table/.ATTRIBUTES/table-keys'));
    const s = await runtime.load(dir, { tags: ['serve'] });
    try {
      const out: HostTensor = (
        await s.run('serving_default', {
          k: { dtype: 'string', shape: [4], values: ['fire', 'rain', 'earth', 'wind'].map((w) => enc.encode(w)) },
        })
      ).ids;
      assert.deepEqual(Array.from(out.values as BigInt64Array, Number), [3, 0, 1, 2]);
    } finally {
      s.dispose();
    }
  });
});

describe('TF1 graphs: the restore op fills resources, not nodes', () => {
  it('a second VarHandleOp of the same shared_name reads what the restore op assigned to the first', async () => {
    const g = new Tf2GraphBuilder();
    g.resourceVariable('dense/kernel', KERNEL);
    const again = emit(g.top, 'VarHandleOp', 'dense/kernel_read', [], {
      container: { s: new Uint8Array(0) },
      shared_name: { s: enc.encode('dense/kernel') },
      dtype: { type: 'DT_FLOAT' },
      shape: { shape: { dim: [{ size: 2 }, { size: 2 }] } },
      allowed_devices: { list: {} },
    })[0];
    const x = g.top.placeholder('x', 'DT_FLOAT', [-1, 2]);
    const y = matMul(g.top, 'MatMul', x, readVariable(g.top, 'MatMul/ReadVariableOp', again, 'DT_FLOAT'));
    const dir = path.join(tempDir('tfgate-object-graph-'), '1');
    await writeSavedModel(dir, g, { serving_default: { inputs: { x: info(x, [-1, 2]) }, outputs: { y: info(y, [-1, 2]) } } });
    const s = await runtime.load(dir, { tags: ['serve'] });
    try {
      assert.deepEqual(Array.from((await s.run('serving_default', { x: f32([1, 2], [1, 1]) })).y.values as Float32Array), [4, 6]);
    } finally {
      s.dispose();
    }
  });
});
