// The writer's TF2 side: function libraries as tf.function writes them (signature, node_def
// in the `node:out_arg:index` reference form, ret), While / If / call nodes pointing into the
// library, resource variables under TF2 object-graph checkpoint keys with a restore function
// tfgate's reader follows, and the validation that keeps a wrong test graph from being
// written at all.
import { describe, it, before } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { readMetaGraph, type MetaGraphObject } from '../../src/savedmodel/saved_model_reader.js';
import { writeCountdownSumModel, writeRnnSavedModel } from '../../test_util/savedmodel/loop_model_zoo.js';
import { buildSavedModel } from '../../test_util/savedmodel/saved_model_writer.js';
import { Tf2GraphBuilder } from '../../test_util/savedmodel/writer/tf2_graph_builder.js';
import { binary, identity, scalarF32, scalarI32, whileLoop } from '../../test_util/savedmodel/writer/tf2_ops.js';
import { Value } from '../../test_util/savedmodel/writer/function_library.js';
import { readTensorBundle } from '../../src/savedmodel/tensor_bundle/index.js';
import { GraphFlattener } from '../../src/savedmodel/graph/graph_flattener.js';
import { variableRestoreMap } from '../../src/savedmodel/graph/variable_restore_map.js';
import { functionLibrary } from '../../src/savedmodel/graph/prepare_signature_graph.js';
import type { FunctionDef, OpDef } from '../../src/savedmodel/graph/types.js';
import { tempDir } from '../helpers/temp.js';

const fn = (mg: MetaGraphObject, name: string): FunctionDef => {
  const f = functionLibrary(mg).get(name);
  assert.ok(f, `function ${name} missing`);
  return f;
};
const node = (f: FunctionDef, name: string) => f.nodeDef?.find((n) => n.name === name);

describe('SavedModel writer: TF2 function libraries', () => {
  let countdown: MetaGraphObject;
  before(async () => {
    const dir = path.join(tempDir('tfgate-tf2-writer-'), 'countdown');
    await writeCountdownSumModel(dir);
    countdown = await readMetaGraph(dir, ['serve']);
  });

  it("writes the functions into GraphDef.library with typed signatures and tf.function's reference form", () => {
    assert.deepEqual([...functionLibrary(countdown).keys()].sort(), ['__inference_serve_15', 'while_body_8', 'while_cond_7']);
    const body = fn(countdown, 'while_body_8');
    assert.deepEqual(
      body.signature.inputArg?.map((a) => [a.name, a.type]),
      [
        ['while_loop_counter', 'DT_INT32'],
        ['while_maximum_iterations', 'DT_INT32'],
        ['placeholder', 'DT_FLOAT'],
        ['placeholder_1', 'DT_FLOAT'],
      ],
    );
    // An input arg by name, a node output as node:out_arg:index (AddV2's output arg is z).
    assert.deepEqual(node(body, 'add_1')?.input, ['placeholder', 'placeholder_1']);
    assert.deepEqual(node(body, 'Identity_2')?.input, ['add_1:z:0']);
    assert.deepEqual(body.ret, {
      identity: 'Identity:output:0',
      identity_1: 'Identity_1:output:0',
      identity_2: 'Identity_2:output:0',
      identity_3: 'Identity_3:output:0',
    });
    assert.deepEqual(
      body.signature.outputArg?.map((a) => a.type),
      ['DT_INT32', 'DT_INT32', 'DT_FLOAT', 'DT_FLOAT'],
    );
  });

  it('calls the library from While and StatefulPartitionedCall nodes with func attrs and type lists', () => {
    const loop = node(fn(countdown, '__inference_serve_15'), 'while')!;
    assert.equal(loop.op, 'StatelessWhile');
    assert.equal(loop.attr?.cond?.func?.name, 'while_cond_7');
    assert.equal(loop.attr?.body?.func?.name, 'while_body_8');
    assert.deepEqual(loop.attr?.T?.list?.type, ['DT_INT32', 'DT_INT32', 'DT_FLOAT', 'DT_FLOAT']);
    assert.deepEqual(node(fn(countdown, '__inference_serve_15'), 'Identity')?.input, ['while:output:2']);
    const call = countdown.graphDef?.node?.find((n) => n.name === 'StatefulPartitionedCall')!;
    assert.equal(call.op, 'StatefulPartitionedCall');
    assert.equal(call.attr?.f?.func?.name, '__inference_serve_15');
    assert.deepEqual(call.input, ['serving_default_x']);
  });

  it('lists the ops of the graph and of every function body in stripped_op_list, once each, sorted', () => {
    const listed = (countdown.metaInfoDef?.strippedOpList?.op ?? []).map((o: OpDef) => o.name);
    const used = new Set([
      ...(countdown.graphDef?.node ?? []).map((n) => n.op),
      ...[...functionLibrary(countdown).values()].flatMap((f) => (f.nodeDef ?? []).map((n) => n.op)),
    ]);
    assert.deepEqual(listed, [...used].sort());
    assert.ok(listed.includes('Greater') && listed.includes('StatelessWhile') && listed.includes('Sub'));
  });

  it('refuses to write a graph whose calls or bodies do not fit their OpDefs and functions', () => {
    const g = new Tf2GraphBuilder();
    const cond = g.library.define('cond', [['v', 'DT_FLOAT']], (f, [v]) => ({
      identity: identity(f, 'Identity', binary(f, 'Greater', 'Greater', v, scalarF32(f, 'y', 0))),
    }));
    const body = g.library.define('body', [['v', 'DT_FLOAT']], (f, [v]) => {
      const sub = binary(f, 'Sub', 'sub', v, scalarF32(f, 'sub/y', 1));
      // Sub's output arg is z: `sub:y:0` names nothing.
      f.addNode('Identity', 'wrong_ref', [new Value('sub:y:0', 'DT_FLOAT')], { T: { type: 'DT_FLOAT' } });
      // MatMul without its required T attr.
      f.addNode('MatMul', 'untyped', [sub, sub], {});
      return { identity: identity(f, 'Identity', sub) };
    });
    const x = g.top.placeholder('x', 'DT_FLOAT', []);
    whileLoop(g.top, 'while', [x], cond, body);
    // A While whose cond is not in the library and whose types do not match its body.
    g.addNode('StatelessWhile', 'while_1', [x.ref, scalarI32(g.top, 'i', 0).ref], {
      T: { list: { type: ['DT_FLOAT', 'DT_INT32'] } },
      cond: { func: { name: 'missing_cond', attr: {} } },
      body: { func: { name: 'body', attr: {} } },
    });
    assert.throws(
      () => buildSavedModel(g, {}),
      (e: Error) => {
        assert.match(e.message, /function body: wrong_ref: input sub:y:0: Sub has no output y:0/);
        assert.match(e.message, /function body: untyped: required attr T missing/);
        assert.match(e.message, /graph: while_1 \(StatelessWhile\) cond names function 'missing_cond', which is not in the library/);
        assert.match(e.message, /graph: while_1 passes \[DT_FLOAT,DT_INT32\] to body, which takes \[DT_FLOAT\]/);
        assert.doesNotMatch(e.message, /while:|graph: while /);
        return true;
      },
    );
  });
});

describe('SavedModel writer: resource variables', () => {
  let dir: string;
  let mg: MetaGraphObject;
  before(async () => {
    dir = path.join(tempDir('tfgate-tf2-vars-'), 'rnn');
    await writeRnnSavedModel(dir, { cell: 'simple', features: 2, units: 3, seed: 5 });
    mg = await readMetaGraph(dir, ['serve']);
  });

  it('stores the values under TF2 object-graph keys, not under the handles’ shared_name', async () => {
    const bundle = await readTensorBundle(path.join(dir, 'variables', 'variables'));
    assert.deepEqual(bundle.keys(), [
      'layer_with_weights-0/cell/bias/.ATTRIBUTES/VARIABLE_VALUE',
      'layer_with_weights-0/cell/kernel/.ATTRIBUTES/VARIABLE_VALUE',
      'layer_with_weights-0/cell/recurrent_kernel/.ATTRIBUTES/VARIABLE_VALUE',
    ]);
    assert.deepEqual(bundle.read('layer_with_weights-0/cell/kernel/.ATTRIBUTES/VARIABLE_VALUE').shape, [2, 3]);
  });

  it("restores them through a library function that tfgate's restore map follows to each VarHandleOp", () => {
    assert.equal(mg.saverDef?.restoreOpName, 'StatefulPartitionedCall_2');
    assert.equal(mg.saverDef?.filenameTensorName, 'saver_filename:0');
    const restore = fn(mg, '__inference__traced_restore');
    assert.ok(restore.nodeDef?.some((n) => n.op === 'RestoreV2'));
    assert.equal(restore.nodeDef?.filter((n) => n.op === 'AssignVariableOp').length, 3);
    const flattener = new GraphFlattener(mg.graphDef?.node ?? [], functionLibrary(mg), new Map(), { keepControlInputs: true });
    const keys = variableRestoreMap(flattener, mg.saverDef?.restoreOpName);
    assert.deepEqual(Object.fromEntries(keys), {
      'shared:/simple_rnn/simple_rnn_cell/bias': 'layer_with_weights-0/cell/bias/.ATTRIBUTES/VARIABLE_VALUE',
      'shared:/simple_rnn/simple_rnn_cell/kernel': 'layer_with_weights-0/cell/kernel/.ATTRIBUTES/VARIABLE_VALUE',
      'shared:/simple_rnn/simple_rnn_cell/recurrent_kernel': 'layer_with_weights-0/cell/recurrent_kernel/.ATTRIBUTES/VARIABLE_VALUE',
    });
  });

  it('passes the handles into the While as DT_RESOURCE loop variables, read in the body (Keras SimpleRNN)', () => {
    const loop = node(fn(mg, '__inference_simple_rnn_layer_call_103'), 'while')!;
    assert.deepEqual(loop.attr?.T?.list?.type?.slice(-3), ['DT_RESOURCE', 'DT_RESOURCE', 'DT_RESOURCE']);
    const body = fn(mg, 'while_body_102');
    assert.deepEqual(
      body.nodeDef?.filter((n) => n.op === 'ReadVariableOp').map((n) => n.input?.[0]),
      ['kernel_0', 'recurrent_kernel_0', 'bias_0'],
    );
    assert.equal(body.ret?.while_passthrough_2, 'kernel_0');
  });

  it('writes the same bytes for the same options', async () => {
    const again = path.join(tempDir('tfgate-tf2-vars-'), 'rnn');
    await writeRnnSavedModel(again, { cell: 'simple', features: 2, units: 3, seed: 5 });
    const fs = await import('node:fs');
    assert.ok(fs.readFileSync(path.join(dir, 'saved_model.pb')).equals(fs.readFileSync(path.join(again, 'saved_model.pb'))));
  });
});
