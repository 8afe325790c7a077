// Writes a LevelDB-format table the way TF's table::TableBuilder does
// (tensorflow/core/lib/io/table_builder.cc):
// * a data block is cut when its size estimate reaches block_size (262144 by default), or
//   before an entry of at least 2 × block_size;
// * the index entry for a block is written once the next key is known, under the shortest
//   separator between the block's last key and that next key (the last block: the shortest
//   successor of its last key); the index block has a restart point at every entry;
// * an empty metaindex block, the index block, then the footer;
// * Snappy is used only when it saves at least 1/8 of the block (TF's rule); the bundle
//   writer, like TF's BundleWriter, writes uncompressed tables.
import snappy from 'snappyjs';
import { ByteSink, compareBytes } from '../../../src/savedmodel/tensor_bundle/coding.js';
import { crc32c, maskCrc } from '../../../src/savedmodel/tensor_bundle/crc32c.js';
import { BlockBuilder } from './block_builder.js';
import {
  CompressionType,
  DEFAULT_BLOCK_SIZE,
  DEFAULT_RESTART_INTERVAL,
  FOOTER_SIZE,
  MAX_HANDLES_SIZE,
  TABLE_MAGIC,
  encodeBlockHandle,
  type BlockHandle,
} from '../../../src/savedmodel/tensor_bundle/sstable_format.js';

export interface TableOptions {
  /** Approximate uncompressed bytes per data block (TF default 262144). */
  blockSize?: number;
  /** Keys between restart points in data blocks (TF default 16). */
  blockRestartInterval?: number;
  /** TF's table default is Snappy; BundleWriter uses none. */
  compression?: 'none' | 'snappy';
}

/** table_builder.cc FindShortestSeparator: a short key in [start, limit). */
function shortestSeparator(start: Uint8Array, limit: Uint8Array): Uint8Array {
  const min = Math.min(start.length, limit.length);
  let i = 0;
  while (i < min && start[i] === limit[i]) i++;
  if (i >= min) return start; // one is a prefix of the other
  const b = start[i];
  if (b < 0xff && b + 1 < limit[i]) {
    const out = start.slice(0, i + 1);
    out[i] = b + 1;
    return out;
  }
  return start;
}

/** table_builder.cc FindShortSuccessor: a short key ≥ key. */
function shortSuccessor(key: Uint8Array): Uint8Array {
  for (let i = 0; i < key.length; i++) {
    if (key[i] !== 0xff) {
      const out = key.slice(0, i + 1);
      out[i] = key[i] + 1;
      return out;
    }
  }
  return key;
}

export class TableBuilder {
  private readonly blockSize: number;
  private readonly compression: CompressionType;
  private readonly dataBlock: BlockBuilder;
  private readonly indexBlock = new BlockBuilder(1);
  private readonly out = new ByteSink(4096);
  private lastKey: Uint8Array = new Uint8Array(0);
  private pendingHandle: BlockHandle | undefined;
  private closed = false;
  numEntries = 0;

  constructor(private readonly options: TableOptions = {}) {
    this.blockSize = options.blockSize ?? DEFAULT_BLOCK_SIZE;
    this.compression = options.compression === 'snappy' ? CompressionType.Snappy : CompressionType.None;
    this.dataBlock = new BlockBuilder(options.blockRestartInterval ?? DEFAULT_RESTART_INTERVAL);
  }

  /** REQUIRES: key is after every key added so far (bytewise). */
  add(key: Uint8Array, value: Uint8Array): void {
    if (this.closed) throw new Error('TableBuilder.add after finish');
    if (this.numEntries > 0) {
      if (compareBytes(key, this.lastKey) <= 0) throw new RangeError('table keys must be added in strictly increasing order');
      if (key.length + value.length >= 2 * this.blockSize) this.flush();
    }
    if (this.pendingHandle) {
      this.indexBlock.add(shortestSeparator(this.lastKey, key), encodeBlockHandle(this.pendingHandle).finish());
      this.pendingHandle = undefined;
    }
    this.lastKey = key.slice();
    this.numEntries++;
    this.dataBlock.add(key, value);
    if (this.dataBlock.currentSizeEstimate() >= this.blockSize) this.flush();
  }

  private flush(): void {
    if (this.dataBlock.empty) return;
    this.pendingHandle = this.writeBlock(this.dataBlock);
  }

  private writeBlock(block: BlockBuilder): BlockHandle {
    const raw = block.finish();
    let contents = raw;
    let type = CompressionType.None;
    if (this.compression === CompressionType.Snappy) {
      const compressed = snappy.compress(raw);
      if (compressed.length < raw.length - Math.floor(raw.length / 8)) {
        contents = compressed;
        type = CompressionType.Snappy;
      }
    }
    block.reset();
    return this.writeRawBlock(contents, type);
  }

  private writeRawBlock(contents: Uint8Array, type: CompressionType): BlockHandle {
    const handle = { offset: this.out.length, size: contents.length };
    this.out.bytes(contents).byte(type);
    const crc = crc32c(Uint8Array.of(type), crc32c(contents));
    this.out.fixed32(maskCrc(crc));
    return handle;
  }

  finish(): Uint8Array {
    this.flush();
    this.closed = true;
    const metaindex = this.writeBlock(new BlockBuilder(this.options.blockRestartInterval ?? DEFAULT_RESTART_INTERVAL));
    if (this.pendingHandle) {
      this.indexBlock.add(shortSuccessor(this.lastKey), encodeBlockHandle(this.pendingHandle).finish());
      this.pendingHandle = undefined;
    }
    const index = this.writeBlock(this.indexBlock);
    const handles = encodeBlockHandle(index, encodeBlockHandle(metaindex)).finish();
    const footer = new Uint8Array(FOOTER_SIZE);
    footer.set(handles);
    new DataView(footer.buffer).setBigUint64(MAX_HANDLES_SIZE, TABLE_MAGIC, true);
    this.out.bytes(footer);
    return this.out.finish();
  }
}

const utf8 = new TextEncoder();

/** A table of the given entries, sorted bytewise by key; duplicate keys are an error. */
export function writeTable(entries: Iterable<[string | Uint8Array, Uint8Array]>, options: TableOptions = {}): Uint8Array {
  const sorted = [...entries]
    .map(([k, v]) => [typeof k === 'string' ? utf8.encode(k) : k, v] as const)
    .sort(([a], [b]) => compareBytes(a, b));
  const builder = new TableBuilder(options);
  for (let i = 0; i < sorted.length; i++) {
    if (i > 0 && compareBytes(sorted[i - 1][0], sorted[i][0]) === 0)
      throw new RangeError(`duplicate table key ${JSON.stringify(new TextDecoder().decode(sorted[i][0]))}`);
    builder.add(sorted[i][0], sorted[i][1]);
  }
  return builder.finish();
}
