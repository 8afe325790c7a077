// JPEG as TF decodes it by default (jpeg_mem.cc with the flags decode_image_op.cc sets):
// libjpeg-turbo, JDCT_IFAST, fancy upsampling, output RGB (channels 3, or 0 with three
// components) or the luma plane (channels 1). @julusian/jpeg-turbo decompresses with
// TurboJPEG's TJFLAG_FASTDCT, which is exactly that (README: the pixels measured against
// TF's stated ones and libjpeg-turbo's `djpeg -dct fast`). What it cannot do — scaled
// decoding (`ratio`), the accurate IDCT, plain upsampling, CMYK — is refused, never
// approximated. The header is read here first, so that the image's size is checked before
// anything is allocated.
import jpegTurbo from '@julusian/jpeg-turbo';
import { invalidArgument } from '../../../../errors/status.js';
import { checkImageSize, type DecodedImage, type ImageDtype } from './decoded_image.js';

export interface JpegHeader {
  height: number;
  width: number;
  /** Nf of the frame header: 1 gray, 3 YCbCr/RGB, 4 CMYK/YCCK. */
  components: number;
  /** Whether some component is stored at a lower resolution (4:2:0, 4:2:2 …). */
  subsampled: boolean;
}

/** TF's message for anything jpeg::Uncompress fails on. */
const JPEG_UNCOMPRESS_FAILED = 'jpeg::Uncompress failed. Invalid JPEG data or crop window.';

const SOF_MARKERS = new Set([0xc0, 0xc1, 0xc2, 0xc3, 0xc5, 0xc6, 0xc7, 0xc9, 0xca, 0xcb, 0xcd, 0xce, 0xcf]);

/**
 * The frame header, read as jpeg_read_header reads up to the first scan; null when the data
 * has no SOI, no frame header before the first scan, or ends first.
 */
export function readJpegHeader(b: Uint8Array): JpegHeader | null {
  if (b.length < 4 || b[0] !== 0xff || b[1] !== 0xd8) return null;
  let p = 2;
  let header: JpegHeader | null = null;
  while (p < b.length) {
    if (b[p] !== 0xff) return null;
    while (p < b.length && b[p] === 0xff) p++; // fill bytes
    if (p >= b.length) return null;
    const marker = b[p++];
    if (marker === 0xd9 || marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) return null; // EOI, TEM or RSTn before a scan
    if (p + 2 > b.length) return null;
    const length = (b[p] << 8) | b[p + 1];
    if (length < 2 || p + length > b.length) return null;
    if (SOF_MARKERS.has(marker)) {
      if (header || length < 8) return null; // libjpeg: a second SOF is an error
      const height = (b[p + 3] << 8) | b[p + 4];
      const width = (b[p + 5] << 8) | b[p + 6];
      const components = b[p + 7];
      // libjpeg: "Empty JPEG image (DNL not supported)", "Bogus frame header" …
      if (height === 0 || width === 0 || components === 0 || length !== 8 + components * 3) return null;
      const factors = Array.from({ length: components }, (_, c) => b[p + 9 + c * 3]);
      const subsampled = factors.some((f) => f !== factors[0]);
      header = { height, width, components, subsampled };
    } else if (marker === 0xda) {
      return header;
    }
    p += length;
  }
  return null;
}

export interface JpegDecodeOptions {
  op: string;
  /** The op's `channels` attr: 0 (the file's, at most 3), 1 or 3. */
  channels: number;
  dtype: ImageDtype;
  frames4d: boolean;
  /** DecodeAndCropJpeg's window [y, x, height, width]. */
  crop?: readonly number[];
}

/** Decodes as TF's DecodeJpegV2 does (the caller has checked `channels` is 0, 1 or 3). */
export function decodeJpeg(contents: Uint8Array, o: JpegDecodeOptions): DecodedImage {
  const header = readJpegHeader(contents);
  if (!header) throw invalidArgument(JPEG_UNCOMPRESS_FAILED);
  const channels = o.channels === 0 ? Math.min(header.components, 3) : o.channels;
  if (channels !== 1 && channels !== 3) throw invalidArgument(JPEG_UNCOMPRESS_FAILED); // two-component JPEGs: TF's "Invalid components value"
  if (header.components === 4 && channels === 3) {
    throw invalidArgument(
      `${o.op}: this JPEG is CMYK or YCCK (4 components); TensorFlow converts it to RGB itself, tfgate's JPEG decoder cannot decode it`,
    );
  }
  // jpeg_mem.cc: "Image too large" when height × width × the file's components reaches 2^29.
  if (header.height * header.width * header.components >= 2 ** 29) throw invalidArgument(JPEG_UNCOMPRESS_FAILED);
  const [cropY, cropX, cropH, cropW] = o.crop ?? [0, 0, header.height, header.width];
  if (o.crop && !(cropW > 0 && cropH > 0 && cropX >= 0 && cropY >= 0 && cropY + cropH <= header.height && cropX + cropW <= header.width)) {
    throw invalidArgument(JPEG_UNCOMPRESS_FAILED);
  }
  if (o.crop && header.subsampled && channels === 3 && !(cropX === 0 && cropW === header.width)) {
    // libjpeg-turbo's jpeg_crop_scanline upsamples the chroma of the cropped columns on their
    // own, so TF's pixels at the window's sides differ from those of a full decode (by up to
    // 4 here); only windows as wide as the image were measured equal (djpeg -crop).
    throw invalidArgument(
      `${o.op}: a crop window narrower than the image on a chroma-subsampled JPEG is decoded by TensorFlow with libjpeg-turbo's cropped upsampling, which tfgate's JPEG decoder cannot reproduce`,
    );
  }
  checkImageSize(o.op, 1, header.height, header.width, channels, 'uint8');
  checkImageSize(o.op, 1, cropH, cropW, channels, o.dtype);
  let data: Buffer;
  try {
    const buffer = Buffer.from(contents.buffer, contents.byteOffset, contents.byteLength);
    data = jpegTurbo.decompressSync(buffer, { format: channels === 1 ? jpegTurbo.FORMAT_GRAY : jpegTurbo.FORMAT_RGB }).data;
  } catch {
    // TurboJPEG stops on libjpeg's warnings too (corrupt or truncated entropy data), where
    // TF decodes on and fills what is missing: never a made-up image here.
    throw invalidArgument(
      `${o.op}: Invalid JPEG data: libjpeg-turbo stopped on corrupt or truncated data (TensorFlow decodes some such files with a warning; tfgate refuses them)`,
    );
  }
  if (data.length !== header.height * header.width * channels) throw invalidArgument(JPEG_UNCOMPRESS_FAILED);
  const samples = o.crop
    ? cropRows(data, header.width, channels, cropY, cropX, cropH, cropW)
    : new Uint8Array(data.buffer, data.byteOffset, data.length);
  return { frames: 1, height: cropH, width: cropW, channels, samples };
}

function cropRows(data: Uint8Array, width: number, channels: number, y: number, x: number, h: number, w: number): Uint8Array {
  const out = new Uint8Array(h * w * channels);
  const rowBytes = w * channels;
  for (let r = 0; r < h; r++) {
    const from = ((y + r) * width + x) * channels;
    out.set(data.subarray(from, from + rowBytes), r * rowBytes);
  }
  return out;
}
