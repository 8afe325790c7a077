// A TensorList with TensorFlow's semantics (tensorflow/core/kernels/list_kernels.{h,cc}), the
// value behind a DT_VARIANT list handle in a graph run by tfjs-converter:
// * a list has a size, and elements may be unset: TensorListReserve(n) makes n unset
//   elements (TensorListLength is n), reading an unset element gives zeros when the element
//   shape is known — from the list, the op's element_shape input or the set elements;
// * element shapes are partial: -1 for an unknown dimension, null for an unknown rank.
// tfjs-converter 4.22's own list ignores the reserved size (Length 0, Stack of fewer rows)
// and cannot tell an element's shape, hence this replacement.
//
// Ownership: the list holds tensors of its own — a SetItem stores a new handle on the item's
// data (a reshape to the same shape shares the buffer on every backend), kept so that no
// tidy() or executor sweep frees it — and disposes them when replaced, dropped or in
// clearAndClose(), which the execution context calls at the end of a request. So the
// executor may free the item it computed whenever it likes, and a weight or an input put in
// a list is never marked as kept. Lists are updated in place, as tfjs-converter's are: graphs
// written by TF's list users (TensorArray, while_v2) never read a list after updating it.
import tf from '../../../tfjs_packages/tfjs_core.cjs';

/** -1 for an unknown dimension; null for an unknown rank. */
export type PartialShape = number[] | null;

export class TensorListError extends Error {}

const show = (s: PartialShape) => (s === null ? '<unknown>' : `[${s.map((d) => (d < 0 ? '?' : d)).join(',')}]`);

export function mergeShapes(a: PartialShape, b: PartialShape): PartialShape {
  if (a === null) return b;
  if (b === null) return a;
  if (a.length !== b.length || a.some((d, i) => d >= 0 && b[i] >= 0 && d !== b[i])) {
    throw new TensorListError(`Incompatible shapes during merge: ${show(a)} vs. ${show(b)}`);
  }
  return a.map((d, i) => (d >= 0 ? d : b[i]));
}

export const isFullyDefined = (s: PartialShape): s is number[] => s !== null && s.every((d) => d >= 0);

/** A shape tensor as list ops take it: a vector of dims (-1 unknown), or the scalar -1 for unknown rank. */
export function partialShapeOf(t: tf.Tensor): PartialShape {
  const values = Array.from(t.dataSync() as Int32Array, Number);
  if (t.rank === 0) {
    if (values[0] !== -1) throw new TensorListError(`an element shape given as a scalar must be -1 (unknown rank), not ${values[0]}`);
    return null;
  }
  return values.map((d) => (d < 0 ? -1 : d));
}

/** Lists not closed yet, so that a run that fails half-way can close the ones it opened. */
const open = new Set<TensorList>();

/** Runs `run` (synchronous); if it throws, closes the lists it opened before rethrowing. */
export function closeListsOpenedDuring<T>(run: () => T): T {
  const before = new Set(open);
  try {
    return run();
  } catch (e) {
    for (const list of open) if (!before.has(list)) list.clearAndClose();
    throw e;
  }
}

export class TensorList {
  readonly idTensor: tf.Tensor;

  /** `tensors` become the list's own (e.g. fresh from an unstack). */
  constructor(
    readonly tensors: Array<tf.Tensor | undefined>,
    public elementShape: PartialShape,
    readonly elementDtype: tf.DataType,
    readonly maxNumElements = -1,
  ) {
    for (const t of tensors) if (t) tf.keep(t);
    // The handle the graph passes around; its id keys the execution context's list map.
    this.idTensor = tf.keep(tf.scalar(0));
    open.add(this);
  }

  get id(): number {
    return this.idTensor.id;
  }

  size(): number {
    return this.tensors.length;
  }

  checkDtype(dtype: tf.DataType): void {
    if (dtype !== this.elementDtype)
      throw new TensorListError(`Invalid data types; op elements ${dtype} but list elements ${this.elementDtype}`);
  }

  /** The element shape known from the list, an op's element_shape input and (optionally) the set elements. */
  knownShape(opShape: PartialShape, fromElements: boolean): PartialShape {
    let shape = mergeShapes(this.elementShape, opShape);
    if (fromElements && !isFullyDefined(shape)) for (const t of this.tensors) if (t) shape = mergeShapes(shape, t.shape);
    return shape;
  }

  /** Element `index`; zeros of the known shape if it is unset. The caller owns the result. */
  read(index: number, opShape: PartialShape, what: string): tf.Tensor {
    const t = this.tensors[index];
    if (t) return tf.reshape(t, t.shape);
    const shape = this.knownShape(opShape, true);
    if (!isFullyDefined(shape)) {
      throw new TensorListError(
        `${what}: trying to read an uninitialized tensor but element_shape is not fully defined: ${show(shape)} and no list element is set.`,
      );
    }
    return tf.zeros(shape, this.elementDtype);
  }

  /** Puts (a handle on the data of) `t` at `index`. */
  write(index: number, t: tf.Tensor): void {
    this.checkDtype(t.dtype);
    if (this.elementShape !== null) {
      try {
        mergeShapes(this.elementShape, t.shape);
      } catch {
        throw new TensorListError(
          `Tried to set a tensor with incompatible shape at a list index. Item element shape: ${show(t.shape)} list shape: ${show(this.elementShape)}`,
        );
      }
    }
    this.tensors[index]?.dispose();
    this.tensors[index] = tf.keep(tf.reshape(t, t.shape));
  }

  /** Changes the size: new elements are unset, dropped ones disposed. */
  resize(size: number): void {
    for (const t of this.tensors.slice(size)) t?.dispose();
    this.tensors.length = size;
  }

  /** Removes the last element and hands it to the caller (unset: undefined). */
  takeLast(): tf.Tensor | undefined {
    const last = this.tensors[this.tensors.length - 1];
    this.tensors.length -= 1;
    if (last) last.kept = false;
    return last;
  }

  /** Disposes everything the list holds (`keepIds`, from tfjs-converter's context, never names its own tensors). */
  clearAndClose(keepIds?: Set<number>): void {
    for (const t of this.tensors) if (t && !keepIds?.has(t.id)) t.dispose();
    this.tensors.length = 0;
    this.idTensor.dispose();
    open.delete(this);
  }
}
