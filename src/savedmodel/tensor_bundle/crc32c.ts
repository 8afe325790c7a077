// CRC32C (Castagnoli, reflected polynomial 0x82F63B78) and the masking LevelDB tables and
// TF tensor bundles apply to stored CRCs (tensorflow/core/lib/hash/crc32c.h: Mask/Unmask).
//
// Hand-written (slicing-by-8 over eight 256-entry tables) because no maintained pure-JS
// crc32c package is among the installed dependencies.

const POLY = 0x82f63b78;

/** TABLES[k][b]: CRC contribution of byte b followed by k zero bytes. */
const TABLES: Uint32Array[] = (() => {
  const t0 = new Uint32Array(256);
  for (let i = 0; i < 256; i++) {
    let c = i;
    for (let k = 0; k < 8; k++) c = c & 1 ? POLY ^ (c >>> 1) : c >>> 1;
    t0[i] = c >>> 0;
  }
  const tables = [t0];
  for (let k = 1; k < 8; k++) {
    const prev = tables[k - 1];
    const t = new Uint32Array(256);
    for (let i = 0; i < 256; i++) t[i] = (prev[i] >>> 8) ^ t0[prev[i] & 0xff];
    tables.push(t);
  }
  return tables;
})();

/**
 * crc32c of `data`, continuing from `initial` (the CRC of the bytes before it), like TF's
 * crc32c::Extend(initial, data, n); crc32c(data) is crc32c::Value.
 */
export function crc32c(data: Uint8Array, initial = 0): number {
  const [t0, t1, t2, t3, t4, t5, t6, t7] = TABLES;
  let c = ~initial >>> 0;
  let i = 0;
  const n = data.length;
  for (; i + 8 <= n; i += 8) {
    const lo = (c ^ (data[i] | (data[i + 1] << 8) | (data[i + 2] << 16) | (data[i + 3] << 24))) >>> 0;
    c =
      t7[lo & 0xff] ^
      t6[(lo >>> 8) & 0xff] ^
      t5[(lo >>> 16) & 0xff] ^
      t4[lo >>> 24] ^
      t3[data[i + 4]] ^
      t2[data[i + 5]] ^
      t1[data[i + 6]] ^
      t0[data[i + 7]];
  }
  for (; i < n; i++) c = t0[(c ^ data[i]) & 0xff] ^ (c >>> 8);
  return ~c >>> 0;
}

const MASK_DELTA = 0xa282ead8;

/**
 * The stored form of a CRC: rotated right by 15 bits plus a constant, because computing
 * the CRC of data that contains embedded CRCs is problematic.
 */
export function maskCrc(crc: number): number {
  return ((((crc >>> 15) | (crc << 17)) >>> 0) + MASK_DELTA) >>> 0;
}

export function unmaskCrc(masked: number): number {
  const rot = (masked - MASK_DELTA) >>> 0;
  return ((rot >>> 17) | (rot << 15)) >>> 0;
}
