// The conv net the queue-full tests fill their queues with. It must run slower than the
// server can take the next request in (well under a millisecond to parse one): at 64×64 it is
// ~430 MFLOP an image, at 48×48 ~245, a few ms on ONNX Runtime. Nets of tens of MFLOP ran as
// fast as requests arrived once the hand-off got faster, and their queues never filled.
import { writeConvSavedModel } from '../../test_util/savedmodel/model_zoo.js';

export function writeQueueingConvModel(
  versionDir: string,
  size: number,
  seed: number,
  filters: [number, number] = [64, 128],
): ReturnType<typeof writeConvSavedModel> {
  return writeConvSavedModel(versionDir, { height: size, width: size, channels: 1, filters, kernelSize: 5, classes: 4, seed });
}
