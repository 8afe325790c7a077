// What the string ops share: a TF.js string tensor's elements as bytes (tfjs-core stores each
// as a Uint8Array, so bytes that are not UTF-8 survive as long as nobody decodes them), and string attributes as bytes.
// tfjs-converter's own attribute parsing lowercases strings (parseStringParam), so a custom
// op that needs an attribute's exact bytes (a separator, a fill character) reads the raw
// AttrValue instead.
import tf from '../../../tfjs_packages/tfjs_core.cjs';
import type * as tfconv from '@tensorflow/tfjs-converter';
import { Code, ServingError, invalidArgument } from '../../../../errors/status.js';
import type { AttrValue, NodeDef } from '../../../../savedmodel/graph/types.js';

/** The elements' bytes. (dataSync() would decode them as UTF-8 into JS strings.) */
export function stringElements(t: tf.Tensor, what: string): Uint8Array[] {
  if (t.dtype !== 'string') throw invalidArgument(`${what} must be a string tensor, got ${t.dtype}`);
  return tf.engine().readSync(t.dataId) as unknown as Uint8Array[];
}

export function stringTensor(values: Uint8Array[], shape: readonly number[]): tf.Tensor {
  return tf.tensor(values as unknown as string[], [...shape], 'string');
}

/** The raw AttrValue of an executing node (base64 `s` in the GraphModel's JSON form). */
function rawAttr(node: tfconv.GraphNode, name: string): { s?: string | Uint8Array | number[] } | undefined {
  const inner = (node as unknown as { node?: { rawAttrs?: Record<string, { s?: string | Uint8Array | number[] }> } }).node;
  return inner?.rawAttrs?.[name];
}

/** A string attribute's exact bytes at run time, or `fallback` when the node has none. */
export function bytesAttr(node: tfconv.GraphNode, name: string, fallback = new Uint8Array(0)): Uint8Array {
  const s = rawAttr(node, name)?.s;
  if (s == null) return fallback;
  if (typeof s === 'string') return new Uint8Array(Buffer.from(s, 'base64'));
  return Uint8Array.from(s);
}

/** A string attribute's bytes at load time. */
export const nodeBytesAttr = (node: NodeDef, name: string): Uint8Array => node.attr?.[name]?.s ?? new Uint8Array(0);

/** A TF type attribute's name (DT_FLOAT …) at load time; protobufjs gives enum names. */
export const nodeTypeAttr = (a: AttrValue | undefined): string => String(a?.type ?? '');

/** Bytes shown in a message: printable ASCII as is, any other byte as \xNN. */
export function escapeBytes(b: Uint8Array): string {
  let out = '';
  for (const c of b) out += c >= 0x20 && c < 0x7f ? String.fromCharCode(c) : `\\x${c.toString(16).padStart(2, '0')}`;
  return out;
}

/** An integer tensor's elements (TF.js holds int64 as int32). */
export const intElements = (t: tf.Tensor): Int32Array =>
  t.dtype === 'int32' ? (t.dataSync() as Int32Array) : Int32Array.from(t.dataSync());

/**
 * The most bytes one string op may produce for one request (its output's bytes plus 16 per
 * element): what a request can make an op allocate (n-grams of long tokens, a rewrite
 * repeated at every empty match) is checked against it before the allocation.
 */
export const STRING_OUTPUT_LIMIT_BYTES = 256 * 1024 * 1024;

/** Fails the request when an op's output would pass STRING_OUTPUT_LIMIT_BYTES. */
export function checkOutputBytes(op: string, bytes: number, elements = 0): void {
  const total = bytes + 16 * elements;
  if (total > STRING_OUTPUT_LIMIT_BYTES) {
    throw new ServingError(
      Code.RESOURCE_EXHAUSTED,
      `${op}: the output would take ${total} bytes, more than the embedded runtime's limit of ${STRING_OUTPUT_LIMIT_BYTES} bytes for one string op`,
    );
  }
}

/** A shape as TF's TensorShape::DebugString writes it: [2,3]. */
export const shapeString = (shape: readonly number[]): string => `[${shape.join(',')}]`;
