// GIF as TF decodes it (core/lib/gif/gif_io.cc over giflib's DGifSlurp). TF's canvas is not
// the file's logical screen but the largest frame width × the largest frame height; each frame
// starts as a copy of the previous one (the first as black), its rectangle is painted from
// its own color map or the global one, pixels of its Graphics Control Extension's
// transparent index keep what was there, and disposal methods are ignored. Every frame is
// RGB. No npm GIF reader exposes the frames' color indices (omggif paints RGBA into the
// logical screen and reads past a short color map), so this is TF's own compositing over a
// small LZW decoder, as the GIF89a specification describes it.
import { invalidArgument } from '../../../../errors/status.js';
import { checkImageSize, type DecodedImage, type ImageDtype } from './decoded_image.js';

interface GifFrame {
  left: number;
  top: number;
  width: number;
  height: number;
  /** RGB triplets of the frame's color map (its own, else the global one), or null. */
  colors: Uint8Array | null;
  transparent: number;
  indices: Uint8Array;
}

class GifError extends Error {}

function lzwDecode(data: Uint8Array, minCodeSize: number, count: number): Uint8Array {
  if (minCodeSize < 1 || minCodeSize > 11) throw new GifError('wrong record type (LZW code size)');
  const out = new Uint8Array(count);
  const prefix = new Int16Array(4096);
  const suffix = new Uint8Array(4096);
  const stack = new Uint8Array(4097);
  const clear = 1 << minCodeSize;
  const eoi = clear + 1;
  let codeSize = minCodeSize + 1;
  let next = eoi + 1;
  let old = -1;
  let first = 0;
  let bits = 0;
  let acc = 0;
  let p = 0;
  let o = 0;
  for (let c = 0; c < clear; c++) suffix[c] = c;
  while (o < count) {
    while (bits < codeSize) {
      if (p >= data.length) throw new GifError('data is too short (image defect)');
      acc |= data[p++] << bits;
      bits += 8;
    }
    const code = acc & ((1 << codeSize) - 1);
    acc >>>= codeSize;
    bits -= codeSize;
    if (code === clear) {
      codeSize = minCodeSize + 1;
      next = eoi + 1;
      old = -1;
      continue;
    }
    if (code === eoi) break;
    let top = 0;
    let cur = code;
    if (old === -1) {
      if (code >= clear) throw new GifError('image is defective, decoding aborted');
      out[o++] = code;
      old = code;
      first = code;
      continue;
    }
    if (code > next || (code === next && next >= 4096)) throw new GifError('image is defective, decoding aborted');
    if (code === next) {
      stack[top++] = first;
      cur = old;
    }
    while (cur >= clear) {
      stack[top++] = suffix[cur];
      cur = prefix[cur];
    }
    first = cur;
    stack[top++] = cur;
    while (top > 0 && o < count) out[o++] = stack[--top];
    if (next < 4096) {
      prefix[next] = old;
      suffix[next] = first;
      next++;
      if (next === 1 << codeSize && codeSize < 12) codeSize++;
    }
    old = code;
  }
  if (o < count) throw new GifError('input data ended too soon');
  return out;
}

/** Frames in file order, as DGifSlurp leaves them (interlaced rasters put back in row order). */
function readFrames(b: Uint8Array): GifFrame[] {
  const need = (p: number, n: number) => {
    if (p + n > b.length) throw new GifError('failed to read from given file');
  };
  need(0, 13);
  if (b[0] !== 0x47 || b[1] !== 0x49 || b[2] !== 0x46) throw new GifError('data is not in GIF format');
  let p = 10;
  const flags = b[p];
  p += 3;
  let global: Uint8Array | null = null;
  if (flags & 0x80) {
    const n = 3 << ((flags & 7) + 1);
    need(p, n);
    global = b.subarray(p, p + n);
    p += n;
  }
  const frames: GifFrame[] = [];
  let transparent = -1;
  for (;;) {
    need(p, 1);
    const record = b[p++];
    if (record === 0x3b) break;
    if (record === 0x21) {
      need(p, 1);
      const label = b[p++];
      let firstBlock = true;
      for (;;) {
        need(p, 1);
        const size = b[p++];
        if (size === 0) break;
        need(p, size);
        if (label === 0xf9 && firstBlock && size >= 4) transparent = b[p] & 1 ? b[p + 3] : -1;
        firstBlock = false;
        p += size;
      }
      continue;
    }
    if (record !== 0x2c) throw new GifError('wrong record type detected');
    need(p, 9);
    const left = b[p] | (b[p + 1] << 8);
    const top = b[p + 2] | (b[p + 3] << 8);
    const width = b[p + 4] | (b[p + 5] << 8);
    const height = b[p + 6] | (b[p + 7] << 8);
    const f = b[p + 8];
    p += 9;
    let colors = global;
    if (f & 0x80) {
      const n = 3 << ((f & 7) + 1);
      need(p, n);
      colors = b.subarray(p, p + n);
      p += n;
    }
    if (width <= 0 || height <= 0) throw new GifError('failed to allocate required memory');
    need(p, 1);
    const minCodeSize = b[p++];
    const blocks: Uint8Array[] = [];
    for (;;) {
      need(p, 1);
      const size = b[p++];
      if (size === 0) break;
      need(p, size);
      blocks.push(b.subarray(p, p + size));
      p += size;
    }
    const data = new Uint8Array(blocks.reduce((n, x) => n + x.length, 0));
    let at = 0;
    for (const x of blocks) (data.set(x, at), (at += x.length));
    let indices = lzwDecode(data, minCodeSize, width * height);
    if (f & 0x40) indices = deinterlace(indices, width, height);
    frames.push({ left, top, width, height, colors, transparent, indices });
    transparent = -1; // a Graphics Control Extension belongs to the image that follows it
  }
  return frames;
}

function deinterlace(src: Uint8Array, width: number, height: number): Uint8Array {
  const out = new Uint8Array(src.length);
  let row = 0;
  for (const [start, step] of [
    [0, 8],
    [4, 8],
    [2, 4],
    [1, 2],
  ]) {
    for (let y = start; y < height; y += step) out.set(src.subarray(row * width, ++row * width), y * width);
  }
  return out;
}

export function decodeGif(contents: Uint8Array, op: string, dtype: ImageDtype, allFrames: boolean): DecodedImage {
  const fail = (reason: string) => invalidArgument(`Invalid GIF data (size ${contents.length}), ${reason}`);
  let frames: GifFrame[];
  try {
    frames = readFrames(contents);
  } catch (e) {
    if (e instanceof GifError) throw fail(`failed to slurp gif file: ${e.message}`);
    throw e;
  }
  if (frames.length === 0) throw fail('gif file does not contain any image');
  const width = Math.max(...frames.map((f) => f.width));
  const height = Math.max(...frames.map((f) => f.height));
  const count = allFrames ? frames.length : 1;
  checkImageSize(op, count, height, width, 3, dtype);
  const frameBytes = width * height * 3;
  const out = new Uint8Array(count * frameBytes);
  for (let k = 0; k < count; k++) {
    const f = frames[k];
    const base = k * frameBytes;
    if (k > 0) out.copyWithin(base, base - frameBytes, base);
    const left = Math.max(f.left, 0);
    const top = Math.max(f.top, 0);
    const right = Math.min(f.left + f.width, width);
    const bottom = Math.min(f.top + f.height, height);
    if (!f.colors) throw fail(`missing color map for frame ${k}`);
    const colorCount = f.colors.length / 3;
    for (let y = top; y < bottom; y++) {
      for (let x = left; x < right; x++) {
        const index = f.indices[(y - f.top) * f.width + (x - f.left)];
        const at = base + (y * width + x) * 3;
        if (index === f.transparent) continue; // the previous frame's pixel, or black on the first
        if (index >= colorCount) throw fail(`found color index ${index} outside of color map range ${colorCount}`);
        out[at] = f.colors[index * 3];
        out[at + 1] = f.colors[index * 3 + 1];
        out[at + 2] = f.colors[index * 3 + 2];
      }
    }
  }
  return { frames: count, height, width, channels: 3, samples: out };
}
