// How many elements a numpy-style slice takes from a dim: StridedSlice's output shape, and the
// known elements of a sliced shape vector (known_elements.ts), which must not import the op.

/** ±∞ for masked bounds: clamped to the dim, as TF does. */
const BIG = Number.POSITIVE_INFINITY;

/** Elements a numpy-style slice selects from a dim of size n (-1: unknown). */
export function sliceLength(n: number, start: number, end: number, step: number): number {
  if (n < 0) return -1;
  const norm = (x: number, lo: number, hi: number) => {
    if (x === BIG) return hi;
    if (x === -BIG) return lo;
    const v = x < 0 ? x + n : x;
    return Math.min(Math.max(v, lo), hi);
  };
  if (step > 0) {
    const s = norm(start, 0, n);
    const e = norm(end, 0, n);
    return Math.max(0, Math.ceil((e - s) / step));
  }
  const s = norm(start, -1, n - 1);
  const e = norm(end, -1, n - 1);
  return Math.max(0, Math.ceil((e - s) / step));
}
