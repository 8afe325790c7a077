// TF's ClassifyFileFormat (decode_image_op.cc): an encoded image's format from its first
// bytes. Every Decode* op sniffs the bytes this way and then decides what it may decode.
export type ImageFormat = 'jpeg' | 'png' | 'gif' | 'bmp' | 'webp' | 'jxl' | 'unknown';

const startsWith = (b: Uint8Array, magic: readonly number[], at = 0) =>
  b.length >= at + magic.length && magic.every((m, i) => b[at + i] === m);

const JPEG = [0xff, 0xd8, 0xff];
const PNG = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const GIF = [0x47, 0x49, 0x46, 0x38];
const BMP = [0x42, 0x4d];
const RIFF = [0x52, 0x49, 0x46, 0x46];
const WEBP = [0x57, 0x45, 0x42, 0x50];
// JPEG XL: a bare codestream, or the ISO BMFF container's signature box.
const JXL_CODESTREAM = [0xff, 0x0a];
const JXL_CONTAINER = [0, 0, 0, 0x0c, 0x4a, 0x58, 0x4c, 0x20, 0x0d, 0x0a, 0x87, 0x0a];

export function classifyImage(b: Uint8Array): ImageFormat {
  if (startsWith(b, JPEG)) return 'jpeg';
  if (startsWith(b, PNG)) return 'png';
  if (startsWith(b, GIF)) return 'gif';
  if (startsWith(b, BMP)) return 'bmp';
  if (startsWith(b, RIFF) && b.length > 12 && startsWith(b, WEBP, 8)) return 'webp';
  if (startsWith(b, JXL_CODESTREAM) || startsWith(b, JXL_CONTAINER)) return 'jxl';
  return 'unknown';
}
