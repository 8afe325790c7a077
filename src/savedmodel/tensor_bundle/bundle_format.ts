// Facts of the TensorBundle format shared by its reader and writer.
import { crc32c, maskCrc } from './crc32c.js';

/** `<prefix>.data-00000-of-00001` */
export function shardFileName(prefix: string, shard: number, numShards: number): string {
  const pad = (n: number) => String(n).padStart(5, '0');
  return `${prefix}.data-${pad(shard)}-of-${pad(numShards)}`;
}


/**
 * TF's string-tensor checksums: lengths are stored as varints, but summed as little-endian
 * uint32s (uint64 past 4 GiB); the stored length checksum is the masked CRC of those; the
 * entry's crc32c goes on over the 4 stored checksum bytes and then the string bytes.
 */
export function stringTensorChecksums(strings: Uint8Array[]): { lengthChecksum: number; entryCrc: number } {
  let crc = 0;
  const word = new DataView(new ArrayBuffer(8));
  for (const s of strings) {
    if (s.length <= 0xffffffff) {
      word.setUint32(0, s.length, true);
      crc = crc32c(new Uint8Array(word.buffer, 0, 4), crc);
    } else {
      word.setBigUint64(0, BigInt(s.length), true);
      crc = crc32c(new Uint8Array(word.buffer, 0, 8), crc);
    }
  }
  const lengthChecksum = maskCrc(crc);
  word.setUint32(0, lengthChecksum, true);
  crc = crc32c(new Uint8Array(word.buffer, 0, 4), crc);
  for (const s of strings) crc = crc32c(s, crc);
  return { lengthChecksum, entryCrc: crc };
}

