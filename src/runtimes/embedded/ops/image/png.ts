// PNG as TF decodes it (png_io.cc CommonInitDecode/CommonFinishDecode): libpng asked for the
// wanted channels (0: the file's own; palette → RGB, or RGBA with tRNS) and 8 or 16 bits, with
// these transformations — palette/tRNS expansion, alpha stripped or added (TF's filler is
// (1 << bit depth) − 1, so a 4-bit image gets alpha 15), RGB → gray with libpng's integer
// coefficients for (0.299, 0.587), gray → RGB, 16 → 8 bits by dropping the low byte, 8 → 16
// bits by v × 257. pngjs reads the file (filters, interlacing, palettes); the transformations
// are done here as libpng does them, with the arithmetic of its pngrtran.c. An RGB → gray
// conversion of a file that declares a gamma (gAMA, sRGB, iCCP, cICP) goes through libpng's
// gamma tables instead: refused.
import { PNG } from 'pngjs';
import { invalidArgument } from '../../../../errors/status.js';
import { checkImageSize, type DecodedImage, type ImageDtype } from './decoded_image.js';

const GRAY = 0;
const RGB = 2;
const PALETTE = 3;
const COLOR_MASK = 2;
const ALPHA_MASK = 4;
/** The bit depths the PNG specification allows for each color type (libpng refuses others in IHDR). */
const VALID_DEPTHS: Record<number, number[]> = { 0: [1, 2, 4, 8, 16], 2: [8, 16], 3: [1, 2, 4, 8], 4: [8, 16], 6: [8, 16] };

interface PngHeader {
  width: number;
  height: number;
  bitDepth: number;
  colorType: number;
  /** tRNS of a gray or RGB file: its key color at the file's bit depth. */
  transKey: number[] | null;
  hasTrns: boolean;
  declaresGamma: boolean;
  /** The file without its tRNS chunk when it is not a palette's (pngjs would blank the keyed pixels' colors). */
  withoutTrns: Uint8Array | null;
}

const be32 = (b: Uint8Array, p: number) => ((b[p] << 24) | (b[p + 1] << 16) | (b[p + 2] << 8) | b[p + 3]) >>> 0;
const chunkType = (b: Uint8Array, p: number) => String.fromCharCode(b[p], b[p + 1], b[p + 2], b[p + 3]);

/** The chunks libpng's png_read_info reads, up to the first IDAT; null when they are not there. */
function readPngHeader(b: Uint8Array): PngHeader | null {
  let p = 8;
  let header: PngHeader | null = null;
  let trns: [number, number] | null = null;
  while (p + 8 <= b.length) {
    const length = be32(b, p);
    const type = chunkType(b, p + 4);
    if (p + 12 + length > b.length) return null;
    const data = p + 8;
    if (type === 'IHDR') {
      if (length !== 13) return null;
      header = {
        width: be32(b, data),
        height: be32(b, data + 4),
        bitDepth: b[data + 8],
        colorType: b[data + 9],
        transKey: null,
        hasTrns: false,
        declaresGamma: false,
        withoutTrns: null,
      };
    } else if (!header) {
      return null;
    } else if (type === 'tRNS') {
      // libpng ignores a tRNS of the wrong size, or in a file with an alpha channel.
      trns = [p, 12 + length];
      if (header.colorType === PALETTE) header.hasTrns = true;
      if (header.colorType === GRAY && length === 2) header.transKey = [(b[data] << 8) | b[data + 1]];
      if (header.colorType === RGB && length === 6) header.transKey = [0, 2, 4].map((k) => (b[data + k] << 8) | b[data + k + 1]);
      if (header.transKey) header.hasTrns = true;
    } else if (type === 'gAMA' || type === 'sRGB' || type === 'iCCP' || type === 'cICP') {
      header.declaresGamma = true;
    } else if (type === 'IDAT' || type === 'IEND') {
      break;
    }
    p += 12 + length;
  }
  if (!header) return null;
  if (trns && header.colorType !== PALETTE) {
    const [at, size] = trns;
    const out = new Uint8Array(b.length - size);
    out.set(b.subarray(0, at));
    out.set(b.subarray(at + size), at);
    header.withoutTrns = out;
  }
  return header;
}

export interface PngDecodeOptions {
  op: string;
  channels: number;
  dtype: ImageDtype;
}

/** RGBA (or gray replicated to RGBA) samples at the file's depth, as pngjs reads them without rescaling. */
function readSamples(bytes: Uint8Array, size: number): Uint8Array | Uint16Array {
  const png = PNG.sync.read(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), { skipRescale: true });
  const data = png.data as unknown as Uint8Array | Uint16Array;
  if (data.length !== size * 4) throw new Error(`pngjs gave ${data.length} samples for ${size} pixels`);
  return data;
}

export function decodePng(contents: Uint8Array, options: PngDecodeOptions): DecodedImage {
  const header = readPngHeader(contents);
  // libpng's png_check_IHDR: user limits of 1 000 000 pixels a side, depths and types of the spec.
  if (!header || header.width <= 0 || header.height <= 0 || header.width > 1_000_000 || header.height > 1_000_000) {
    throw invalidArgument('Invalid PNG. Failed to initialize decoder.');
  }
  const { width, height, bitDepth, colorType } = header;
  if (!(VALID_DEPTHS[colorType] ?? []).includes(bitDepth)) throw invalidArgument('Invalid PNG. Failed to initialize decoder.');
  if (width >= 2 ** 27 || height >= 2 ** 27 || width * height >= 2 ** 29)
    throw invalidArgument(`PNG size too large for int: ${width} by ${height}`);
  const hasAlpha = (colorType & ALPHA_MASK) !== 0;
  const isGray = (colorType & COLOR_MASK) === 0;
  const fileChannels = colorType === PALETTE ? (header.hasTrns ? 4 : 3) : [1, 0, 3, 0, 2, 0, 4][colorType];
  const channels = options.channels === 0 ? fileChannels : options.channels;
  const bits = options.dtype === 'uint8' ? 8 : 16;
  checkImageSize(options.op, 1, height, width, channels, options.dtype);
  const wantGray = channels < 3;
  const wantAlpha = channels % 2 === 0;
  if (wantGray && !isGray && header.declaresGamma) {
    throw invalidArgument(
      `${options.op}: this PNG declares a gamma (gAMA, sRGB, iCCP or cICP chunk); TensorFlow converts it to gray through libpng's gamma tables, which tfgate does not compute`,
    );
  }
  let raw: Uint8Array | Uint16Array;
  try {
    raw = readSamples(header.withoutTrns ?? contents, width * height);
  } catch (e) {
    throw invalidArgument(`Invalid PNG data, size ${contents.length} (${(e as Error).message})`);
  }
  const palette = colorType === PALETTE;
  // Samples after libpng's expansion: palette → 8-bit RGB(A); gray below 8 bits → 8 bits.
  const depth = palette ? 8 : Math.max(bitDepth, 8);
  const maxIn = (1 << bitDepth) - 1;
  const expand = (v: number) => (!palette && bitDepth < 8 ? (v * 255) / maxIn : v);
  const key = header.transKey;
  const alphaFromFile = hasAlpha || header.hasTrns;
  // png_set_add_alpha((1 << bit_depth) - 1) is applied after 16 → 8 bits, to 8- or 16-bit rows.
  const filler = ((1 << bitDepth) - 1) & (depth === 16 && bits === 16 ? 0xffff : 0xff);
  // A sample at `depth` bits as the output's: 16 → 8 keeps the high byte (png_set_strip_16),
  // 8 → 16 is v × 257 (png_io.cc Convert8to16).
  const shift = depth === 16 && bits === 8 ? 8 : 0;
  const widen = depth === 8 && bits === 16 ? 257 : 1;
  const n = width * height;
  const out = bits === 8 ? new Uint8Array(n * channels) : new Uint16Array(n * channels);
  let o = 0;
  for (let i = 0; i < n; i++) {
    const s = i * 4;
    const r = expand(raw[s]);
    const g = expand(raw[s + 1]);
    const b = expand(raw[s + 2]);
    if (wantGray) {
      let gray = r;
      if (!isGray && (r !== g || r !== b)) {
        // pngrtran.c png_do_rgb_to_gray: rc = 29900·32768/100000, gc = 58700·32768/100000 (truncated);
        // 8-bit rows truncate the sum, 16-bit rows round it.
        gray = Math.floor((9797 * r + 19234 * g + 3737 * b + (depth === 16 ? 16384 : 0)) / 32768);
      }
      out[o++] = (gray >>> shift) * widen;
    } else {
      out[o++] = (r >>> shift) * widen;
      out[o++] = (g >>> shift) * widen;
      out[o++] = (b >>> shift) * widen;
    }
    if (wantAlpha) {
      if (!alphaFromFile) out[o++] = filler * (depth === 8 ? widen : 1);
      else if (hasAlpha || palette) out[o++] = (raw[s + 3] >>> shift) * widen;
      else {
        const keyed = isGray ? raw[s] === key![0] : raw[s] === key![0] && raw[s + 1] === key![1] && raw[s + 2] === key![2];
        out[o++] = keyed ? 0 : ((depth === 16 ? 0xffff : 0xff) >>> shift) * widen;
      }
    }
  }
  return { frames: 1, height, width, channels, samples: out };
}
