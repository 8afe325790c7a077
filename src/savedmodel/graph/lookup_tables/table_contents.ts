// A lookup table's contents as the init and restore graphs leave them, filled with TF's
// semantics: a HashTable keeps the first value of a key and refuses a different one
// (lookup_table_op.h: "HashTable has different value for same key"); a MutableHashTable's
// import replaces everything (MutableHashTable::ImportValues clears first).
import { failedPrecondition, invalidArgument } from '../../../errors/status.js';
import type { DType } from '../../../tensor/dtype.js';
import { numElements, TYPED_ARRAY, type HostTensor } from '../../../tensor/host_tensor.js';

type Scalar = Uint8Array | number | bigint;

const latin1 = new TextDecoder('latin1');
const utf8 = new TextDecoder();
/** A Map key equal for equal TF values (strings compared as bytes). */
const mapKey = (v: Scalar): string | number | bigint => (v instanceof Uint8Array ? latin1.decode(v) : v);
const shown = (v: Scalar): string => (v instanceof Uint8Array ? utf8.decode(v) : String(v));
const sameValue = (a: Scalar[], b: Scalar[]) => a.length === b.length && a.every((x, i) => mapKey(x) === mapKey(b[i]));

export function elementsOf(t: HostTensor): Scalar[] {
  return Array.from(t.values as ArrayLike<Scalar>);
}

export function tensorOf(dtype: DType, shape: number[], elements: Scalar[]): HostTensor {
  if (dtype === 'string') return { dtype, shape, values: elements as Uint8Array[] };
  const Ctor = TYPED_ARRAY[dtype] as { from(a: ArrayLike<unknown>): HostTensor['values'] };
  return { dtype, shape, values: Ctor.from(elements) };
}

export interface TableInfo {
  /** The table node's name, as the graphs name it. */
  name: string;
  op: string;
  keyDtype: DType;
  valueDtype: DType;
  /** Trailing shape of one value ([] but for MutableHashTableOfTensors). */
  valueShape: number[];
  mutable: boolean;
}

export class TableContents {
  private readonly index = new Map<string | number | bigint, number>();
  private keys: Scalar[] = [];
  private values: Scalar[][] = [];
  /** Init ops that filled it, for messages and to apply each only once. */
  readonly filledBy: string[] = [];

  constructor(readonly info: TableInfo) {}

  get size(): number {
    return this.keys.length;
  }

  /** Inserts `keys` (any shape) with `values` (keys' shape + value shape). */
  insert(keys: HostTensor, values: HostTensor, by: string): void {
    const { info } = this;
    if (keys.dtype !== info.keyDtype || values.dtype !== info.valueDtype) {
      throw invalidArgument(
        `Conflicting key/value dtypes ${keys.dtype}->${values.dtype} with ${info.keyDtype}-${info.valueDtype} for table ${info.name} (${by})`,
      );
    }
    const width = numElements(info.valueShape);
    const k = elementsOf(keys);
    const v = elementsOf(values);
    if (v.length !== k.length * width) {
      throw invalidArgument(
        `${by}: ${k.length} keys and ${v.length} values for table ${info.name}, whose values have shape [${info.valueShape}]`,
      );
    }
    if (info.mutable) {
      this.index.clear();
      this.keys = [];
      this.values = [];
    }
    for (let i = 0; i < k.length; i++) {
      const value = v.slice(i * width, (i + 1) * width);
      const at = this.index.get(mapKey(k[i]));
      if (at === undefined) {
        this.index.set(mapKey(k[i]), this.keys.length);
        this.keys.push(k[i]);
        this.values.push(value);
      } else if (info.mutable) {
        this.values[at] = value;
      } else if (!sameValue(this.values[at], value)) {
        throw failedPrecondition(
          `HashTable has different value for same key. Key ${shown(k[i])} has ${this.values[at].map(shown).join(',')} and trying to add value ${value.map(shown).join(',')}`,
        );
      }
    }
    this.filledBy.push(by);
  }

  keyTensor(): HostTensor {
    return tensorOf(this.info.keyDtype, [this.keys.length], this.keys);
  }

  valueTensor(): HostTensor {
    return tensorOf(this.info.valueDtype, [this.keys.length, ...this.info.valueShape], this.values.flat());
  }
}
