// Matrix products: MatMul (transpose_a/b), BatchMatMul V1–V3 (adj_x/adj_y), Einsum.
import type { OpContext, OpConverter } from '../convert_context.js';
import { broadcastShapes } from '../convert_context.js';
import { isFloat } from '../onnx_dtype.js';
import { transposeHost } from './layout.js';

/** Perm swapping the last two dims of a rank-r tensor. */
const swapLast = (r: number) => [...Array.from({ length: r - 2 }, (_, k) => k), r - 1, r - 2];

function transposed(ctx: OpContext, i: number, yes: boolean): { name: string; shape: number[] | null } {
  const v = ctx.input(i);
  if (!yes) return { name: ctx.use(i), shape: v.shape };
  const r = ctx.rank(i);
  if (r < 2) ctx.fail(`transposing a rank-${r} operand`);
  const perm = swapLast(r);
  const shape = perm.map((p) => v.shape![p]);
  if (v.value) return { name: ctx.constTensor(transposeHost(v.value, perm), `input${i}_t`), shape };
  return { name: ctx.emit('Transpose', [ctx.use(i)], { perm }, `input${i}_t`), shape };
}

function matmulShape(a: number[] | null, b: number[] | null): number[] | null {
  if (!a || !b || a.length < 2 || b.length < 2) return null;
  const batch = broadcastShapes(a.slice(0, -2), b.slice(0, -2));
  return batch && [...batch, a[a.length - 2], b[b.length - 1]];
}

const matMul: OpConverter = (ctx) => {
  const a = ctx.input(0);
  if (a.dtype !== 'float32' && a.dtype !== 'float64' && a.dtype !== 'int32' && a.dtype !== 'int64') ctx.fail(`MatMul on ${a.dtype}`);
  if (ctx.rank(0) !== 2 || ctx.rank(1) !== 2) ctx.fail('MatMul needs rank-2 operands');
  const ta = ctx.attrBool('transpose_a');
  const tb = ctx.attrBool('transpose_b');
  // A constant right operand is transposed once here; otherwise Gemm transposes on the fly.
  if (isFloat(a.dtype) && (ta || (tb && !ctx.input(1).value))) {
    const sa = ctx.input(0).shape!;
    const sb = ctx.input(1).shape!;
    const y = ctx.emit('Gemm', [ctx.use(0), ctx.use(1)], { transA: ta ? 1 : 0, transB: tb ? 1 : 0 }, 'gemm');
    return [ctx.out(y, a.dtype, [ta ? sa[1] : sa[0], tb ? sb[0] : sb[1]])];
  }
  const A = transposed(ctx, 0, ta);
  const B = transposed(ctx, 1, tb);
  return [ctx.out(ctx.emit('MatMul', [A.name, B.name]), a.dtype, matmulShape(A.shape, B.shape))];
};

const batchMatMul: OpConverter = (ctx) => {
  const a = ctx.input(0);
  if (!isFloat(a.dtype) && a.dtype !== 'int32' && a.dtype !== 'int64') ctx.fail(`${ctx.op} on ${a.dtype}`);
  const A = transposed(ctx, 0, ctx.attrBool('adj_x'));
  const B = transposed(ctx, 1, ctx.attrBool('adj_y'));
  const out = ctx.op === 'BatchMatMulV3' ? ctx.attrType('Tout') : a.dtype;
  if (out !== a.dtype) ctx.fail(`${ctx.op} with Tout ${out} on ${a.dtype}`);
  return [ctx.out(ctx.emit('MatMul', [A.name, B.name]), out, matmulShape(A.shape, B.shape))];
};

/** Output rank of an einsum equation, given the operands' ranks (for "..." broadcasting). */
function einsumOutputShape(equation: string, shapes: Array<number[] | null>): number[] | null {
  const [lhs, rhs] = equation.replace(/\s/g, '').split('->');
  if (rhs === undefined) return null;
  const terms = lhs.split(',');
  const dims = new Map<string, number>();
  let ellipsis: number[] | null = [];
  for (let t = 0; t < terms.length; t++) {
    const shape = shapes[t];
    if (!shape) return null;
    const letters = terms[t].replace('...', '');
    const ell = terms[t].includes('...') ? shape.length - letters.length : 0;
    let pos = 0;
    for (let k = 0; k < terms[t].length;) {
      if (terms[t].startsWith('...', k)) {
        ellipsis = broadcastShapes(ellipsis, shape.slice(pos, pos + ell));
        pos += ell;
        k += 3;
        continue;
      }
      const d = shape[pos++];
      const c = terms[t][k++];
      if (!dims.has(c) || dims.get(c) === -1 || dims.get(c) === 1) dims.set(c, d);
    }
  }
  const out: number[] = [];
  for (let k = 0; k < rhs.length;) {
    if (rhs.startsWith('...', k)) {
      if (!ellipsis) return null;
      out.push(...ellipsis);
      k += 3;
      continue;
    }
    out.push(dims.get(rhs[k++]) ?? -1);
  }
  return out;
}

const einsum: OpConverter = (ctx) => {
  const equation = ctx.attrString('equation');
  const x = ctx.input(0);
  if (!isFloat(x.dtype)) ctx.fail(`Einsum on ${x.dtype}`);
  if (!equation.includes('->')) ctx.fail(`Einsum equation '${equation}' without an explicit output`);
  const y = ctx.emit(
    'Einsum',
    ctx.inputs.map((_, i) => ctx.use(i)),
    { equation: equation.replace(/\s/g, '') },
  );
  return [
    ctx.out(
      y,
      x.dtype,
      einsumOutputShape(
        equation,
        ctx.inputs.map((v) => v.shape),
      ),
    ),
  ];
};

export const MATMUL_OPS: Record<string, OpConverter> = {
  MatMul: matMul,
  BatchMatMul: batchMatMul,
  BatchMatMulV2: batchMatMul,
  BatchMatMulV3: batchMatMul,
  Einsum: einsum,
};
