// TF's DecodeImageV2Op (core/kernels/image/decode_image_op.cc): one kernel behind DecodeJpeg,
// DecodeAndCropJpeg, DecodePng, DecodeGif, DecodeBmp and DecodeImage. Each sniffs the bytes'
// format and decodes JPEG, PNG, GIF or BMP whatever its name says, with TF's exceptions
// (DecodeBmp takes only BMP, DecodeAndCropJpeg only JPEG, an animated GIF needs DecodeGif or
// DecodeImage) and TF's messages. Output shapes: [h, w, c]; DecodeGif [frames, h, w, c];
// DecodeImage 4-D for GIF unless expand_animations is false. WebP and JPEG XL, which TF
// decodes too, are refused by name.
import tf from '../../../tfjs_packages/tfjs_core.cjs';
import type * as tfconv from '@tensorflow/tfjs-converter';
import { invalidArgument } from '../../../../errors/status.js';
import type { NodeDef } from '../../../../savedmodel/graph/types.js';
import { nodeBytesAttr, stringElements } from '../string/string_tensors.js';
import { imageTensor, type DecodedImage, type ImageDtype } from './decoded_image.js';
import { classifyImage } from './image_format.js';
import { decodeJpeg, readJpegHeader } from './jpeg.js';
import { decodePng } from './png.js';
import { decodeGif } from './gif.js';
import { decodeBmp } from './bmp.js';

export type DecodeOp = 'DecodeJpeg' | 'DecodeAndCropJpeg' | 'DecodePng' | 'DecodeGif' | 'DecodeBmp' | 'DecodeImage';

const JPEG_OPS = new Set(['DecodeJpeg', 'DecodeAndCropJpeg']);
const DTYPES: Record<string, ImageDtype> = { DT_UINT8: 'uint8', DT_UINT16: 'uint16', DT_FLOAT: 'float32' };
const utf8 = new TextDecoder();
/** types.proto's numbers of the dtypes a decoder outputs. */
const DATA_TYPE_NUMBERS: Record<number, string> = { 1: 'DT_FLOAT', 4: 'DT_UINT8', 17: 'DT_UINT16' };

/** Load-time check: TF's kernel-constructor messages, then the JPEG flags tfgate's decoder cannot honour. */
export function decodeImageNodeProblem(node: NodeDef): string | null {
  const a = node.attr ?? {};
  if (node.op !== 'DecodeGif') {
    const channels = Number(a.channels?.i ?? 0);
    if (![0, 1, 3, 4].includes(channels)) return `\`channels\` must be 0, 1, 3 or 4 but got ${channels}`;
  }
  if (!JPEG_OPS.has(node.op)) return null;
  const ratio = Number(a.ratio?.i ?? 1);
  if (![1, 2, 4, 8].includes(ratio)) return `ratio must be 1, 2, 4, or 8, got ${ratio}`;
  const dct = utf8.decode(nodeBytesAttr(node, 'dct_method'));
  if (!['', 'INTEGER_FAST', 'INTEGER_ACCURATE'].includes(dct)) return "dct_method must be one of {'', 'INTEGER_FAST', 'INTEGER_ACCURATE'}";
  if (ratio !== 1)
    return `ratio ${ratio}: tfgate's JPEG decoder has no scaled decoding (libjpeg-turbo's 1/${ratio} IDCT), so it cannot give TensorFlow's pixels`;
  if (dct === 'INTEGER_ACCURATE')
    return "dct_method 'INTEGER_ACCURATE': tfgate's JPEG decoder computes TensorFlow's default IDCT (INTEGER_FAST) only";
  if (a.fancy_upscaling?.b === false)
    return "fancy_upscaling false: tfgate's JPEG decoder always upsamples chroma as TensorFlow's default (fancy_upscaling true) does";
  return null;
}

const shapeText = (shape: readonly number[]) => `[${shape.join(',')}]`;

function decodeOne(
  op: DecodeOp,
  contents: Uint8Array,
  channels: number,
  dtype: ImageDtype,
  expandAnimations: boolean,
  crop?: number[],
): { image: DecodedImage; fourD: boolean } {
  if (contents.length === 0) throw invalidArgument('Input is empty.');
  const format = classifyImage(contents);
  switch (format) {
    case 'jpeg': {
      if (channels === 4) throw invalidArgument('JPEG does not support 4 channels');
      if (op === 'DecodeBmp')
        throw invalidArgument('Trying to decode JPEG format using DecodeBmp op. Use `decode_jpeg` or `decode_image` instead.');
      return { image: decodeJpeg(contents, { op, channels, dtype, frames4d: op === 'DecodeGif', crop }), fourD: op === 'DecodeGif' };
    }
    case 'png': {
      if (op === 'DecodeBmp')
        throw invalidArgument('Trying to decode PNG format using DecodeBmp op. Use `decode_png` or `decode_image` instead.');
      if (op === 'DecodeAndCropJpeg') throw invalidArgument('DecodeAndCropJpeg operation can run on JPEG only, but detected PNG.');
      // TF decodes PNG as its op's dtype asks (DecodeJpeg and DecodeGif: uint8).
      return { image: decodePng(contents, { op, channels, dtype }), fourD: op === 'DecodeGif' };
    }
    case 'gif': {
      if (channels !== 0 && channels !== 3) throw invalidArgument(`channels must be 0 or 3 for GIF, got ${channels}`);
      if (op === 'DecodeBmp')
        throw invalidArgument('Trying to decode GIF format using DecodeBmp op. Use `decode_gif` or `decode_image` instead.');
      if (op === 'DecodeAndCropJpeg') throw invalidArgument('DecodeAndCropJpeg operation can run on JPEG only, but detected GIF.');
      const all = op === 'DecodeGif' || (op === 'DecodeImage' && expandAnimations) || op === 'DecodePng' || op === 'DecodeJpeg';
      const image = decodeGif(contents, op, dtype, all);
      if ((op === 'DecodePng' || op === 'DecodeJpeg') && image.frames !== 1) {
        throw invalidArgument(
          `Got ${image.frames} frames, but animated gifs can only be decoded by tf.io.decode_gif or tf.io.decode_image`,
        );
      }
      return { image, fourD: op === 'DecodeGif' || (op === 'DecodeImage' && expandAnimations) };
    }
    case 'bmp': {
      if (op === 'DecodeAndCropJpeg') throw invalidArgument('DecodeAndCropJpeg operation can run on JPEG only, but detected BMP.');
      if (op !== 'DecodeBmp' && op !== 'DecodeImage') {
        throw invalidArgument(
          `Trying to decode BMP format using a wrong op. Use \`decode_bmp\` or \`decode_image\` instead. Op used: ${op}`,
        );
      }
      return { image: decodeBmp(contents, op, channels, dtype), fourD: false };
    }
    case 'webp':
    case 'jxl':
      throw invalidArgument(
        `${op}: ${format === 'webp' ? 'WebP' : 'JPEG XL'} images are not decoded by tfgate (TensorFlow decodes them with libwebp / libjxl)`,
      );
    default:
      throw invalidArgument('Unknown image file format. One of JPEG, JPEG XL, PNG, GIF, BMP, WebP required.');
  }
}

/** The executor of one of the ops (each node's attrs are read per call, as the converter hands them). */
export function decodeImageOp(op: DecodeOp): tfconv.OpExecutor {
  return (node) => {
    const attrs = node.attrs as { channels?: number; expand_animations?: boolean };
    const contents = node.inputs[0];
    if (contents.rank !== 0) throw invalidArgument(`\`contents\` must be scalar but got shape${shapeText(contents.shape)}`);
    const channels = op === 'DecodeGif' ? 3 : (attrs.channels ?? 0);
    const dtypeName = op === 'DecodePng' || op === 'DecodeImage' ? dtypeAttr(node) : 'DT_UINT8';
    const dtype = DTYPES[dtypeName] ?? 'uint8';
    let crop: number[] | undefined;
    if (op === 'DecodeAndCropJpeg') {
      const window = node.inputs[1];
      if (window.rank !== 1) throw invalidArgument(`crop_window must be 1-D, got shape ${shapeText(window.shape)}`);
      if (window.shape[0] !== 4) throw invalidArgument(`crop_size must have four elements ${shapeText(window.shape)}`);
      crop = Array.from(window.dataSync());
    }
    const [bytes] = stringElements(contents, `${op} contents`);
    const { image, fourD } = decodeOne(op, bytes, channels, dtype, attrs.expand_animations ?? true, crop);
    return [imageTensor(image, dtype, fourD)];
  };
}

/** The node's `dtype` attr as TF names it (tfjs-converter gives a TF.js dtype, which merges uint8 and uint16). */
function dtypeAttr(node: tfconv.GraphNode): string {
  const raw = (node as unknown as { node?: { rawAttrs?: Record<string, { type?: string | number }> } }).node?.rawAttrs?.dtype?.type;
  if (raw === undefined) return 'DT_UINT8';
  return typeof raw === 'number' ? (DATA_TYPE_NUMBERS[raw] ?? String(raw)) : raw;
}

/** ExtractJpegShape (extract_jpeg_shape_op.cc): [height, width, components] of the frame header. */
export const extractJpegShapeOp: tfconv.OpExecutor = (node) => {
  const contents = node.inputs[0];
  if (contents.rank !== 0) throw invalidArgument(`contents must be scalar, got shape ${shapeText(contents.shape)}`);
  const [bytes] = stringElements(contents, 'ExtractJpegShape contents');
  const header = readJpegHeader(bytes);
  if (!header) throw invalidArgument(`Invalid JPEG data, size ${bytes.length}`);
  return [tf.tensor1d([header.height, header.width, header.components], 'int32')];
};
