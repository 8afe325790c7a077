// Reads the LevelDB table format TF's checkpoint index (`variables.index`) is written in:
// data blocks of prefix-compressed key/value entries, an index block pointing at them, and a
// 48-byte footer ending in a magic number. Blocks may be Snappy compressed (trailer type 1).
import snappy from 'snappyjs';
import { crc32c, unmaskCrc } from './crc32c.js';

export const TABLE_MAGIC = 0xdb4775248b80fb57n;
export const FOOTER_SIZE = 48;
const BLOCK_TRAILER_SIZE = 5;

export class TableFormatError extends Error {}

export interface BlockHandle {
  offset: number;
  size: number;
}

export class ByteReader {
  pos = 0;
  constructor(readonly bytes: Uint8Array) {}

  varint(): number {
    let result = 0;
    let shift = 0;
    for (;;) {
      if (this.pos >= this.bytes.length) throw new TableFormatError('truncated varint');
      const b = this.bytes[this.pos++];
      result += (b & 0x7f) * 2 ** shift;
      if (!(b & 0x80)) return result;
      shift += 7;
      if (shift > 63) throw new TableFormatError('varint too long');
    }
  }

  take(n: number): Uint8Array {
    if (this.pos + n > this.bytes.length) throw new TableFormatError('truncated entry');
    const out = this.bytes.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }
}

function readHandle(r: ByteReader): BlockHandle {
  return { offset: r.varint(), size: r.varint() };
}

/** Block contents with the trailer checked and compression undone. */
function readBlock(file: Uint8Array, handle: BlockHandle): Uint8Array {
  const end = handle.offset + handle.size;
  if (end + BLOCK_TRAILER_SIZE > file.length) throw new TableFormatError(`block at ${handle.offset} runs past the end of the file`);
  const contents = file.subarray(handle.offset, end);
  const type = file[end];
  const stored = new DataView(file.buffer, file.byteOffset + end + 1, 4).getUint32(0, true);
  const actual = crc32c(file.subarray(handle.offset, end + 1));
  if (unmaskCrc(stored) !== actual) throw new TableFormatError(`block at ${handle.offset}: checksum mismatch`);
  if (type === 0) return contents;
  if (type === 1) {
    try {
      return snappy.uncompress(contents.slice());
    } catch (e) {
      throw new TableFormatError(`block at ${handle.offset}: bad Snappy data (${(e as Error).message})`);
    }
  }
  throw new TableFormatError(`block at ${handle.offset}: unknown compression type ${type}`);
}

/** All key/value entries of one block, in order. */
function* blockEntries(block: Uint8Array): Generator<[Uint8Array, Uint8Array]> {
  if (block.length < 4) throw new TableFormatError('block too short');
  const numRestarts = new DataView(block.buffer, block.byteOffset + block.length - 4, 4).getUint32(0, true);
  const limit = block.length - 4 - 4 * numRestarts;
  if (limit < 0) throw new TableFormatError('bad restart count');
  const r = new ByteReader(block.subarray(0, limit));
  let key = new Uint8Array(0);
  while (r.pos < limit) {
    const shared = r.varint();
    const nonShared = r.varint();
    const valueLength = r.varint();
    if (shared > key.length) throw new TableFormatError('bad key prefix');
    const next = new Uint8Array(shared + nonShared);
    next.set(key.subarray(0, shared));
    next.set(r.take(nonShared), shared);
    key = next;
    yield [key, r.take(valueLength)];
  }
}

/** Every entry of the table, in key order. */
export function readTable(file: Uint8Array): Array<[string, Uint8Array]> {
  if (file.length < FOOTER_SIZE) throw new TableFormatError(`file of ${file.length} bytes is shorter than a table footer`);
  const footer = file.subarray(file.length - FOOTER_SIZE);
  const magic = new DataView(footer.buffer, footer.byteOffset + 40, 8).getBigUint64(0, true);
  if (magic !== TABLE_MAGIC) throw new TableFormatError('bad table magic number (not a TensorBundle index?)');
  const fr = new ByteReader(footer);
  readHandle(fr); // metaindex: unused by TF bundles
  const indexHandle = readHandle(fr);
  const decoder = new TextDecoder();
  const entries: Array<[string, Uint8Array]> = [];
  for (const [, handleBytes] of blockEntries(readBlock(file, indexHandle))) {
    const handle = readHandle(new ByteReader(handleBytes));
    for (const [k, v] of blockEntries(readBlock(file, handle))) entries.push([decoder.decode(k), v]);
  }
  return entries;
}
