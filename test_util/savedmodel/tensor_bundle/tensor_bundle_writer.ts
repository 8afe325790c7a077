// Writes `<prefix>.index` + `<prefix>.data-00000-of-00001` as TF's BundleWriter does
// (tensorflow/core/util/tensor_bundle/tensor_bundle.cc):
// * tensors go into the data file in the order they are added (SaveV2 adds them in its
//   tensor_names order), each padded to `dataAlignment` (1, i.e. none, by default);
// * the index holds the header under "" — num_shards 1, endianness LITTLE, version
//   {producer 1, min_consumer 0} — then one BundleEntryProto per key in bytewise key
//   order; fields holding their proto3 default (shard_id 0, offset 0, size 0) are absent,
//   exactly as C++ serialization leaves them out;
// * the table is uncompressed (BundleWriter turns table compression off) with TF's
//   default block size (256 KiB) and restart interval (16).
// Files are written under a temporary name and renamed into place, as TF does where the
// file system has atomic moves.
import fs from 'node:fs/promises';
import path from 'node:path';
import { protoType } from '../../../src/proto/index.js';
import { invalidArgument } from '../../../src/errors/status.js';
import { bytesPerElement, dtypeToTf } from '../../../src/tensor/dtype.js';
import { numElements, type HostTensor, type TensorValues } from '../../../src/tensor/host_tensor.js';
import { compareBytes } from '../../../src/savedmodel/tensor_bundle/coding.js';
import { crc32c, maskCrc } from '../../../src/savedmodel/tensor_bundle/crc32c.js';
import { TableBuilder, type TableOptions } from './sstable_writer.js';
import {
  HEADER_ENTRY_KEY,
  TENSOR_BUNDLE_VERSION,
  encodeStringTensor,
  indexFileName,
  shardFileName,
  swapBytes,
} from '../../../src/savedmodel/tensor_bundle/bundle_format.js';

export interface BundleWriterOptions {
  /** Pads each tensor's bytes to a multiple of this (BundleWriter::Options::data_alignment, default 1). */
  dataAlignment?: number;
  /** Index table options; defaults are TF's (256 KiB blocks, restart interval 16, no compression). */
  table?: TableOptions;
  /** Byte order of the data; 'BIG' imitates a bundle written on a big-endian machine. */
  endianness?: 'LITTLE' | 'BIG';
}

export interface EncodedBundle {
  index: Uint8Array;
  /** Contents of the single data shard. */
  data: Uint8Array;
}

const utf8 = new TextEncoder();

/** A tensor's bytes in the data file and their (unmasked) crc32c. */
function tensorBytes(t: HostTensor, bigEndian = false): { bytes: Uint8Array; crc: number } {
  const count = numElements(t.shape);
  if (!Number.isSafeInteger(count) || count < 0 || t.shape.some((d) => !Number.isInteger(d) || d < 0)) {
    throw invalidArgument(`tensor shape [${t.shape.join(',')}] is not a valid fully defined shape`);
  }
  if (t.values.length !== count)
    throw invalidArgument(`tensor of shape [${t.shape.join(',')}] needs ${count} values, has ${t.values.length}`);
  if (t.dtype === 'string') return encodeStringTensor(t.values as Uint8Array[], bigEndian);
  const v = t.values as Exclude<TensorValues, Uint8Array[]>;
  const width = bytesPerElement(t.dtype);
  if (v.BYTES_PER_ELEMENT !== width) throw invalidArgument(`${t.dtype} tensor held in a ${v.constructor.name}`);
  let bytes = new Uint8Array(v.buffer, v.byteOffset, v.byteLength);
  if (bigEndian && width > 1) {
    bytes = bytes.slice();
    swapBytes(bytes, width);
  }
  return { bytes, crc: crc32c(bytes) };
}

interface BuiltBundle {
  index: Uint8Array;
  /** Data file contents in order (views of the tensors' own storage where possible). */
  chunks: Uint8Array[];
}

function buildBundle(tensors: Iterable<readonly [string, HostTensor]>, options: BundleWriterOptions): BuiltBundle {
  const alignment = options.dataAlignment ?? 1;
  if (!Number.isInteger(alignment) || alignment < 1) throw invalidArgument(`data alignment ${alignment} must be a positive integer`);
  const bigEndian = options.endianness === 'BIG';
  const headerType = protoType('tensorflow.BundleHeaderProto');
  const entryType = protoType('tensorflow.BundleEntryProto');

  const chunks: Uint8Array[] = [];
  let size = 0;
  const entries: Array<[Uint8Array, Uint8Array]> = [];
  const seen = new Set<string>();
  for (const [key, t] of tensors) {
    if (key === HEADER_ENTRY_KEY) throw invalidArgument('the empty key is reserved for the bundle header');
    if (seen.has(key)) throw invalidArgument(`Adding duplicate key: ${key}`);
    seen.add(key);
    let encoded;
    try {
      encoded = tensorBytes(t, bigEndian);
    } catch (e) {
      throw invalidArgument(`tensor ${key}: ${(e as Error).message}`);
    }
    // Only non-default fields, so the bytes equal C++ SerializeAsString().
    const entry: Record<string, unknown> = {
      dtype: dtypeToTf(t.dtype),
      shape: { dim: t.shape.map((d) => (d === 0 ? {} : { size: d })) },
    };
    if (size !== 0) entry.offset = size;
    if (encoded.bytes.length !== 0) entry.size = encoded.bytes.length;
    const masked = maskCrc(encoded.crc);
    if (masked !== 0) entry.crc32c = masked;
    entries.push([utf8.encode(key), entryType.encode(entryType.fromObject(entry)).finish()]);
    chunks.push(encoded.bytes);
    size += encoded.bytes.length;
    const over = size % alignment;
    if (over !== 0) {
      chunks.push(new Uint8Array(alignment - over));
      size += alignment - over;
    }
  }

  const header: Record<string, unknown> = { numShards: 1, version: { producer: TENSOR_BUNDLE_VERSION } };
  if (bigEndian) header.endianness = 'BIG';
  const table = new TableBuilder({ compression: 'none', ...options.table });
  table.add(utf8.encode(HEADER_ENTRY_KEY), headerType.encode(headerType.fromObject(header)).finish());
  entries.sort(([a], [b]) => compareBytes(a, b));
  for (const [k, v] of entries) table.add(k, v);
  return { index: table.finish(), chunks };
}

/** Builds the index and data file contents without touching the file system. */
export function encodeTensorBundle(tensors: Iterable<readonly [string, HostTensor]>, options: BundleWriterOptions = {}): EncodedBundle {
  const { index, chunks } = buildBundle(tensors, options);
  return { index, data: new Uint8Array(Buffer.concat(chunks)) };
}

async function writeAtomically(file: string, chunks: Uint8Array[]): Promise<void> {
  const temp = `${file}.tempstate${process.pid}${Math.floor(Math.random() * 1e9)}`;
  try {
    const handle = await fs.open(temp, 'w');
    try {
      for (const c of chunks) if (c.length) await handle.write(c);
    } finally {
      await handle.close();
    }
    await fs.rename(temp, file);
  } catch (e) {
    await fs.rm(temp, { force: true });
    throw e;
  }
}

/**
 * Writes the tensors as a one-shard bundle at `prefix` (e.g. `<dir>/variables/variables`).
 * Data follows the given order; the index is sorted by key.
 */
export async function writeTensorBundle(
  prefix: string,
  tensors: Iterable<readonly [string, HostTensor]>,
  options: BundleWriterOptions = {},
): Promise<void> {
  const { index, chunks } = buildBundle(tensors, options);
  await fs.mkdir(path.dirname(prefix), { recursive: true });
  await writeAtomically(shardFileName(prefix, 0, 1), chunks);
  await writeAtomically(indexFileName(prefix), [index]);
}
