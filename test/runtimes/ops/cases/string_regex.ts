// The RE2 ops of string_ops.cc: RegexReplace / StaticRegexReplace and RegexFullMatch /
// StaticRegexFullMatch, each TF test run on both forms of the op, as TF's own test does
// (RegexReplaceOpVariantsTest is parameterized over gen_string_ops.regex_replace and
// static_regex_replace). Part of the `string` family (cases/string.ts).
import { Code } from '../../../../src/errors/status.js';
import type { HostTensor } from '../../../../src/tensor/host_tensor.js';
import { attr } from '../../../../test_util/savedmodel/writer/graph_builder.js';
import { bool, failsAtRun, feed, i64, konst, refusedAtLoad, str, type Failure, type OpCase } from '../op_case.js';

const KERNEL_TESTS = 'tensorflow/python/kernel_tests/strings_ops';
const REGEX_TEST = `${KERNEL_TESTS}/regex_replace_op_test.py@03049341 RegexReplaceOpVariantsTest`;
const RE2_REPLACE_TABLE = 'google/re2 re2/testing/re2_test.cc ReplaceTest (RE2::GlobalReplace, which TF calls)';

type Want = HostTensor | { invalid: string };
/** A load-time refusal: TF's whole message, in the node's refusal. */
const atLoad = (op: string, message: string) => new RegExp(`${op} \\(node ${op}: ${message.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\)`);
const isInvalid = (w: Want): w is { invalid: string } => 'invalid' in w;

/** One TF statement checked on StaticRegexReplace (constant attrs) and RegexReplace (pattern and rewrite as tensors). */
function replaceBoth(
  pattern: string | Uint8Array,
  rewrite: string,
  x: HostTensor,
  want: Want,
  name: string,
  source: string,
  global = true,
): OpCase[] {
  const staticWant: Record<string, HostTensor> | Failure = isInvalid(want)
    ? refusedAtLoad(atLoad('StaticRegexReplace', want.invalid))
    : { output: want };
  const dynamicWant: Record<string, HostTensor> | Failure = isInvalid(want) ? failsAtRun(want.invalid) : { output: want };
  return [
    {
      name,
      source,
      op: 'StaticRegexReplace',
      attrs: { pattern: attr.s(pattern), rewrite: attr.s(rewrite), replace_global: attr.b(global) },
      inputs: [x],
      want: staticWant,
    },
    {
      name,
      source,
      op: 'RegexReplace',
      attrs: { replace_global: attr.b(global) },
      inputs: [x, konst(str([], [pattern])), konst(str([], [rewrite]))],
      want: dynamicWant,
    },
  ];
}

// Keras TextVectorization's DEFAULT_STRIP_REGEX (lower_and_strip_punctuation).
const KERAS_STRIP = '[!"#$%&()\\*\\+,-\\./:;<=>?@\\[\\\\\\]^_`{|}~\\\']';
const ONE = str([1], ['a']);

const REPLACE_CASES: OpCase[] = [
  ...replaceBoth(
    '\\p{Ll}',
    '.',
    str([2], ['AbCdE', 'HiJkL']),
    str([2], ['A.C.E', 'H.J.L']),
    'Unicode class \\p{Ll} → "." on substr(…, 0, 5) of ["AbCdEfG", "HiJkLmN"]',
    `${REGEX_TEST} testForwarding`,
  ),
  ...replaceBoth(
    '^(a:|b:)',
    '',
    str([6], ['a:foo', 'a:bar', 'a:foo', 'b:baz', 'b:qux', 'ca:b']),
    str([6], ['foo', 'bar', 'foo', 'baz', 'qux', 'ca:b']),
    'anchored alternation, replace_global false: prefixes removed, "ca:b" kept',
    `${REGEX_TEST} testRemovePrefix`,
    false,
  ),
  ...replaceBoth(
    'a.*a',
    '(\\0)',
    str([2], ['aba\naba', 'abcdabcde']),
    str([2], ['(aba)\n(aba)', '(abcda)bcde']),
    '\\0 is the match; "." does not cross \\n',
    `${REGEX_TEST} testRegexReplace`,
  ),
  ...replaceBoth(
    '',
    'x',
    str([2], ['abc', '1']),
    str([2], ['xaxbxcx', 'x1x']),
    'the empty pattern matches between every character',
    `${REGEX_TEST} testEmptyMatch`,
  ),
  ...replaceBoth(
    'ab',
    'abc',
    str([3], ['ababababab', 'abcabcabc', '']),
    str([3], ['abcabcabcabcabc', 'abccabccabcc', '']),
    "a literal, global: 'ab' → 'abc'",
    `${REGEX_TEST} testGlobal`,
  ),
  ...replaceBoth(
    'A[',
    'x',
    str([2], ['abc', '1']),
    { invalid: 'Invalid pattern: A[, error: missing ]: [' },
    'an unterminated class: TF\'s "Invalid pattern" with RE2\'s error',
    `${REGEX_TEST} testInvalidPattern`,
  ),
  ...replaceBoth(
    'b*',
    'bb',
    str([2], ['bbbbbb', 'aaaaa']),
    str([2], ['bb', 'bbabbabbabbabbabb']),
    'no empty match right after a match (JavaScript and Python would give "bbbb")',
    `${RE2_REPLACE_TABLE} {"b*", "bb", …}`,
  ),
  ...replaceBoth(
    '(qu|[b-df-hj-np-tv-z]*)([a-z]+)',
    '\\2\\1ay',
    str([1], ['the quick brown fox jumps over the lazy dogs.']),
    str([1], ['ethay ickquay ownbray oxfay umpsjay overay ethay azylay ogsday.']),
    'groups \\1 \\2 in the rewrite (pig latin)',
    RE2_REPLACE_TABLE,
  ),
  ...replaceBoth(
    '\\w+',
    '\\0-NOSPAM',
    str([1], ['abcd.efghi@google.com']),
    str([1], ['abcd-NOSPAM.efghi-NOSPAM@google-NOSPAM.com-NOSPAM']),
    '\\w+ with \\0',
    RE2_REPLACE_TABLE,
  ),
  ...replaceBoth('$', '(END)', str([1], ['']), str([1], ['(END)']), '$ on the empty string', RE2_REPLACE_TABLE),
  ...replaceBoth(
    'b',
    'bb',
    str([1], ['ababababab']),
    str([1], ['abbabababab']),
    'replace_global false: the first match only',
    `${RE2_REPLACE_TABLE} (RE2::Replace column)`,
    false,
  ),
  ...replaceBoth(
    KERAS_STRIP,
    '',
    str([2], ["The Brown Fox! It's [a]\\b-c.", 'naïve café, “quoted”']),
    str([2], ['The Brown Fox Its abc', 'naïve café “quoted”']),
    "Keras' punctuation class strips every ASCII punctuation byte, leaves other UTF-8 text alone",
    'RE2 semantics of a bracket class (re2/re2.h); Keras TextVectorization DEFAULT_STRIP_REGEX',
  ),
  ...replaceBoth(
    '\\s+',
    ' ',
    str([1], [' a \t\n b\x0b c  ']),
    str([1], [' a b\x0b c ']),
    "\\s+ collapses whitespace runs (RE2's \\s has no \\v)",
    'RE2 syntax (re2/re2.h): \\s is [\\t\\n\\f\\r ]',
  ),
  ...replaceBoth(
    'a',
    '\\2',
    str([1], ['banana']),
    str([1], ['banana']),
    'a rewrite naming a group the pattern lacks replaces nothing',
    're2/re2.cc GlobalReplace: "if (nvec > 1 + re.NumberOfCapturingGroups()) return false"',
  ),
  ...replaceBoth(
    '(?P<x>b)',
    '[\\1]',
    str([1], ['abc']),
    str([1], ['a[b]c']),
    'a named group is group 1',
    'RE2 syntax (re2/re2.h): (?P<name>re)',
  ),
  ...replaceBoth(
    '\\u0041',
    'x',
    ONE,
    { invalid: 'Invalid pattern: \\u0041, error: invalid escape sequence: \\u' },
    '\\u is not RE2 syntax (JavaScript would read "A")',
    'RE2 syntax (re2/re2.h): no \\u escape; TF\'s "Invalid pattern" message',
  ),
  ...replaceBoth(
    Uint8Array.of(0x61, 0xff),
    'x',
    ONE,
    { invalid: 'Invalid pattern: a\\xff, error: invalid UTF-8' },
    'a pattern that is not UTF-8 is invalid',
    're2/regexp.cc kRegexpBadUTF8 "invalid UTF-8" (RE2 reads patterns as UTF-8)',
  ),
  {
    name: 'a pattern fed at run time (not a constant) is compiled per request',
    source: `${REGEX_TEST} testRemovePrefix`,
    op: 'RegexReplace',
    attrs: { replace_global: attr.b(false) },
    inputs: [str([2], ['a:foo', 'ca:b']), feed(str([], ['^(a:|b:)']), []), konst(str([], ['']))],
    want: { output: str([2], ['foo', 'ca:b']) },
  },
  {
    name: 'a pattern that is not a scalar fails the request',
    source: 'core/kernels/regex_replace_op.cc RegexReplaceOp::Compute',
    op: 'RegexReplace',
    inputs: [ONE, str([2], ['a', 'b']), konst(str([], ['x']))],
    want: failsAtRun('Pattern must be scalar, but received [2]'),
  },
  {
    name: 'a string that is not UTF-8 is refused: RE2 here matches UTF-8 text only',
    source: "tfgate (re2.ts): TF's RE2 reads the bytes; re2-wasm only JavaScript strings",
    op: 'StaticRegexReplace',
    attrs: { pattern: attr.s('a'), rewrite: attr.s('b') },
    inputs: [str([2], ['a', Uint8Array.of(0x61, 0xff)])],
    want: failsAtRun(
      "StaticRegexReplace: input string 1 is not valid UTF-8; the embedded runtime's RE2 matches UTF-8 text only (TF's RE2 would also read the other bytes)",
      Code.UNIMPLEMENTED,
    ),
  },
];

const FULL_MATCH_TEST = `${KERNEL_TESTS}/regex_full_match_op_test.py`;

function fullMatchBoth(pattern: string, x: HostTensor, want: boolean[] | { invalid: string }, name: string, source: string): OpCase[] {
  const invalid = !Array.isArray(want);
  return [
    {
      name,
      source,
      op: 'StaticRegexFullMatch',
      attrs: { pattern: attr.s(pattern) },
      inputs: [x],
      want: invalid ? refusedAtLoad(atLoad('StaticRegexFullMatch', want.invalid)) : { output: bool(x.shape, want) },
    },
    {
      name,
      source,
      op: 'RegexFullMatch',
      inputs: [x, konst(str([], [pattern]))],
      want: invalid ? failsAtRun(want.invalid) : { output: bool(x.shape, want) },
    },
  ];
}

const FULL_MATCH_CASES: OpCase[] = [
  ...fullMatchBoth(
    'a.*a',
    str([2, 2], ['abaaba', 'abcdabcde', 'acdcba', 'ebcda']),
    [true, false, true, false],
    '"a.*a" on a matrix: [[True, False], [True, False]]',
    `${FULL_MATCH_TEST}@3a2c6ae8 RegexFullMatchOpVariantsTest testRegexFullMatchTwoDims`,
  ),
  ...fullMatchBoth(
    '',
    str([2], ['abc', '1']),
    [false, false],
    'the empty pattern matches no non-empty string',
    `${FULL_MATCH_TEST}@3a2c6ae8 RegexFullMatchOpVariantsTest testEmptyMatch`,
  ),
  ...fullMatchBoth(
    'A[',
    str([2], ['abc', '1']),
    { invalid: 'Invalid pattern: A[, error: missing ]: [' },
    'an invalid pattern',
    `${FULL_MATCH_TEST}@3a2c6ae8 RegexFullMatchOpVariantsTest testInvalidPattern`,
  ),
  ...fullMatchBoth(
    'a|ab',
    str([3], ['ab', 'a', 'abc']),
    [true, true, false],
    'the whole string: a later alternative counts (leftmost-first search alone would stop at "a")',
    're2/re2.h FullMatch (anchored at both ends)',
  ),
  ...fullMatchBoth(
    '\\Qa.b',
    str([2], ['a.b', 'axb']),
    [true, false],
    'a \\Q quote left open to the end of the pattern',
    'RE2 syntax (re2/re2.h): \\Q…\\E literal text',
  ),
];

// TF Text's regex_split_with_offsets writes the patterns as "(pattern)"
// (tensorflow_text/python/ops/regex_split_ops.py); its test states the tokens and checks the
// offsets by cutting the input with them, so the offsets below are the tokens' byte positions.
const SPLIT_TEST = 'tensorflow/text tensorflow_text/python/ops/regex_split_ops_test.py@0cdf7dce RegexSplitOpsTest testRegexSplitOp';
const enc = new TextEncoder();
function regexSplit(x: string[], delim: string, keep: string, want: string[][], descr: string): OpCase {
  const tokens = want.flat();
  const begins: number[] = [];
  const ends: number[] = [];
  want.forEach((row, i) => {
    const bytes = enc.encode(x[i]);
    let from = 0;
    for (const t of row) {
      const tb = enc.encode(t);
      let at = from;
      while (!tb.every((b, k) => bytes[at + k] === b)) at++;
      begins.push(at);
      ends.push(at + tb.length);
      from = at + tb.length;
    }
  });
  const splits = [0];
  for (const r of want) splits.push(splits[splits.length - 1] + r.length);
  return {
    name: descr,
    source: `${SPLIT_TEST} "${descr}"`,
    op: 'RegexSplitWithOffsets',
    inputs: [str([x.length], x), konst(str([], [`(${delim})`])), konst(str([], [`(${keep})`]))],
    want: {
      tokens: str([tokens.length], tokens),
      begin_offsets: i64([begins.length], begins),
      end_offsets: i64([ends.length], ends),
      row_splits: i64([splits.length], splits),
    },
  };
}
const SHOW = 'show me some $100 bills yo!';
const SHOW_TOKENS = ['show', 'me', 'some', '$', '100', 'bills', 'yo!'];

const SPLIT_CASES: OpCase[] = [
  regexSplit(['hello there'], '\\s', '\\s', [['hello', ' ', 'there']], 'Test doc string examples'),
  regexSplit(['hello there'], '\\s', '', [['hello', 'there']], 'Test simple whitespace'),
  regexSplit(['hello  there'], '\\s', '', [['hello', 'there']], 'Two delimiters in a row'),
  regexSplit(['では４日'], '\\p{Hiragana}', '\\p{Hiragana}', [['で', 'は', '４日']], 'Test Hiragana'),
  regexSplit(
    ['hello! (:$) there'],
    '[\\p{S}|\\p{P}]+|\\s',
    '[\\p{S}|\\p{P}]+',
    [['hello', '!', '(:$)', 'there']],
    'Test symbols and punctuation',
  ),
  regexSplit(['hello12345there'], '\\p{N}+', '\\p{N}+', [['hello', '12345', 'there']], 'Test numbers'),
  regexSplit(
    [SHOW, 'hello there'],
    '\\s|\\p{S}',
    '\\p{S}',
    [SHOW_TOKENS, ['hello', 'there']],
    'Test input Tensor with shape = [2], rank = 1',
  ),
  regexSplit(
    ['a b', 'c', 'd', 'e f g', 'cat horse cow', ''],
    '\\s',
    '',
    [['a', 'b'], ['c'], ['d'], ['e', 'f', 'g'], ['cat', 'horse', 'cow'], []],
    'Test input 3D RaggedTensor with ragged_rank=1; shape = [2, (1, 2), 2]',
  ),
  {
    name: "a delimiter that matches the empty text fails the request (TF Text's kernel would not return)",
    source: 'tensorflow/text tensorflow_text/core/kernels/regex_split.cc: FindAndConsume consumes nothing on an empty match',
    op: 'RegexSplitWithOffsets',
    inputs: [str([1], ['ab']), konst(str([], ['(x*)'])), konst(str([], ['()']))],
    want: failsAtRun(
      "RegexSplitWithOffsets: the delimiter pattern matched the empty text at byte 0 of string 0; TF Text's kernel would search there forever",
      Code.UNIMPLEMENTED,
    ),
  },
];

export const REGEX_CASES: readonly OpCase[] = [...REPLACE_CASES, ...FULL_MATCH_CASES, ...SPLIT_CASES];

export const REGEX_REGISTRATIONS: readonly string[] = [
  // tensorflow/text tensorflow_text/core/ops/regex_split_ops.cc
  `REGISTER_OP("RegexSplitWithOffsets")
    .Input("input: string")
    .Input("delim_regex_pattern: string")
    .Input("keep_delim_regex_pattern: string")
    .Output("tokens: string")
    .Output("begin_offsets: int64")
    .Output("end_offsets: int64")
    .Output("row_splits: int64")`,
  `REGISTER_OP("RegexReplace")
    .Input("input: string")
    .Input("pattern: string")
    .Input("rewrite: string")
    .Output("output: string")
    .Attr("replace_global: bool = true")`,
  `REGISTER_OP("RegexFullMatch")
    .Input("input: string")
    .Input("pattern: string")
    .Output("output: bool")`,
  `REGISTER_OP("StaticRegexFullMatch")
    .Input("input: string")
    .Attr("pattern: string")
    .Output("output: bool")`,
];
