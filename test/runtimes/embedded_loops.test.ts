// TF2 control flow on the embedded runtime, on graphs written with tfgate's own writer:
// While / StatelessWhile with cond and body functions, TensorLists, If / StatelessIf,
// Keras-shaped GRU and SimpleRNN layers checked against a plain-JS forward pass, resource
// variables carried as loop variables, refusals at load time that name the op, its node,
// function and loop, and no tensor outliving a request.
import { describe, it, before } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import * as tf from '@tensorflow/tfjs-core';
import { EmbeddedRuntime } from '../../src/runtimes/embedded/embedded_runtime.js';
import type { TfjsServable } from '../../src/runtimes/embedded/tfjs_servable.js';
import { toModelArtifacts } from '../../src/runtimes/shared/tfjs_artifacts.js';
import { isTfjsSupportedOp } from '../../src/runtimes/embedded/tfjs_ops.js';
import { prepareSignatureGraph } from '../../src/savedmodel/graph/prepare_signature_graph.js';
import { readMetaGraph } from '../../src/savedmodel/saved_model_reader.js';
import { readTensorBundle } from '../../src/savedmodel/tensor_bundle/index.js';
import {
  writeConditionalModel,
  writeCountdownSumModel,
  writeLoopBodyKernelModel,
  writeLoopBodyOpModel,
  writeLoopWritingVariableModel,
  writeNestedLoopModel,
  writeRnnSavedModel,
  writeRowSumLoopModel,
  writeSharedVariableLoopsModel,
  writeTensorListLoopModel,
  type RnnDescription,
} from '../../test_util/savedmodel/loop_model_zoo.js';
import { rnnForward } from '../../test_util/savedmodel/rnn_reference.js';
import { writeSavedModel } from '../../test_util/savedmodel/saved_model_writer.js';
import { Tf2GraphBuilder } from '../../test_util/savedmodel/writer/tf2_graph_builder.js';
import { binary, identity, scalarI32, whileLoop } from '../../test_util/savedmodel/writer/tf2_ops.js';
import type { HostTensor } from '../../src/tensor/host_tensor.js';
import { Code } from '../../src/errors/status.js';
import { isError } from '../helpers/errors.js';
import { TFGATE_BIN } from '../helpers/server_process.js';
import { tempDir } from '../helpers/temp.js';

const runtime = new EmbeddedRuntime('auto');
const load = async (dir: string) => (await runtime.load(dir, { tags: ['serve'] })) as TfjsServable;
const f32 = (shape: number[], values: ArrayLike<number>): HostTensor => ({ dtype: 'float32', shape, values: Float32Array.from(values) });
const values = (t: HostTensor) => Array.from(t.values as Float32Array);
/** Deterministic inputs in [-1, 1]. */
const wave = (n: number, seed: number) => Array.from({ length: n }, (_, i) => Math.sin(i * 0.77 + seed));

function assertClose(got: ArrayLike<number>, want: ArrayLike<number>, tol: number, what: string): void {
  assert.equal(got.length, want.length, what);
  for (let i = 0; i < want.length; i++) assert.ok(Math.abs(got[i] - want[i]) <= tol, `${what}[${i}]: got ${got[i]}, want ${want[i]}`);
}

describe('embedded runtime: loops and conditionals', () => {
  let root: string;
  before(() => {
    root = tempDir('tfgate-loops-');
  });
  const dir = (name: string) => path.join(root, name, '1');

  it('runs a scalar StatelessWhile inside a called function: x = 10 sums to 55', async () => {
    await writeCountdownSumModel(dir('countdown'));
    const s = await load(dir('countdown'));
    try {
      assert.equal(s.executorOf('serving_default'), 'graph-model');
      for (const [x, sum] of [
        [10, 55],
        [3, 6],
        [0, 0],
        [10, 55],
      ]) {
        const out = await s.run('serving_default', { x: f32([], [x]) });
        assert.deepEqual(out.output_0.shape, []);
        assert.deepEqual(values(out.output_0), [sum], `x = ${x}`);
      }
    } finally {
      s.dispose();
    }
  });

  it('fills a TensorList in a loop: x = [10, 20] stacks to [[11, 21], [12, 22], [13, 23]] (StatelessWhile and While)', async () => {
    for (const stateless of [true, false]) {
      const d = dir(`tensor_list_${stateless}`);
      await writeTensorListLoopModel(d, { stateless });
      const s = await load(d);
      try {
        const out = await s.run('serving_default', { x: f32([2], [10, 20]) });
        assert.deepEqual(out.stacked.shape, [3, 2]);
        assert.deepEqual(values(out.stacked), [11, 21, 12, 22, 13, 23]);
      } finally {
        s.dispose();
      }
    }
  });

  it('keeps a list item that the body computes but does not return (tfjs-converter frees it otherwise)', async () => {
    await writeTensorListLoopModel(dir('tensor_list_scaled'), { itemScale: 10 });
    const s = await load(dir('tensor_list_scaled'));
    try {
      const out = await s.run('serving_default', { x: f32([2], [10, 20]) });
      assert.deepEqual(values(out.stacked), [110, 210, 120, 220, 130, 230]);
    } finally {
      s.dispose();
    }
  });

  it('freezes a resource variable that two loops carry, for both (x = 1 gives 2 (x + 1) = 4)', async () => {
    await writeSharedVariableLoopsModel(dir('shared_variable'));
    const s = await load(dir('shared_variable'));
    try {
      assert.deepEqual(values((await s.run('serving_default', { x: f32([], [1]) })).y), [4]);
    } finally {
      s.dispose();
    }
  });

  it('runs a loop nested in a loop body (n = 4 counts 6 inner steps)', async () => {
    await writeNestedLoopModel(dir('nested'));
    const s = await load(dir('nested'));
    try {
      for (const [n, count] of [
        [4, 6],
        [1, 0],
        [6, 15],
      ]) {
        const out = await s.run('serving_default', { n: { dtype: 'int32', shape: [], values: Int32Array.of(n) } });
        assert.deepEqual(values(out.count), [count], `n = ${n}`);
      }
    } finally {
      s.dispose();
    }
  });

  it('takes the branch the condition picks, for StatelessIf and If, with a resource variable passed in frozen', async () => {
    await writeConditionalModel(dir('conditional'));
    const s = await load(dir('conditional'));
    try {
      const run = async (signature: string, x: number) => values((await s.run(signature, { x: f32([], [x]) })).y)[0];
      assert.equal(await run('serving_default', 3), 6);
      assert.equal(await run('serving_default', -2), -3);
      assert.equal(await run('stateful_if', 3), 13);
      assert.equal(await run('stateful_if', -3), 9);
      assert.equal(await run('with_variable', 2), 2.5);
      assert.equal(await run('with_variable', -2), -2.5);
    } finally {
      s.dispose();
    }
  });

  describe('Keras-shaped recurrent layers against a plain-JS forward pass', () => {
    const models: Array<{ name: string; cell: 'gru' | 'simple' }> = [
      { name: 'GRU (weights read before the loop)', cell: 'gru' },
      { name: 'SimpleRNN (resource variables as loop variables)', cell: 'simple' },
    ];
    for (const m of models) {
      it(`${m.name}: batch 1 and 32, sequence lengths 3 and 7`, async () => {
        const d = dir(`rnn_${m.cell}`);
        const desc = await writeRnnSavedModel(d, { cell: m.cell, features: 3, units: 5, seed: 7 });
        const s = await load(d);
        try {
          for (const [batch, time] of [
            [1, 3],
            [1, 7],
            [32, 3],
            [32, 7],
          ]) {
            const x = wave(batch * time * desc.features, batch + time);
            const out = await s.run('serving_default', { x: f32([batch, time, desc.features], x) });
            const want = rnnForward(desc, x, batch, time);
            assert.deepEqual(out.sequence.shape, [batch, time, desc.units]);
            assert.deepEqual(out.last.shape, [batch, desc.units]);
            assertClose(values(out.sequence), want.sequence, 2e-5, `sequence ${batch}x${time}`);
            assertClose(values(out.last), want.last, 2e-5, `last ${batch}x${time}`);
          }
        } finally {
          s.dispose();
        }
      });
    }

    it('freezes the resource loop variables into float loop variables and ships only frozen functions', async () => {
      const d = dir('rnn_simple_prepared');
      await writeRnnSavedModel(d, { cell: 'simple', features: 2, units: 3, seed: 1 });
      const mg = await readMetaGraph(d, ['serve']);
      const prepared = prepareSignatureGraph(mg, 'serving_default', await readTensorBundle(path.join(d, 'variables', 'variables')), {
        isSupportedOp: isTfjsSupportedOp,
      });
      const loop = prepared.nodes.find((n) => n.op === 'StatelessWhile')!;
      assert.deepEqual(loop.attr?.T?.list?.type?.slice(-3), ['DT_FLOAT', 'DT_FLOAT', 'DT_FLOAT']);
      const functions = prepared.functions ?? [];
      assert.deepEqual(functions.map((f) => f.name).sort(), ['while_body_102__frozen_7_8_9', 'while_cond_101__frozen_7_8_9']);
      const everyOp = [...prepared.nodes, ...functions.flatMap((f) => f.nodes)].map((n) => n.op);
      for (const op of ['VarHandleOp', 'ReadVariableOp', 'StatefulPartitionedCall', 'PartitionedCall'])
        assert.ok(!everyOp.includes(op), op);
      // The frozen values enter the loop as constants holding the checkpoint's values.
      const kernelInput = loop.input![7].replace(/:0$/, '');
      assert.equal(prepared.nodes.find((n) => n.name === kernelInput)?.op, 'Const');

      // Function constants are weights with names unique across the model (tfjs looks them up by name).
      const artifacts = toModelArtifacts(prepared);
      const names = artifacts.weightSpecs!.map((w) => w.name);
      assert.equal(new Set(names).size, names.length);
      const library = (artifacts.modelTopology as { library: { function: Array<{ nodeDef: Array<{ name: string; op: string }> }> } })
        .library;
      const functionConsts = library.function.flatMap((f) => f.nodeDef.filter((n) => n.op === 'Const').map((n) => n.name));
      assert.ok(functionConsts.length > 0);
      for (const c of functionConsts) assert.ok(names.includes(c), c);
    });
  });

  it('leaves no tensor behind across runs of loops, TensorLists and branches', async () => {
    const cases: Array<[string, string, Record<string, HostTensor>]> = [
      [dir('countdown'), 'serving_default', { x: f32([], [10]) }],
      [dir('tensor_list_scaled'), 'serving_default', { x: f32([2], [1, 2]) }],
      [dir('conditional'), 'stateful_if', { x: f32([], [-2]) }],
      [dir('rnn_gru'), 'serving_default', { x: f32([4, 6, 3], wave(72, 1)) }],
      [dir('rnn_simple'), 'serving_default', { x: f32([4, 6, 3], wave(72, 2)) }],
    ];
    for (const [d, signature, inputs] of cases) {
      const s = await load(d);
      try {
        await s.run(signature, inputs);
        const before = tf.memory().numTensors;
        for (let i = 0; i < 3; i++) await s.run(signature, inputs);
        assert.equal(tf.memory().numTensors, before, `${d} ${signature}`);
      } finally {
        s.dispose();
      }
    }
  });

  it('a request failing in the middle of a loop is an INVALID_ARGUMENT and leaves no tensor behind', async () => {
    await writeRowSumLoopModel(dir('row_sum'));
    const s = await load(dir('row_sum'));
    const rows = f32([3, 2], [1, 2, 3, 4, 5, 6]);
    const n = (k: number): HostTensor => ({ dtype: 'int32', shape: [], values: Int32Array.of(k) });
    try {
      assert.deepEqual(values((await s.run('serving_default', { rows, n: n(3) })).sum), [9, 12]);
      const before = tf.memory().numTensors;
      for (const k of [4, 5]) {
        await assert.rejects(
          s.run('serving_default', { rows, n: n(k) }),
          isError(Code.INVALID_ARGUMENT, /Trying to access element 3 in a list with 3 elements/),
        );
      }
      assert.deepEqual(values((await s.run('serving_default', { rows, n: n(2) })).sum), [4, 6]);
      assert.equal(tf.memory().numTensors, before);
    } finally {
      s.dispose();
    }
    // A recurrent layer fed the wrong number of features fails where it unstacks its input.
    const rnn = await load(dir('rnn_gru'));
    try {
      const before = tf.memory().numTensors;
      await assert.rejects(rnn.run('serving_default', { x: f32([2, 4, 5], wave(40, 3)) }), isError(Code.INVALID_ARGUMENT, /./));
      assert.equal(tf.memory().numTensors, before);
    } finally {
      rnn.dispose();
    }
  });

  describe('refusals at load time', () => {
    it('an op TF.js lacks inside a loop body refuses that signature, naming op, node, function and While', async () => {
      await writeLoopBodyOpModel(dir('lgamma'), 'Lgamma');
      const s = await load(dir('lgamma'));
      try {
        assert.equal(
          s.refusals.bad,
          "signature 'bad' uses ops TF.js does not support: Lgamma (node PartitionedCall/Lgamma in function 'while_body_33', the body of StatelessWhile 'rnn/while')",
        );
        await assert.rejects(s.run('bad', { x: f32([], [1]) }), isError(Code.UNIMPLEMENTED, /Lgamma/));
        assert.deepEqual(values((await s.run('serving_default', { x: f32([], [1]) })).y), [4]);
      } finally {
        s.dispose();
      }
      await writeLoopBodyOpModel(dir('lgamma_only'), 'Lgamma', { onlyBad: true });
      await assert.rejects(
        load(dir('lgamma_only')),
        isError(
          Code.FAILED_PRECONDITION,
          /no signature can be served.*Lgamma \(node PartitionedCall\/Lgamma in function 'while_body_33', the body of StatelessWhile 'rnn\/while'\)/,
        ),
      );
    });

    it('the backend op check and tfjs rewrites reach loop bodies: NCHW BiasAdd refused, a case-sensitive Einsum equation kept apart', async () => {
      await writeLoopBodyKernelModel(dir('kernels_in_body'));
      const s = await load(dir('kernels_in_body'));
      try {
        assert.match(
          s.refusals.bias_nchw,
          /^signature 'bias_nchw' uses ops the embedded runtime cannot compute on the \w+ backend: BiasAdd \(node BiasAdd in function 'while_body_103', the body of StatelessWhile 'while_1': data_format NCHW: tfjs-converter ignores the attribute and computes NHWC\)$/,
        );
        // [[1, 2], [3, 4]] · [[5, 6], [7, 8]]; lower-cased to 'aa,ab->ab' it would be [[5, 6], [28, 32]].
        assert.deepEqual(values((await s.run('einsum', { m: f32([2, 2], [1, 2, 3, 4]) })).y), [19, 22, 43, 50]);
      } finally {
        s.dispose();
      }
    });

    it('a loop carrying a resource that is no variable is refused, naming the While, the input and where it comes from', async () => {
      const g = new Tf2GraphBuilder();
      const loopArgs: Array<[string, string]> = [
        ['i', 'DT_INT32'],
        ['acc', 'DT_FLOAT'],
        ['table', 'DT_RESOURCE'],
      ];
      const cond = g.library.define('while_cond_91', loopArgs, (f, [i]) => ({
        identity: identity(f, 'Identity', binary(f, 'Less', 'Less', i, scalarI32(f, 'Less/y', 2))),
      }));
      const body = g.library.define('while_body_92', loopArgs, (f, [i, acc, table]) => ({
        identity: binary(f, 'AddV2', 'add', i, scalarI32(f, 'add/y', 1)),
        identity_1: binary(f, 'AddV2', 'add_1', acc, acc),
        identity_2: table,
      }));
      const x = g.top.placeholder('x', 'DT_FLOAT', []);
      const table = g.top.placeholder('table_handle', 'DT_RESOURCE', []);
      const y = whileLoop(g.top, 'while', [scalarI32(g.top, 'i', 0), x, table], cond, body)[1];
      await writeSavedModel(dir('resource_input'), g, {
        serving_default: {
          inputs: { x: { name: x.tensorName, dtype: 'DT_FLOAT', shape: [] } },
          outputs: { y: { name: y.tensorName, dtype: 'DT_FLOAT', shape: [] } },
        },
      });
      await assert.rejects(
        load(dir('resource_input')),
        isError(
          Code.FAILED_PRECONDITION,
          /signature 'serving_default': StatelessWhile 'while' takes a resource as loop variable 2 from Placeholder 'table_handle', which tfgate cannot freeze into a value/,
        ),
      );
    });

    it('a loop body that writes a variable it carries is refused, naming the op, the While and the variable', async () => {
      await writeLoopWritingVariableModel(dir('writes'));
      await assert.rejects(
        load(dir('writes')),
        isError(
          Code.FAILED_PRECONDITION,
          new RegExp(
            "signature 'serving_default' updates variables \\(AssignAddVariableOp at node 'AssignAddVariableOp' in function 'while_body_52', " +
              "the body of While 'while', writing its loop variable 1 \\(resource variable 'counter'\\)\\)",
          ),
        ),
      );
    });
  });

  describe('the CPU and WASM backends agree (tfgate run --runtime cpu / wasm)', () => {
    const exec = promisify(execFile);
    const runCli = async (d: string, backend: string, input: string): Promise<Record<string, number[] | number>> => {
      const { stdout } = await exec(process.execPath, [
        TFGATE_BIN,
        'run',
        '--dir',
        d,
        '--signature_def',
        'serving_default',
        '--input_exprs',
        input,
        '--runtime',
        backend,
      ]);
      return JSON.parse(stdout) as Record<string, number[] | number>;
    };
    const nested = (flat: number[], shape: number[]): unknown =>
      shape.length === 1
        ? flat
        : Array.from({ length: shape[0] }, (_, i) =>
            nested(flat.slice((i * flat.length) / shape[0], ((i + 1) * flat.length) / shape[0]), shape.slice(1)),
          );

    it('on the scalar loop and on both recurrent layers, each within 1e-5 of the JS forward pass', async () => {
      const cpu = await runCli(dir('countdown'), 'cpu', 'x=10');
      const wasm = await runCli(dir('countdown'), 'wasm', 'x=10');
      assert.deepEqual(cpu, { output_0: 55 });
      assert.deepEqual(wasm, cpu);
      for (const cell of ['gru', 'simple'] as const) {
        const d = dir(`rnn_cli_${cell}`);
        const desc: RnnDescription = await writeRnnSavedModel(d, { cell, features: 3, units: 4, seed: 3 });
        const [batch, time] = [2, 5];
        const x = wave(batch * time * 3, 9).map((v) => Math.round(v * 1e4) / 1e4);
        const input = `x=${JSON.stringify(nested(x, [batch, time, 3]))}`;
        const want = rnnForward(desc, x, batch, time);
        const outs = { cpu: await runCli(d, 'cpu', input), wasm: await runCli(d, 'wasm', input) };
        for (const [backend, out] of Object.entries(outs)) {
          assertClose((out.last as unknown as number[][]).flat(), want.last, 1e-5, `${cell} ${backend} last`);
          assertClose((out.sequence as unknown as number[][][]).flat(2), want.sequence, 1e-5, `${cell} ${backend} sequence`);
        }
        assertClose(
          (outs.cpu.last as unknown as number[][]).flat(),
          (outs.wasm.last as unknown as number[][]).flat(),
          1e-5,
          `${cell} cpu vs wasm`,
        );
      }
    });
  });
});
