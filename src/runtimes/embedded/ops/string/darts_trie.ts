// A Darts-clone double-array trie as TF Text walks it (tensorflow_text/core/kernels/
// darts_clone_trie_wrapper.h): unit u of node n holds its edge label (u & 0x800000ff: a leaf
// unit has the top bit set, so no byte matches it), whether it has a value (0x100) and the
// offset to its children ((u >> 10) << ((u & 0x200) >> 6)); the child by byte c is
// n ^ offset ^ c, the value unit n ^ offset. Unlike TF Text's, every index is checked: the
// array comes with the request's model, and a unit past its end matches nothing.
import { ModelFormatError } from './flatbuffer_table.js';

export const ROOT = 0;
/** TF Text's kNullNode (0xFFFFFFFF): no node. */
export const NULL_NODE = 0xffffffff;

const offset = (unit: number): number => ((unit >>> 10) << ((unit & 0x200) >>> 6)) >>> 0;

export class DartsTrie {
  constructor(private readonly units: Uint32Array) {
    if (units.length === 0) throw new ModelFormatError('the trie is empty');
  }

  /** Whether `node` is a node of the array (a failure link read from the model may not be). */
  has(node: number): boolean {
    return node < this.units.length;
  }

  /** The child of `node` by byte `ch`, or -1 (TryTraverseOneStep). */
  step(node: number, ch: number): number {
    const next = (node ^ offset(this.units[node]) ^ ch) >>> 0;
    if (next >= this.units.length || (this.units[next] & 0x800000ff) >>> 0 !== ch) return -1;
    return next;
  }

  /** The node reached from `node` by all of `bytes[from, to)`, or -1 when a step fails (TryTraverseSeveralSteps). */
  steps(node: number, bytes: Uint8Array, from: number, to: number): number {
    let n = node;
    for (let i = from; i < to && n >= 0; i++) n = this.step(n, bytes[i]);
    return n;
  }

  /** The node's value, or -1 when it has none (TryGetData). */
  value(node: number): number {
    const unit = this.units[node];
    if ((unit & 0x100) === 0) return -1;
    const at = (node ^ offset(unit)) >>> 0;
    if (at >= this.units.length) throw new ModelFormatError(`the value of trie node ${node} lies outside the trie`);
    return this.units[at] & 0x7fffffff;
  }
}
