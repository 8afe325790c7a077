// Image ops (tensorflow/core/ops/image_ops.cc): the decoders image models put in front of
// their network, on TF's own test images (images/PROVENANCE.md). The absolute pixels TF
// states come from tfjs-node's tests of libtensorflow (TF's C++ tests compare decoders with
// each other); the messages from decode_image_op.cc. dtype conversions, crops and format
// mix-ups follow from TF's kernel, on those stated pixels.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { attr, Tensor } from '../../../../test_util/savedmodel/writer/graph_builder.js';
import type { HostTensor } from '../../../../src/tensor/host_tensor.js';
import { REPO_ROOT } from '../../../helpers/paths.js';
import { f32, failsAtRun, i32, i64, refusedAtLoad, str, type OpCase, type OpFamilyCases } from '../op_case.js';

const IMAGES = path.join(REPO_ROOT, 'test', 'runtimes', 'ops', 'cases', 'images');
const image = (name: string) => new Uint8Array(fs.readFileSync(path.join(IMAGES, name)));
const JPEG = image('image_jpeg_test.jpeg');
const PNG = image('image_png_test.png');
const PNG_RGBA = image('image_png_4_channel_test.png');
const BMP = image('image_bmp_test.bmp');
const GIF = image('gif_test.gif');
const JPEG_420 = image('lj_testorig.jpg');

const u8 = (shape: number[], values: number[]): HostTensor => ({ dtype: 'uint8', shape, values: Uint8Array.from(values) });
const u16 = (shape: number[], values: number[]): HostTensor => ({ dtype: 'uint16', shape, values: Uint16Array.from(values) });
const bytes = (b: Uint8Array) => str([], [b]);

const TFJS = 'tensorflow/tfjs tfjs-node/src/image_test.ts@12e993e2';
const KERNEL = 'tensorflow/core/kernels/image/decode_image_op.cc@03054006';
const JPEG_RGB = [239, 100, 0, 46, 48, 47, 92, 49, 0, 194, 98, 47];
const PNG_RGB = [238, 101, 0, 50, 50, 50, 100, 50, 0, 200, 100, 50];
const GIF_FRAMES = [...PNG_RGB, 200, 100, 50, 34, 68, 102, 170, 0, 102, 255, 255, 255];
const UNCOMPRESS_FAILED = 'jpeg::Uncompress failed. Invalid JPEG data or crop window.';
/** What the embedded runtime says of a JPEG flag its decoder cannot honour. */
const refuseOnEmbedded = (why: RegExp) => ({ wasm: { refuse: why }, cpu: { refuse: why } });

const decode = (
  op: string,
  contents: Uint8Array,
  want: OpCase['want'],
  name: string,
  source: string,
  attrs: OpCase['attrs'] = {},
  extra: Partial<OpCase> = {},
): OpCase => ({
  name,
  source,
  op,
  attrs,
  inputs: [bytes(contents)],
  want,
  ...extra,
});

const JPEG_CASES: OpCase[] = [
  decode(
    'DecodeJpeg',
    JPEG,
    { image: u8([2, 2, 3], JPEG_RGB) },
    "TF's default decode (JDCT_IFAST, fancy upsampling)",
    `${TFJS} 'decode jpg'`,
  ),
  decode('DecodeJpeg', JPEG, { image: u8([2, 2, 1], [130, 47, 56, 121]) }, 'channels 1: the luma plane', `${TFJS} 'decode jpg 1 channel'`, {
    channels: attr.i(1),
  }),
  decode(
    'DecodeJpeg',
    JPEG,
    { image: u8([2, 2, 3], JPEG_RGB) },
    "dct_method 'INTEGER_FAST' is the default",
    `${KERNEL}:151 (dct_method "" or INTEGER_FAST → JDCT_IFAST)`,
    { dct_method: attr.s('INTEGER_FAST') },
  ),
  decode(
    'DecodeJpeg',
    JPEG,
    { image: u8([1, 1, 3], [147, 75, 25]) },
    'ratio 2: libjpeg scales while decoding',
    `${TFJS} 'decode jpg with downscale'`,
    { ratio: attr.i(2) },
    {
      engines: refuseOnEmbedded(/ratio 2: tfgate's JPEG decoder has no scaled decoding/),
    },
  ),
  decode(
    'DecodeJpeg',
    JPEG,
    { image: u8([2, 2, 3], [240, 101, 0, 50, 50, 50, 100, 50, 1, 200, 100, 50]) },
    "dct_method 'INTEGER_ACCURATE' (libjpeg's ISLOW IDCT)",
    'libjpeg-turbo 2.1.5 djpeg -dct int (JDCT_ISLOW, what the attr selects)',
    { dct_method: attr.s('INTEGER_ACCURATE') },
    {
      engines: refuseOnEmbedded(/dct_method 'INTEGER_ACCURATE'/),
    },
  ),
  decode(
    'DecodeJpeg',
    JPEG,
    { image: u8([2, 2, 3], [239, 100, 0, 46, 48, 47, 92, 49, 0, 194, 98, 47]) },
    'fancy_upscaling false on a 4:4:4 image (nothing to upsample)',
    `${KERNEL}:137`,
    { fancy_upscaling: attr.b(false) },
    {
      engines: refuseOnEmbedded(/fancy_upscaling false/),
    },
  ),
  decode(
    'DecodeJpeg',
    JPEG,
    refusedAtLoad(/DecodeJpeg \(node DecodeJpeg: `channels` must be 0, 1, 3 or 4 but got 2\)/),
    'channels 2 is refused at load',
    `${KERNEL}:199`,
    { channels: attr.i(2) },
  ),
  decode(
    'DecodeJpeg',
    JPEG,
    refusedAtLoad(/DecodeJpeg \(node DecodeJpeg: ratio must be 1, 2, 4, or 8, got 3\)/),
    'ratio 3 is refused at load',
    `${KERNEL}:132`,
    { ratio: attr.i(3) },
  ),
  decode(
    'DecodeJpeg',
    JPEG,
    refusedAtLoad(/DecodeJpeg \(node DecodeJpeg: dct_method must be one of \{'', 'INTEGER_FAST', 'INTEGER_ACCURATE'\}\)/),
    'an unknown dct_method is refused at load',
    `${KERNEL}:145`,
    { dct_method: attr.s('FLOAT') },
  ),
  decode('DecodeJpeg', JPEG, failsAtRun('JPEG does not support 4 channels'), 'channels 4 on a JPEG fails the run', `${KERNEL}:276`, {
    channels: attr.i(4),
  }),
  decode('DecodeJpeg', new Uint8Array(0), failsAtRun('Input is empty.'), 'empty contents', `${KERNEL}:235`),
  decode(
    'DecodeJpeg',
    new TextEncoder().encode('{"not": "an image"}'),
    failsAtRun('Unknown image file format. One of JPEG, JPEG XL, PNG, GIF, BMP, WebP required.'),
    'bytes of no image format',
    `${KERNEL}:262`,
  ),
  decode('DecodeJpeg', JPEG.subarray(0, 40), failsAtRun(UNCOMPRESS_FAILED), 'a JPEG cut before its frame header', `${KERNEL}:326`),
  decode(
    'DecodeJpeg',
    PNG,
    { image: u8([2, 2, 3], PNG_RGB) },
    'PNG bytes are decoded as PNG (every decoder sniffs the format)',
    `${KERNEL}:250 ClassifyFileFormat; ${TFJS} 'decode png'`,
  ),
  decode(
    'DecodeJpeg',
    BMP,
    failsAtRun('Trying to decode BMP format using a wrong op. Use `decode_bmp` or `decode_image` instead. Op used: DecodeJpeg'),
    'BMP bytes need DecodeBmp or DecodeImage',
    `${KERNEL}:498`,
  ),
  decode(
    'DecodeJpeg',
    GIF,
    failsAtRun('Got 2 frames, but animated gifs can only be decoded by tf.io.decode_gif or tf.io.decode_image'),
    'an animated GIF needs DecodeGif or DecodeImage',
    `${KERNEL}:428`,
  ),
  {
    name: '`contents` must be a scalar',
    source: `${KERNEL}:229`,
    op: 'DecodeJpeg',
    inputs: [str([2], [JPEG, JPEG])],
    want: failsAtRun('`contents` must be scalar but got shape[2]'),
  },
  {
    name: 'crop [y 0, x 1, h 2, w 1] of a 4:4:4 JPEG: the second column of the full decode',
    source: `tensorflow/python/ops/image_ops_test.py DecodeImageTest.testCropAndDecodeJpeg (crop == decode then slice); ${TFJS} 'decode jpg'`,
    op: 'DecodeAndCropJpeg',
    inputs: [bytes(JPEG), i32([4], [0, 1, 2, 1])],
    want: { image: u8([2, 1, 3], [46, 48, 47, 194, 98, 47]) },
  },
  {
    name: 'full-width crop of rows 1–2 of a 4:2:0 JPEG',
    source:
      'libjpeg-turbo 2.1.5 djpeg -dct fast -crop 227x2+0+1 (jpeg_crop_scanline + jpeg_skip_scanlines, as jpeg_mem.cc) equals rows 1–2 of the full decode',
    op: 'DecodeAndCropJpeg',
    inputs: [bytes(JPEG_420), i32([4], [1, 0, 2, 227])],
    want: { image: u8([2, 227, 3], Array.from(decodedRows(JPEG_420, 1, 2))) },
  },
  {
    name: 'a window past the image fails the run',
    source: `tensorflow/core/lib/jpeg/jpeg_mem.cc IsCropWindowValid; ${KERNEL}:326`,
    op: 'DecodeAndCropJpeg',
    inputs: [bytes(JPEG), i32([4], [1, 1, 2, 2])],
    want: failsAtRun(UNCOMPRESS_FAILED),
  },
  {
    name: 'crop_window of 3 elements',
    source: `${KERNEL}:288`,
    op: 'DecodeAndCropJpeg',
    inputs: [bytes(JPEG), i32([3], [0, 0, 1])],
    want: failsAtRun('crop_size must have four elements [3]'),
  },
  {
    name: 'PNG bytes are refused',
    source: `${KERNEL}:371`,
    op: 'DecodeAndCropJpeg',
    inputs: [bytes(PNG), i32([4], [0, 0, 1, 1])],
    want: failsAtRun('DecodeAndCropJpeg operation can run on JPEG only, but detected PNG.'),
  },
  {
    name: '[height, width, components] of the frame header',
    source: 'tensorflow/core/kernels/image/extract_jpeg_shape_op.cc; the shapes of the decodes above',
    op: 'ExtractJpegShape',
    inputs: [bytes(JPEG_420)],
    want: { image_shape: i32([3], [149, 227, 3]) },
  },
  {
    name: 'output_type int64',
    source: 'tensorflow/core/kernels/image/extract_jpeg_shape_op.cc',
    op: 'ExtractJpegShape',
    attrs: { output_type: attr.type('int64') },
    inputs: [bytes(JPEG)],
    want: { image_shape: i64([3], [2, 2, 3]) },
  },
  {
    name: 'not a JPEG',
    source: 'tensorflow/core/kernels/image/extract_jpeg_shape_op.cc',
    op: 'ExtractJpegShape',
    inputs: [bytes(PNG)],
    want: failsAtRun(`Invalid JPEG data, size ${PNG.length}`),
  },
];

/** Rows [from, from + count) of the full decode of `jpeg`, read with the decoder the cases check against libjpeg-turbo elsewhere (image_kernels.test.ts). */
function decodedRows(jpeg: Uint8Array, from: number, count: number): Uint8Array {
  const full = decodeReference(jpeg);
  return full.subarray(from * 227 * 3, (from + count) * 227 * 3);
}

function decodeReference(jpeg: Uint8Array): Uint8Array {
  const jt = createRequire(import.meta.url)('@julusian/jpeg-turbo') as typeof import('@julusian/jpeg-turbo');
  return jt.decompressSync(Buffer.from(jpeg), { format: jt.FORMAT_RGB }).data;
}

const OTHER_CASES: OpCase[] = [
  decode('DecodePng', PNG, { image: u8([2, 2, 3], PNG_RGB) }, 'RGB', `${TFJS} 'decode png'`),
  decode(
    'DecodeImage',
    PNG,
    { image: u8([2, 2, 1], [130, 50, 59, 124]) },
    'channels 1: libpng rgb_to_gray with (0.299, 0.587)',
    `${TFJS} 'decode png 1 channels'`,
    { channels: attr.i(1) },
  ),
  decode(
    'DecodeImage',
    PNG_RGBA,
    { image: u8([2, 2, 4], [238, 101, 0, 255, 50, 50, 50, 255, 100, 50, 0, 255, 200, 100, 50, 255]) },
    'RGBA, channels 4',
    `${TFJS} 'decode png 4 channels'`,
    { channels: attr.i(4) },
  ),
  decode(
    'DecodePng',
    PNG,
    { image: u8([2, 2, 4], [238, 101, 0, 255, 50, 50, 50, 255, 100, 50, 0, 255, 200, 100, 50, 255]) },
    'channels 4 on an RGB file: alpha (1 << 8) − 1',
    `tensorflow/core/lib/png/png_io.cc CommonInitDecode (png_set_add_alpha); ${TFJS} 'decode png'`,
    { channels: attr.i(4) },
  ),
  decode(
    'DecodePng',
    PNG,
    {
      image: u16(
        [2, 2, 3],
        PNG_RGB.map((v) => v * 257),
      ),
    },
    'dtype uint16 from 8-bit data: v × 257',
    `tensorflow/core/lib/png/png_io.cc Convert8to16; ${TFJS} 'decode png'`,
    { dtype: attr.type('uint16') },
  ),
  decode(
    'DecodeImage',
    PNG,
    {
      image: f32(
        [2, 2, 3],
        PNG_RGB.map((v) => Math.fround(v * 257 * Math.fround(1 / 65535))),
      ),
    },
    'dtype float: decoded as uint16, × (1/65535)',
    `${KERNEL}:398; ${TFJS} 'decode png'`,
    { dtype: attr.type('float32') },
  ),
  decode(
    'DecodeImage',
    JPEG,
    {
      image: f32(
        [2, 2, 3],
        JPEG_RGB.map((v) => Math.fround(v * Math.fround(1 / 255))),
      ),
    },
    'dtype float from JPEG: × (1/255)',
    `${KERNEL}:344; ${TFJS} 'decode jpg'`,
    { dtype: attr.type('float32') },
  ),
  decode(
    'DecodeImage',
    JPEG,
    {
      image: u16(
        [2, 2, 3],
        JPEG_RGB.map((v) => v * 256),
      ),
    },
    'dtype uint16 from JPEG: v × floor(65536 / 256)',
    `${KERNEL}:338; ${TFJS} 'decode jpg'`,
    { dtype: attr.type('uint16') },
  ),
  decode('DecodeBmp', BMP, { image: u8([2, 2, 3], PNG_RGB) }, '24-bit BITMAPV4HEADER, bottom-up', `${TFJS} 'decode bmp'`),
  decode(
    'DecodeImage',
    BMP,
    { image: u8([2, 2, 4], [238, 101, 0, 255, 50, 50, 50, 255, 100, 50, 0, 255, 200, 100, 50, 255]) },
    'channels 4 on a 24-bit BMP: alpha 255',
    `${KERNEL} DecodeBMP; ${TFJS} 'decode bmp through decodeImage'`,
    { channels: attr.i(4) },
  ),
  decode('DecodeBmp', BMP, failsAtRun('`channels` must be 0, 3 or 4 for BMP, but got 1'), 'channels 1 on a BMP', `${KERNEL}:487`, {
    channels: attr.i(1),
  }),
  decode(
    'DecodeBmp',
    JPEG,
    failsAtRun('Trying to decode JPEG format using DecodeBmp op. Use `decode_jpeg` or `decode_image` instead.'),
    'JPEG bytes are refused',
    `${KERNEL}:302`,
  ),
  decode(
    'DecodeBmp',
    BMP.subarray(0, BMP.length - 1),
    failsAtRun('Input size should match (header_size + row_size * abs_height) but they differ by -1'),
    'a BMP one byte short',
    `${KERNEL}:531`,
  ),
  decode('DecodeImage', GIF, { image: u8([2, 2, 2, 3], GIF_FRAMES) }, 'an animated GIF: [frames, h, w, 3]', `${TFJS} 'decode gif'`),
  decode(
    'DecodeImage',
    GIF,
    { image: u8([2, 2, 3], PNG_RGB) },
    'expand_animations false: the first frame, 3-D',
    `${TFJS} 'decode gif with no expandAnimation'`,
    { expand_animations: attr.b(false), channels: attr.i(3) },
  ),
  decode('DecodeGif', GIF, { image: u8([2, 2, 2, 3], GIF_FRAMES) }, 'every frame', `${TFJS} 'decode gif'`),
  decode(
    'DecodeGif',
    JPEG,
    { image: u8([1, 2, 2, 3], JPEG_RGB) },
    'a JPEG through DecodeGif is one 4-D frame',
    `${KERNEL}:307; ${TFJS} 'decode jpg'`,
  ),
  decode(
    'DecodeGif',
    GIF.subarray(0, 60),
    failsAtRun(/^Invalid GIF data \(size 60\), failed to slurp gif file: /),
    'a GIF cut short',
    `${KERNEL}:451 (giflib's DGifSlurp fails)`,
  ),
  {
    name: 'EncodePng then DecodePng gives the pixels back',
    source: `${TFJS} 'encodePng'`,
    op: 'EncodePng',
    graph: (g) => {
      const x = g.placeholder('image', 'uint8', [2, 2, 3]);
      const png = g.addNode('EncodePng', 'EncodePng', [x], { T: attr.type('uint8'), compression: attr.i(-1) });
      const back = g.addNode('DecodePng', 'DecodePng', [`${png}`], { channels: attr.i(3), dtype: attr.type('uint8') });
      return { inputs: { image: x }, outputs: { image: g.identity('out', new Tensor(back, 0, 'uint8', [2, 2, 3])) } };
    },
    feeds: { image: u8([2, 2, 3], JPEG_RGB) },
    want: { image: u8([2, 2, 3], JPEG_RGB) },
    engines: refuseOnEmbedded(/EncodePng \(node EncodePng: tfgate has no PNG writer that reproduces libpng's filter choices/),
  },
  {
    name: 'EncodeJpeg then DecodeJpeg gives a JPEG back',
    source: `${TFJS} 'encodeJpeg'`,
    op: 'EncodeJpeg',
    graph: (g) => {
      const x = g.placeholder('image', 'uint8', [2, 2, 3]);
      const jpeg = g.addNode('EncodeJpeg', 'EncodeJpeg', [x], {
        format: attr.s(''),
        quality: attr.i(95),
        progressive: attr.b(false),
        optimize_size: attr.b(false),
        chroma_downsampling: attr.b(true),
        density_unit: attr.s('in'),
        x_density: attr.i(300),
        y_density: attr.i(300),
        xmp_metadata: attr.s(''),
      });
      const shape = g.addNode('ExtractJpegShape', 'ExtractJpegShape', [jpeg], { output_type: attr.type('int32') });
      return { inputs: { image: x }, outputs: { shape: g.identity('out', new Tensor(shape, 0, 'int32', [3])) } };
    },
    feeds: { image: u8([2, 2, 3], JPEG_RGB) },
    want: { shape: i32([3], [2, 2, 3]) },
    engines: refuseOnEmbedded(/EncodeJpeg \(node EncodeJpeg: tfgate's JPEG encoder \(TurboJPEG\) uses the fast forward DCT/),
  },
  {
    name: 'EncodeJpegVariableQuality then ExtractJpegShape',
    source: 'tensorflow/python/ops/image_ops_test.py EncodeJpegTest (adjust_jpeg_quality encodes with EncodeJpegVariableQuality)',
    op: 'EncodeJpegVariableQuality',
    graph: (g) => {
      const x = g.placeholder('image', 'uint8', [2, 2, 3]);
      const q = g.constant('quality', { dtype: 'int32', shape: [], values: Int32Array.of(90) });
      const jpeg = g.addNode('EncodeJpegVariableQuality', 'EncodeJpegVariableQuality', [x, q], {});
      const shape = g.addNode('ExtractJpegShape', 'ExtractJpegShape', [jpeg], { output_type: attr.type('int32') });
      return { inputs: { image: x }, outputs: { shape: g.identity('out', new Tensor(shape, 0, 'int32', [3])) } };
    },
    feeds: { image: u8([2, 2, 3], JPEG_RGB) },
    want: { shape: i32([3], [2, 2, 3]) },
    engines: refuseOnEmbedded(/EncodeJpegVariableQuality \(node EncodeJpegVariableQuality: tfgate's JPEG encoder/),
  },
];

export const IMAGE_CASES: OpFamilyCases = {
  family: 'image',
  registrations: [
    `REGISTER_OP("DecodeJpeg")
    .Input("contents: string")
    .Attr("channels: int = 0")
    .Attr("ratio: int = 1")
    .Attr("fancy_upscaling: bool = true")
    .Attr("try_recover_truncated: bool = false")
    .Attr("acceptable_fraction: float = 1.0")
    .Attr("dct_method: string = ''")
    .Output("image: uint8")`,
    `REGISTER_OP("DecodeAndCropJpeg")
    .Input("contents: string")
    .Input("crop_window: int32")
    .Attr("channels: int = 0")
    .Attr("ratio: int = 1")
    .Attr("fancy_upscaling: bool = true")
    .Attr("try_recover_truncated: bool = false")
    .Attr("acceptable_fraction: float = 1.0")
    .Attr("dct_method: string = ''")
    .Output("image: uint8")`,
    `REGISTER_OP("EncodeJpeg")
    .Input("image: uint8")
    .Attr("format: {'', 'grayscale', 'rgb'} = ''")
    .Attr("quality: int = 95")
    .Attr("progressive: bool = false")
    .Attr("optimize_size: bool = false")
    .Attr("chroma_downsampling: bool = true")
    .Attr("density_unit: {'in', 'cm'} = 'in'")
    .Attr("x_density: int = 300")
    .Attr("y_density: int = 300")
    .Attr("xmp_metadata: string = ''")
    .Output("contents: string")`,
    `REGISTER_OP("EncodeJpegVariableQuality")
    .Input("images: uint8")
    .Input("quality: int32")
    .Output("contents: string")`,
    `REGISTER_OP("ExtractJpegShape")
    .Input("contents: string")
    .Output("image_shape: output_type")
    .Attr("output_type: {int32, int64} = DT_INT32")`,
    `REGISTER_OP("DecodePng")
    .Input("contents: string")
    .Attr("channels: int = 0")
    .Attr("dtype: {uint8, uint16} = DT_UINT8")
    .Output("image: dtype")`,
    `REGISTER_OP("EncodePng")
    .Attr("compression: int = -1")
    .Attr("T: {uint8, uint16} = DT_UINT8")
    .Input("image: T")
    .Output("contents: string")`,
    `REGISTER_OP("DecodeBmp")
    .Input("contents: string")
    .Output("image: uint8")
    .Attr("channels: int = 0")`,
    `REGISTER_OP("DecodeGif")
    .Input("contents: string")
    .Output("image: uint8")`,
    `REGISTER_OP("DecodeImage")
    .Input("contents: string")
    .Attr("channels: int = 0")
    .Attr("dtype: {uint8, uint16, float} = DT_UINT8")
    .Output("image: dtype")
    .Attr("expand_animations: bool = true")`,
  ],
  engines: {
    onnx: {
      skip: 'ONNX Runtime takes no string tensors here: the converter refuses a DT_STRING input (tf_to_onnx.ts), so --runtime=auto serves the image decoders on the embedded runtime',
    },
  },
  cases: [...JPEG_CASES, ...OTHER_CASES],
};
