// IEEE half and bfloat16 bit patterns → float (TF stores both as uint16 bits).
export function halfToFloat(bits: number): number {
  const sign = bits & 0x8000 ? -1 : 1;
  const exp = (bits >> 10) & 0x1f;
  const frac = bits & 0x3ff;
  if (exp === 0) return sign * 2 ** -14 * (frac / 1024);
  if (exp === 0x1f) return frac ? NaN : sign * Infinity;
  return sign * 2 ** (exp - 15) * (1 + frac / 1024);
}

const scratch = new DataView(new ArrayBuffer(4));
export function bfloat16ToFloat(bits: number): number {
  scratch.setUint32(0, (bits & 0xffff) << 16);
  return scratch.getFloat32(0);
}
