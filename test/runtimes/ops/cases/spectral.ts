// Spectral ops (tensorflow/core/ops/spectral_ops.cc: FFT, IFFT, RFFT, IRFFT and their 2D/3D
// forms) and the complex64 ops between them (math_ops.cc: Complex, Real, Imag, ComplexAbs).
// TF's fft_ops_test.py compares with numpy on random inputs and states no literal values, so
// these are closed forms that hold exactly (the transform of an impulse, of a constant, of a
// sampled cosine or complex exponential; the inverse of a known spectrum), which TF's float32
// DUCC transforms reproduce to float32 rounding — hence the tolerances. ComplexAbs has a
// stated example in its API doc. A complex tensor is neither fed nor served by tfgate: each
// case builds it with Complex and reads it with Real and Imag.
import { attr, Tensor, type GraphBuilder } from '../../../../test_util/savedmodel/writer/graph_builder.js';
import type { HostTensor } from '../../../../src/tensor/host_tensor.js';
import { f32, failsAtRun, i32, refusedAtLoad, type Failure, type OpCase, type OpFamilyCases } from '../op_case.js';

const SPECTRAL_REGISTRATIONS = [
  ...['FFT', 'IFFT', 'FFT2D', 'IFFT2D', 'FFT3D', 'IFFT3D'].map(
    (op) => `REGISTER_OP("${op}")
    .Input("input: Tcomplex")
    .Output("output: Tcomplex")
    .Attr("Tcomplex: {complex64, complex128} = DT_COMPLEX64")`,
  ),
  ...['RFFT', 'RFFT2D', 'RFFT3D'].map(
    (op) => `REGISTER_OP("${op}")
    .Input("input: Treal")
    .Input("fft_length: int32")
    .Output("output: Tcomplex")
    .Attr("Treal: {float32, float64} = DT_FLOAT")
    .Attr("Tcomplex: {complex64, complex128} = DT_COMPLEX64")`,
  ),
  ...['IRFFT', 'IRFFT2D', 'IRFFT3D'].map(
    (op) => `REGISTER_OP("${op}")
    .Input("input: Tcomplex")
    .Input("fft_length: int32")
    .Output("output: Treal")
    .Attr("Treal: {float32, float64} = DT_FLOAT")
    .Attr("Tcomplex: {complex64, complex128} = DT_COMPLEX64")`,
  ),
  `REGISTER_OP("Complex")
    .Input("real: T")
    .Input("imag: T")
    .Output("out: Tout")
    .Attr("T: {float, double} = DT_FLOAT")
    .Attr("Tout: {complex64, complex128} = DT_COMPLEX64")`,
  ...['Real', 'Imag'].map(
    (op) => `REGISTER_OP("${op}")
    .Input("input: T")
    .Output("output: Tout")
    .Attr("T: {complex64, complex128} = DT_COMPLEX64")
    .Attr("Tout: {float, double} = DT_FLOAT")`,
  ),
  // The ops tf.signal.stft's graph holds around RFFT (the STFT case below).
  `REGISTER_OP("Range")
    .Input("start: Tidx")
    .Input("limit: Tidx")
    .Input("delta: Tidx")
    .Output("output: Tidx")
    .Attr("Tidx: {bfloat16, float, double, int32, int64} = DT_INT32")`,
  `REGISTER_OP("Cast")
    .Input("x: SrcT")
    .Output("y: DstT")
    .Attr("SrcT: type")
    .Attr("DstT: type")
    .Attr("Truncate: bool = false")`,
  `REGISTER_OP("RealDiv")
    .Input("x: T")
    .Input("y: T")
    .Output("z: T")
    .Attr("T: {bfloat16, half, float, double, uint8, int8, uint16, int16, int32, int64, complex64, complex128}")`,
  `REGISTER_OP("Cos")
    .Input("x: T")
    .Output("y: T")
    .Attr("T: {bfloat16, half, float, double, complex64, complex128}")`,
  `REGISTER_OP("StridedSlice")
    .Input("input: T")
    .Input("begin: Index")
    .Input("end: Index")
    .Input("strides: Index")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Index: {int16, int32, int64}")
    .Attr("begin_mask: int = 0")
    .Attr("end_mask: int = 0")
    .Attr("ellipsis_mask: int = 0")
    .Attr("new_axis_mask: int = 0")
    .Attr("shrink_axis_mask: int = 0")`,
  `REGISTER_OP("GatherV2")
    .Input("params: Tparams")
    .Input("indices: Tindices")
    .Input("axis: Taxis")
    .Attr("batch_dims: int = 0")
    .Output("output: Tparams")
    .Attr("Tparams: type")
    .Attr("Tindices: {int16, int32, int64}")
    .Attr("Taxis: {int32, int64}")`,
  `REGISTER_OP("ComplexAbs")
    .Input("x: T")
    .Output("y: Tout")
    .Attr("T: {complex64, complex128} = DT_COMPLEX64")
    .Attr("Tout: {float, double} = DT_FLOAT")`,
];

const SPECTRAL_OPS = 'tensorflow/core/ops/spectral_ops.cc';
const FFT_KERNEL = 'tensorflow/core/kernels/fft_ops.cc@024ada2d';
const CLOSED_FORM = 'closed form (TF\'s fft_ops_test.py states no literal values; its API docs: "Equivalent to np.fft.*")';

const parts = (g: GraphBuilder, x: Tensor, name = 'y') => ({
  re: g.identity(
    're',
    new Tensor(g.addNode('Real', 'real', [x], { T: attr.type('DT_COMPLEX64'), Tout: attr.type('float32') }), 0, 'float32', null),
  ),
  im: g.identity(
    'im',
    new Tensor(g.addNode('Imag', 'imag', [x], { T: attr.type('DT_COMPLEX64'), Tout: attr.type('float32') }), 0, 'float32', null),
  ),
  name,
});

/** A complex64 tensor from fed real and imaginary parts. */
function complexInput(g: GraphBuilder, shape: number[]): Tensor {
  const re = g.placeholder('x_re', 'float32', shape);
  const im = g.placeholder('x_im', 'float32', shape);
  return new Tensor(g.addNode('Complex', 'x', [re, im], { T: attr.type('float32'), Tout: attr.type('DT_COMPLEX64') }), 0, 'float32', shape);
}

const fftLength = (g: GraphBuilder, n: number[]) => g.constant('fft_length', i32([n.length], n));

/** Expected real and imaginary parts. */
interface Spectrum {
  re: number[];
  im: number[];
  shape?: number[];
}
const isSpectrum = (w: unknown): w is Spectrum => Array.isArray((w as Spectrum).re);

/** RFFT* on a fed float input; the spectrum served as re and im. */
function realForward(
  op: string,
  name: string,
  source: string,
  x: HostTensor,
  n: number[],
  want: Required<Spectrum> | Failure,
  tol = 1e-5,
): OpCase {
  return {
    name,
    source,
    op,
    graph: (g) => {
      const input = g.placeholder('x', 'float32', [...x.shape]);
      const y = new Tensor(
        g.addNode(op, op, [input, fftLength(g, n)], { Treal: attr.type('float32'), Tcomplex: attr.type('DT_COMPLEX64') }),
        0,
        'float32',
        null,
      );
      const { re, im } = parts(g, y);
      return { inputs: { x: input }, outputs: { re, im } };
    },
    feeds: { x },
    want: isSpectrum(want) ? { re: f32(want.shape, want.re), im: f32(want.shape, want.im) } : want,
    tol,
  };
}

/** IRFFT* of a complex input fed as parts. */
function realInverse(
  op: string,
  name: string,
  source: string,
  shape: number[],
  re: number[],
  im: number[],
  n: number[],
  want: HostTensor | Failure,
  tol = 1e-5,
): OpCase {
  return {
    name,
    source,
    op,
    graph: (g) => {
      const x = complexInput(g, shape);
      const y = g.identity(
        'y',
        new Tensor(
          g.addNode(op, op, [x, fftLength(g, n)], { Treal: attr.type('float32'), Tcomplex: attr.type('DT_COMPLEX64') }),
          0,
          'float32',
          null,
        ),
      );
      return { inputs: { x_re: new Tensor('x_re', 0, 'float32', shape), x_im: new Tensor('x_im', 0, 'float32', shape) }, outputs: { y } };
    },
    feeds: { x_re: f32(shape, re), x_im: f32(shape, im) },
    want: 'dtype' in want ? { y: want } : want,
    tol,
  };
}

/** FFT* / IFFT* of a complex input fed as parts; the result served as re and im. */
function complexFft(
  op: string,
  name: string,
  source: string,
  shape: number[],
  re: number[],
  im: number[],
  want: Spectrum,
  tol = 1e-5,
): OpCase {
  return {
    name,
    source,
    op,
    graph: (g) => {
      const x = complexInput(g, shape);
      const y = new Tensor(g.addNode(op, op, [x], { Tcomplex: attr.type('DT_COMPLEX64') }), 0, 'float32', null);
      const out = parts(g, y);
      return {
        inputs: { x_re: new Tensor('x_re', 0, 'float32', shape), x_im: new Tensor('x_im', 0, 'float32', shape) },
        outputs: { re: out.re, im: out.im },
      };
    },
    feeds: { x_re: f32(shape, re), x_im: f32(shape, im) },
    want: { re: f32(shape, want.re), im: f32(shape, want.im) },
    tol,
  };
}

const cos6 = Array.from({ length: 6 }, (_, j) => Math.cos((2 * Math.PI * j) / 6));
const S3 = Math.sqrt(3) / 2;

const RFFT_CASES: OpCase[] = [
  realForward('RFFT', 'an impulse: every bin 1', CLOSED_FORM, f32([4], [1, 0, 0, 0]), [4], { shape: [3], re: [1, 1, 1], im: [0, 0, 0] }),
  realForward('RFFT', '[1, 2, 3, 4]: [10, −2 + 2i, −2]', CLOSED_FORM, f32([4], [1, 2, 3, 4]), [4], {
    shape: [3],
    re: [10, -2, -2],
    im: [0, 2, 0],
  }),
  realForward(
    'RFFT',
    'fft_length 2 crops the input to [1, 2]: [3, −1]',
    `${SPECTRAL_OPS} (RFFT doc: "if fft_length is smaller … the dimension is cropped"); ${FFT_KERNEL} DuccFftImpl`,
    f32([4], [1, 2, 3, 4]),
    [2],
    {
      shape: [2],
      re: [3, -1],
      im: [0, 0],
    },
  ),
  realForward('RFFT', 'length 6 (not a power of two): cos(2πj/6) has 3 in bin 1', CLOSED_FORM, f32([6], cos6), [6], {
    shape: [4],
    re: [0, 3, 0, 0],
    im: [0, 0, 0, 0],
  }),
  realForward('RFFT', 'odd length 3: [1, 2, 3] → [6, −1.5 + (√3/2)i]', CLOSED_FORM, f32([3], [1, 2, 3]), [3], {
    shape: [2],
    re: [6, -1.5],
    im: [0, S3],
  }),
  realForward('RFFT', 'each row of a batch transformed', CLOSED_FORM, f32([2, 4], [1, 0, 0, 0, 1, 1, 1, 1]), [4], {
    shape: [2, 3],
    re: [1, 1, 1, 4, 0, 0],
    im: [0, 0, 0, 0, 0, 0],
  }),
  realForward(
    'RFFT',
    "an input shorter than fft_length: TF's message (tf.signal.rfft pads it in the graph before the op)",
    FFT_KERNEL,
    f32([4], [1, 2, 3, 4]),
    [8],
    failsAtRun('Input dimension 0 must have length of at least 8 but got: 4'),
  ),
  realForward(
    'RFFT',
    "a negative fft_length: TF's message",
    FFT_KERNEL,
    f32([4], [1, 2, 3, 4]),
    [-1],
    failsAtRun('fft_length[0] must >= 0, but got: -1'),
  ),
  realForward('RFFT2D', '2-D impulse: all ones, the inner axis halved to 2', CLOSED_FORM, f32([2, 2], [1, 0, 0, 0]), [2, 2], {
    shape: [2, 2],
    re: [1, 1, 1, 1],
    im: [0, 0, 0, 0],
  }),
  realForward('RFFT3D', '3-D ones: 8 in the DC bin', CLOSED_FORM, f32([2, 2, 2], new Array<number>(8).fill(1)), [2, 2, 2], {
    shape: [2, 2, 2],
    re: [8, 0, 0, 0, 0, 0, 0, 0],
    im: new Array<number>(8).fill(0),
  }),
  realForward(
    'RFFT2D',
    "a rank-1 input: TF's message",
    FFT_KERNEL,
    f32([4], [1, 2, 3, 4]),
    [2, 2],
    failsAtRun('Input must have rank of at least 2 but got: [4]'),
  ),
];

const IRFFT_CASES: OpCase[] = [
  realInverse('IRFFT', '[10, −2 + 2i, −2] → [1, 2, 3, 4]', CLOSED_FORM, [3], [10, -2, -2], [0, 2, 0], [4], f32([4], [1, 2, 3, 4])),
  realInverse(
    'IRFFT',
    "the imaginary parts of the DC and Nyquist bins are ignored (a c2r transform's Hermitian input)",
    `${FFT_KERNEL} (DUCC c2r); numpy.fft.irfft`,
    [3],
    [10, -2, -2],
    [5, 2, 7],
    [4],
    f32([4], [1, 2, 3, 4]),
  ),
  realInverse('IRFFT', 'odd length 3: [6, −1.5 + (√3/2)i] → [1, 2, 3]', CLOSED_FORM, [2], [6, -1.5], [0, S3], [3], f32([3], [1, 2, 3])),
  realInverse(
    'IRFFT',
    'extra bins are cropped: fft_length 2 reads 2 of 3 bins',
    `${SPECTRAL_OPS} (IRFFT doc: "the dimension is cropped")`,
    [3],
    [4, 2, 9],
    [0, 0, 9],
    [2],
    f32([2], [3, 1]),
  ),
  realInverse(
    'IRFFT',
    "too few bins for fft_length 8: TF's message",
    FFT_KERNEL,
    [3],
    [1, 1, 1],
    [0, 0, 0],
    [8],
    failsAtRun('Input dimension 0 must have length of at least 5 but got: 3'),
  ),
  realInverse('IRFFT2D', '[[4, 0], [0, 0]] → ones', CLOSED_FORM, [2, 2], [4, 0, 0, 0], [0, 0, 0, 0], [2, 2], f32([2, 2], [1, 1, 1, 1])),
  realInverse(
    'IRFFT3D',
    '8 in the DC bin → ones',
    CLOSED_FORM,
    [2, 2, 2],
    [8, 0, 0, 0, 0, 0, 0, 0],
    new Array<number>(8).fill(0),
    [2, 2, 2],
    f32([2, 2, 2], new Array<number>(8).fill(1)),
  ),
];

const FFT_CASES: OpCase[] = [
  complexFft('FFT', 'e^(iπj/2) (j = 0…3): 4 in bin 1', CLOSED_FORM, [4], [1, 0, -1, 0], [0, 1, 0, -1], {
    re: [0, 4, 0, 0],
    im: [0, 0, 0, 0],
  }),
  complexFft('IFFT', '[0, 4, 0, 0] → e^(iπj/2), scaled by 1/4', CLOSED_FORM, [4], [0, 4, 0, 0], [0, 0, 0, 0], {
    re: [1, 0, -1, 0],
    im: [0, 1, 0, -1],
  }),
  complexFft('FFT', 'length 3: [1, 1, 1] → [3, 0, 0]', CLOSED_FORM, [3], [1, 1, 1], [0, 0, 0], { re: [3, 0, 0], im: [0, 0, 0] }),
  complexFft(
    'FFT',
    'length 5 (Bluestein here, as DUCC handles any length): an impulse at 1 → e^(−2πik/5)',
    CLOSED_FORM,
    [5],
    [0, 1, 0, 0, 0],
    [0, 0, 0, 0, 0],
    {
      re: Array.from({ length: 5 }, (_, k) => Math.cos((2 * Math.PI * k) / 5)),
      im: Array.from({ length: 5 }, (_, k) => -Math.sin((2 * Math.PI * k) / 5)),
    },
  ),
  complexFft('FFT2D', 'ones [2, 2]: 4 in the DC bin', CLOSED_FORM, [2, 2], [1, 1, 1, 1], [0, 0, 0, 0], {
    re: [4, 0, 0, 0],
    im: [0, 0, 0, 0],
  }),
  complexFft('IFFT2D', '[[4, 0], [0, 0]] → ones', CLOSED_FORM, [2, 2], [4, 0, 0, 0], [0, 0, 0, 0], { re: [1, 1, 1, 1], im: [0, 0, 0, 0] }),
  complexFft('FFT3D', 'an impulse [2, 2, 2]: all ones', CLOSED_FORM, [2, 2, 2], [1, 0, 0, 0, 0, 0, 0, 0], new Array<number>(8).fill(0), {
    re: new Array<number>(8).fill(1),
    im: new Array<number>(8).fill(0),
  }),
  complexFft('IFFT3D', 'ones [2, 2, 2] → an impulse', CLOSED_FORM, [2, 2, 2], new Array<number>(8).fill(1), new Array<number>(8).fill(0), {
    re: [1, 0, 0, 0, 0, 0, 0, 0],
    im: new Array<number>(8).fill(0),
  }),
];

/** Real or Imag of x = [−2.25 + 4.75i, 3.25 + 5.75i] (their API docs' example). */
const part = (op: 'Real' | 'Imag', want: number[]): OpCase => ({
  name: `${op.toLowerCase()}([−2.25 + 4.75j, 3.25 + 5.75j]) == [${want.join(', ')}]`,
  source: `tf.math.${op.toLowerCase()} API doc`,
  op,
  graph: (g) => {
    const x = complexInput(g, [2]);
    const y = g.identity(
      'y',
      new Tensor(g.addNode(op, op, [x], { T: attr.type('DT_COMPLEX64'), Tout: attr.type('float32') }), 0, 'float32', null),
    );
    return { inputs: { x_re: new Tensor('x_re', 0, 'float32', [2]), x_im: new Tensor('x_im', 0, 'float32', [2]) }, outputs: { y } };
  },
  feeds: { x_re: f32([2], [-2.25, 3.25]), x_im: f32([2], [4.75, 5.75]) },
  want: { y: f32([2], want) },
});

const COMPLEX_CASES: OpCase[] = [
  part('Real', [-2.25, 3.25]),
  part('Imag', [4.75, 5.75]),
  {
    name: '|[[−2.25 + 4.75i], [−3.25 + 5.75i]]| = [[5.25594902], [6.60492229]]',
    source: 'tf.math.abs / ComplexAbs API doc',
    op: 'ComplexAbs',
    graph: (g) => {
      const x = complexInput(g, [2, 1]);
      const y = g.identity(
        'y',
        new Tensor(g.addNode('ComplexAbs', 'abs', [x], { T: attr.type('DT_COMPLEX64'), Tout: attr.type('float32') }), 0, 'float32', null),
      );
      return { inputs: { x_re: new Tensor('x_re', 0, 'float32', [2, 1]), x_im: new Tensor('x_im', 0, 'float32', [2, 1]) }, outputs: { y } };
    },
    feeds: { x_re: f32([2, 1], [-2.25, -3.25]), x_im: f32([2, 1], [4.75, 5.75]) },
    want: { y: f32([2, 1], [5.25594902, 6.60492229]) },
    tol: 1e-7,
  },
  {
    name: 'Complex broadcasts its parts; Real and Imag read them back',
    source: 'tf.dtypes.complex API doc ([[2.25 + 4.75j], [3.25 + 5.75j]]); math_ops.cc Complex (a broadcasting binary op)',
    op: 'Complex',
    graph: (g) => {
      const re = g.placeholder('re_in', 'float32', [2, 1]);
      const im = g.placeholder('im_in', 'float32', [2]);
      const x = new Tensor(
        g.addNode('Complex', 'x', [re, im], { T: attr.type('float32'), Tout: attr.type('DT_COMPLEX64') }),
        0,
        'float32',
        null,
      );
      const out = parts(g, x);
      return { inputs: { re_in: re, im_in: im }, outputs: { re: out.re, im: out.im } };
    },
    feeds: { re_in: f32([2, 1], [2.25, 3.25]), im_in: f32([2], [4.75, 5.75]) },
    want: { re: f32([2, 2], [2.25, 2.25, 3.25, 3.25]), im: f32([2, 2], [4.75, 5.75, 4.75, 5.75]) },
  },
  {
    name: "Complex of shapes that do not broadcast: TF's message",
    source: 'tensorflow/core/util/bcast.h (BinaryOp\'s "Incompatible shapes")',
    op: 'Complex',
    graph: (g) => {
      const re = g.placeholder('re_in', 'float32', [2]);
      const im = g.placeholder('im_in', 'float32', [3]);
      const x = new Tensor(
        g.addNode('Complex', 'x', [re, im], { T: attr.type('float32'), Tout: attr.type('DT_COMPLEX64') }),
        0,
        'float32',
        null,
      );
      return { inputs: { re_in: re, im_in: im }, outputs: { re: parts(g, x).re } };
    },
    feeds: { re_in: f32([2], [1, 2]), im_in: f32([3], [1, 2, 3]) },
    want: failsAtRun('Incompatible shapes: [2] vs. [3]'),
  },
  {
    name: 'RFFT of float64 (complex128) is refused on the embedded runtime: TF.js holds float64 as float32 and has no complex128',
    source: `${SPECTRAL_OPS} (Treal: {float32, float64})`,
    op: 'RFFT',
    graph: (g) => {
      const x = g.placeholder('x', 'float64', [4]);
      const y = new Tensor(
        g.addNode('RFFT', 'RFFT', [x, fftLength(g, [4])], { Treal: attr.type('float64'), Tcomplex: attr.type('DT_COMPLEX128') }),
        0,
        'float64',
        null,
      );
      const abs = g.identity(
        'y',
        new Tensor(g.addNode('ComplexAbs', 'abs', [y], { T: attr.type('DT_COMPLEX128'), Tout: attr.type('float64') }), 0, 'float64', null),
      );
      return { inputs: { x }, outputs: { y: abs } };
    },
    feeds: { x: { dtype: 'float64', shape: [4], values: Float64Array.of(1, 0, 0, 0) } },
    want: refusedAtLoad(/RFFT \(node RFFT: Tcomplex DT_COMPLEX128: the embedded runtime computes complex64 only/),
  },
];

/**
 * tf.signal.stft(x, frame_length=8, frame_step=8, fft_length=8) and tf.abs, as a TF2 export
 * traces them for a [1, 8] waveform (simple_audio's get_spectrogram): tf.signal.frame's
 * StridedSlice → Reshape → GatherV2 of a Range selector → Reshape, the periodic Hann window
 * computed in the graph (_raised_cosine_window: 0.5 − 0.5·cos(2π·Cast(Range(8)) / 8)), Mul,
 * RFFT, ComplexAbs.
 */
function stftGraph(g: GraphBuilder) {
  const x = g.placeholder('waveform', 'float32', [1, 8]);
  const c32 = (name: string, values: number[]) => g.constant(name, i32([values.length], values));
  const s32 = (name: string, v: number) => g.constant(name, i32([], [v]));
  const f = (name: string, v: number) => g.constant(name, f32([], [v]));
  const t = (
    op: string,
    name: string,
    inputs: Tensor[],
    attrs: Record<string, Record<string, unknown>>,
    dtype: Tensor['dtype'] = 'float32',
  ) => new Tensor(g.addNode(op, name, inputs, attrs), 0, dtype, null);
  const int32 = { Tidx: attr.type('int32') };
  const sliced = t(
    'StridedSlice',
    'stft/frame/StridedSlice',
    [x, c32('stft/frame/begin', [0, 0]), c32('stft/frame/end', [1, 8]), c32('stft/frame/strides', [1, 1])],
    { T: attr.type('float32'), Index: attr.type('int32') },
  );
  const subframes = t('Reshape', 'stft/frame/Reshape', [sliced, c32('stft/frame/subframe_shape', [1, 1, 8])], {
    T: attr.type('float32'),
    Tshape: attr.type('int32'),
  });
  const range1 = (name: string) =>
    t('Range', name, [s32(`${name}/start`, 0), s32(`${name}/limit`, 1), s32(`${name}/delta`, 1)], int32, 'int32');
  const frameSelector = t(
    'Reshape',
    'stft/frame/Reshape_1',
    [
      t('Mul', 'stft/frame/mul', [range1('stft/frame/range'), s32('stft/frame/mul/y', 1)], { T: attr.type('int32') }, 'int32'),
      c32('stft/frame/Reshape_1/shape', [1, 1]),
    ],
    { T: attr.type('int32'), Tshape: attr.type('int32') },
    'int32',
  );
  const subframeSelector = t(
    'Reshape',
    'stft/frame/Reshape_2',
    [range1('stft/frame/range_1'), c32('stft/frame/Reshape_2/shape', [1, 1])],
    { T: attr.type('int32'), Tshape: attr.type('int32') },
    'int32',
  );
  const selector = t('AddV2', 'stft/frame/add', [frameSelector, subframeSelector], { T: attr.type('int32') }, 'int32');
  const gathered = t('GatherV2', 'stft/frame/GatherV2', [subframes, selector, s32('stft/frame/GatherV2/axis', 1)], {
    Tparams: attr.type('float32'),
    Tindices: attr.type('int32'),
    Taxis: attr.type('int32'),
    batch_dims: attr.i(0),
  });
  const frames = t('Reshape', 'stft/frame/Reshape_3', [gathered, c32('stft/frame/Reshape_3/shape', [1, 1, 8])], {
    T: attr.type('float32'),
    Tshape: attr.type('int32'),
  });
  const count = t(
    'Cast',
    'stft/hann_window/Cast',
    [
      t(
        'Range',
        'stft/hann_window/range',
        [s32('stft/hann_window/range/start', 0), s32('stft/hann_window/range/limit', 8), s32('stft/hann_window/range/delta', 1)],
        int32,
        'int32',
      ),
    ],
    { SrcT: attr.type('int32'), DstT: attr.type('float32') },
  );
  const cosArg = t(
    'RealDiv',
    'stft/hann_window/truediv',
    [
      t('Mul', 'stft/hann_window/mul', [f('stft/hann_window/Const', 2 * Math.PI), count], { T: attr.type('float32') }),
      f('stft/hann_window/n', 8),
    ],
    { T: attr.type('float32') },
  );
  const window = t(
    'Sub',
    'stft/hann_window/sub',
    [
      f('stft/hann_window/a', 0.5),
      t(
        'Mul',
        'stft/hann_window/mul_1',
        [f('stft/hann_window/b', 0.5), t('Cos', 'stft/hann_window/Cos', [cosArg], { T: attr.type('float32') })],
        { T: attr.type('float32') },
      ),
    ],
    { T: attr.type('float32') },
  );
  const windowed = t('Mul', 'stft/mul', [frames, window], { T: attr.type('float32') });
  const spectrum = t('RFFT', 'RFFT', [windowed, c32('stft/rfft/fft_length', [8])], {
    Treal: attr.type('float32'),
    Tcomplex: attr.type('DT_COMPLEX64'),
  });
  const y = g.identity('y', t('ComplexAbs', 'Abs', [spectrum], { T: attr.type('DT_COMPLEX64'), Tout: attr.type('float32') }));
  return { inputs: { waveform: x }, outputs: { y } };
}

const STFT_CASES: OpCase[] = [
  {
    name: "tf.signal.stft + tf.abs of spectrogram_op_test's square wave, as a TF2 export traces them: AudioSpectrogram's [0, 1, 2, 1, 0]",
    source:
      'tensorflow/python/ops/signal/shape_ops.py@01f75da5 frame; signal/spectral_ops.py stft, window_ops.py hann_window (periodic); tensorflow/core/kernels/spectrogram_op_test.cc@0d7247fd SimpleTest (the same periodic Hann window and transform: |X| = [0, 1, 2, 1, 0], exactly 0.5(−i)^k − (−1)^k + 0.5i^k)',
    op: 'RFFT',
    graph: stftGraph,
    feeds: { waveform: f32([1, 8], [-1, 0, 1, 0, -1, 0, 1, 0]) },
    want: { y: f32([1, 1, 5], [0, 1, 2, 1, 0]) },
    tol: 1e-6,
  },
];

const onnxNote = (op: string) =>
  op.startsWith('RFFT') || op === 'Complex'
    ? { refuse: new RegExp(`${op} \\(node [^:)]*: no ONNX converter\\)`) }
    : { skip: `ONNX Runtime refuses the Complex node building ${op}'s input first (no ONNX converter), so ${op} is never reached` };

export const SPECTRAL_CASES: OpFamilyCases = {
  family: 'spectral',
  registrations: SPECTRAL_REGISTRATIONS,
  // No ONNX converter: a complex64 tensor would be a [..., 2] float tensor in ONNX, which no
  // other converter reads as one (see the README). ONNX Runtime refuses the first op it cannot
  // convert, naming it: the op itself where the case's graph starts from real inputs (RFFT*,
  // Complex); the Complex that builds the input, for the ops taking a complex one.
  cases: [...RFFT_CASES, ...IRFFT_CASES, ...FFT_CASES, ...COMPLEX_CASES, ...STFT_CASES].map((c) => ({
    ...c,
    engines: { onnx: onnxNote(c.op) },
  })),
};
