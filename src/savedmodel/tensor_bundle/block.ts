// One block of a LevelDB-format table (tensorflow/core/lib/io/block_builder.cc, block.cc).
//
// Entries are prefix-compressed against the previous key:
//   shared: varint32 | non_shared: varint32 | value_length: varint32 | key_delta | value
// Every `restartInterval` entries a restart point stores the full key (shared = 0); the block
// ends with the restart offsets (fixed32 each) and their count (fixed32). The builder is test
// support: test_util/savedmodel/tensor_bundle/block_builder.ts.
import { ByteReader, FormatError, compareBytes, readFixed32 } from './coding.js';

export interface BlockEntry {
  key: Uint8Array;
  value: Uint8Array;
}

export interface ParsedBlock {
  entries: BlockEntry[];
  /** Offsets of the restart points, as stored. */
  restarts: number[];
}

/**
 * Decodes every entry of a block and checks its structure: restart array in bounds, each
 * restart point at an entry boundary holding a full key, keys strictly increasing.
 */
export function parseBlock(block: Uint8Array): ParsedBlock {
  if (block.length < 4) throw new FormatError(`block of ${block.length} bytes is too short`);
  const numRestarts = readFixed32(block, block.length - 4);
  const maxRestarts = (block.length - 4) / 4;
  if (numRestarts > maxRestarts) throw new FormatError(`block claims ${numRestarts} restart points, room for ${Math.floor(maxRestarts)}`);
  const restartsOffset = block.length - 4 - 4 * numRestarts;
  const restarts = Array.from({ length: numRestarts }, (_, i) => readFixed32(block, restartsOffset + 4 * i));

  const entries: BlockEntry[] = [];
  const starts = new Map<number, number>(); // entry offset → shared
  const r = new ByteReader(block, 0, restartsOffset);
  let key = new Uint8Array(0);
  while (r.remaining > 0) {
    const at = r.pos;
    const shared = r.varint32();
    const nonShared = r.varint32();
    const valueLength = r.varint32();
    if (shared > key.length) throw new FormatError(`entry at ${at} shares ${shared} bytes of a ${key.length}-byte key`);
    if (entries.length === 0 && shared !== 0) throw new FormatError('first entry of a block shares a key prefix');
    const next = new Uint8Array(shared + nonShared);
    next.set(key.subarray(0, shared));
    next.set(r.take(nonShared), shared);
    const value = r.take(valueLength);
    if (entries.length > 0 && compareBytes(next, key) <= 0) throw new FormatError(`keys out of order at block offset ${at}`);
    key = next;
    entries.push({ key, value });
    starts.set(at, shared);
  }
  for (const off of restarts) {
    if (entries.length === 0 && off === 0) continue;
    const shared = starts.get(off);
    if (shared === undefined) throw new FormatError(`restart point ${off} is not at an entry boundary`);
    if (shared !== 0) throw new FormatError(`restart point ${off} holds a prefix-compressed key`);
  }
  if (entries.length > 0 && restarts[0] !== 0) throw new FormatError('first restart point is not 0');
  return { entries, restarts };
}
