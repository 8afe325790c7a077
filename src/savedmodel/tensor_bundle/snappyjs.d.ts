// snappyjs ships no type declarations; only the two functions tfgate uses are declared.
declare module 'snappyjs' {
  /** Decompresses a raw Snappy block; throws on a malformed stream or when longer than maxLength. */
  export function uncompress<T extends Uint8Array | ArrayBuffer>(compressed: T, maxLength?: number): T;
  export function compress<T extends Uint8Array | ArrayBuffer>(uncompressed: T): T;
  const snappy: { uncompress: typeof uncompress; compress: typeof compress };
  export default snappy;
}
