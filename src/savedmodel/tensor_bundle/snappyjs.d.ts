declare module 'snappyjs' {
  export function uncompress<T extends Uint8Array | ArrayBuffer>(data: T): T;
  export function compress<T extends Uint8Array | ArrayBuffer>(data: T): T;
}
