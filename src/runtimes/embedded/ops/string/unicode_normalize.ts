// TF Text's NormalizeUTF8 and CaseFoldUTF8 (tensorflow_text/core/kernels/normalize_kernels.cc):
// ICU's Normalizer2::normalizeUTF8 with the NFC, NFD, NFKC or NFKD instance, and for
// CaseFoldUTF8 the NFKC_Casefold instance (NFKC, full case folding, Default_Ignorable code
// points removed: 'ß' → 'ss', 'ﬁ' → 'fi', U+00AD dropped) — not a lower-casing.
//
// Node's String.prototype.normalize is ICU's too, of another version; NFKC_Casefold is each
// code point's mapping (unicode_tables.ts's case folding, Node's NFKC, as UAX #44 derives it)
// then NFC, as Unicode defines toNFKC_Casefold. A code point whose answer may differ between
// the Unicode of TF Text's ICU (12.1 to 16.0) and Node's (unicode_tables.ts) fails the request
// with UNIMPLEMENTED naming the op and the code point, never a different answer.
//
// Bytes that are not well-formed UTF-8 are copied unchanged and nothing combines across them, as
// ICU's normalizeUTF8 does (they count as an inert U+FFFD): each well-formed run is normalized on
// its own.
import type * as tf from '@tensorflow/tfjs-core';
import type * as tfconv from '@tensorflow/tfjs-converter';
import { Code, ServingError, invalidArgument } from '../../../../errors/status.js';
import type { NodeDef } from '../../../../savedmodel/graph/types.js';
import { concatBytes } from '../../../shared/join_bytes.js';
import { bytesAttr, checkOutputBytes, stringElements, stringTensor } from './string_tensors.js';
import { CASE_FOLDING, DEFAULT_IGNORABLE, TABLES_UNICODE_VERSION, UNSTABLE_CASE_FOLD, UNSTABLE_NORMALIZATION } from './unicode_tables.js';

export type Form = 'NFC' | 'NFD' | 'NFKC' | 'NFKD';
export const FORMS: readonly string[] = ['NFC', 'NFD', 'NFKC', 'NFKD'];

export function rangeSet(text: string): (cp: number) => boolean {
  const bounds = text.split(' ').flatMap((r) => {
    const [a, b = a] = r.split('-');
    return [parseInt(a, 16), parseInt(b, 16)];
  });
  return (cp) => {
    let lo = 0;
    let hi = bounds.length / 2 - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (cp < bounds[2 * mid]) hi = mid - 1;
      else if (cp > bounds[2 * mid + 1]) lo = mid + 1;
      else return true;
    }
    return false;
  };
}

const unstableNormalization = rangeSet(UNSTABLE_NORMALIZATION);
const unstableCaseFold = rangeSet(UNSTABLE_CASE_FOLD);
const ignorable = rangeSet(DEFAULT_IGNORABLE);
let caseFolding: Map<number, string> | undefined;
// Each code point's mapping, remembered; bounded, since a request chooses which code points come.
const nfkcCasefoldMemo = new Map<number, string>();
const MEMO_LIMIT = 1 << 16;

function foldOf(cp: number): string | undefined {
  caseFolding ??= new Map(
    CASE_FOLDING.split(' ').map((e) => {
      const [from, to] = e.split(':');
      return [parseInt(from, 16), String.fromCodePoint(...to.split('.').map((h) => parseInt(h, 16)))];
    }),
  );
  return caseFolding.get(cp);
}

/** NFKC_Casefold of one code point: NFKC, case folding, Default_Ignorable removed, until stable. */
function nfkcCasefoldOf(cp: number): string {
  let done = nfkcCasefoldMemo.get(cp);
  if (done !== undefined) return done;
  let s = String.fromCodePoint(cp);
  for (;;) {
    let t = '';
    for (const ch of s.normalize('NFKC')) {
      const c = ch.codePointAt(0)!;
      if (!ignorable(c)) t += foldOf(c) ?? ch;
    }
    if (t === s) break;
    s = t;
  }
  done = s.normalize('NFC');
  if (nfkcCasefoldMemo.size >= MEMO_LIMIT) nfkcCasefoldMemo.clear();
  nfkcCasefoldMemo.set(cp, done);
  return done;
}

const utf8Encoder = new TextEncoder();
// A leading U+FEFF is text here (ICU keeps it), not a byte-order mark to drop.
const utf8Decoder = new TextDecoder('utf-8', { ignoreBOM: true });

/** Length of the well-formed UTF-8 sequence at `i` (Unicode's Table 3-7), or 0 if ill-formed. */
export function sequenceLength(s: Uint8Array, i: number): number {
  const b = s[i];
  if (b < 0x80) return 1;
  const cont = (k: number, lo = 0x80, hi = 0xbf) => i + k < s.length && s[i + k] >= lo && s[i + k] <= hi;
  if (b >= 0xc2 && b <= 0xdf) return cont(1) ? 2 : 0;
  if (b >= 0xe0 && b <= 0xef) {
    const [lo, hi] = b === 0xe0 ? [0xa0, 0xbf] : b === 0xed ? [0x80, 0x9f] : [0x80, 0xbf];
    return cont(1, lo, hi) && cont(2) ? 3 : 0;
  }
  if (b >= 0xf0 && b <= 0xf4) {
    const [lo, hi] = b === 0xf0 ? [0x90, 0xbf] : b === 0xf4 ? [0x80, 0x8f] : [0x80, 0xbf];
    return cont(1, lo, hi) && cont(2) && cont(3) ? 4 : 0;
  }
  return 0;
}

function refuseCodePoint(op: string, cp: number, what: string): ServingError {
  const u = `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`;
  return new ServingError(
    Code.UNIMPLEMENTED,
    `${op}: the input holds ${u}, whose ${what} may differ between the Unicode of TF Text's ICU and this server's (Unicode ${TABLES_UNICODE_VERSION}); tfgate does not answer it`,
  );
}

/** Applies `normalizeText` to each well-formed run of `s`, keeping ill-formed bytes as they are. */
export function normalizeBytes(s: Uint8Array, normalizeText: (text: string) => string): Uint8Array {
  const parts: Uint8Array[] = [];
  let start = 0;
  let i = 0;
  const flush = (end: number) => {
    if (end > start) parts.push(utf8Encoder.encode(normalizeText(utf8Decoder.decode(s.subarray(start, end)))));
  };
  while (i < s.length) {
    const n = sequenceLength(s, i);
    if (n > 0) {
      i += n;
      continue;
    }
    flush(i);
    parts.push(s.subarray(i, i + 1));
    start = ++i;
  }
  flush(i);
  return parts.length === 1 ? parts[0] : concatBytes(parts);
}

function checkCodePoints(op: string, text: string, unstable: (cp: number) => boolean, what: string): void {
  for (const ch of text) {
    const cp = ch.codePointAt(0)!;
    if (cp >= 0x80 && unstable(cp)) throw refuseCodePoint(op, cp, what);
  }
}

/** Why this server cannot answer the op at all (Node's Unicode is not the tables'), or null. */
export function unicodeNormalizeNodeProblem(node: NodeDef): string | null {
  const nodeUnicode = process.versions.unicode;
  return nodeUnicode === TABLES_UNICODE_VERSION
    ? null
    : `${node.op} is computed with Node's ICU, whose Unicode (${nodeUnicode}) is not the one tfgate's tables were made for (${TABLES_UNICODE_VERSION})`;
}

export function normalizeForm(op: string, text: string, form: Form): string {
  checkCodePoints(op, text, unstableNormalization, `${form} normalization`);
  return text.normalize(form);
}

function caseFold(op: string, text: string): string {
  checkCodePoints(op, text, (cp) => unstableNormalization(cp) || unstableCaseFold(cp), 'NFKC_Casefold mapping');
  let mapped = '';
  for (const ch of text) {
    const cp = ch.codePointAt(0)!;
    // ASCII other than A-Z maps to itself.
    mapped += cp < 0x80 ? (cp >= 0x41 && cp <= 0x5a ? String.fromCharCode(cp + 0x20) : ch) : nfkcCasefoldOf(cp);
  }
  return mapped.normalize('NFC');
}

/** Maps each string; the output's size is checked as it grows (one string grows at most 11-fold: U+FDFA). */
function outputTensor(op: string, node: tfconv.GraphNode, map: (s: Uint8Array) => Uint8Array): tf.Tensor[] {
  const x = node.inputs[0];
  let bytes = 0;
  const out = stringElements(x, 'input').map((s, i) => {
    const y = map(s);
    bytes += y.length;
    checkOutputBytes(op, bytes, i + 1);
    return y;
  });
  return [stringTensor(out, x.shape)];
}

/** NormalizeUTF8 of one string's bytes; `form` is TF Text's attr, upper-cased. */
function normalizeUTF8Bytes(s: Uint8Array, form: string): Uint8Array {
  if (!FORMS.includes(form)) throw invalidArgument(`Unknown normalization form requrested: ${form}`);
  return normalizeBytes(s, (text) => normalizeForm('NormalizeUTF8', text, form as Form));
}

/** CaseFoldUTF8 of one string's bytes (ICU's NFKC_Casefold). */
const caseFoldUTF8Bytes = (s: Uint8Array): Uint8Array => normalizeBytes(s, (text) => caseFold('CaseFoldUTF8', text));

export const normalizeUTF8Op: tfconv.OpExecutor = (node) => {
  // TF Text upper-cases the attr (absl::AsciiStrToUpper) and refuses another form in Compute.
  const form = new TextDecoder().decode(bytesAttr(node, 'normalization_form')).replace(/[a-z]/g, (c) => c.toUpperCase());
  if (!FORMS.includes(form)) throw invalidArgument(`Unknown normalization form requrested: ${form}`);
  return outputTensor('NormalizeUTF8', node, (s) => normalizeUTF8Bytes(s, form));
};

export const caseFoldUTF8Op: tfconv.OpExecutor = (node) => outputTensor('CaseFoldUTF8', node, caseFoldUTF8Bytes);
