// Writes `<prefix>.index` + `<prefix>.data-00000-of-00001` the way TF's BundleWriter does:
// tensors laid end to end in the data file, each described by a BundleEntryProto (shard 0,
// offset, size, masked crc32c of its bytes) under its key; the header under key "".
import fs from 'node:fs/promises';
import path from 'node:path';
import { protoType } from '../../proto/index.js';
import { dtypeToTf } from '../../tensor/dtype.js';
import type { HostTensor, TensorValues } from '../../tensor/host_tensor.js';
import { crc32c, maskCrc } from './crc32c.js';
import { shardFileName, stringTensorChecksums } from './bundle_format.js';
import { putVarint } from './varint.js';
import { writeTable } from './sstable_writer.js';


/** A tensor's bytes in the data file and its (unmasked) crc32c. */
export function tensorBytes(t: HostTensor): { bytes: Uint8Array; crc: number } {
  if (t.dtype !== 'string') {
    const v = t.values as Exclude<TensorValues, Uint8Array[]>;
    const bytes = new Uint8Array(v.buffer, v.byteOffset, v.byteLength);
    return { bytes, crc: crc32c(bytes) };
  }
  const strings = t.values as Uint8Array[];
  const lengths: number[] = [];
  for (const s of strings) putVarint(lengths, s.length);
  const { lengthChecksum, entryCrc } = stringTensorChecksums(strings);
  const total = lengths.length + 4 + strings.reduce((n, s) => n + s.length, 0);
  const out = new Uint8Array(total);
  out.set(lengths);
  let off = lengths.length;
  new DataView(out.buffer).setUint32(off, lengthChecksum, true);
  off += 4;
  for (const s of strings) {
    out.set(s, off);
    off += s.length;
  }
  return { bytes: out, crc: entryCrc };
}

export async function writeTensorBundle(prefix: string, tensors: Array<[string, HostTensor]>): Promise<void> {
  const headerType = protoType('tensorflow.BundleHeaderProto');
  const entryType = protoType('tensorflow.BundleEntryProto');
  const sorted = [...tensors].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const data: Uint8Array[] = [];
  const entries: Array<[string, Uint8Array]> = [
    ['', headerType.encode(headerType.fromObject({ numShards: 1, endianness: 'LITTLE', version: { producer: 1 } })).finish()],
  ];
  let offset = 0;
  for (const [key, t] of sorted) {
    const { bytes, crc } = tensorBytes(t);
    const entry = entryType.fromObject({
      dtype: dtypeToTf(t.dtype),
      shape: { dim: t.shape.map((size) => ({ size })) },
      shardId: 0,
      offset,
      size: bytes.length,
      crc32c: maskCrc(crc),
    });
    entries.push([key, entryType.encode(entry).finish()]);
    data.push(bytes);
    offset += bytes.length;
  }
  await fs.mkdir(path.dirname(prefix), { recursive: true });
  await fs.writeFile(shardFileName(prefix, 0, 1), Buffer.concat(data));
  await fs.writeFile(`${prefix}.index`, writeTable(entries));
}
