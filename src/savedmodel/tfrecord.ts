// TFRecord framing (tensorflow/core/lib/io/record_writer.cc): each record is
//   uint64 length (little-endian) · uint32 masked crc32c(length bytes) · data · uint32 masked crc32c(data)
// Both checksums are verified on read; a damaged or truncated file is DATA_LOSS naming the
// file and the record.
import { dataLoss } from '../errors/status.js';
import { crc32c, maskCrc } from './tensor_bundle/crc32c.js';

export function readTfRecords(bytes: Uint8Array, file: string, maxRecords = Infinity): Uint8Array[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const records: Uint8Array[] = [];
  let off = 0;
  while (off < bytes.length) {
    const n = records.length;
    if (n >= maxRecords) break;
    if (off + 12 > bytes.length) throw dataLoss(`${file}: record ${n} is truncated (its 12-byte header is cut short)`);
    const length = view.getBigUint64(off, true);
    if (view.getUint32(off + 8, true) !== maskCrc(crc32c(bytes.subarray(off, off + 8))))
      throw dataLoss(`${file}: record ${n}: corrupted record length (checksum mismatch)`);
    const start = off + 12;
    const end = start + Number(length);
    if (length > BigInt(bytes.length) || end + 4 > bytes.length)
      throw dataLoss(`${file}: record ${n} is truncated (${length} bytes of data announced)`);
    const data = bytes.subarray(start, end);
    if (view.getUint32(end, true) !== maskCrc(crc32c(data)))
      throw dataLoss(`${file}: record ${n}: corrupted record data (checksum mismatch)`);
    records.push(data);
    off = end + 4;
  }
  return records;
}

export function writeTfRecords(records: Uint8Array[]): Uint8Array {
  const total = records.reduce((s, r) => s + 16 + r.length, 0);
  const out = new Uint8Array(total);
  const view = new DataView(out.buffer);
  let off = 0;
  for (const r of records) {
    view.setBigUint64(off, BigInt(r.length), true);
    view.setUint32(off + 8, maskCrc(crc32c(out.subarray(off, off + 8))), true);
    out.set(r, off + 12);
    view.setUint32(off + 12 + r.length, maskCrc(crc32c(r)), true);
    off += 16 + r.length;
  }
  return out;
}
