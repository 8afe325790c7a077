// TensorFlow's AsString (tf.strings.as_string; core/kernels/as_string_op.cc), which Keras
// Hashing and StringLookup apply to integer features. TF builds one printf format from the
// attributes, "%" + (width > -1 ? fill + width : "") + (precision > -1 ? "." + precision : "")
// + d / f (default) / e (scientific) / g (shortest), so `fill` is a printf flag: '0' pads
// with zeros, '-' left-justifies, '+' and ' ' sign positive numbers. Bools print as "true" /
// "false". tf.strings.as_string's tests compare with Python's "%03.10g" % x and the like.
// Refused at load: fills that are no printf flag (TF would print a garbled format), complex
// and string inputs, and float64, which reaches TF.js rounded to float32 and would print
// other digits.
import type * as tfconv from '@tensorflow/tfjs-converter';
import type { NodeDef } from '../../../../savedmodel/graph/types.js';
import { tfDataTypeString } from '../../../../tensor/dtype.js';
import { printfNumber, type PrintfSpec } from './printf_format.js';
import { bytesAttr, escapeBytes, nodeBytesAttr, nodeTypeAttr, stringTensor } from './string_tensors.js';

const FLOAT_TYPES = new Set(['DT_FLOAT', 'DT_HALF', 'DT_BFLOAT16', 'DT_DOUBLE', 'DT_COMPLEX64', 'DT_COMPLEX128']);
const COMPUTED_TYPES = new Set([
  'DT_FLOAT',
  'DT_HALF',
  'DT_BFLOAT16',
  'DT_INT8',
  'DT_INT16',
  'DT_INT32',
  'DT_INT64',
  'DT_UINT8',
  'DT_UINT16',
  'DT_UINT64',
  'DT_BOOL',
]);
const PRINTF_FLAGS = '-+ 0#';

interface AsStringAttrs {
  precision: number;
  scientific: boolean;
  shortest: boolean;
  width: number;
  fill: string;
}

/** The printf conversion TF's format string ends up as, for an integer or a float input. */
function printfSpec(attrs: AsStringAttrs, isFloat: boolean): PrintfSpec {
  const conversion = !isFloat ? 'd' : attrs.shortest ? 'g' : attrs.scientific ? 'e' : 'f';
  const withWidth = attrs.width > -1;
  return { conversion, flags: withWidth ? attrs.fill : '', width: withWidth ? attrs.width : -1, precision: attrs.precision };
}

const utf8 = new TextDecoder();

export const asStringOp: tfconv.OpExecutor = (node) => {
  const x = node.inputs[0];
  const a = node.attrs as { precision?: number; scientific?: boolean; shortest?: boolean; width?: number };
  const attrs: AsStringAttrs = {
    precision: a.precision ?? -1,
    scientific: a.scientific ?? false,
    shortest: a.shortest ?? false,
    width: a.width ?? -1,
    fill: utf8.decode(bytesAttr(node, 'fill')),
  };
  const enc = new TextEncoder();
  const values = x.dataSync();
  let out: Uint8Array[];
  if (x.dtype === 'bool') out = Array.from(values, (v) => enc.encode(v ? 'true' : 'false'));
  else if (x.dtype === 'float32') {
    // The sign of a NaN from its float32 bits: glibc prints "-nan" for it.
    const f32 = values as Float32Array;
    const bits = new Uint32Array(f32.buffer, f32.byteOffset, f32.length);
    const spec = printfSpec(attrs, true);
    out = Array.from(f32, (v, i) => enc.encode(printfNumber(v, spec, bits[i] >>> 31 === 1)));
  } else {
    const spec = printfSpec(attrs, false);
    out = Array.from(values as Int32Array, (v) => enc.encode(printfNumber(v, spec)));
  }
  return [stringTensor(out, x.shape)];
};

/** Load-time check: TF's kernel-construction messages, then what TF.js cannot print as TF does. */
export function asStringNodeProblem(node: NodeDef): string | null {
  const a = node.attr ?? {};
  const type = nodeTypeAttr(a.T);
  const precision = Number(a.precision?.i ?? -1);
  const width = Number(a.width?.i ?? -1);
  const scientific = a.scientific?.b ?? false;
  const shortest = a.shortest?.b ?? false;
  const fill = nodeBytesAttr(node, 'fill');
  if (!FLOAT_TYPES.has(type)) {
    if (scientific || shortest) return `scientific and shortest format not supported for datatype ${tfDataTypeString(type)}`;
    if (precision >= 0) return `precision not supported for datatype ${tfDataTypeString(type)}`;
  }
  if (fill.length > 1) return 'Fill string must be one or fewer characters';
  if (scientific && shortest) return 'Cannot select both scientific and shortest notation';
  if (type === 'DT_DOUBLE')
    return 'double inputs reach the embedded runtime rounded to float32, so AsString would print other digits than TF';
  if (!COMPUTED_TYPES.has(type)) return `inputs of type ${tfDataTypeString(type)} are not supported by the embedded runtime's AsString`;
  if (width > -1 && fill.length === 1 && !PRINTF_FLAGS.includes(String.fromCharCode(fill[0]))) {
    return `fill '${escapeBytes(fill)}' is not a printf flag (TF would print with the format "%${escapeBytes(fill)}${width}…")`;
  }
  return null;
}
