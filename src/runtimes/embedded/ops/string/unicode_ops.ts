// TensorFlow's UnicodeDecode, UnicodeDecodeWithOffsets, UnicodeEncode and UnicodeTranscode
// (tf.strings.unicode_decode / _with_offsets / unicode_encode / unicode_transcode;
// core/kernels/unicode_ops.cc). Decoding gives a ragged tensor of code points: row_splits
// [strings + 1] over char_values, and each character's first byte (char_to_byte_starts).
// errors: 'replace' puts replacement_char where the input is ill-formed, 'ignore' drops it,
// 'strict' fails the request; replace_control_characters treats U+0000..U+001F as ill-formed.
import tf from '../../../tfjs_packages/tfjs_core.cjs';
import type * as tfconv from '@tensorflow/tfjs-converter';
import { invalidArgument, unimplemented } from '../../../../errors/status.js';
import type { NodeDef } from '../../../../savedmodel/graph/types.js';
import { CodeUnits, DECODABLE_ENCODINGS, decoderFor, OUTPUT_ENCODINGS, type OutputEncoding, type StringDecoder } from './unicode_codec.js';
import { bytesAttr, checkOutputBytes, intElements, nodeBytesAttr, stringElements, stringTensor } from './string_tensors.js';

interface ErrorOptions {
  subst: number;
  elide: boolean;
  strict: boolean;
  replaceControl: boolean;
}

const text = (b: Uint8Array) => new TextDecoder().decode(b);
const INVALID_FORMATTING = 'Invalid formatting on input string';

// The executors check their attrs again: a graph evaluated at load (a table initializer's
// constant subgraph) reaches them without the load-time check of the op table.

function errorOptions(op: string, node: tfconv.GraphNode): ErrorOptions {
  const a = node.attrs as { replacement_char?: number; replace_control_characters?: boolean };
  const policy = text(bytesAttr(node, 'errors', new TextEncoder().encode('replace')));
  const subst = Number(a.replacement_char ?? 0xfffd);
  if (!['strict', 'replace', 'ignore'].includes(policy))
    throw invalidArgument(`${op}: errors policy must be one of 'strict', 'replace', or 'ignore'`);
  if (!(subst >= 0 && subst <= 0x10ffff)) throw invalidArgument(`${op}: replacement_char out of unicode codepoint range`);
  return {
    subst,
    elide: policy === 'ignore',
    strict: policy === 'strict',
    replaceControl: Boolean(a.replace_control_characters),
  };
}

/** TF's GetErrorOptions checks (kernel construction), or null. */
function errorOptionsProblem(node: NodeDef): string | null {
  const policy = node.attr?.errors?.s;
  if (policy && !['strict', 'replace', 'ignore'].includes(text(policy)))
    return "errors policy must be one of 'strict', 'replace', or 'ignore'";
  const subst = Number(node.attr?.replacement_char?.i ?? 0xfffd);
  if (!(subst >= 0 && subst <= 0x10ffff)) return 'replacement_char out of unicode codepoint range';
  return null;
}

function inputEncodingProblem(node: NodeDef): string | null {
  const encoding = text(nodeBytesAttr(node, 'input_encoding'));
  if (decoderFor(encoding)) return null;
  return encodingRefusal(encoding);
}

const encodingRefusal = (encoding: string) =>
  `input_encoding '${encoding}': the embedded runtime decodes ${DECODABLE_ENCODINGS} (TF takes any encoding ICU converts)`;
const isOutputEncoding = (encoding: string): encoding is OutputEncoding => (OUTPUT_ENCODINGS as readonly string[]).includes(encoding);
const outputEncodingRefusal = (encoding: string) => `Invalid encoding "${encoding}": Should be one of: ${OUTPUT_ENCODINGS.join(', ')}`;

function outputEncodingProblem(node: NodeDef): string | null {
  const encoding = text(nodeBytesAttr(node, 'output_encoding'));
  return isOutputEncoding(encoding) ? null : outputEncodingRefusal(encoding);
}

const firstProblem = (...problems: Array<string | null>) => problems.find((p) => p !== null) ?? null;

export const unicodeDecodeNodeProblem = (node: NodeDef) => firstProblem(errorOptionsProblem(node), inputEncodingProblem(node));
export const unicodeEncodeNodeProblem = (node: NodeDef) => firstProblem(outputEncodingProblem(node), errorOptionsProblem(node));
export const unicodeTranscodeNodeProblem = (node: NodeDef) =>
  firstProblem(errorOptionsProblem(node), outputEncodingProblem(node), inputEncodingProblem(node));

/**
 * Each code point of `s` after TF's error handling, with the byte it starts at (a byte-order
 * mark goes with the first character, as ICU reads them in one step).
 */
function* decodedChars(s: Uint8Array, decoder: StringDecoder, options: ErrorOptions): Generator<[codePoint: number, byteStart: number]> {
  let failed = false;
  const { step, skip } = decoder(s);
  let start = 0;
  for (let at = skip; at < s.length; start = at) {
    const [cp, length, error] = step(s, at);
    at += length;
    if (error && options.strict) failed = true;
    if (error || (options.replaceControl && cp <= 0x1f)) {
      if (options.elide) continue;
      yield [options.subst, start];
    } else yield [cp, start];
  }
  if (failed) throw invalidArgument(INVALID_FORMATTING);
}

function decoderOf(op: string, node: tfconv.GraphNode): StringDecoder {
  const encoding = text(bytesAttr(node, 'input_encoding'));
  const decoder = decoderFor(encoding);
  if (!decoder) throw unimplemented(`${op}: ${encodingRefusal(encoding)}`);
  return decoder;
}

function unicodeDecode(node: tfconv.GraphNode, withOffsets: boolean): tf.Tensor[] {
  const op = withOffsets ? 'UnicodeDecodeWithOffsets' : 'UnicodeDecode';
  const input = node.inputs[0];
  const options = errorOptions(op, node);
  const decode = decoderOf(op, node);
  const strings = stringElements(input, 'input');
  const splits = new Int32Array(strings.length + 1);
  const chars: number[] = [];
  const starts: number[] = [];
  strings.forEach((s, i) => {
    for (const [cp, start] of decodedChars(s, decode, options)) {
      chars.push(cp);
      starts.push(start);
    }
    splits[i + 1] = chars.length;
  });
  const out = [tf.tensor(splits, [splits.length], 'int32'), tf.tensor(Int32Array.from(chars), [chars.length], 'int32')];
  if (withOffsets) out.push(tf.tensor(Int32Array.from(starts), [starts.length], 'int32'));
  return out;
}

export const unicodeDecodeOp: tfconv.OpExecutor = (node) => unicodeDecode(node, false);
export const unicodeDecodeWithOffsetsOp: tfconv.OpExecutor = (node) => unicodeDecode(node, true);

function outputEncodingOf(op: string, node: tfconv.GraphNode): OutputEncoding {
  const encoding = text(bytesAttr(node, 'output_encoding'));
  if (!isOutputEncoding(encoding)) throw invalidArgument(`${op}: ${outputEncodingRefusal(encoding)}`);
  return encoding;
}

/** The checks TF added to UnicodeEncode (CVE-2021-37667's fix), with its messages. */
function validateSplits(splits: Int32Array, values: number): void {
  if (splits.length === 0) throw invalidArgument(`Input_splits should contain elements, but given input_values has ${values} elements`);
  const all = () => Array.from(splits).join(' ');
  for (let i = 1; i < splits.length; i++) {
    if (splits[i - 1] > splits[i]) throw invalidArgument(`Values in input_splits must be equal or in ascending order, got \`${all()}\``);
    if (splits[i] > values)
      throw invalidArgument(`Values in input_splits must be less than or equal to input_tensor length, got \`${all()}\``);
  }
}

export const unicodeEncodeOp: tfconv.OpExecutor = (node) => {
  const op = 'UnicodeEncode';
  const [valuesT, splitsT] = node.inputs;
  const options = errorOptions(op, node);
  const encoding = outputEncodingOf(op, node);
  const values = intElements(valuesT);
  const splits = intElements(splitsT);
  validateSplits(splits, values.length);
  checkOutputBytes('UnicodeEncode', 4 * values.length, splits.length);
  const out: Uint8Array[] = [];
  let idx = 0;
  for (let i = 1; i < splits.length; i++) {
    const units = new CodeUnits();
    for (; idx < splits[i]; idx++) {
      let cp = values[idx];
      // Surrogate code points are invalid too (unicode_encode_op_test testStrictErrorsSurrogatePair).
      if (cp > 0x10ffff || cp < 0 || (cp >= 0xd800 && cp <= 0xdfff)) {
        if (options.strict) throw invalidArgument('Code point value out of valid Unicode range.');
        if (options.elide) continue;
        cp = options.subst;
      }
      units.append(cp);
    }
    out.push(units.encode(encoding));
  }
  return [stringTensor(out, [Math.max(0, splits.length - 1)])];
};

export const unicodeTranscodeOp: tfconv.OpExecutor = (node) => {
  const op = 'UnicodeTranscode';
  const input = node.inputs[0];
  const options = errorOptions(op, node);
  const decode = decoderOf(op, node);
  const encoding = outputEncodingOf(op, node);
  // Strict fails after every string is read, as TF's kernel (control characters count as errors).
  const lenient = { ...options, strict: false };
  let failed = false;
  const out = stringElements(input, 'input').map((s) => {
    const units = new CodeUnits();
    const { step, skip } = decode(s);
    for (let at = skip; at < s.length;) {
      const [cp, length, error] = step(s, at);
      at += length;
      if (error || (options.replaceControl && cp <= 0x1f)) {
        failed = true;
        if (!lenient.elide) units.append(lenient.subst);
      } else units.append(cp);
    }
    return units.encode(encoding);
  });
  if (options.strict && failed) throw invalidArgument(INVALID_FORMATTING);
  return [stringTensor(out, input.shape)];
};
