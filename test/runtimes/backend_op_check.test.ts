// The load-time op check (backend_op_check.ts): kernels asked of the backend's registry, ops
// and attributes tfjs-converter ignores, and tfgate's own ops' checks.
import { describe, it, before } from 'node:test';
import assert from 'node:assert/strict';
import * as tf from '@tensorflow/tfjs-core';
import '../../src/runtimes/shared/tfjs_backend.js';
import { checkBackendCanRun, kernelsOf, nodeProblem } from '../../src/runtimes/embedded/backend_op_check.js';
import { registerEmbeddedOps } from '../../src/runtimes/embedded/ops/index.js';
import { converterOps } from '../../src/runtimes/embedded/tfjs_ops.js';
import type { AttrValue, NodeDef } from '../../src/savedmodel/graph/types.js';
import { Code } from '../../src/errors/status.js';
import { isError } from '../helpers/errors.js';

const s = (v: string): AttrValue => ({ s: new TextEncoder().encode(v) });
const n = (op: string, attr: Record<string, AttrValue> = {}): NodeDef => ({ name: `${op.toLowerCase()}_node`, op, input: [], attr });
/** What tfjs-converter alone would run: no tfgate op registered. */
const converterOnly = (backend: string) => ({ backend, isCustomOp: () => false });

describe('load-time op check', () => {
  before(async () => {
    await tf.ready();
    registerEmbeddedOps();
  });

  it("asks the backend's kernel registry: Einsum maps to tf.einsum, which WASM has no kernel for (CPU has)", () => {
    const einsum = n('Einsum', { equation: s('ij,jk->ik'), N: { i: 2 } });
    assert.equal(nodeProblem(einsum, converterOnly('wasm')), "the wasm backend has no kernel 'Einsum'");
    assert.equal(nodeProblem(einsum, converterOnly('cpu')), null);
  });

  it("with tfgate's Einsum registered, supported equations pass and others are refused naming the equation", () => {
    assert.equal(
      nodeProblem(n('Einsum', { equation: s('abc,cde->abde'), N: { i: 2 }, T: { type: 'DT_FLOAT' } }), { backend: 'wasm' }),
      null,
    );
    assert.match(
      nodeProblem(n('Einsum', { equation: s('ij,jk'), N: { i: 2 } }), { backend: 'wasm' })!,
      /einsum equation 'ij,jk' needs exactly one '->'/,
    );
    assert.match(
      nodeProblem(n('Einsum', { equation: s('ij->k'), N: { i: 1 } }), { backend: 'wasm' })!,
      /output label 'k' is not in any operand/,
    );
    assert.match(
      nodeProblem(n('Einsum', { equation: s('ij,jk->ik'), N: { i: 2 }, T: { type: 'DT_INT32' } }), { backend: 'wasm' })!,
      /einsum on DT_INT32/,
    );
  });

  it("refuses FakeQuantWithMinMaxVars when only the converter would run it (as Identity), accepts it with tfgate's op", () => {
    const fq = n('FakeQuantWithMinMaxVars', { num_bits: { i: 8 }, narrow_range: { b: false } });
    assert.match(nodeProblem(fq, converterOnly('wasm'))!, /runs it as Identity \("This op is currently ignored"\)/);
    assert.equal(nodeProblem(fq, { backend: 'wasm' }), null);
  });

  it("FusedBatchNormV3 over NCHW runs through tfgate's op (the converter ignores data_format and is_training)", () => {
    const fbn = n('FusedBatchNormV3', { data_format: s('NCHW'), is_training: { b: true } });
    assert.equal(nodeProblem(fbn, { backend: 'wasm' }), null);
    assert.match(nodeProblem(n('FusedBatchNormV3', { data_format: s('HWCN') }), { backend: 'wasm' })!, /data_format HWCN is not one of/);
  });

  it('refuses attribute values the converter or the backend would silently ignore', () => {
    const cases: Array<[NodeDef, string, RegExp | null]> = [
      [n('BiasAdd', { data_format: s('NCHW') }), 'cpu', /data_format NCHW: tfjs-converter ignores the attribute and computes NHWC/],
      [n('BiasAdd', { data_format: s('NHWC') }), 'wasm', null],
      [n('BiasAdd'), 'wasm', null],
      [n('MaxPool', { data_format: s('NCHW') }), 'wasm', /data_format NCHW/],
      [n('MaxPool', { padding: s('EXPLICIT') }), 'wasm', /padding EXPLICIT: tfjs-converter ignores explicit_paddings/],
      [n('MaxPool3D', { data_format: s('NCDHW') }), 'wasm', /computes NDHWC/],
      [n('MaxPool3D'), 'wasm', null],
      [n('OneHot', { axis: { i: 0 } }), 'wasm', /axis 0: tfjs-converter ignores the attribute and uses -1/],
      [n('OneHot', { axis: { i: -1 } }), 'wasm', null],
      [n('Conv2DBackpropInput', { dilations: { list: { i: [1, 2, 2, 1] } } }), 'wasm', /dilations other than 1/],
      [n('DepthwiseConv2dNative', { data_format: s('NCHW') }), 'cpu', /data_format NCHW/],
      [n('Conv2D', { data_format: s('NCHW') }), 'wasm', /the WASM backend computes NHWC only/],
      [n('Conv2D', { data_format: s('NCHW') }), 'cpu', null],
    ];
    for (const [node, backend, want] of cases) {
      const got = nodeProblem(node, { backend });
      if (want) assert.match(got ?? '', want, `${node.op} on ${backend}`);
      else assert.equal(got, null, `${node.op} on ${backend}`);
    }
  });

  it('names only kernels TF.js has, for every op tfjs-converter maps; on WASM refuses exactly the ops missing one', () => {
    const refusedOnWasm: string[] = [];
    for (const op of converterOps()) {
      for (const k of kernelsOf(op)) assert.ok(tf.getKernel(k, 'cpu'), `${op} → ${k}`);
      const p = nodeProblem(n(op), { backend: 'wasm' });
      if (p?.startsWith('the wasm backend has no kernel')) refusedOnWasm.push(op);
      assert.equal(nodeProblem(n(op), { backend: 'cpu' })?.startsWith('the cpu backend has no kernel') ?? false, false, `${op} on cpu`);
    }
    // The ops whose kernels WASM lacks (FFT, RFFT, Complex, ComplexAbs …) are tfgate's own (embedded/ops/spectral/).
    assert.equal(refusedOnWasm.length, 0, refusedOnWasm.join());
    // (tfjs_patches/wasm_complex.ts gives WASM a Complex kernel; tf.rfft would still need the rest.)
    assert.equal(nodeProblem(n('RFFT'), converterOnly('wasm')), "the wasm backend has no kernel 'FFT', 'Real', 'Imag'");
    assert.ok(!refusedOnWasm.includes('Einsum'), "tfgate's Einsum runs on WASM");
    for (const op of refusedOnWasm)
      assert.ok(
        kernelsOf(op).some((k) => !tf.getKernel(k, 'wasm')),
        op,
      );
  });

  it('complex tensors: complex128 on no backend; complex64 on WASM only into the ops that can hold one', () => {
    const c64 = { type: 'DT_COMPLEX64' };
    assert.match(
      nodeProblem(n('Mul', { T: c64 }), { backend: 'wasm' })!,
      /a complex64 tensor: the wasm backend's Mul kernel cannot read one/,
    );
    assert.equal(nodeProblem(n('Mul', { T: c64 }), { backend: 'cpu' }), null);
    for (const op of ['Identity', 'Reshape', 'ExpandDims', 'Squeeze'])
      assert.equal(nodeProblem(n(op, { T: c64 }), { backend: 'wasm' }), null, op);
    assert.match(nodeProblem(n('Mul', { T: { type: 'DT_COMPLEX128' } }), { backend: 'cpu' })!, /complex128 tensors: TF.js has none/);
    assert.match(
      nodeProblem(n('RFFT', { Tcomplex: { type: 'DT_COMPLEX128' } }), { backend: 'cpu' })!,
      /Tcomplex DT_COMPLEX128: the embedded runtime computes complex64 only/,
    );
  });

  it('throws UNIMPLEMENTED naming each op once, with its first node', () => {
    const complexMul = n('Mul', { T: { type: 'DT_COMPLEX64' } });
    const nodes = [complexMul, { ...complexMul, name: 'second' }, n('BiasAdd', { data_format: s('NCHW') }), n('Relu')];
    assert.throws(
      () => checkBackendCanRun(nodes, 'wasm', 'serving_default'),
      isError(
        Code.UNIMPLEMENTED,
        /^signature 'serving_default' uses ops the embedded runtime cannot compute on the wasm backend: Mul \(node mul_node: a complex64 tensor: the wasm backend's Mul kernel cannot read one\), BiasAdd \(node biasadd_node: data_format NCHW[^)]*\)$/,
      ),
    );
    assert.doesNotThrow(() => checkBackendCanRun([n('Relu'), n('MatMul')], 'wasm', 'serving_default'));
  });
});
