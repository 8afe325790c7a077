// LevelDB/protobuf varints (little-endian base-128), as the table and bundle formats write them.
export function putVarint(out: number[], v: number): void {
  while (v >= 0x80) {
    out.push((v % 0x80) | 0x80);
    v = Math.floor(v / 0x80);
  }
  out.push(v);
}
