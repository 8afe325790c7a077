// What a tensor costs in memory, for the in-flight budget (services/memory_budget.ts): decoders
// charge it from a declared or counted element count *before* they decode, and the service
// charges what the executor thread will hold.
//
// Numbers hold their bytes. A string element is its own Uint8Array (host_tensor.ts), and on
// Node 20's V8 that object costs far more than its bytes. Measured with 1 M elements after a
// full GC (heap and external memory together):
//   new Uint8Array(0), TextEncoder.encode(''), Uint8Array#slice of 0–16 bytes  192–224 B
//   a slice of 100 bytes                                                        192 B + 200 B outside the heap
//   a view into a shared buffer (Buffer#subarray)                               104 B
//   the structured clone an executor thread receives of each of them            191 B + its bytes
// So a string element is counted as 192 bytes plus twice its length (small ones are rounded
// up on V8's heap, larger ones get a backing store whose allocator rounds too); a request of
// 16 M empty strings is 3 GB of objects from a 32 MB message.
import { bytesPerElement, type DType } from './dtype.js';
import type { HostTensor } from './host_tensor.js';

/** One string element's own Uint8Array (typed array + array buffer + its slot), bytes aside. */
const STRING_ELEMENT_BYTES = 192;

/** What a HostTensor's values hold now. */
export function hostTensorBytes(t: HostTensor): number {
  if (!Array.isArray(t.values)) return t.values.byteLength;
  let n = 0;
  for (const v of t.values) n += STRING_ELEMENT_BYTES + 2 * v.length;
  return n;
}

/**
 * What decoding a tensor of `elements` values will hold, before it is decoded: numbers from
 * the count alone; strings from the count and the total length of the elements sent
 * (`stringBytes`, an upper bound of what is kept).
 */
export function decodedTensorBytes(dtype: DType, elements: number, stringBytes = 0): number {
  if (dtype !== 'string') return elements * bytesPerElement(dtype);
  return elements * STRING_ELEMENT_BYTES + 2 * stringBytes;
}
