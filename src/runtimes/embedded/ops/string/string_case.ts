// TensorFlow's StringLower and StringUpper (core/kernels/string_{lower,upper}_op.cc), which
// Keras TextVectorization's default standardization starts with. With encoding '' only the
// ASCII letters of the bytes change (absl::AsciiStrToLower), every other byte is kept. With
// 'utf-8' TF maps the text with ICU's full Unicode case mapping (UnicodeString::toLower /
// toUpper): JavaScript's toLowerCase / toUpperCase is the same locale-independent mapping
// ('ß' upper-cases to 'SS', a word-final 'Σ' lower-cases to 'ς'). Like TF, which builds the
// UnicodeString from c_str(), the text ends at the first NUL byte; bytes that are not UTF-8
// become U+FFFD.
import type * as tfconv from '@tensorflow/tfjs-converter';
import type { NodeDef } from '../../../../savedmodel/graph/types.js';
import { bytesAttr, escapeBytes, nodeBytesAttr, stringElements, stringTensor } from './string_tensors.js';

const STRING_CASE_OPS = ['StringLower', 'StringUpper'] as const;
type CaseOp = (typeof STRING_CASE_OPS)[number];

const A = 0x41;
const Z = 0x5a;
const a = 0x61;
const z = 0x7a;

function asciiCase(s: Uint8Array, upper: boolean): Uint8Array {
  const out = Uint8Array.from(s);
  const [from, to] = upper ? [a, z] : [A, Z];
  for (let i = 0; i < out.length; i++) if (out[i] >= from && out[i] <= to) out[i] ^= 0x20;
  return out;
}

const utf8Decoder = new TextDecoder('utf-8');
const utf8Encoder = new TextEncoder();

function unicodeCase(s: Uint8Array, upper: boolean): Uint8Array {
  const nul = s.indexOf(0);
  const text = utf8Decoder.decode(nul < 0 ? s : s.subarray(0, nul));
  return utf8Encoder.encode(upper ? text.toUpperCase() : text.toLowerCase());
}

const encodingOf = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

export function stringCaseExecutor(op: CaseOp): tfconv.OpExecutor {
  const upper = op === 'StringUpper';
  return (node) => {
    const x = node.inputs[0];
    const utf8 = encodingOf(bytesAttr(node, 'encoding')) === 'utf-8';
    const out = stringElements(x, 'input').map((s) => (utf8 ? unicodeCase(s, upper) : asciiCase(s, upper)));
    return [stringTensor(out, x.shape)];
  };
}

/** Load-time check with TF's kernel-construction message. */
export function stringCaseNodeProblem(node: NodeDef): string | null {
  const encoding = nodeBytesAttr(node, 'encoding');
  const name = encodingOf(encoding);
  return name === '' || name === 'utf-8' ? null : `only utf-8 or '' (no encoding) is supported, received ${escapeBytes(encoding)}`;
}
