// TFGATE_LOOKUP_OP for TF.js: TF's LookupTableFindV2 over a table whose contents are two
// constants (lookup_rewrite.ts). Unlike tfjs-converter's LookupTableFindV2 (always shape
// [numKeys]), the result has the keys' shape plus the value shape, as TF's HashTable::Find:
// a scalar key gives a scalar. The key → row index is built once per table constant (the
// model's weight tensor, the same object on every call), not per request.
import tf from '../../../tfjs_packages/tfjs_core.cjs';
import type * as tfconv from '@tensorflow/tfjs-converter';
import { invalidArgument } from '../../../../errors/status.js';

type MapKey = string | number;
const latin1 = new TextDecoder('latin1');
/** Strings are compared as bytes (TF strings are byte strings). */
const keyOf = (v: Uint8Array | number): MapKey => (typeof v === 'number' ? v : latin1.decode(v));

/** Elements as stored: strings as their bytes (dataSync would decode them as UTF-8). */
const elements = (t: tf.Tensor): ArrayLike<Uint8Array | number> =>
  t.dtype === 'string' ? (tf.engine().readSync(t.dataId) as unknown as Uint8Array[]) : (t.dataSync() as ArrayLike<number>);

const indexCache = new WeakMap<tf.Tensor, Map<MapKey, number>>();

function rowIndex(tableKeys: tf.Tensor): Map<MapKey, number> {
  let index = indexCache.get(tableKeys);
  if (!index) {
    index = new Map();
    const keys = elements(tableKeys);
    for (let i = 0; i < keys.length; i++) index.set(keyOf(keys[i]), i);
    indexCache.set(tableKeys, index);
  }
  return index;
}

function lookupTableFind(tableKeys: tf.Tensor, tableValues: tf.Tensor, keys: tf.Tensor, defaultValue: tf.Tensor): tf.Tensor {
  if (keys.dtype !== tableKeys.dtype) throw invalidArgument(`Expected key dtype ${tableKeys.dtype} but got ${keys.dtype}`);
  const valueShape = tableValues.shape.slice(1);
  const width = valueShape.reduce((a, b) => a * b, 1);
  if (defaultValue.size !== 1 && defaultValue.size !== width) {
    throw invalidArgument(`Expected shape [] or [${valueShape}] for default value, got [${defaultValue.shape}]`);
  }
  const index = rowIndex(tableKeys);
  const query = elements(keys);
  const table = elements(tableValues);
  const fallback = elements(defaultValue);
  const size = query.length * width;
  const out: Array<Uint8Array | number> | Float32Array | Int32Array =
    tableValues.dtype === 'string'
      ? new Array<Uint8Array>(size)
      : tableValues.dtype === 'float32'
        ? new Float32Array(size)
        : new Int32Array(size);
  for (let i = 0; i < query.length; i++) {
    const row = index.get(keyOf(query[i]));
    for (let j = 0; j < width; j++) {
      out[i * width + j] = row === undefined ? fallback[fallback.length === 1 ? 0 : j] : table[row * width + j];
    }
  }
  return tf.tensor(out as Float32Array, [...keys.shape, ...valueShape], tableValues.dtype);
}

export const lookupTableFindOp: tfconv.OpExecutor = (node) => {
  const [tableKeys, tableValues, keys, defaultValue] = node.inputs;
  return [lookupTableFind(tableKeys, tableValues, keys, defaultValue)];
};
