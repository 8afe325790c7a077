// The benches' deep, narrow MLP (relu, 16 outputs, seed 3): per-op dispatch dominates its
// batch-1 run, so batching pays, as kernel launches make it pay on a GPU.
import { writeMlpSavedModel } from '../../test_util/savedmodel/model_zoo.js';

/** Its output width. */
export const DEEP_MLP_OUTPUTS = 16;

export interface DeepMlpShape {
  input: number;
  width: number;
  depth: number;
}

/** Writes the MLP as the SavedModel version folder `versionDir`. */
export async function writeDeepMlp(versionDir: string, shape: DeepMlpShape): Promise<void> {
  await writeMlpSavedModel(versionDir, {
    inputDim: shape.input,
    hiddenSizes: new Array(shape.depth).fill(shape.width),
    outputDim: DEEP_MLP_OUTPUTS,
    activation: 'relu',
    seed: 3,
  });
}

/** The row every bench sends it, sin(0..input-1). */
export function sinRow(input: number): number[] {
  return Array.from({ length: input }, (_, i) => Math.sin(i));
}

/** A REST :predict body of that one row. */
export function sinRowBody(input: number): string {
  return JSON.stringify({ instances: [sinRow(input)] });
}
