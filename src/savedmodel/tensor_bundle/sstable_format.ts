// LevelDB table layout as TF's lib/io writes it (tensorflow/core/lib/io/format.h, table_options.h):
//
//   [data block 1] … [data block N] [metaindex block] [index block] [footer]
//
// Each block is followed by a 5-byte trailer: compression type (0 none, 1 Snappy) and the
// masked crc32c of the block contents plus that type byte. The index block maps, for each
// data block, a key ≥ its last key and < the next block's first key to the block's handle
// (varint64 offset, varint64 size). The 48-byte footer holds the metaindex and index handles,
// zero padding to 40 bytes, then the magic number as fixed64.
import { ByteReader, ByteSink } from './coding.js';

export const TABLE_MAGIC = 0xdb4775248b80fb57n;
export const FOOTER_SIZE = 48;
export const BLOCK_TRAILER_SIZE = 5;
/** Two handles of at most 10 + 10 bytes each. */
export const MAX_HANDLES_SIZE = 40;

export enum CompressionType {
  None = 0,
  Snappy = 1,
}

export interface BlockHandle {
  offset: number;
  size: number;
}

export function encodeBlockHandle(h: BlockHandle, sink = new ByteSink(20)): ByteSink {
  return sink.varint(h.offset).varint(h.size);
}

export function decodeBlockHandle(r: ByteReader): BlockHandle {
  return { offset: r.varint(), size: r.varint() };
}

/** TF's table::Options defaults (table_options.h). BundleWriter turns compression off. */
export const DEFAULT_BLOCK_SIZE = 262144;
export const DEFAULT_RESTART_INTERVAL = 16;
