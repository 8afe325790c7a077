// Comparing what two engines computed: same keys, shapes and values, floats within a
// relative tolerance (absolute below 1, so values near zero are not held to a ratio),
// integers and booleans exactly. NaN equals NaN (both engines saw the same undefined value).
import type { HostTensor } from '../../tensor/host_tensor.js';

/** Float tolerance: |a − b| ≤ TOLERANCE · max(1, |b|). */
const TOLERANCE = 1e-4;

function isFloatTensor(t: HostTensor): boolean {
  return t.dtype === 'float32' || t.dtype === 'float64' || t.dtype === 'float16' || t.dtype === 'bfloat16';
}

const numbers = (t: HostTensor): number[] => Array.from(t.values as ArrayLike<number | bigint>, Number);

/** Why `got` differs from `want` (first differing element), or null when they agree. */
export function tensorDifference(got: HostTensor, want: HostTensor, tolerance = TOLERANCE): string | null {
  if (got.shape.join() !== want.shape.join()) return `shape [${got.shape}] vs [${want.shape}]`;
  if (got.dtype === 'string' || want.dtype === 'string') {
    const a = got.values as Uint8Array[];
    const b = want.values as Uint8Array[];
    const i = a.findIndex((v, k) => Buffer.compare(Buffer.from(v), Buffer.from(b[k])) !== 0);
    return i < 0 ? null : `element ${i} differs`;
  }
  const a = numbers(got);
  const b = numbers(want);
  const float = isFloatTensor(got) || isFloatTensor(want);
  let worst = -1;
  let worstErr = 0;
  let count = 0;
  for (let i = 0; i < b.length; i++) {
    if (Number.isNaN(a[i]) && Number.isNaN(b[i])) continue;
    const err = Math.abs(a[i] - b[i]);
    const bad = float ? !(err <= tolerance * Math.max(1, Math.abs(b[i]))) : a[i] !== b[i];
    if (!bad) continue;
    count++;
    if (worst < 0 || err > worstErr || Number.isNaN(err)) {
      worst = i;
      worstErr = err;
    }
  }
  if (worst < 0) return null;
  return `${count} of ${b.length} elements differ, most at element ${worst}: ${a[worst]} vs ${b[worst]}`;
}

/** The first output key whose tensors differ, with why; null when all agree. */
export function outputsDifference(got: Record<string, HostTensor>, want: Record<string, HostTensor>): string | null {
  for (const key of Object.keys(want)) {
    if (!got[key]) return `output '${key}' missing`;
    const d = tensorDifference(got[key], want[key]);
    if (d) return `output '${key}': ${d}`;
  }
  return null;
}

/**
 * The first tensor, in `primary`'s dependency order, that both traces hold and that differs:
 * where the two engines part ways (later differences may only follow from it).
 */
export function firstDifferingTensor(
  primary: Array<[string, HostTensor]>,
  secondary: Array<[string, HostTensor]>,
): { tensor: string; detail: string } | null {
  const other = new Map(secondary);
  for (const [name, t] of primary) {
    const s = other.get(name);
    if (!s) continue;
    const d = tensorDifference(t, s);
    if (d) return { tensor: name, detail: d };
  }
  return null;
}
