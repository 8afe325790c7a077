// TensorBundle (checkpoint V2) conventions shared by reader and writer
// (tensorflow/core/util/tensor_bundle/tensor_bundle.cc, tensor_bundle.proto):
// * `<prefix>.index`: a table mapping "" to a BundleHeaderProto and every tensor key to a
//   BundleEntryProto {dtype, shape, shard_id, offset, size, crc32c (masked), slices};
// * `<prefix>.data-%05d-of-%05d`: the tensors' bytes. Numeric tensors are their raw
//   little-endian element bytes, crc32c taken over those bytes. String tensors are
//     [varint64 len_0] … [varint64 len_n-1] [fixed32 masked crc of the lengths] [bytes_0] …
//   where the lengths are checksummed as uint32 (uint64 beyond 4 GiB), not as varints, and
//   the entry crc continues over the 4 checksum bytes and then the string bytes.
import { ByteReader, ByteSink, FormatError } from './coding.js';
import { crc32c, maskCrc, unmaskCrc } from './crc32c.js';

/** Format version written in the header (kTensorBundleVersion) and the oldest producer read. */
export const TENSOR_BUNDLE_VERSION = 1;
export const TENSOR_BUNDLE_MIN_PRODUCER = 0;
export const HEADER_ENTRY_KEY = '';

export function indexFileName(prefix: string): string {
  return `${prefix}.index`;
}

export function shardFileName(prefix: string, shard: number, numShards: number): string {
  const pad = (n: number) => String(n).padStart(5, '0');
  return `${prefix}.data-${pad(shard)}-of-${pad(numShards)}`;
}

const lengthWord = new DataView(new ArrayBuffer(8));
const lengthBytes4 = new Uint8Array(lengthWord.buffer, 0, 4);
const lengthBytes8 = new Uint8Array(lengthWord.buffer, 0, 8);

/** Extends crc with a string length the way TF checksums it (uint32 or uint64, host order as stored). */
function extendWithLength(crc: number, length: number, bigEndian: boolean): number {
  if (length <= 0xffffffff) {
    lengthWord.setUint32(0, length, !bigEndian);
    return crc32c(lengthBytes4, crc);
  }
  lengthWord.setBigUint64(0, BigInt(length), !bigEndian);
  return crc32c(lengthBytes8, crc);
}

/** The on-disk bytes of a string tensor and its (unmasked) entry crc32c. */
export function encodeStringTensor(strings: readonly Uint8Array[], bigEndian = false): { bytes: Uint8Array; crc: number } {
  const total = strings.reduce((n, s) => n + s.length, 0);
  const out = new ByteSink(strings.length * 2 + 4 + total);
  let crc = 0;
  for (const s of strings) {
    out.varint(s.length);
    crc = extendWithLength(crc, s.length, bigEndian);
  }
  const lengthChecksum = maskCrc(crc);
  const checksumBytes = new Uint8Array(4);
  new DataView(checksumBytes.buffer).setUint32(0, lengthChecksum, !bigEndian);
  out.bytes(checksumBytes);
  crc = crc32c(checksumBytes, crc);
  for (const s of strings) {
    out.bytes(s);
    crc = crc32c(s, crc);
  }
  return { bytes: out.finish(), crc };
}

/**
 * Decodes `count` strings from a tensor's bytes, verifying the length checksum; returns them
 * with the entry crc32c computed as TF does (the caller compares it with the entry's).
 */
export function decodeStringTensor(bytes: Uint8Array, count: number, bigEndian = false): { strings: Uint8Array[]; crc: number } {
  // TF skips everything for an entry of size 0 (never written by TF itself).
  if (bytes.length === 0) return { strings: Array.from({ length: count }, () => new Uint8Array(0)), crc: 0 };
  const r = new ByteReader(bytes);
  const lengths: number[] = new Array(count);
  let crc = 0;
  for (let i = 0; i < count; i++) {
    lengths[i] = r.varint();
    crc = extendWithLength(crc, lengths[i], bigEndian);
  }
  const checksumBytes = r.take(4);
  const stored = new DataView(checksumBytes.buffer, checksumBytes.byteOffset, 4).getUint32(0, !bigEndian);
  if (unmaskCrc(stored) !== crc)
    throw new FormatError(`the length checksum does not match: expected ${unmaskCrc(stored)} but actual is ${crc}`);
  crc = crc32c(checksumBytes, crc);
  const strings = lengths.map((n) => {
    const s = r.take(n);
    crc = crc32c(s, crc);
    return s.slice();
  });
  if (r.remaining !== 0) throw new FormatError(`${r.remaining} bytes left over after ${count} strings`);
  return { strings, crc };
}

/** Reverses the bytes of each `width`-byte element in place (big-endian bundles). */
export function swapBytes(bytes: Uint8Array, width: number): void {
  if (width <= 1) return;
  for (let i = 0; i + width <= bytes.length; i += width) {
    for (let a = i, b = i + width - 1; a < b; a++, b--) {
      const t = bytes[a];
      bytes[a] = bytes[b];
      bytes[b] = t;
    }
  }
}
