// TF's StringFormat (tf.strings.format; kernels/string_format_op.cc): the template split at each
// placeholder, each input tensor summarized between the pieces as Tensor::SummarizeValue(
// summarize, print_v2=true) writes it (framework/tensor.cc): brackets per dimension, at most
// `summarize` entries at each end of a dimension with "..." between, rows on new lines indented
// by depth, a blank line between blocks of rank 3 and up; numbers as TF's StrCat prints them
// (a float as "%.6g", or "%.9g" when six digits do not read back to the same float), strings in
// double quotes with absl's Utf8SafeCEscape. The template's pieces are appended as C strings, so
// each ends at its first NUL byte, as TF's kernel leaves them.
import tf from '../../../tfjs_packages/tfjs_core.cjs';
import type * as tfconv from '@tensorflow/tfjs-converter';
import type { NodeDef } from '../../../../savedmodel/graph/types.js';
import { tfDataTypeString } from '../../../../tensor/dtype.js';
import { bytesAttr, checkOutputBytes, nodeBytesAttr, stringElements, stringTensor } from './string_tensors.js';
import { printfNumber } from './printf_format.js';

const encoder = new TextEncoder();
const latin1 = new TextDecoder('latin1');

/** absl::StrSplit by a non-empty byte string. */
function splitBytes(text: Uint8Array, placeholder: Uint8Array): Uint8Array[] {
  const pieces: Uint8Array[] = [];
  let from = 0;
  outer: for (let i = 0; i + placeholder.length <= text.length;) {
    for (let j = 0; j < placeholder.length; j++) {
      if (text[i + j] !== placeholder[j]) {
        i++;
        continue outer;
      }
    }
    pieces.push(text.subarray(from, i));
    i += placeholder.length;
    from = i;
  }
  pieces.push(text.subarray(from));
  return pieces;
}

/** The piece up to its first NUL (the kernel appends split_template_[i].c_str()). */
const cString = (b: Uint8Array) => {
  const nul = b.indexOf(0);
  return latin1.decode(nul < 0 ? b : b.subarray(0, nul));
};

const ESCAPES: Record<number, string> = { 0x0a: '\\n', 0x0d: '\\r', 0x09: '\\t', 0x22: '\\"', 0x27: "\\'", 0x5c: '\\\\' };

/** absl::Utf8SafeCEscape, in double quotes (print_v2), as latin1 text (one char a byte). */
function quoted(b: Uint8Array): string {
  let out = '"';
  for (const c of b) {
    if (ESCAPES[c]) out += ESCAPES[c];
    else if (c < 0x80 && (c < 0x20 || c === 0x7f)) out += `\\${c.toString(8).padStart(3, '0')}`;
    else out += String.fromCharCode(c); // printable ASCII, and every byte >= 0x80 as it is
  }
  return `${out}"`;
}

const G6 = { conversion: 'g', flags: '', width: -1, precision: 6 } as const;
const G9 = { ...G6, precision: 9 } as const;

/** TF's FloatToBuffer: "%.6g", or "%.9g" when that does not read back as the same float. */
function floatText(x: number): string {
  const short = printfNumber(x, G6);
  if (!Number.isFinite(x) || Math.fround(Number(short)) === x) return short;
  return printfNumber(x, G9);
}

/** One element as PrintOneElement(·, print_v2=true) writes it. */
function elementTexts(t: tf.Tensor): (i: number) => string {
  if (t.dtype === 'string') {
    const v = stringElements(t, 'inputs');
    return (i) => quoted(v[i]);
  }
  const v = t.dataSync();
  if (t.dtype === 'float32') return (i) => floatText(v[i]);
  return (i) => String(v[i]);
}

function dimSpacing(dim: number, rank: number): string {
  if (dim === rank - 1) return ' ';
  return '\n'.repeat(rank - dim - 1) + ' '.repeat(dim + 1);
}

/** PrintOneDimV2: dimension `dim` of the block starting at flat index `at`. */
function printDim(out: string[], text: (i: number) => string, shape: readonly number[], ends: number, dim: number, at: number): void {
  if (dim === shape.length) {
    out.push(text(at));
    return;
  }
  out.push('[');
  const count = shape[dim];
  const startOfEnd = Math.max(ends, count - ends);
  let stride = 1;
  for (let d = dim + 1; d < shape.length; d++) stride *= shape[d];
  for (let i = 0; i < ends && i < count; i++) {
    if (i > 0) out.push(dimSpacing(dim, shape.length));
    printDim(out, text, shape, ends, dim + 1, at + stride * i);
  }
  if (count > 2 * ends) out.push(dimSpacing(dim, shape.length), '...');
  for (let i = startOfEnd; i < count; i++) {
    out.push(dimSpacing(dim, shape.length));
    printDim(out, text, shape, ends, dim + 1, at + stride * i);
  }
  out.push(']');
}

/** Tensor::SummarizeValue(summarize, print_v2 = true). */
function summarize(t: tf.Tensor, max: number): string {
  const limit = Math.min(max < 0 ? t.size : max, t.size);
  const text = elementTexts(t);
  if (t.rank === 0) return (limit > 0 ? text(0) : '') + (t.size > limit ? '...' : '');
  const out: string[] = [];
  printDim(out, text, t.shape, limit, 0, 0);
  return out.join('');
}

export const stringFormatOp: tfconv.OpExecutor = (node) => {
  const pieces = splitBytes(bytesAttr(node, 'template', encoder.encode('%s')), bytesAttr(node, 'placeholder', encoder.encode('%s'))).map(
    cString,
  );
  const max = Number(node.attrs.summarize ?? 3);
  // Before building it, a bound on the output: every element printed, a string's bytes escaped
  // (4 each at most) and quoted, a number in at most 24, with brackets, spaces and new lines.
  checkOutputBytes(
    'StringFormat',
    node.inputs.reduce(
      (n, t) =>
        n + t.size * (26 + 2 * t.rank) + (t.dtype === 'string' ? 4 * stringElements(t, 'inputs').reduce((m, b) => m + b.length, 0) : 0),
      0,
    ),
  );
  let msg = pieces[0];
  node.inputs.forEach((t, i) => {
    msg += summarize(t, max) + pieces[i + 1];
  });
  return [stringTensor([Uint8Array.from(msg, (c) => c.charCodeAt(0))], [])];
};

/** The element types printed as TF prints them (int64 within int32: a wider value is refused when fed). */
const PRINTED_TYPES = new Set([
  'DT_FLOAT',
  'DT_HALF',
  'DT_BFLOAT16',
  'DT_INT32',
  'DT_INT64',
  'DT_INT16',
  'DT_INT8',
  'DT_UINT8',
  'DT_UINT16',
  'DT_STRING',
]);

/** Load-time check: TF's kernel-construction message, then what TF.js cannot print as TF does. */
export function stringFormatNodeProblem(node: NodeDef): string | null {
  const placeholder = node.attr?.placeholder?.s ? nodeBytesAttr(node, 'placeholder') : encoder.encode('%s');
  if (!placeholder.length)
    return 'an empty placeholder is not supported by the embedded runtime (absl::StrSplit would split the template into single bytes)';
  const types = node.attr?.T?.list?.type ?? [];
  const placeholders = splitBytes(nodeBytesAttr(node, 'template'), placeholder).length - 1;
  if (placeholders !== types.length) return `num placeholders in template and num inputs must match: ${placeholders} vs. ${types.length}`;
  const other = types.map(String).find((t) => !PRINTED_TYPES.has(t));
  if (other === 'DT_DOUBLE')
    return 'double inputs reach the embedded runtime rounded to float32, so StringFormat would print other digits than TF';
  if (other) return `inputs of type ${tfDataTypeString(other)} are not supported by the embedded runtime's StringFormat`;
  return null;
}
