// Every spec of TF Text's FastWordpieceTokenizer test (tensorflow_text/core/kernels/
// fast_wordpiece_tokenizer_test.cc@17c38bf0, as data in cases/text_models/
// fast_wordpiece_tokenizer_test_specs.json): the model built from the spec's vocabulary
// (test_util/text/fast_wordpiece_model_builder.ts), the tokenizer run on its input, and the
// tokens, ids and byte offsets TF Text states; detokenization of the stated ids to the stated
// text. In-process, on the kernel's own classes: the op cases (cases/string_fast_wordpiece.ts)
// run a few of them through the engines.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { readFastWordpieceModel } from '../../../src/runtimes/embedded/ops/string/fast_wordpiece_model.js';
import {
  FastWordpieceTokenizer,
  detokenizeToTokens,
  fastWordpieceUnicodeProblem,
  isPunctuationOrChineseChar,
  type TokenizerOutput,
} from '../../../src/runtimes/embedded/ops/string/fast_wordpiece_tokenizer.js';
import { buildFastWordpieceModel } from '../../../test_util/text/fast_wordpiece_model_builder.js';
import { REPO_ROOT } from '../../helpers/paths.js';

type Text = string | { hex: string };
interface Spec {
  line: number;
  vocab: Text[];
  unk_token: Text;
  suffix_indicator: Text;
  max_bytes_per_token: number;
  input: Text;
  expected_tokens?: Text[];
  expected_token_ids: number[];
  expected_token_start_offsets?: number[];
  expected_token_end_offsets?: number[];
  expected_detokenized_text?: Text;
}

const SPECS = JSON.parse(
  fs.readFileSync(
    path.join(REPO_ROOT, 'test', 'runtimes', 'ops', 'cases', 'text_models', 'fast_wordpiece_tokenizer_test_specs.json'),
    'utf8',
  ),
) as Record<'TokenizeSingleWord' | 'TokenizeText' | 'TokenizeDetokenize', Spec[]>;

const bytes = (t: Text) => (typeof t === 'string' ? new TextEncoder().encode(t) : Uint8Array.from(Buffer.from(t.hex, 'hex')));
const latin1 = (b: Uint8Array) => Buffer.from(b).toString('latin1');

function model(spec: Spec, noPretokenization: boolean, supportDetokenization = false) {
  return readFastWordpieceModel(
    buildFastWordpieceModel({
      vocab: spec.vocab.map(bytes),
      maxBytesPerToken: spec.max_bytes_per_token,
      suffixIndicator: Buffer.from(bytes(spec.suffix_indicator)).toString(),
      unkToken: Buffer.from(bytes(spec.unk_token)).toString(),
      noPretokenization,
      supportDetokenization,
      // The punctuation keys the input can reach (the builder's `punctuation` says why that is enough).
      punctuation: Buffer.from(bytes(spec.input)).toString(),
    }),
  );
}

function check(spec: Spec, noPretokenization: boolean): void {
  const out: TokenizerOutput = { pieces: [], ids: [], starts: [], ends: [] };
  new FastWordpieceTokenizer(model(spec, noPretokenization), out).tokenize(bytes(spec.input));
  assert.deepEqual(
    { tokens: out.pieces.map(latin1), ids: out.ids, starts: out.starts, ends: out.ends },
    {
      tokens: spec.expected_tokens!.map((t) => latin1(bytes(t))),
      ids: spec.expected_token_ids,
      starts: spec.expected_token_start_offsets,
      ends: spec.expected_token_end_offsets,
    },
  );
}

const title = (spec: Spec) => `:${spec.line} ${JSON.stringify(spec.input)}`;

describe("FastWordpieceTokenizer on TF Text's specs", () => {
  describe('single words (no_pretokenization=True)', () => {
    for (const spec of SPECS.TokenizeSingleWord) it(title(spec), () => check(spec, true));
  });
  describe('text, split on whitespace and punctuation', () => {
    for (const spec of SPECS.TokenizeText) it(title(spec), () => check(spec, false));
  });
  describe('detokenize the stated ids', () => {
    for (const spec of SPECS.TokenizeDetokenize) {
      it(title(spec), () => {
        const words = detokenizeToTokens(model(spec, true, true), spec.expected_token_ids);
        assert.equal(words.map(latin1).join(' '), latin1(bytes(spec.expected_detokenized_text!)));
      });
    }
  });
});

// TF Text (ICU 77.1) answers punctuation from Unicode 16.0. UCD 16.0's DerivedGeneralCategory: U+10ED0
// unassigned (Cn), U+1B7F Po; 17.0 makes U+10ED0 Po and changes no White_Space.
describe("the pre-tokenizer's punctuation is Unicode 16.0's, as TF Text's ICU", () => {
  it('U+10ED0 (punctuation only from Unicode 17.0) does not split a word; U+1B7F does', () => {
    assert.equal(isPunctuationOrChineseChar(0x10ed0), false);
    assert.equal(isPunctuationOrChineseChar(0x1b7f), true);
  });
  it('a Node whose Unicode is neither 16.0 nor 17.0 refuses the op at load, naming it', () => {
    assert.equal(fastWordpieceUnicodeProblem('FastWordpieceTokenizeWithOffsets', '16.0'), null);
    assert.equal(fastWordpieceUnicodeProblem('FastWordpieceTokenizeWithOffsets', '17.0'), null);
    assert.match(
      fastWordpieceUnicodeProblem('FastWordpieceTokenizeWithOffsets', '15.1') ?? '',
      /^FastWordpieceTokenizeWithOffsets .*Unicode \(15\.1\)/,
    );
  });
});
