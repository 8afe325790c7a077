// The bound on what one op of the embedded runtime may allocate for one request, where the
// size comes from the request rather than the graph: a decoded WAV's samples, a spectrogram's
// frames, an FFT's length, a beam search's entries. TF allocates whatever the request asks;
// tfgate checks the size first and fails that request (RESOURCE_EXHAUSTED, naming the op) so
// that one small request cannot make an executor thread allocate gigabytes.
import { Code, ServingError } from '../../../errors/status.js';

/** Elements one op output may hold: 64 Mi (256 MiB of float32). */
const MAX_OP_OUTPUT_ELEMENTS = 2 ** 26;

/** Elements of one Fourier transform: 16 bytes of doubles each, Bluestein's up to 4× that. */
export const MAX_TRANSFORM_ELEMENTS = 2 ** 22;

const shapeText = (shape: readonly number[]) => `[${shape.join(',')}]`;

/** Why an output of `shape`, known when the graph loads, would fail every request; null when it fits. */
export function fixedOutputProblem(shape: readonly number[]): string | null {
  const elements = shape.reduce((a, b) => a * b, 1);
  return elements > MAX_OP_OUTPUT_ELEMENTS
    ? `every output would hold ${elements} elements (shape ${shapeText(shape)}), more than tfgate allows one op output (${MAX_OP_OUTPUT_ELEMENTS})`
    : null;
}

/** Throws RESOURCE_EXHAUSTED naming `op` when an output of `shape` would pass the bound. */
export function checkOutputElements(op: string, shape: readonly number[], bound = MAX_OP_OUTPUT_ELEMENTS): void {
  const elements = shape.reduce((a, b) => a * b, 1);
  if (elements > bound) {
    throw new ServingError(
      Code.RESOURCE_EXHAUSTED,
      `${op}: the output would hold ${elements} elements (shape ${shapeText(shape)}), more than tfgate allows one op output (${bound})`,
    );
  }
}

/** Throws RESOURCE_EXHAUSTED naming `op` when work sized `amount` (`what`) would pass `bound`. */
export function checkWorkBound(op: string, amount: number, bound: number, what: string): void {
  if (amount > bound)
    throw new ServingError(Code.RESOURCE_EXHAUSTED, `${op}: ${what} would be ${amount}, more than tfgate allows (${bound})`);
}
