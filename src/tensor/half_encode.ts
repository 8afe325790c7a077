// float → IEEE half and bfloat16 bit patterns (the inverse of half.ts), rounding to nearest
// even as TensorFlow's Eigen::half and bfloat16 casts do.
const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

export function floatToHalf(value: number): number {
  f32[0] = value;
  const x = u32[0];
  const sign = (x >>> 16) & 0x8000;
  const exp = (x >>> 23) & 0xff;
  const mant = x & 0x7fffff;
  if (exp === 0xff) return sign | 0x7c00 | (mant ? 0x200 : 0); // Inf / NaN (quiet)
  const e = exp - 127 + 15;
  if (e >= 0x1f) return sign | 0x7c00; // overflow → Inf
  if (e <= 0) {
    if (e < -10) return sign; // underflow → ±0
    // Subnormal: the implicit 1 joins the mantissa, shifted into place, rounded to nearest even.
    const m = mant | 0x800000;
    const shift = 14 - e;
    const half = 1 << (shift - 1);
    const rest = m & ((1 << shift) - 1);
    let bits = m >>> shift;
    if (rest > half || (rest === half && bits & 1)) bits++;
    return sign | bits;
  }
  let bits = (e << 10) | (mant >>> 13);
  const rest = mant & 0x1fff;
  if (rest > 0x1000 || (rest === 0x1000 && bits & 1)) bits++; // a carry into the exponent is still right (up to Inf)
  return sign | bits;
}

export function floatToBfloat16(value: number): number {
  f32[0] = value;
  const x = u32[0];
  if (Number.isNaN(value)) return ((x >>> 16) | 0x40) & 0xffff;
  const rounded = x + 0x7fff + ((x >>> 16) & 1);
  return (rounded >>> 16) & 0xffff;
}
