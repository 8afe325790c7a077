// Writes a LevelDB-format table as TF's checkpoint index uses it: uncompressed data blocks
// (~4 KiB, a restart point every 16 keys, as TF's table_options defaults), an index block
// keyed by each block's last key, an empty metaindex block and the 48-byte footer.
import { crc32c, maskCrc } from './crc32c.js';
import { FOOTER_SIZE, TABLE_MAGIC, type BlockHandle } from './sstable_reader.js';
import { putVarint } from './varint.js';

const BLOCK_SIZE = 4096;
const RESTART_INTERVAL = 16;


class BlockBuilder {
  private bytes: number[] = [];
  private restarts: number[] = [0];
  private counter = 0;
  private lastKey: Uint8Array = new Uint8Array(0);
  entries = 0;

  add(key: Uint8Array, value: Uint8Array): void {
    let shared = 0;
    if (this.counter < RESTART_INTERVAL) {
      const max = Math.min(this.lastKey.length, key.length);
      while (shared < max && this.lastKey[shared] === key[shared]) shared++;
    } else {
      this.restarts.push(this.bytes.length);
      this.counter = 0;
    }
    putVarint(this.bytes, shared);
    putVarint(this.bytes, key.length - shared);
    putVarint(this.bytes, value.length);
    for (let i = shared; i < key.length; i++) this.bytes.push(key[i]);
    for (const b of value) this.bytes.push(b);
    this.lastKey = key;
    this.counter++;
    this.entries++;
  }

  estimatedSize(): number {
    return this.bytes.length + 4 * this.restarts.length + 4;
  }

  finish(): Uint8Array {
    const out = new Uint8Array(this.bytes.length + 4 * this.restarts.length + 4);
    out.set(this.bytes);
    const view = new DataView(out.buffer);
    let off = this.bytes.length;
    for (const r of this.restarts) {
      view.setUint32(off, r, true);
      off += 4;
    }
    view.setUint32(off, this.restarts.length, true);
    return out;
  }
}

export function writeTable(entries: Array<[string, Uint8Array]>): Uint8Array {
  const enc = new TextEncoder();
  const chunks: Uint8Array[] = [];
  let size = 0;
  const emit = (contents: Uint8Array): BlockHandle => {
    const handle = { offset: size, size: contents.length };
    const trailer = new Uint8Array(5);
    trailer[0] = 0; // no compression
    const withType = new Uint8Array(contents.length + 1);
    withType.set(contents);
    new DataView(trailer.buffer).setUint32(1, maskCrc(crc32c(withType)), true);
    chunks.push(contents, trailer);
    size += contents.length + 5;
    return handle;
  };
  const handleBytes = (h: BlockHandle) => {
    const b: number[] = [];
    putVarint(b, h.offset);
    putVarint(b, h.size);
    return Uint8Array.from(b);
  };

  const index = new BlockBuilder();
  let block = new BlockBuilder();
  let lastKey: Uint8Array = new Uint8Array(0);
  const flush = () => {
    if (!block.entries) return;
    index.add(lastKey, handleBytes(emit(block.finish())));
    block = new BlockBuilder();
  };
  for (const [k, v] of [...entries].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const key = enc.encode(k);
    block.add(key, v);
    lastKey = key;
    if (block.estimatedSize() >= BLOCK_SIZE) flush();
  }
  flush();
  const metaindex = emit(new BlockBuilder().finish());
  const indexHandle = emit(index.finish());

  const footer = new Uint8Array(FOOTER_SIZE);
  const hb = [...handleBytes(metaindex), ...handleBytes(indexHandle)];
  footer.set(hb);
  new DataView(footer.buffer).setBigUint64(40, TABLE_MAGIC, true);
  chunks.push(footer);
  size += FOOTER_SIZE;

  const out = new Uint8Array(size);
  let off = 0;
  for (const c of chunks) {
    out.set(c, off);
    off += c.length;
  }
  return out;
}
