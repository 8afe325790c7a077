// Byte strings joined with a separator between them, as TF's string kernels join (no encoding:
// the bytes are copied as they are).
export function joinBytes(parts: readonly Uint8Array[], separator: Uint8Array): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0) + separator.length * Math.max(0, parts.length - 1));
  let at = 0;
  parts.forEach((p, i) => {
    if (i > 0) {
      out.set(separator, at);
      at += separator.length;
    }
    out.set(p, at);
    at += p.length;
  });
  return out;
}

const NO_SEPARATOR = new Uint8Array(0);

/** Byte strings one after another. */
export const concatBytes = (parts: readonly Uint8Array[]): Uint8Array => joinBytes(parts, NO_SEPARATOR);
