// BMP as TF decodes it (decode_image_op.cc DecodeBmpV2): the pixel data offset at byte 10,
// width at 18, height at 22 (negative: rows top-down), bits per pixel at 28 (8, 24 or 32);
// rows padded to 4 bytes, BGR(A) turned RGB(A); compression and palettes are not read. A
// wanted alpha the file lacks is 255; a gray file is replicated to RGB. bmp-js misreads the
// BITMAPV4HEADER of TF's own test image, hence this reader of TF's rules.
import { invalidArgument } from '../../../../errors/status.js';
import { checkImageSize, type DecodedImage, type ImageDtype } from './decoded_image.js';

export function decodeBmp(b: Uint8Array, op: string, channels: number, dtype: ImageDtype): DecodedImage {
  if (channels === 1) throw invalidArgument(`\`channels\` must be 0, 3 or 4 for BMP, but got ${channels}`);
  if (b.length < 32) {
    throw invalidArgument(
      `Incomplete bmp content, requires at least 32 bytes to find the header size, width, height, and bpp, got ${b.length} bytes`,
    );
  }
  const view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const headerSize = view.getInt32(10, true);
  const width = view.getInt32(18, true);
  const height = view.getInt32(22, true);
  const bpp = view.getInt16(28, true);
  const fileChannels = Math.trunc(bpp / 8);
  if (fileChannels !== 1 && fileChannels !== 3 && fileChannels !== 4) {
    throw invalidArgument(`Number of channels inherent in the image must be 1, 3 or 4, was ${fileChannels}`);
  }
  const outChannels = channels || fileChannels;
  if (width <= 0) throw invalidArgument('Width must be positive');
  if (height === 0) throw invalidArgument('Height must be nonzero');
  if (headerSize < 0) throw invalidArgument('header size must be nonnegative');
  const rows = Math.abs(height);
  if (width * rows >= Math.trunc(2147483647 / 8)) throw invalidArgument('Total possible pixel bytes must be less than 2^30');
  const rowSize = Math.trunc((fileChannels * width + 3) / 4) * 4;
  // TF computes this difference in a 32-bit int.
  const sizeDiff = (b.length - headerSize - rowSize * rows) | 0;
  if (sizeDiff !== 0) throw invalidArgument(`Input size should match (header_size + row_size * abs_height) but they differ by ${sizeDiff}`);
  checkImageSize(op, 1, rows, width, outChannels, dtype);
  const topDown = height < 0;
  const out = new Uint8Array(rows * width * outChannels);
  for (let i = 0; i < rows; i++) {
    const row = headerSize + (topDown ? i : rows - 1 - i) * rowSize;
    for (let j = 0; j < width; j++) {
      const src = row + j * fileChannels;
      const dst = (i * width + j) * outChannels;
      if (fileChannels === 1) {
        out[dst] = b[src];
        if (outChannels >= 3) out[dst + 1] = out[dst + 2] = b[src];
        if (outChannels === 4) out[dst + 3] = 255;
      } else {
        out[dst] = b[src + 2];
        out[dst + 1] = b[src + 1];
        out[dst + 2] = b[src];
        if (outChannels === 4) out[dst + 3] = fileChannels === 4 ? b[src + 3] : 255;
      }
    }
  }
  return { frames: 1, height: rows, width, channels: outChannels, samples: out };
}
