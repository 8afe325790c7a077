// Reads a LevelDB-format table held in memory (TF's checkpoint index `variables.index`).
// Every block's trailer CRC is verified (TF's ReadBlock always does), Snappy blocks are
// decompressed with snappyjs, and the block/index structure is checked so that a corrupt
// file fails loudly instead of yielding wrong entries. Errors are FormatError without a
// file name; the bundle reader adds it.
import snappy from 'snappyjs';
import { ByteReader, FormatError, compareBytes, readFixed32 } from './coding.js';
import { crc32c, unmaskCrc } from './crc32c.js';
import { parseBlock, type BlockEntry } from './block.js';
import {
  BLOCK_TRAILER_SIZE,
  CompressionType,
  FOOTER_SIZE,
  MAX_HANDLES_SIZE,
  TABLE_MAGIC,
  decodeBlockHandle,
  type BlockHandle,
} from './sstable_format.js';

export interface TableFooter {
  metaindex: BlockHandle;
  index: BlockHandle;
  magic: bigint;
}

export interface TableBlockInfo {
  kind: 'data' | 'metaindex' | 'index';
  handle: BlockHandle;
  /** Trailer type byte: 0 none, 1 Snappy. */
  compression: number;
  /** Stored (masked) crc32c from the trailer. */
  maskedCrc: number;
  /** Restart-point count of the (decompressed) block. */
  numRestarts: number;
  numEntries: number;
}

/** Block contents after the trailer check and decompression. */
function readBlock(file: Uint8Array, handle: BlockHandle, what: string): { contents: Uint8Array; compression: number; maskedCrc: number } {
  const end = handle.offset + handle.size;
  if (!Number.isSafeInteger(end) || end + BLOCK_TRAILER_SIZE > file.length - FOOTER_SIZE) {
    throw new FormatError(`${what} at offset ${handle.offset} (${handle.size} bytes) runs past the end of the table`);
  }
  const type = file[end];
  const maskedCrc = readFixed32(file, end + 1);
  const actual = crc32c(file.subarray(handle.offset, end + 1));
  if (unmaskCrc(maskedCrc) !== actual) throw new FormatError(`${what} at offset ${handle.offset}: block checksum mismatch`);
  const raw = file.subarray(handle.offset, end);
  switch (type) {
    case CompressionType.None:
      return { contents: raw, compression: type, maskedCrc };
    case CompressionType.Snappy:
      try {
        return { contents: snappy.uncompress(raw.slice()), compression: type, maskedCrc };
      } catch (e) {
        throw new FormatError(`${what} at offset ${handle.offset}: corrupted compressed block contents (${(e as Error).message})`);
      }
    default:
      throw new FormatError(`${what} at offset ${handle.offset}: bad block type ${type}`);
  }
}

function readFooter(file: Uint8Array): TableFooter {
  if (file.length < FOOTER_SIZE) throw new FormatError(`file of ${file.length} bytes is too short to be an sstable`);
  const footer = file.subarray(file.length - FOOTER_SIZE);
  const magic = new DataView(footer.buffer, footer.byteOffset + MAX_HANDLES_SIZE, 8).getBigUint64(0, true);
  if (magic !== TABLE_MAGIC) throw new FormatError('not an sstable (bad magic number)');
  const r = new ByteReader(footer, 0, MAX_HANDLES_SIZE);
  return { metaindex: decodeBlockHandle(r), index: decodeBlockHandle(r), magic };
}

/** A parsed, fully validated table. */
export class SSTable {
  private constructor(
    readonly footer: TableFooter,
    readonly blocks: TableBlockInfo[],
    readonly indexEntries: Array<{ key: Uint8Array; handle: BlockHandle }>,
    readonly metaindexEntries: BlockEntry[],
    private readonly all: BlockEntry[],
  ) {}

  static open(file: Uint8Array): SSTable {
    const footer = readFooter(file);
    const blocks: TableBlockInfo[] = [];
    const load = (kind: TableBlockInfo['kind'], handle: BlockHandle) => {
      const { contents, compression, maskedCrc } = readBlock(file, handle, `${kind} block`);
      let parsed;
      try {
        parsed = parseBlock(contents);
      } catch (e) {
        throw new FormatError(`${kind} block at offset ${handle.offset}: ${(e as Error).message}`);
      }
      blocks.push({ kind, handle, compression, maskedCrc, numRestarts: parsed.restarts.length, numEntries: parsed.entries.length });
      return parsed.entries;
    };
    const metaindexEntries = load('metaindex', footer.metaindex);
    const indexEntries = load('index', footer.index).map(({ key, value }) => {
      const r = new ByteReader(value);
      const handle = decodeBlockHandle(r);
      if (r.remaining !== 0) throw new FormatError('index entry has trailing bytes after its block handle');
      return { key, handle };
    });
    const all: BlockEntry[] = [];
    let prevIndexKey: Uint8Array | undefined;
    for (const { key: indexKey, handle } of indexEntries) {
      const entries = load('data', handle);
      for (const e of entries) {
        // Index key i is ≥ every key of block i and < every key of block i+1.
        if (compareBytes(e.key, indexKey) > 0)
          throw new FormatError(`data block at offset ${handle.offset} holds a key beyond its index key`);
        if (prevIndexKey && compareBytes(e.key, prevIndexKey) <= 0)
          throw new FormatError(`data block at offset ${handle.offset} holds a key out of order`);
        all.push(e);
      }
      prevIndexKey = indexKey;
    }
    blocks.sort((a, b) => a.handle.offset - b.handle.offset);
    return new SSTable(footer, blocks, indexEntries, metaindexEntries, all);
  }

  /** Every key/value pair in key order. */
  entries(): readonly BlockEntry[] {
    return this.all;
  }

  get(key: Uint8Array): Uint8Array | undefined {
    let lo = 0;
    let hi = this.all.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const c = compareBytes(this.all[mid].key, key);
      if (c === 0) return this.all[mid].value;
      if (c < 0) lo = mid + 1;
      else hi = mid - 1;
    }
    return undefined;
  }
}

const utf8 = new TextDecoder();

/** Every entry of the table in key order, keys decoded as UTF-8. */
export function readTable(file: Uint8Array): Array<[string, Uint8Array]> {
  return SSTable.open(file)
    .entries()
    .map(({ key, value }) => [utf8.decode(key), value]);
}
