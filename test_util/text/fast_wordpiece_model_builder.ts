// Builds a FastWordpieceTokenizerConfig FlatBuffer from a vocabulary, as TF Text's
// build_fast_wordpiece_model does at export (tensorflow_text/core/kernels/
// fast_wordpiece_tokenizer_model_builder.cc), so that the tokenizer can be checked against the
// tokens TF Text's tests state for a vocabulary. The trie and its failure links and pops
// follow TF Text's construction step for step (the same BFS, the same order of edges); the
// double array is laid out by a simple first-fit here instead of darts-clone's, which changes
// node ids but not what a walk finds.
import { Builder } from 'flatbuffers';
import { isPunctuationOrChineseChar } from '../../src/runtimes/embedded/ops/string/fast_wordpiece_tokenizer.js';

const NULL = 0xffffffff;
const INVALID_CONTROL_CHAR = 0x11;
const enc = new TextEncoder();

export interface FastWordpieceOptions {
  vocab: ReadonlyArray<string | Uint8Array>;
  maxBytesPerToken?: number;
  suffixIndicator?: string;
  unkToken?: string;
  noPretokenization?: boolean;
  supportDetokenization?: boolean;
  /**
   * The punctuation characters an end-to-end model holds a trie key for (TF Text: every one).
   * A test may list only those its text has: the walk of a text never reaches another's key
   * (a character's bytes are matched all or none), and TF Text's own test of two models that
   * differ in one punctuation key (fast_wordpiece_tokenizer_test.cc
   * TestPunctuationVersionMismatch) states the same tokens from both.
   */
  punctuation?: 'all' | string;
}

const bytes = (s: string | Uint8Array) => (typeof s === 'string' ? enc.encode(s) : s);
const key = (b: Uint8Array) => Buffer.from(b).toString('latin1');
const startsWith = (s: Uint8Array, prefix: Uint8Array) => s.length >= prefix.length && prefix.every((b, i) => s[i] === b);

/** The code points of UTF-8 bytes, as U8_NEXT reads them (-1 for an ill-formed sequence). */
function codePoints(b: Uint8Array): number[] {
  const out: number[] = [];
  const s = Buffer.from(b).toString('utf8');
  // Well-formed input only (the vocabularies of TF Text's tests); a replacement character stands for an error.
  for (const ch of s) out.push(ch === '\ufffd' ? -1 : ch.codePointAt(0)!);
  return out;
}

interface VocabToken {
  token: Uint8Array;
  id: number;
  isSuffix: boolean;
  lengthWithoutSuffix: number;
  unicodeLength: number;
  containsPunctuation: boolean;
}

function vocabToken(token: Uint8Array, id: number, suffix: Uint8Array): VocabToken {
  const isSuffix = suffix.length > 0 && key(token) !== key(suffix) && startsWith(token, suffix);
  const cps = codePoints(token.subarray(isSuffix ? suffix.length : 0));
  return {
    token,
    id,
    isSuffix,
    lengthWithoutSuffix: token.length - (isSuffix ? suffix.length : 0),
    unicodeLength: cps.length,
    containsPunctuation: cps.some(isPunctuationOrChineseChar),
  };
}

const encodeToken = (id: number, length: number, isSuffix: boolean) => ((isSuffix ? 1 << 30 : 0) | (id << 8) | (length - 1)) >>> 0;

/** Punctuation code points (Unicode characters, not noncharacters), computed once: the end-to-end model holds one trie key each. */
let punctuation: Uint8Array[] | null = null;
function punctuationKeys(): Uint8Array[] {
  if (!punctuation) {
    punctuation = [];
    for (let cp = 1; cp <= 0x10ffff; cp++) {
      const unicodeChar = !(cp >= 0xd800 && cp <= 0xdfff) && !(cp >= 0xfdd0 && cp <= 0xfdef) && (cp & 0xfffe) !== 0xfffe;
      if (unicodeChar && isPunctuationOrChineseChar(cp)) punctuation.push(enc.encode(String.fromCodePoint(cp)));
    }
  }
  return punctuation;
}

interface TrieNode {
  children: Map<number, TrieNode>;
  value: number;
  id: number;
}

/** A double array (darts-clone's unit format) of the keys, laid out first-fit; returns the units. */
function buildDoubleArray(keys: Uint8Array[], values: number[]): Uint32Array {
  const root: TrieNode = { children: new Map(), value: -1, id: 0 };
  keys.forEach((k, i) => {
    let n = root;
    for (const b of k) {
      let c = n.children.get(b);
      if (!c) n.children.set(b, (c = { children: new Map(), value: -1, id: -1 }));
      n = c;
    }
    n.value = values[i];
  });
  let units = new Uint32Array(1024).fill(0x80000000);
  let used = new Uint8Array(1024);
  const grow = (size: number) => {
    if (size <= units.length) return;
    let n = units.length;
    while (n < size) n *= 2;
    const u = new Uint32Array(n).fill(0x80000000);
    u.set(units);
    units = u;
    const f = new Uint8Array(n);
    f.set(used);
    used = f;
  };
  used[0] = 1;
  units[0] = 0;
  let firstFree = 1;
  let manyFrom = 0;
  const bases = new Set<number>();
  const queue: TrieNode[] = [root];
  for (let qi = 0; qi < queue.length; qi++) {
    const n = queue[qi];
    const labels = [...n.children.keys()].sort((a, b) => a - b);
    if (n.value >= 0) labels.unshift(0);
    if (labels.length === 0) continue;
    while (used[firstFree] || bases.has(firstFree)) firstFree++;
    // A node of one label fills the first hole; a node of many searches on from the last such
    // node (first-fit over the whole array would rescan it for each).
    let base = (labels.length === 1 ? firstFree : Math.max(firstFree, manyFrom)) ^ labels[0];
    for (; ; base++) {
      grow((base | 0xff) + 1);
      // A base is one node's only (as darts-clone's): a unit's label then names its parent, so a
      // walk by a byte the node has no edge for lands on a unit whose label is another byte.
      if (!bases.has(base) && labels.every((c) => !used[base ^ c])) break;
    }
    bases.add(base);
    if (labels.length > 1) manyFrom = base & ~0xff;
    const offset = (n.id ^ base) >>> 0;
    if (offset >= 1 << 21) throw new Error('trie too large for this builder');
    units[n.id] = ((offset << 10) | (n.value >= 0 ? 0x100 : 0) | (units[n.id] & 0xff)) >>> 0;
    for (const c of labels) used[base ^ c] = 1;
    if (n.value >= 0) units[base] = (0x80000000 | n.value) >>> 0;
    for (const [c, child] of n.children) {
      child.id = base ^ c;
      units[child.id] = c;
      queue.push(child);
    }
  }
  let size = units.length;
  while (size > 1 && !used[size - 1]) size--;
  return units.slice(0, size);
}

class DoubleArray {
  constructor(readonly units: Uint32Array) {}
  private offset(u: number) {
    return ((u >>> 10) << ((u & 0x200) >>> 6)) >>> 0;
  }
  step(node: number, ch: number): number {
    const next = (node ^ this.offset(this.units[node]) ^ ch) >>> 0;
    return next < this.units.length && (this.units[next] & 0x800000ff) >>> 0 === ch ? next : -1;
  }
  steps(node: number, s: Uint8Array): number {
    let n = node;
    for (const b of s) if ((n = this.step(n, b)) < 0) return -1;
    return n;
  }
  value(node: number): number {
    const u = this.units[node];
    return u & 0x100 ? this.units[(node ^ this.offset(u)) >>> 0] & 0x7fffffff : -1;
  }
}

/** TF Text's classic WordpieceTokenize of one word with use_unknown_token (its PrecomputeResultForSuffixIndicator uses it). */
function classicWordpiece(word: Uint8Array, o: Required<FastWordpieceOptions>, vocab: Map<string, number>): Uint8Array[] {
  const unk = enc.encode(o.unkToken);
  if (word.length > o.maxBytesPerToken) return [unk];
  const suffix = enc.encode(o.suffixIndicator);
  const ends: number[] = [];
  for (let i = 0, cps = codePoints(word); ends.length < cps.length;)
    ends.push((i += enc.encode(String.fromCodePoint(Math.max(cps[ends.length], 0))).length));
  const pieces: Uint8Array[] = [];
  for (let start = 0; start < word.length;) {
    let found: Uint8Array | null = null;
    let foundEnd = -1;
    for (let e = ends.length - 1; e >= 0 && ends[e] > start; e--) {
      const piece = start > 0 ? Buffer.concat([suffix, word.subarray(start, ends[e])]) : word.subarray(start, ends[e]);
      if (vocab.has(key(piece))) {
        found = piece;
        foundEnd = ends[e];
        break;
      }
    }
    if (!found) return [unk];
    pieces.push(found);
    start = foundEnd;
  }
  return pieces;
}

/** The model's FlatBuffer bytes; throws TF Text's builder messages for what it refuses. */
export function buildFastWordpieceModel(options: FastWordpieceOptions): Uint8Array {
  const o: Required<FastWordpieceOptions> = {
    maxBytesPerToken: 100,
    suffixIndicator: '##',
    unkToken: '[UNK]',
    noPretokenization: false,
    supportDetokenization: false,
    punctuation: 'all',
    ...options,
  };
  const suffix = enc.encode(o.suffixIndicator);
  const vocabBytes = o.vocab.map(bytes);
  const vocab = new Map<string, number>();
  vocabBytes.forEach((w, i) => vocab.set(key(w), i));
  if (vocab.size !== vocabBytes.length) throw new Error('Tokens in the vocabulary must be unique.');
  const unkId = vocab.get(key(enc.encode(o.unkToken)));
  if (unkId === undefined) throw new Error('Cannot find unk_token in the vocab!');

  // PrepareVocabTokensToBuildTrie
  const tokens: VocabToken[] = [];
  vocabBytes.forEach((w, id) => {
    if (w.length === 0 || key(w) === key(suffix)) return;
    const t = vocabToken(w, id, suffix);
    if (t.lengthWithoutSuffix > 256)
      throw new Error('Vocab token utf8 length (excluding suffix indicator) exceeds the max supported (256).');
    if (!o.noPretokenization && t.containsPunctuation && (t.unicodeLength > 1 || t.isSuffix)) return;
    tokens.push(t);
  });
  if (tokens.length === 0) throw new Error('No valid vocab tokens were found to build the trie.');
  if (suffix.length > 0 && !tokens.some((t) => t.isSuffix)) {
    tokens.push(vocabToken(Uint8Array.from([...suffix, INVALID_CONTROL_CHAR]), unkId, suffix));
  }
  const dummy = Uint8Array.of(INVALID_CONTROL_CHAR);
  if (!o.noPretokenization) {
    const keys =
      o.punctuation === 'all'
        ? punctuationKeys()
        : [...new Set(o.punctuation)].filter((ch) => isPunctuationOrChineseChar(ch.codePointAt(0)!)).map((ch) => enc.encode(ch));
    for (const p of keys) if (!vocab.has(key(p))) tokens.push(vocabToken(p, unkId, suffix));
    tokens.push(vocabToken(dummy, unkId, suffix));
  }

  // ConstructTrie
  const units = buildDoubleArray(
    tokens.map((t) => t.token),
    tokens.map((t) => encodeToken(t.id, t.lengthWithoutSuffix, t.isSuffix)),
  );
  const trie = new DoubleArray(units);
  const suffixRoot = trie.steps(0, suffix);
  let punctFailureNode = NULL;
  if (!o.noPretokenization) {
    punctFailureNode = trie.steps(0, dummy);
    units[punctFailureNode] &= 0xfffffeff; // EraseValueOfNode
    units[punctFailureNode] &= 0xffffff00; // BreakTrieLinkFromParentToChild
  }

  // BuildOutgoingEdgeLabelsForTrie
  const edges = new Map<number, Set<number>>();
  const isPunctNode = new Map<number, boolean>();
  for (const t of tokens) {
    if (key(t.token) === key(dummy)) continue;
    let node = 0;
    for (const b of t.token) {
      if (!edges.has(node)) edges.set(node, new Set());
      edges.get(node)!.add(b);
      node = trie.step(node, b);
    }
    isPunctNode.set(node, !t.isSuffix && t.containsPunctuation && t.unicodeLength === 1);
  }

  // BuildFailureStructure
  const links = new Uint32Array(units.length).fill(NULL);
  const popsOf = new Uint32Array(units.length).fill(NULL);
  const pool: number[] = [];
  const popsList = (encoded: number): number[] =>
    encoded === NULL ? [] : pool.slice(encoded >>> 8, (encoded >>> 8) + (encoded & 0xff) + 1);
  const assign = (node: number, link: number, oneStep: number[], parentPops: number) => {
    if (link === NULL) return;
    links[node] = link;
    if (oneStep.length === 0) {
      popsOf[node] = parentPops;
      return;
    }
    const offset = pool.length;
    pool.push(...popsList(parentPops), ...oneStep);
    popsOf[node] = ((offset << 8) | (pool.length - offset - 1)) >>> 0;
  };
  const queue = [0];
  if (suffixRoot !== 0) queue.push(suffixRoot);
  // TF Text sorts the edge labels as (signed) chars.
  const signed = (b: number) => (b << 24) >> 24;
  for (let qi = 0; qi < queue.length; qi++) {
    const parent = queue[qi];
    for (const label of [...(edges.get(parent) ?? [])].sort((a, b) => signed(a) - signed(b))) {
      const child = trie.step(parent, label);
      if (child === suffixRoot) continue;
      const data = trie.value(child);
      if (data >= 0) {
        const link = !o.noPretokenization && isPunctNode.get(child) ? punctFailureNode : suffixRoot;
        assign(child, link, [data], NULL);
        queue.push(child);
        continue;
      }
      if (links[parent] !== NULL) {
        const oneStep: number[] = [];
        let itr = links[parent];
        for (;;) {
          const next = trie.step(itr, label);
          if (next >= 0) {
            assign(child, next, oneStep, popsOf[parent]);
            break;
          }
          if (links[itr] === NULL) break;
          oneStep.push(...popsList(popsOf[itr]));
          itr = links[itr];
        }
      }
      queue.push(child);
    }
  }
  if (!o.noPretokenization && suffix.length > 0) {
    // A suffix indicator that starts with punctuation cannot be reached from a word.
    const cps = codePoints(suffix);
    let node = 0;
    let pos = 0;
    for (let i = 0; i < cps.length; i++) {
      const len = enc.encode(String.fromCodePoint(Math.max(cps[i], 0))).length;
      const prevIsRoot = node === 0;
      node = trie.steps(node, suffix.subarray(pos, pos + len));
      pos += len;
      if (isPunctuationOrChineseChar(cps[i])) {
        if (prevIsRoot && i + 1 < cps.length) {
          const nextLen = enc.encode(String.fromCodePoint(Math.max(cps[i + 1], 0))).length;
          units[trie.steps(node, suffix.subarray(pos, pos + nextLen))] &= 0xffffff00;
        } else if (!prevIsRoot) units[node] &= 0xffffff00;
        break;
      }
    }
  }

  // PrecomputeResultForSuffixIndicator
  const precomputed = classicWordpiece(suffix, o, vocab).map((piece) => {
    const t = vocabToken(piece, vocab.get(key(piece))!, suffix);
    return encodeToken(t.id, t.lengthWithoutSuffix, t.isSuffix);
  });

  // ExportToFlatBuffer
  const b = new Builder(1024);
  const u32Vector = (values: ArrayLike<number>) => {
    b.startVector(4, values.length, 4);
    for (let i = values.length - 1; i >= 0; i--) b.addInt32(values[i] | 0);
    return b.endVector();
  };
  const trieArray = u32Vector(units);
  b.startVector(8, units.length, 4);
  for (let i = units.length - 1; i >= 0; i--) {
    b.prep(4, 8);
    b.writeInt32(popsOf[i] | 0);
    b.writeInt32(links[i] | 0);
  }
  const failureStructs = b.endVector();
  const poolVector = u32Vector(pool);
  const precomputedVector = u32Vector(precomputed);
  const suffixString = b.createString(suffix);
  const unkString = b.createString(o.unkToken);
  const detok = o.supportDetokenization
    ? vocabBytes.map((w) => {
        const isSuffix = suffix.length > 0 && key(w) !== key(suffix) && startsWith(w, suffix);
        return { s: b.createString(isSuffix ? w.subarray(suffix.length) : w), isSuffix };
      })
    : [];
  b.startVector(4, detok.length, 4);
  for (let i = detok.length - 1; i >= 0; i--) b.addOffset(detok[i].s);
  const vocabArray = b.endVector();
  b.startVector(1, detok.length, 1);
  for (let i = detok.length - 1; i >= 0; i--) b.addInt8(detok[i].isSuffix ? 1 : 0);
  const isSuffixArray = b.endVector();
  b.startObject(14);
  b.addFieldOffset(0, trieArray, 0);
  b.addFieldOffset(1, failureStructs, 0);
  b.addFieldOffset(2, poolVector, 0);
  b.addFieldInt32(3, suffixRoot, 0);
  b.addFieldInt32(4, o.maxBytesPerToken, 0);
  b.addFieldOffset(5, suffixString, 0);
  b.addFieldOffset(6, unkString, 0);
  b.addFieldInt32(7, unkId, 0);
  b.addFieldOffset(8, precomputedVector, 0);
  b.addFieldInt32(9, punctFailureNode | 0, 0);
  b.addFieldInt8(10, o.noPretokenization ? 0 : 1, 0);
  b.addFieldInt8(11, o.supportDetokenization ? 1 : 0, 0);
  b.addFieldOffset(12, vocabArray, 0);
  b.addFieldOffset(13, isSuffixArray, 0);
  b.finish(b.endObject());
  return b.asUint8Array();
}
