// Walks protobuf wire format by hand, so tests can compare field layouts without a schema.

/** Field number → raw payloads (varints as their bytes' value, length-delimited as bytes). */
export function wireFields(bytes: Uint8Array): Map<number, Uint8Array[]> {
  const out = new Map<number, Uint8Array[]>();
  let p = 0;
  const varint = () => {
    let v = 0;
    let scale = 1;
    for (;;) {
      const b = bytes[p++];
      if (b === undefined) throw new Error('truncated protobuf');
      v += (b & 0x7f) * scale;
      if (!(b & 0x80)) return v;
      scale *= 128;
    }
  };
  while (p < bytes.length) {
    const tag = varint();
    const field = Math.floor(tag / 8);
    const wire = tag & 7;
    let value: Uint8Array = new Uint8Array(0);
    if (wire === 0) varint();
    else if (wire === 1) p += 8;
    else if (wire === 5) p += 4;
    else if (wire === 2) {
      const n = varint();
      value = bytes.subarray(p, p + n);
      p += n;
    } else throw new Error(`wire type ${wire}`);
    out.set(field, [...(out.get(field) ?? []), value]);
  }
  return out;
}
