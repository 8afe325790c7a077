// TensorFlow's StaticRegexReplace (tf.strings.regex_replace with a constant pattern; Keras
// TextVectorization's punctuation stripping) for the RE2 patterns whose meaning on bytes is
// plain: an ASCII literal, or one class of ASCII characters ([…] with ranges and escapes, or
// \d \s \w), optionally repeated with '+'. An ASCII byte in UTF-8 is always that character, so
// matching bytes is exactly RE2's matching on the text, and the leftmost-first greedy match of
// `class+` is the longest run. The rewrite must be literal (no \0-\9 groups, no '\'). Any
// other pattern is refused at load, naming it; an unterminated class is refused with TF's
// "Invalid pattern" message (core/kernels/regex_replace_op.cc).
import type * as tfconv from '@tensorflow/tfjs-converter';
import type { NodeDef } from '../../../../savedmodel/graph/types.js';
import { bytesAttr, escapeBytes, nodeBytesAttr, stringElements, stringTensor } from './string_tensors.js';

type SimplePattern = { kind: 'literal'; bytes: Uint8Array } | { kind: 'class'; set: Uint8Array; repeated: boolean };

const METACHARS = new Set('\\.+*?()|[]{}^$'.split('').map((c) => c.charCodeAt(0)));
const code = (c: string) => c.charCodeAt(0);
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);
/** RE2's Perl classes: \s is [\t\n\f\r ] (no \v). */
const PERL_CLASSES: Record<string, number[]> = {
  d: range(0x30, 0x39),
  s: [0x09, 0x0a, 0x0c, 0x0d, 0x20],
  w: [...range(0x30, 0x39), ...range(0x41, 0x5a), ...range(0x61, 0x7a), 0x5f],
};
const CONTROL_ESCAPES: Record<string, number> = { t: 0x09, n: 0x0a, r: 0x0d, f: 0x0c, v: 0x0b };
/** What RE2 lets a backslash make literal: ASCII punctuation ('_' is a word character). */
const isPunct = (c: number) => c > 0x20 && c < 0x7f && !/[0-9A-Za-z_]/.test(String.fromCharCode(c));

class Unsupported extends Error {}
class InvalidPattern extends Error {}

/** One escaped character at p[i] = '\\': its byte, or a Perl class's bytes. */
function escape(p: Uint8Array, i: number): number | number[] {
  if (i + 1 >= p.length) throw new InvalidPattern('trailing \\');
  const c = p[i + 1];
  const ch = String.fromCharCode(c);
  if (isPunct(c)) return c;
  if (ch in CONTROL_ESCAPES) return CONTROL_ESCAPES[ch];
  if (ch in PERL_CLASSES) return PERL_CLASSES[ch];
  throw new Unsupported();
}

/** [ … ] starting at p[start]: the bytes it matches and the index after ']'. */
function parseClass(p: Uint8Array, start: number): [Set<number>, number] {
  const set = new Set<number>();
  let i = start + 1;
  if (p[i] === code('^') || p[i] === code(']')) throw new Unsupported(); // negation, or ']' first
  const single = (): number | number[] => {
    if (p[i] === code('\\')) {
      const e = escape(p, i);
      i += 2;
      return e;
    }
    if (p[i] === code('[') && p[i + 1] === code(':')) throw new Unsupported(); // [:alpha:]
    return p[i++];
  };
  while (i < p.length && p[i] !== code(']')) {
    const from = single();
    if (typeof from === 'number' && p[i] === code('-') && i + 1 < p.length && p[i + 1] !== code(']')) {
      i++;
      const to = single();
      if (typeof to !== 'number') throw new Unsupported();
      if (to < from) throw new Unsupported(); // RE2: bad character class range
      for (const c of range(from, to)) set.add(c);
    } else for (const c of typeof from === 'number' ? [from] : from) set.add(c);
  }
  if (i >= p.length) throw new InvalidPattern('missing ]: ' + String.fromCharCode(...p.subarray(start)));
  return [set, i + 1];
}

/** The pattern's simple form, or an error: InvalidPattern (TF's refusal) or Unsupported. */
function parseSimplePattern(p: Uint8Array): SimplePattern {
  if (p.length === 0 || p.some((c) => c >= 0x80)) throw new Unsupported();
  let set: Set<number> | null = null;
  let end = 0;
  if (p[0] === code('[')) [set, end] = parseClass(p, 0);
  else if (p[0] === code('\\') && p.length >= 2 && String.fromCharCode(p[1]) in PERL_CLASSES) [set, end] = [new Set(PERL_CLASSES[String.fromCharCode(p[1])]), 2];
  if (set) {
    const repeated = end === p.length - 1 && p[end] === code('+');
    if (end !== p.length && !repeated) throw new Unsupported();
    return { kind: 'class', set: Uint8Array.from(set), repeated };
  }
  const out: number[] = [];
  for (let i = 0; i < p.length; i++) {
    if (p[i] === code('\\')) {
      const e = escape(p, i++);
      if (typeof e !== 'number') throw new Unsupported();
      out.push(e);
    } else if (METACHARS.has(p[i])) {
      if (p[i] === code('[')) parseClass(p, i); // an unterminated class is TF's "Invalid pattern"
      throw new Unsupported();
    }
    else out.push(p[i]);
  }
  return { kind: 'literal', bytes: Uint8Array.from(out) };
}

/** [start, end) of the first match at or after `from`, or null. */
function nextMatch(s: Uint8Array, pattern: SimplePattern, from: number, inSet: Uint8Array): [number, number] | null {
  if (pattern.kind === 'literal') {
    const lit = pattern.bytes;
    outer: for (let i = from; i + lit.length <= s.length; i++) {
      for (let j = 0; j < lit.length; j++) if (s[i + j] !== lit[j]) continue outer;
      return [i, i + lit.length];
    }
    return null;
  }
  for (let i = from; i < s.length; i++) {
    if (!inSet[s[i]]) continue;
    let end = i + 1;
    if (pattern.repeated) while (end < s.length && inSet[s[end]]) end++;
    return [i, end];
  }
  return null;
}

/** RE2::GlobalReplace (global) or RE2::Replace of `pattern` by the literal `rewrite`. */
function replaceSimple(s: Uint8Array, pattern: SimplePattern, rewrite: Uint8Array, global: boolean): Uint8Array {
  const inSet = new Uint8Array(256);
  if (pattern.kind === 'class') for (const c of pattern.set) inSet[c] = 1;
  const parts: Uint8Array[] = [];
  let at = 0;
  for (let m = nextMatch(s, pattern, 0, inSet); m; m = global ? nextMatch(s, pattern, at, inSet) : null) {
    parts.push(s.subarray(at, m[0]), rewrite);
    at = m[1];
  }
  if (at === 0) return s.slice();
  parts.push(s.subarray(at));
  const out = new Uint8Array(parts.reduce((n, b) => n + b.length, 0));
  let off = 0;
  for (const b of parts) {
    out.set(b, off);
    off += b.length;
  }
  return out;
}

export const staticRegexReplaceOp: tfconv.OpExecutor = (node) => {
  const x = node.inputs[0];
  const pattern = parseSimplePattern(bytesAttr(node, 'pattern'));
  const rewrite = bytesAttr(node, 'rewrite');
  const global = (node.attrs.replace_global as boolean | undefined) ?? true;
  return [stringTensor(stringElements(x, 'input').map((s) => replaceSimple(s, pattern, rewrite, global)), x.shape)];
};

/** Load-time check: TF's message for an invalid pattern; ours for what is not implemented. */
export function staticRegexReplaceNodeProblem(node: NodeDef): string | null {
  const pattern = nodeBytesAttr(node, 'pattern');
  const rewrite = nodeBytesAttr(node, 'rewrite');
  try {
    parseSimplePattern(pattern);
  } catch (e) {
    if (e instanceof InvalidPattern) return `Invalid pattern: ${escapeBytes(pattern)}, error: ${e.message}`;
    return `pattern '${escapeBytes(pattern)}': the embedded runtime implements exactly only an ASCII literal or one ASCII character class ([…], \\d, \\s, \\w), optionally with '+'`;
  }
  if (rewrite.includes(0x5c)) return `rewrite '${escapeBytes(rewrite)}': only a literal rewrite (no '\\') is implemented`;
  return null;
}
