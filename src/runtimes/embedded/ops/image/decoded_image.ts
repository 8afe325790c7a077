// What every decoder hands back (pixels as bytes, or 16-bit samples from a 16-bit PNG) and
// how an op turns it into its output tensor: TF's dtype conversions (decode_image_op.cc:
// uint16 from 8-bit data = value × 256, float = value × (1/255) from 8 bits or × (1/65535)
// from 16 bits, in float32 arithmetic) and its 3-D or 4-D shape. TF.js holds uint8 and uint16
// as int32; the signature's declared dtype restores them on the way out.
import tf from '../../../tfjs_packages/tfjs_core.cjs';
import { Code, ServingError } from '../../../../errors/status.js';

export interface DecodedImage {
  frames: number;
  height: number;
  width: number;
  channels: number;
  /** frames × height × width × channels samples; Uint16Array only from 16-bit PNG data. */
  samples: Uint8Array | Uint16Array;
}

/** The output dtypes TF's decoders offer. */
export type ImageDtype = 'uint8' | 'uint16' | 'float32';

/**
 * The most bytes one decoded image may take (2^28 = 256 MiB), checked from the file's header
 * before any pixel is allocated. A quarter of the in-flight request budget's default on a
 * 16 GB machine: one small upload must not be able to claim the executor's memory (a 100 kB
 * PNG can declare 50 000 × 50 000 pixels). TF's own limits are higher (2^29 samples for
 * JPEG and PNG); an image between the two is refused here with RESOURCE_EXHAUSTED.
 */
export const MAX_DECODED_IMAGE_BYTES = 2 ** 28;

const bytesPer: Record<ImageDtype, number> = { uint8: 1, uint16: 2, float32: 4 };

/** Throws RESOURCE_EXHAUSTED, naming the op, when an image of this size would pass the bound. */
export function checkImageSize(op: string, frames: number, height: number, width: number, channels: number, dtype: ImageDtype): void {
  const bytes = frames * height * width * channels * Math.max(bytesPer[dtype], 1);
  if (bytes > MAX_DECODED_IMAGE_BYTES) {
    const dims = `${frames > 1 ? `${frames} frames of ` : ''}${height}×${width}×${channels}`;
    throw new ServingError(
      Code.RESOURCE_EXHAUSTED,
      `${op}: the decoded image (${dims} ${dtype}, ${bytes} bytes) would pass tfgate's bound of ${MAX_DECODED_IMAGE_BYTES} bytes per decoded image`,
    );
  }
}

const F255 = Math.fround(1 / 255);
const F65535 = Math.fround(1 / 65535);

/** The image as the op's output: [frames, h, w, c] when `fourD`, else [h, w, c] (one frame). */
export function imageTensor(image: DecodedImage, dtype: ImageDtype, fourD: boolean): tf.Tensor {
  const { frames, height, width, channels, samples } = image;
  const shape = fourD ? [frames, height, width, channels] : [height, width, channels];
  const sixteen = samples instanceof Uint16Array;
  if (dtype === 'float32') {
    const scale = sixteen ? F65535 : F255;
    const out = new Float32Array(samples.length);
    for (let i = 0; i < samples.length; i++) out[i] = Math.fround(samples[i] * scale);
    return tf.tensor(out, shape, 'float32');
  }
  const out = new Int32Array(samples.length);
  // TF's uint16 from 8-bit JPEG/GIF/BMP data: value × floor(65536 / 256). (8-bit PNG data is
  // widened by the PNG decoder itself, as libpng's caller does: value × 257.)
  const scale = dtype === 'uint16' && !sixteen ? 256 : 1;
  for (let i = 0; i < samples.length; i++) out[i] = samples[i] * scale;
  return tf.tensor(out, shape, 'int32');
}
