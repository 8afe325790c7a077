// The Unicode ops of string_ops.cc and the ones that count characters: UnicodeDecode(WithOffsets),
// UnicodeEncode, UnicodeTranscode, Substr, StringLength. Ragged results are TF's components
// (row_splits over char_values). Part of the `string` family (cases/string.ts).
import type { HostTensor } from '../../../../src/tensor/host_tensor.js';
import { attr, type AttrValueInit } from '../../../../test_util/savedmodel/writer/graph_builder.js';
import { failsAtRun, i32, i64, konst, refusedAtLoad, str, type OpCase } from '../op_case.js';

const KERNEL_TESTS = 'tensorflow/python/kernel_tests/strings_ops';
const DECODE_TEST = `${KERNEL_TESTS}/unicode_decode_op_test.py@30b8178a UnicodeDecodeTest`;
const enc = new TextEncoder();
const cps = (s: string) => [...s].map((c) => c.codePointAt(0)!);
const b = (...bytes: number[]) => Uint8Array.of(...bytes);

/** Rows of code points as TF's ragged components. */
function ragged(rows: number[][]): { row_splits: HostTensor; char_values: HostTensor } {
  const splits = [0];
  for (const r of rows) splits.push(splits[splits.length - 1] + r.length);
  return { row_splits: i64([splits.length], splits), char_values: i32([splits[splits.length - 1]], rows.flat()) };
}

const decode = (
  x: HostTensor,
  attrs: Record<string, AttrValueInit>,
  rows: number[][],
  name: string,
  source: string,
  offsets?: number[][],
): OpCase => ({
  name,
  source,
  op: offsets ? 'UnicodeDecodeWithOffsets' : 'UnicodeDecode',
  attrs: { input_encoding: attr.s('UTF-8'), ...attrs },
  inputs: [x],
  want: offsets ? { ...ragged(rows), char_to_byte_starts: i64([offsets.flat().length], offsets.flat()) } : ragged(rows),
});

const BAD = str([4], [b(0xfe), 'hello', b(0x3d, 0x3d, 0xff, 0x3d, 0x3d), 'world']);
const HELLO = cps('hello');
const WORLD = cps('world');

const DECODE_CASES: OpCase[] = [
  decode(
    str([2], ['G\u00f6\u00f6dnight', '\u{1f60a}']),
    {},
    [[71, 246, 246, 100, 110, 105, 103, 104, 116], [128522]],
    'docstring example: code points and byte offsets',
    `${DECODE_TEST} testDocstringExamples`,
    [[0, 1, 3, 5, 6, 7, 8, 9, 10], [0]],
  ),
  decode(
    str([2], ['仅今年前', 'hello']),
    {},
    [cps('仅今年前'), HELLO],
    'a vector of strings',
    `${DECODE_TEST} testVectorDecodeWithOffset`,
    [
      [0, 3, 6, 9],
      [0, 1, 2, 3, 4],
    ],
  ),
  decode(
    str([2, 2], ['Hi', 'there', '', '\u{1f60a}']),
    { input_encoding: attr.s('utf-8') },
    [cps('Hi'), cps('there'), [], [0x1f60a]],
    'a matrix: one row per string; "utf-8" names the same converter',
    `${DECODE_TEST} testBasicDecode`,
  ),
  decode(
    BAD,
    {},
    [[0xfffd], HELLO, [61, 61, 0xfffd, 61, 61], WORLD],
    'errors "replace" (the default): U+FFFD where the bytes are not UTF-8',
    `${DECODE_TEST} testErrorModesWithOffsets`,
    [[0], [0, 1, 2, 3, 4], [0, 1, 2, 3, 4], [0, 1, 2, 3, 4]],
  ),
  decode(
    BAD,
    { replacement_char: attr.i(0) },
    [[0], HELLO, [61, 61, 0, 61, 61], WORLD],
    'replacement_char 0',
    `${DECODE_TEST} testErrorModes`,
  ),
  decode(
    BAD,
    { errors: attr.s('ignore') },
    [[], HELLO, [61, 61, 61, 61], WORLD],
    'errors "ignore" drops what is not UTF-8, offsets skip it',
    `${DECODE_TEST} testErrorModesWithOffsets`,
    [[], [0, 1, 2, 3, 4], [0, 1, 3, 4], [0, 1, 2, 3, 4]],
  ),
  decode(
    str([5], [b(0), 'hello', b(0x3d, 0x3d, 0x01, 0x3d, 0x3d), 'world', '\u0080\u009f']),
    { replace_control_characters: attr.b(true) },
    [[0xfffd], HELLO, [61, 61, 65533, 61, 61], WORLD, [0x80, 0x9f]],
    'replace_control_characters: C0 controls replaced, C1 kept',
    `${DECODE_TEST} testErrorModes`,
  ),
  decode(
    str([3], [b(0xed, 0xa0, 0xbd), b(0xed, 0xb8, 0x80), b(0xed, 0xa0, 0xbd, 0xed, 0xb8, 0x80)]),
    {},
    [[0xfffd, 0xfffd, 0xfffd], [0xfffd, 0xfffd, 0xfffd], Array(6).fill(0xfffd)],
    "surrogates encoded in UTF-8: one U+FFFD per byte (ICU's maximal subparts)",
    `${DECODE_TEST} testErrorModes`,
  ),
  decode(
    str([5], ['\ufdd0', '\ufffe\uffff', '\u{10ffff}', b(0xc0, 0x80), b(0xf4, 0x90, 0x80, 0x80)]),
    {},
    [[0xfdd0], [0xfffe, 0xffff], [0x10ffff], [0xfffd, 0xfffd], [0xfffd, 0xfffd, 0xfffd, 0xfffd]],
    'noncharacters decode; an overlong NUL and U+110000 do not',
    `${DECODE_TEST} testErrorModes`,
  ),
  decode(
    str([1], [b(0xd8, 0x01)]),
    { replacement_char: attr.i(0x41) },
    [[0x41, 1]],
    'a truncated sequence is one error, the byte after it decodes',
    `${DECODE_TEST} testErrorModesWithOffsets`,
    [[0, 1]],
  ),
  decode(
    str([1], [b(0x00, 0x48, 0xd8, 0x3d, 0xde, 0x0a)]),
    { input_encoding: attr.s('UTF-16-BE') },
    [[0x48, 0x1f60a]],
    'UTF-16-BE, a surrogate pair',
    'ICU UTF-16BE converter (unicode_ops.cc reads input_encoding with ucnv_open)',
    [[0, 2]],
  ),
  {
    name: 'errors "strict" fails the request on bytes that are not UTF-8',
    source: 'core/kernels/unicode_ops.cc UnicodeDecodeBaseOp::Decode',
    op: 'UnicodeDecode',
    attrs: { input_encoding: attr.s('UTF-8'), errors: attr.s('strict') },
    inputs: [BAD],
    want: failsAtRun('Invalid formatting on input string'),
  },
  {
    name: 'replacement_char past U+10FFFF is refused at load',
    source: 'core/kernels/unicode_ops.cc GetErrorOptions',
    op: 'UnicodeDecode',
    attrs: { input_encoding: attr.s('UTF-8'), replacement_char: attr.i(0x110000) },
    inputs: [str([1], ['a'])],
    want: refusedAtLoad(/UnicodeDecode \(node UnicodeDecode: replacement_char out of unicode codepoint range\)/),
  },
  {
    name: 'an encoding tfgate does not decode is refused at load, naming it',
    source: 'tfgate: TF opens any ICU converter; the embedded runtime decodes the UTF encodings',
    op: 'UnicodeDecode',
    attrs: { input_encoding: attr.s('Shift_JIS') },
    inputs: [str([1], ['a'])],
    want: refusedAtLoad(/UnicodeDecode \(node UnicodeDecode: input_encoding 'Shift_JIS': the embedded runtime decodes UTF-8, UTF-16/),
  },
];

const ENCODE_TEST = `${KERNEL_TESTS}/unicode_encode_op_test.py@03049341 UnicodeEncodeOpTest`;
const ENCODINGS = ['UTF-8', 'UTF-16-BE', 'UTF-32-BE'] as const;
type Encoding = (typeof ENCODINGS)[number];
/** Python's str.encode(encoding) of a JS string (UTF-16 units; valid text only). */
function encoded(s: string, encoding: Encoding): Uint8Array {
  if (encoding === 'UTF-8') return enc.encode(s);
  if (encoding === 'UTF-16-BE')
    return Uint8Array.from(Array.from({ length: s.length }, (_, i) => [s.charCodeAt(i) >> 8, s.charCodeAt(i) & 0xff]).flat());
  return Uint8Array.from(
    [...s].flatMap((c) => {
      const v = c.codePointAt(0)!;
      return [v >>> 24, (v >> 16) & 0xff, (v >> 8) & 0xff, v & 0xff];
    }),
  );
}
const encode = (
  values: number[],
  encoding: Encoding,
  want: string,
  name: string,
  source: string,
  errors = 'replace',
  replacement = 0xfffd,
): OpCase => {
  const { row_splits, char_values } = ragged([values]);
  return {
    name: `${encoding}: ${name}`,
    source,
    op: 'UnicodeEncode',
    attrs: { output_encoding: attr.s(encoding), errors: attr.s(errors), replacement_char: attr.i(replacement) },
    inputs: [char_values, row_splits],
    want: { output: str([1], [encoded(want, encoding)]) },
  };
};
const H = 0x48;
const E = 0x65;
const O = 0x6f;
const MIXED = [H, E, 0x7fffffff, -1, O, 0, 0x08, 0x1f600, 0xd83d, 0xde00, 0xfdd0, 0xfffe, 0xffff, 0x10ffff, 0x110000];
const VALID = [H, E, O, 0, 0x08, 0x1f600, 0xfdd0, 0xfffe, 0xffff, 0x10ffff];

const HELLO_WORLD = ragged([
  [H, 0xc3, 0x6c, 0x6c, O],
  [0x57, 0x1f604, 0x72, 0x6c, 0x64, 0x2e],
]);

const ENCODE_CASES: OpCase[] = [
  ...ENCODINGS.flatMap((e) => [
    encode(
      VALID,
      e,
      'Heo\0\b\u{1f600}\ufdd0\ufffe\uffff\u{10ffff}',
      'errors "strict": noncharacters are valid',
      `${ENCODE_TEST} testStrictErrorsValid`,
      'strict',
    ),
    encode(
      MIXED,
      e,
      'He\ufffd\ufffdo\0\b\u{1f600}\ufffd\ufffd\ufdd0\ufffe\uffff\u{10ffff}\ufffd',
      'errors "replace": out of range and surrogate code points become U+FFFD',
      `${ENCODE_TEST} testReplaceErrors`,
    ),
    encode(
      MIXED,
      e,
      'Heo\0\b\u{1f600}\ufdd0\ufffe\uffff\u{10ffff}',
      'errors "ignore": they are dropped',
      `${ENCODE_TEST} testIgnoreErrors`,
      'ignore',
    ),
  ]),
  encode([H, E, 0x7fffffff, -1, O], 'UTF-8', 'Heooo', 'replacement_char "o"', `${ENCODE_TEST} testReplaceErrors`, 'replace', O),
  encode(
    [0xd801],
    'UTF-16-BE',
    'A',
    'an unpaired surrogate with replacement_char 0x41',
    `${ENCODE_TEST} testReplaceErrors`,
    'replace',
    0x41,
  ),
  encode([0x1ffff], 'UTF-32-BE', '\u{1ffff}', 'a noncharacter is no error', `${ENCODE_TEST} testReplaceErrors`, 'replace', 0x41),
  {
    ...encode(
      [0xd83d, 0xde00],
      'UTF-8',
      '',
      'errors "strict" fails the request on surrogate code points',
      `${ENCODE_TEST} testStrictErrorsSurrogatePair`,
      'strict',
    ),
    want: failsAtRun('Code point value out of valid Unicode range.'),
  },
  {
    ...encode(
      [0x110000],
      'UTF-8',
      '',
      'errors "strict" fails the request past U+10FFFF',
      `${ENCODE_TEST} testStrictErrorsTooLarge`,
      'strict',
    ),
    want: failsAtRun('Code point value out of valid Unicode range.'),
  },
  {
    name: 'rows of code points: one string per row',
    source: `${ENCODE_TEST} testRaggedMatrix`,
    op: 'UnicodeEncode',
    attrs: { output_encoding: attr.s('UTF-8') },
    inputs: [HELLO_WORLD.char_values, HELLO_WORLD.row_splits],
    want: { output: str([2], ['H\u00c3llo', 'W\u{1f604}rld.']) },
  },
  {
    name: 'replacement_char past U+10FFFF is refused at load',
    source: `${ENCODE_TEST} testReplaceErrors ("Replacement_char must be within range")`,
    op: 'UnicodeEncode',
    attrs: { output_encoding: attr.s('UTF-8'), replacement_char: attr.i(0x110000) },
    inputs: [i32([1], [H]), i64([2], [0, 1])],
    want: refusedAtLoad(/UnicodeEncode \(node UnicodeEncode: replacement_char out of unicode codepoint range\)/),
  },
];

const TRANSCODE_TEST = `${KERNEL_TESTS}/unicode_transcode_op_test.py@16e3ced2 UnicodeTranscodeOpTest`;
const SPACE = attr.i(0x20);
const transcode = (
  x: HostTensor,
  attrs: Record<string, AttrValueInit>,
  want: HostTensor | string,
  name: string,
  source: string,
): OpCase => ({
  name,
  source,
  op: 'UnicodeTranscode',
  attrs: { input_encoding: attr.s('UTF-8'), output_encoding: attr.s('UTF-8'), ...attrs },
  inputs: [x],
  want: typeof want === 'string' ? failsAtRun(want) : { output: want },
});
const one = (v: string | Uint8Array) => str([1], [v]);
const SIMPLE = str([2, 2], ['a', 'abc', 'ABC', 'DEF']);
const BAD_NUL = one(b(0x00, 0xff));

const TRANSCODE_CASES: OpCase[] = [
  ...['UTF-8', 'ISO-8859-1', 'US-ASCII'].map((e) =>
    transcode(
      SIMPLE,
      { input_encoding: attr.s(e), replacement_char: SPACE },
      SIMPLE,
      `${e} to UTF-8: ASCII text unchanged`,
      `${TRANSCODE_TEST} test_transcode_utf8_simple`,
    ),
  ),
  transcode(
    str([2], [b(0x00, 0x61, 0x00, 0x62, 0x20, 0xac), b(0xd8, 0x01, 0xdc, 0x37)]),
    { input_encoding: attr.s('UTF-16') },
    str([2], ['ab€', '\u{10437}']),
    'UTF-16 (no byte-order mark: big-endian) to UTF-8',
    `${TRANSCODE_TEST} test_transcode_utf16_to_utf8`,
  ),
  transcode(
    str([2], [b(0, 0, 0, 0x61, 0, 0, 0, 0x62, 0, 0, 0x20, 0xac), b(0, 1, 4, 0x37)]),
    { input_encoding: attr.s('UTF-32') },
    str([2], ['ab€', '\u{10437}']),
    'UTF-32 to UTF-8',
    `${TRANSCODE_TEST} test_transcode_utf32_to_utf8`,
  ),
  transcode(
    str([2], ['ab€', '\u{10437}']),
    { output_encoding: attr.s('UTF-16-BE') },
    str([2], [encoded('ab€', 'UTF-16-BE'), encoded('\u{10437}', 'UTF-16-BE')]),
    'UTF-8 to UTF-16-BE',
    `${TRANSCODE_TEST} test_transcode_utf8_to_utf16`,
  ),
  transcode(
    str([2], ['ab€', '\u{10437}']),
    { output_encoding: attr.s('UTF-32-BE') },
    str([2], [encoded('ab€', 'UTF-32-BE'), encoded('\u{10437}', 'UTF-32-BE')]),
    'UTF-8 to UTF-32-BE',
    `${TRANSCODE_TEST} test_transcode_utf8_to_utf32`,
  ),
  transcode(
    BAD_NUL,
    { replacement_char: SPACE, replace_control_characters: attr.b(true) },
    one('  '),
    'replace_control_characters: NUL and the bad byte become " "',
    `${TRANSCODE_TEST} test_transcode_bad_utf8`,
  ),
  transcode(
    BAD_NUL,
    { replacement_char: SPACE },
    one('\0 '),
    'the bad byte becomes " ", NUL stays',
    `${TRANSCODE_TEST} test_transcode_bad_utf8`,
  ),
  transcode(
    one(b(0x61, 0x62, 0x63, 0xff, 0x61, 0x62, 0x63, 0x64, 0x65, 0x66, 0x67)),
    { replacement_char: SPACE },
    one('abc abcdefg'),
    'good text around a bad byte',
    `${TRANSCODE_TEST} test_transcode_bad_utf8_with_some_good`,
  ),
  transcode(BAD_NUL, {}, one(b(0x00, 0xef, 0xbf, 0xbd)), 'defaults: U+FFFD', `${TRANSCODE_TEST} test_transcode_bad_utf8_with_defaults`),
  transcode(
    BAD_NUL,
    { errors: attr.s('ignore') },
    one('\0'),
    'errors "ignore"',
    `${TRANSCODE_TEST} test_transcode_bad_utf8_with_elision_of_malformatting`,
  ),
  transcode(
    BAD_NUL,
    { errors: attr.s('ignore'), replace_control_characters: attr.b(true) },
    one(''),
    'errors "ignore" with replace_control_characters drops NUL too',
    `${TRANSCODE_TEST} test_transcode_bad_utf8_with_elision_including_control_chars`,
  ),
  transcode(
    one(b(0x61, 0xf0)),
    {},
    one('a\ufffd'),
    'a truncated sequence at the end',
    `${TRANSCODE_TEST} test_transcode_bad_utf8_termination_with_defaults`,
  ),
  transcode(
    one('a\ufffd'),
    { errors: attr.s('strict') },
    one('a\ufffd'),
    'a U+FFFD in the input is no error',
    `${TRANSCODE_TEST} test_transcode_utf8_with_replacement_char`,
  ),
  transcode(
    str([2], [b(0x0e, 0x0e), b(0x0f, 0x0f)]),
    { input_encoding: attr.s('US-ASCII'), replacement_char: SPACE },
    str([2], [b(0x0e, 0x0e), b(0x0f, 0x0f)]),
    'US-ASCII shift characters pass',
    `${TRANSCODE_TEST} test_transcode_ascii_with_shift_chars`,
  ),
  transcode(
    one(b(0xfe, 0xff, 0x00, 0x61)),
    { input_encoding: attr.s('UTF-16-LE') },
    one(b(0xef, 0xbf, 0xbe, 0xe6, 0x84, 0x80)),
    'a big-endian mark read as UTF-16-LE is kept, mangled',
    `${TRANSCODE_TEST} test_transcode_utf16_le_be_with_bom`,
  ),
  ...(
    [
      [b(0xfe, 0xff, 0x00, 0x2a), 'UTF-16', '*'],
      [b(0xff, 0xfe, 0x2a, 0x00), 'UTF-16', '*'],
      [b(0xef, 0xbb, 0xbf, 0x2a), 'UTF-8', '\ufeff*'],
      [b(0xfe, 0xff, 0x00, 0x2a), 'UTF-16-BE', '\ufeff*'],
      [b(0x00, 0x3c, 0xfe, 0xff, 0x00, 0x3e), 'UTF-16', '<\ufeff>'],
      [b(0xff, 0xfe, 0x3c, 0x00, 0xff, 0xfe, 0x3e, 0x00), 'UTF-16', '<\ufeff>'],
    ] as const
  ).map(([x, e, want]) =>
    transcode(
      one(x),
      { input_encoding: attr.s(e) },
      one(want),
      `${e}: a byte-order mark is dropped only where it picks the byte order`,
      `${TRANSCODE_TEST} test_bom_handling`,
    ),
  ),
  transcode(
    BAD_NUL,
    { errors: attr.s('strict') },
    'Invalid formatting on input string',
    'errors "strict" fails the request',
    `${TRANSCODE_TEST} test_transcode_bad_utf8_with_strict_errors`,
  ),
];

const SUBSTR_TEST = `${KERNEL_TESTS}/substr_op_test.py@609ec267 SubstrOpTest`;
const MATRIX = str([3, 3], ['ten', 'eleven', 'twelve', 'thirteen', 'fourteen', 'fifteen', 'sixteen', 'seventeen', 'eighteen']);
const substr = (
  x: HostTensor,
  pos: HostTensor,
  len: HostTensor,
  want: HostTensor | string,
  name: string,
  source: string,
  unit = 'BYTE',
): OpCase => ({
  name: `${unit}: ${name}`,
  source,
  op: 'Substr',
  attrs: { unit: attr.s(unit) },
  inputs: [x, pos, len],
  want: typeof want === 'string' ? failsAtRun(want) : { output: want },
});

const SUBSTR_CASES: OpCase[] = [
  substr(str([], ['Hello']), i32([], [1]), i32([], [3]), str([], ['ell']), '"Hello"[1:4]', `${SUBSTR_TEST} testScalarString`),
  substr(
    str([], ['Hello']),
    i64([], [-4]),
    i64([], [3]),
    str([], ['ell']),
    'a negative pos counts from the end (int64 pos)',
    `${SUBSTR_TEST} testScalarString`,
  ),
  substr(
    str([], ['He\u00c3\u00c3\u{1f604}']),
    i32([], [1]),
    i32([], [3]),
    str([], ['e\u00c3\u00c3']),
    'UTF-8 characters',
    `${SUBSTR_TEST} testScalarString`,
    'UTF8_CHAR',
  ),
  substr(
    str([], ['He\u00c3\u00c3\u{1f604}']),
    i32([], [-4]),
    i32([], [3]),
    str([], ['e\u00c3\u00c3']),
    'negative pos in characters',
    `${SUBSTR_TEST} testScalarString`,
    'UTF8_CHAR',
  ),
  substr(
    str([], ['H\u00c3ll\u{1f604}']),
    i32([], [-4]),
    i32([], [5]),
    str([], ['\u00c3ll\u{1f604}']),
    'a length past the end is clipped',
    `${SUBSTR_TEST} testScalarString_EdgeCases`,
    'UTF8_CHAR',
  ),
  substr(
    MATRIX,
    i32([], [1]),
    i32([], [4]),
    str([3, 3], ['en', 'leve', 'welv', 'hirt', 'ourt', 'ifte', 'ixte', 'even', 'ight']),
    'a matrix, scalar pos and len',
    `${SUBSTR_TEST} testMatrixStrings`,
  ),
  substr(
    MATRIX,
    i32([], [-3]),
    i32([], [2]),
    str([3, 3], ['te', 've', 'lv', 'ee', 'ee', 'ee', 'ee', 'ee', 'ee']),
    'a matrix, negative pos',
    `${SUBSTR_TEST} testMatrixStrings`,
  ),
  substr(
    MATRIX,
    i32([3, 3], [1, -4, 3, 1, 2, -4, -5, 2, 3]),
    i32([3, 3], [2, 2, 4, 4, 3, 2, 5, 5, 5]),
    str([3, 3], ['en', 'ev', 'lve', 'hirt', 'urt', 'te', 'xteen', 'vente', 'hteen']),
    'pos and len element-wise',
    `${SUBSTR_TEST} testElementWisePosLen`,
  ),
  substr(
    str(
      [4, 3],
      ['ten', 'eleven', 'twelve', 'thirteen', 'fourteen', 'fifteen', 'sixteen', 'seventeen', 'eighteen', 'nineteen', 'twenty', 'twentyone'],
    ),
    i32([3], [1, -4, 3]),
    i32([3], [1, 2, 3]),
    str([4, 3], ['e', 'ev', 'lve', 'h', 'te', 'tee', 'i', 'te', 'hte', 'i', 'en', 'nty']),
    'pos and len broadcast over the rows',
    `${SUBSTR_TEST} testBroadcast`,
  ),
  substr(
    str([3], ['thirteen', 'fourteen', 'fifteen']),
    i32([3, 3], [1, -2, 3, -3, 2, 1, 5, 5, -5]),
    i32([3, 3], [3, 2, 1, 1, 2, 3, 2, 2, 2]),
    str([3, 3], ['hir', 'en', 't', 'e', 'ur', 'ift', 'ee', 'ee', 'ft']),
    'the strings broadcast over pos and len',
    `${SUBSTR_TEST} testBroadcast`,
  ),
  substr(
    str([], ['th\u00cdrt\u00ea\u00ean']),
    i32([3], [1, -4, 7]),
    i32([3], [3, 2, 1]),
    str([3], ['h\u00cdr', 't\u00ea', 'n']),
    'a scalar string broadcast over a vector of positions',
    `${SUBSTR_TEST} testBroadcast`,
    'UTF8_CHAR',
  ),
  substr(
    str([], ['Hello']),
    i32([], [6]),
    i32([], [3]),
    "pos 6 out of range for string b'Hello' at index 0",
    'pos past the end fails the request',
    `${SUBSTR_TEST} testOutOfRangeError_Scalar`,
  ),
  substr(
    str([], ['Hello']),
    i32([], [-6]),
    i32([], [3]),
    "pos -6 out of range for string b'Hello' at index 0",
    'pos before the start fails the request',
    `${SUBSTR_TEST} testOutOfRangeError_Scalar`,
  ),
  substr(
    str([], ['H\u00c3ll\u{1f604}']),
    i32([], [6]),
    i32([], [3]),
    'pos 6 out of range for string at index 0',
    'pos past the last character fails the request',
    `${SUBSTR_TEST} testOutOfRangeError_Scalar`,
    'UTF8_CHAR',
  ),
  substr(
    MATRIX,
    i32([2], [1, 2]),
    i32([3], [1, 2, 3]),
    'pos and len should have the same shape, got: [2] vs. [3]',
    'pos and len of different shapes fail the request',
    'core/kernels/substr_op.cc SubstrOp::Compute',
  ),
];

const LENGTH_TEST = `${KERNEL_TESTS}/string_length_op_test.py@609ec267 StringLengthOpTest`;
const LENGTH_CASES: OpCase[] = [
  {
    name: 'bytes of each string, shape kept',
    source: `${LENGTH_TEST} testStringLength`,
    op: 'StringLength',
    inputs: [str([1, 3, 2], ['1', '12', '123', '1234', '12345', '123456'])],
    want: { output: i32([1, 3, 2], [1, 2, 3, 4, 5, 6]) },
  },
  {
    name: 'BYTE: "H\\xc3llo" and "\\U0001f604" are 6 and 4 bytes',
    source: `${LENGTH_TEST} testUnit`,
    op: 'StringLength',
    attrs: { unit: attr.s('BYTE') },
    inputs: [str([2], ['H\u00c3llo', '\u{1f604}'])],
    want: { output: i32([2], [6, 4]) },
  },
  {
    name: 'UTF8_CHAR counts characters: "H\\xc3llo" and "\\U0001f604" are 5 and 1; any byte but a continuation byte starts one',
    source: `${LENGTH_TEST} testUnit; core/kernels/string_util.h UTF8StrLen (bytes that are not 10xxxxxx)`,
    op: 'StringLength',
    attrs: { unit: attr.s('UTF8_CHAR') },
    inputs: [str([4], ['H\u00c3llo', '\u{1f604}', '', b(0x61, 0xff, 0x80)])],
    want: { output: i32([4], [5, 1, 0, 2]) },
  },
];

// TF Text's WhitespaceTokenizer feeds its op a bit array of ICU's White_Space code points
// (whitespace_tokenizer_config_builder.cc: one bit per code point up to the largest, U+3000).
const WHITE_SPACE = [
  0x09,
  0x0a,
  0x0b,
  0x0c,
  0x0d,
  0x20,
  0x85,
  0xa0,
  0x1680,
  ...Array.from({ length: 11 }, (_, i) => 0x2000 + i),
  0x2028,
  0x2029,
  0x202f,
  0x205f,
  0x3000,
];
export const WHITESPACE_CONFIG = (() => {
  const bits = new Uint8Array((0x3000 >> 3) + 1);
  for (const cp of WHITE_SPACE) bits[cp >> 3] |= 1 << (cp & 7);
  return bits;
})();
const WHITESPACE_TEST = 'tensorflow/text tensorflow_text/python/ops/whitespace_tokenizer_test.py@17c38bf0 WhitespaceTokenizerOpTest';
function whitespaceTokenize(
  x: Array<string | Uint8Array>,
  tokens: Array<Array<string | Uint8Array>>,
  starts: number[][],
  ends: number[][],
  name: string,
  test: string,
): OpCase {
  const splits = [0];
  for (const r of tokens) splits.push(splits[splits.length - 1] + r.length);
  return {
    name,
    source: `${WHITESPACE_TEST} ${test}`,
    op: 'TFText>WhitespaceTokenizeWithOffsetsV2',
    inputs: [str([x.length], x), konst(str([], [WHITESPACE_CONFIG]))],
    want: {
      output_tokens: str([splits[splits.length - 1]], tokens.flat()),
      output_row_splits: i64([splits.length], splits),
      output_start_offsets: i32([starts.flat().length], starts.flat()),
      output_end_offsets: i32([ends.flat().length], ends.flat()),
    },
  };
}
/** Strings, tokens and byte offsets TF Text's whitespace tokenizer test states (its test names): the older op over code points states the same. */
export const WHITESPACE_TEST_ROWS: ReadonlyArray<{
  test: string;
  name: string;
  texts: string[];
  tokens: string[][];
  starts: number[][];
  ends: number[][];
}> = [
  {
    test: 'testVector',
    name: 'tokens and byte offsets of each string',
    texts: ['I love Flume!', 'Good day'],
    tokens: [
      ['I', 'love', 'Flume!'],
      ['Good', 'day'],
    ],
    starts: [
      [0, 2, 7],
      [0, 5],
    ],
    ends: [
      [1, 6, 13],
      [4, 8],
    ],
  },
  {
    test: 'testInternationalization',
    name: 'UTF-8 text: offsets in bytes',
    texts: ["J'adore la灯", '¡Escríbeme!'],
    tokens: [["J'adore", 'la灯'], ['¡Escríbeme!']],
    starts: [[0, 8], [0]],
    ends: [[7, 13], [13]],
  },
  {
    test: 'testSpaceBoundaries',
    name: 'spaces at both ends and in runs',
    texts: [' Hook em! ', ' .Ok.   Go  '],
    tokens: [
      ['Hook', 'em!'],
      ['.Ok.', 'Go'],
    ],
    starts: [
      [1, 6],
      [1, 8],
    ],
    ends: [
      [5, 9],
      [5, 10],
    ],
  },
  {
    test: 'testOnlySpaces',
    name: 'only whitespace: no tokens',
    texts: [' ', '     ', ' \t\r\n'],
    tokens: [[], [], []],
    starts: [[], [], []],
    ends: [[], [], []],
  },
  {
    test: 'testWhitespaceCharacters',
    name: 'tab, CR, LF, CRLF',
    texts: ['things:\tcarpet\rdesk\nlamp\r\nlove'],
    tokens: [['things:', 'carpet', 'desk', 'lamp', 'love']],
    starts: [[0, 8, 15, 20, 26]],
    ends: [[7, 14, 19, 24, 30]],
  },
  {
    test: 'testEmptyString',
    name: 'empty strings',
    texts: ['', 'I love Flume!', '', 'O hai', ''],
    tokens: [[], ['I', 'love', 'Flume!'], [], ['O', 'hai'], []],
    starts: [[], [0, 2, 7], [], [0, 2], []],
    ends: [[], [1, 6, 13], [], [1, 5], []],
  },
];
const WHITESPACE_CASES: OpCase[] = [
  ...WHITESPACE_TEST_ROWS.map((r) => whitespaceTokenize(r.texts, r.tokens, r.starts, r.ends, r.name, r.test)),
  whitespaceTokenize(
    ['a\u3000b'],
    [[Uint8Array.of(0x61, 0xe3, 0x80), 'b']],
    [[0, 4]],
    [[3, 5]],
    "a multi-byte space (U+3000): the token ends one byte before the space's end, as the kernel computes it",
    'tensorflow_text/core/kernels/whitespace_tokenizer.cc Tokenize ("int end_pos = position - 1")',
  ),
];

export const UNICODE_CASES: readonly OpCase[] = [
  ...DECODE_CASES,
  ...ENCODE_CASES,
  ...TRANSCODE_CASES,
  ...SUBSTR_CASES,
  ...LENGTH_CASES,
  ...WHITESPACE_CASES,
];

export const UNICODE_REGISTRATIONS: readonly string[] = [
  // tensorflow/text tensorflow_text/core/kernels/whitespace_tokenizer_kernel_template.h (a TF op shim: no attrs)
  `REGISTER_OP("TFText>WhitespaceTokenizeWithOffsetsV2")
    .Input("input_values: string")
    .Input("input_config: string")
    .Output("output_tokens: string")
    .Output("output_row_splits: int64")
    .Output("output_start_offsets: int32")
    .Output("output_end_offsets: int32")`,
  `REGISTER_OP("StringLength")
    .Input("input: string")
    .Output("output: int32")
    .Attr("unit: {'BYTE', 'UTF8_CHAR'} = 'BYTE'")`,
  `REGISTER_OP("Substr")
    .Input("input: string")
    .Input("pos: T")
    .Input("len: T")
    .Output("output: string")
    .Attr("T: {int32, int64}")
    .Attr("unit: {'BYTE', 'UTF8_CHAR'} = 'BYTE'")`,
  `REGISTER_OP("UnicodeEncode")
    .Input("input_values: int32")
    .Input("input_splits: Tsplits")
    .Attr("errors: {'ignore', 'replace', 'strict'} = 'replace'")
    .Attr("output_encoding: {'UTF-8', 'UTF-16-BE', 'UTF-32-BE'}")
    .Attr("replacement_char: int = 65533")  // 0xFFFD unicode replacement char
    .Attr("Tsplits: {int32, int64} = DT_INT64")
    .Output("output: string")`,
  `REGISTER_OP("UnicodeTranscode")
    .Input("input: string")
    .Output("output: string")
    .Attr("input_encoding: string")
    .Attr("output_encoding: {'UTF-8', 'UTF-16-BE', 'UTF-32-BE'}")
    .Attr("errors: {'strict', 'replace', 'ignore'} = 'replace'")
    .Attr("replacement_char: int = 65533")  // 0xFFFD unicode replacement char
    .Attr("replace_control_characters: bool = false")`,
  `REGISTER_OP("UnicodeDecode")
    .Input("input: string")
    .Output("row_splits: Tsplits")
    .Output("char_values: int32")
    .Attr("input_encoding: string")
    .Attr("errors: {'strict', 'replace', 'ignore'} = 'replace'")
    .Attr("replacement_char: int = 65533")  // 0xFFFD unicode replacement char
    .Attr("replace_control_characters: bool = false")
    .Attr("Tsplits: {int32, int64} = DT_INT64")`,
  `REGISTER_OP("UnicodeDecodeWithOffsets")
    .Input("input: string")
    .Output("row_splits: Tsplits")
    .Output("char_values: int32")
    .Output("char_to_byte_starts: int64")
    .Attr("input_encoding: string")
    .Attr("errors: {'strict', 'replace', 'ignore'} = 'replace'")
    .Attr("replacement_char: int = 65533")  // 0xFFFD unicode replacement char
    .Attr("replace_control_characters: bool = false")
    .Attr("Tsplits: {int32, int64} = DT_INT64")`,
];
