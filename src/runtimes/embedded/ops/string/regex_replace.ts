// TensorFlow's RegexReplace and StaticRegexReplace (tf.strings.regex_replace; Keras
// TextVectorization's punctuation stripping; core/kernels/regex_replace_op.cc): RE2's
// GlobalReplace (replace_global, the default) or Replace of `pattern` by `rewrite`, whose \0 …
// \9 are the match and its groups and \\ a backslash. As RE2 does:
// - an empty match right after the previous match is not replaced: RE2 steps over one
//   character instead (so "abc" with b* → "xaxcx", not the "xaxxcx" of JavaScript or Python);
// - a rewrite naming a group the pattern lacks replaces nothing (RE2 returns false);
// - a rewrite with another escape (\x) stops writing where the bad escape is (GlobalReplace
//   ignores Rewrite's false), and makes Replace change nothing.
// The pattern is RE2's (re2.ts); a string that is not UTF-8 is refused there.
import type * as tf from '@tensorflow/tfjs-core';
import type * as tfconv from '@tensorflow/tfjs-converter';
import { Code, ServingError, invalidArgument } from '../../../../errors/status.js';
import type { NodeDef } from '../../../../savedmodel/graph/types.js';
import { Re2, Re2Text, type Re2Match } from './re2.js';
import {
  bytesAttr,
  checkOutputBytes,
  escapeBytes,
  nodeBytesAttr,
  shapeString,
  stringElements,
  stringTensor,
  STRING_OUTPUT_LIMIT_BYTES,
} from './string_tensors.js';

const BACKSLASH = 0x5c;
const isDigit = (c: number) => c >= 0x30 && c <= 0x39;

/** The highest \N of a rewrite (RE2::MaxSubmatch), -1 without any. */
function maxSubmatch(rewrite: Uint8Array): number {
  let max = -1;
  for (let i = 0; i < rewrite.length; i++) {
    if (rewrite[i] !== BACKSLASH) continue;
    if (isDigit(rewrite[i + 1])) max = Math.max(max, rewrite[i + 1] - 0x30);
    i++;
  }
  return max;
}

/** RE2::Rewrite: appends the rewrite to `out`; false on a bad escape (what came before it stays). */
function rewriteInto(out: Uint8Array[], rewrite: Uint8Array, m: Re2Match, text: Uint8Array): boolean {
  let literalFrom = 0;
  const flush = (to: number) => {
    if (to > literalFrom) out.push(rewrite.subarray(literalFrom, to));
  };
  for (let i = 0; i < rewrite.length; i++) {
    if (rewrite[i] !== BACKSLASH) continue;
    flush(i);
    const c = rewrite[i + 1];
    if (c !== undefined && isDigit(c)) {
      const n = c - 0x30;
      const group = n === 0 ? text.subarray(m.start, m.end) : m.groups[n - 1];
      if (group?.length) out.push(group);
    } else if (c === BACKSLASH) out.push(rewrite.subarray(i + 1, i + 2));
    else return false;
    i++;
    literalFrom = i + 1;
  }
  flush(rewrite.length);
  return true;
}

class OutputSize {
  private bytes = 0;
  constructor(private readonly op: string) {}
  add(parts: readonly Uint8Array[], from: number): void {
    for (let i = from; i < parts.length; i++) this.bytes += parts[i].length;
    if (this.bytes > STRING_OUTPUT_LIMIT_BYTES) checkOutputBytes(this.op, this.bytes);
  }
}

function concat(parts: readonly Uint8Array[]): Uint8Array {
  return new Uint8Array(Buffer.concat(parts));
}

/** RE2::GlobalReplace of one string; the string itself when nothing was replaced. */
function globalReplace(op: string, s: Re2Text, re: Re2, rewrite: Uint8Array, size: OutputSize): Uint8Array {
  const text = s.bytes;
  const withGroups = maxSubmatch(rewrite) > 0;
  const out: Uint8Array[] = [];
  let p = 0;
  let lastEnd = -1;
  let count = 0;
  while (p <= text.length) {
    const m = re.match(op, s, p, withGroups);
    if (!m) break;
    const before = out.length;
    if (p < m.start) out.push(text.subarray(p, m.start));
    if (m.start === lastEnd && m.end === m.start) {
      // An empty match where the last one ended: step over one character (RE2's UTF-8 mode).
      if (p < text.length) {
        const n = s.charLength(p);
        out.push(text.subarray(p, p + n));
        p += n;
      } else p++;
      size.add(out, before);
      continue;
    }
    rewriteInto(out, rewrite, m, text);
    size.add(out, before);
    p = m.end;
    lastEnd = p;
    count++;
  }
  if (count === 0) return text;
  if (p < text.length) out.push(text.subarray(p));
  return concat(out);
}

/** RE2::Replace of one string: the first match only. */
function replaceFirst(op: string, s: Re2Text, re: Re2, rewrite: Uint8Array): Uint8Array {
  const m = re.match(op, s, 0, maxSubmatch(rewrite) > 0);
  if (!m) return s.bytes;
  const replaced: Uint8Array[] = [];
  if (!rewriteInto(replaced, rewrite, m, s.bytes)) return s.bytes;
  return concat([s.bytes.subarray(0, m.start), ...replaced, s.bytes.subarray(m.end)]);
}

/** The refusal of a string RE2 here cannot match exactly (re2.ts). */
export function notUtf8(op: string, index: number): ServingError {
  return new ServingError(
    Code.UNIMPLEMENTED,
    `${op}: input string ${index} is not valid UTF-8; the embedded runtime's RE2 matches UTF-8 text only (TF's RE2 would also read the other bytes)`,
  );
}

function regexReplace(op: string, input: tf.Tensor, re: Re2, rewrite: Uint8Array, global: boolean): tf.Tensor {
  re.resetWork();
  const size = new OutputSize(op);
  // RE2 replaces nothing when the rewrite names a group the pattern lacks.
  const possible = maxSubmatch(rewrite) <= re.groupCount;
  const out = stringElements(input, 'input').map((bytes, i) => {
    if (!possible) return bytes;
    const s = Re2Text.of(bytes);
    if (!s) throw notUtf8(op, i);
    return global ? globalReplace(op, s, re, rewrite, size) : replaceFirst(op, s, re, rewrite);
  });
  return stringTensor(out, input.shape);
}

const invalidPattern = (pattern: Uint8Array, error: string) => `Invalid pattern: ${escapeBytes(pattern)}, error: ${error}`;

/** Compiled StaticRegexReplace / StaticRegexFullMatch patterns, by pattern bytes (they live as long as the process). */
const staticPatterns = new Map<string, Re2>();

/** The compiled form of a constant pattern, compiled once per process. */
export function staticPattern(pattern: Uint8Array): Re2 {
  const key = Buffer.from(pattern).toString('latin1');
  let re = staticPatterns.get(key);
  if (!re) {
    const compiled = Re2.compile(pattern);
    if (typeof compiled === 'string') throw invalidArgument(invalidPattern(pattern, compiled));
    staticPatterns.set(key, (re = compiled));
  }
  return re;
}

/** Load-time check of a constant pattern attr: TF's kernel-construction message. */
export function patternAttrProblem(node: NodeDef): string | null {
  const pattern = nodeBytesAttr(node, 'pattern');
  const compiled = Re2.compile(pattern);
  if (typeof compiled === 'string') return invalidPattern(pattern, compiled);
  compiled.dispose();
  return null;
}

const replaceGlobalOf = (node: tfconv.GraphNode) => (node.attrs.replace_global as boolean | undefined) ?? true;

export const staticRegexReplaceOp: tfconv.OpExecutor = (node) => [
  regexReplace(
    'StaticRegexReplace',
    node.inputs[0],
    staticPattern(bytesAttr(node, 'pattern')),
    bytesAttr(node, 'rewrite'),
    replaceGlobalOf(node),
  ),
];

/** A pattern given as a tensor, compiled for one request (TF's messages for a bad one). */
export function patternInput(t: tf.Tensor, what: 'Pattern' | 'Rewrite' = 'Pattern'): Uint8Array {
  if (t.rank !== 0) throw invalidArgument(`${what} must be scalar, but received ${shapeString(t.shape)}`);
  return stringElements(t, what)[0];
}

export function compileInput(pattern: Uint8Array): Re2 {
  const re = Re2.compile(pattern);
  if (typeof re === 'string') throw invalidArgument(invalidPattern(pattern, re));
  return re;
}

export const regexReplaceOp: tfconv.OpExecutor = (node) => {
  const [input, patternT, rewriteT] = node.inputs;
  const re = compileInput(patternInput(patternT));
  try {
    return [regexReplace('RegexReplace', input, re, patternInput(rewriteT, 'Rewrite'), replaceGlobalOf(node))];
  } finally {
    re.dispose();
  }
};
