// The `string` op family: the string ops of Keras preprocessing layers (Hashing, StringLookup's
// OOV buckets, TextVectorization) and Estimator feature columns, on the strings' bytes as TF
// computes them. tfjs-converter has none of them (or maps them to something else).
import type { TfjsOpTable } from '../../../shared/tfjs_op_table.js';
import { TFGATE_WORDPIECE_OP } from '../../../../savedmodel/graph/lookup_tables/lookup_rewrite.js';
import { stringHashExecutor, stringHashNodeProblem } from './string_hash.js';
import { stringCaseExecutor, stringCaseNodeProblem } from './string_case.js';
import { stringStripOp } from './string_strip.js';
import { patternAttrProblem, regexReplaceOp, staticRegexReplaceOp } from './regex_replace.js';
import { regexFullMatchOp, staticRegexFullMatchOp } from './regex_full_match.js';
import { regexSplitWithOffsetsOp } from './regex_split.js';
import { whitespaceTokenizeWithOffsetsV2Op } from './whitespace_tokenize.js';
import { wordpieceTokenizeWithOffsetsOp } from './wordpiece_tokenize.js';
import { stringSplitV2Op } from './string_split.js';
import { asStringNodeProblem, asStringOp } from './as_string.js';
import { stringFormatNodeProblem, stringFormatOp } from './string_format.js';
import { stringJoinOp } from './string_join.js';
import { substrOp } from './substr.js';
import { stringLengthOp } from './string_length.js';
import { stringNGramsOp } from './string_ngrams.js';
import { reduceJoinOp } from './reduce_join.js';
import { unsortedSegmentJoinOp } from './unsorted_segment_join.js';
import {
  unicodeDecodeNodeProblem,
  unicodeDecodeOp,
  unicodeDecodeWithOffsetsOp,
  unicodeEncodeNodeProblem,
  unicodeEncodeOp,
  unicodeTranscodeNodeProblem,
  unicodeTranscodeOp,
} from './unicode_ops.js';
import { decodeBase64Op, encodeBase64Op } from './base64.js';
import { fastWordpieceDetokenizeOp, fastWordpieceNodeProblem, fastWordpieceTokenizeWithOffsetsOp } from './fast_wordpiece_ops.js';
import { fastBertNormalizeNodeProblem, fastBertNormalizeOp } from './fast_bert_normalize.js';
import { caseFoldUTF8Op, normalizeUTF8Op, unicodeNormalizeNodeProblem } from './unicode_normalize.js';
import { unicodeScriptTokenizeWithOffsetsOp } from './unicode_script_tokenize.js';
import { whitespaceTokenizeWithOffsetsOp } from './whitespace_tokenize_code_points.js';
import { findSourceOffsetsOp, normalizeUTF8WithOffsetsMapOp } from './normalize_offsets.js';

export const STRING_OPS: TfjsOpTable = {
  StringToHashBucketFast: { execute: stringHashExecutor('StringToHashBucketFast'), check: stringHashNodeProblem },
  StringToHashBucket: { execute: stringHashExecutor('StringToHashBucket'), check: stringHashNodeProblem },
  StringToHashBucketStrong: { execute: stringHashExecutor('StringToHashBucketStrong'), check: stringHashNodeProblem },
  StringLower: { execute: stringCaseExecutor('StringLower'), check: stringCaseNodeProblem },
  StringUpper: { execute: stringCaseExecutor('StringUpper'), check: stringCaseNodeProblem },
  StringStrip: { execute: stringStripOp },
  StaticRegexReplace: { execute: staticRegexReplaceOp, check: patternAttrProblem },
  RegexReplace: { execute: regexReplaceOp },
  StaticRegexFullMatch: { execute: staticRegexFullMatchOp, check: patternAttrProblem },
  RegexFullMatch: { execute: regexFullMatchOp },
  RegexSplitWithOffsets: { execute: regexSplitWithOffsetsOp },
  'TFText>WhitespaceTokenizeWithOffsetsV2': { execute: whitespaceTokenizeWithOffsetsV2Op },
  // TF Text's WordpieceTokenizeWithOffsets, its table input the vocabulary's keys and values from load on (lookup_rewrite.ts).
  [TFGATE_WORDPIECE_OP]: { execute: wordpieceTokenizeWithOffsetsOp },
  StringSplitV2: { execute: stringSplitV2Op },
  AsString: { execute: asStringOp, check: asStringNodeProblem },
  StringFormat: { execute: stringFormatOp, check: stringFormatNodeProblem },
  StringJoin: { execute: stringJoinOp },
  Substr: { execute: substrOp },
  StringLength: { execute: stringLengthOp },
  StringNGrams: { execute: stringNGramsOp },
  ReduceJoin: { execute: reduceJoinOp },
  UnsortedSegmentJoin: { execute: unsortedSegmentJoinOp },
  UnicodeDecode: { execute: unicodeDecodeOp, check: unicodeDecodeNodeProblem },
  UnicodeDecodeWithOffsets: { execute: unicodeDecodeWithOffsetsOp, check: unicodeDecodeNodeProblem },
  UnicodeEncode: { execute: unicodeEncodeOp, check: unicodeEncodeNodeProblem },
  UnicodeTranscode: { execute: unicodeTranscodeOp, check: unicodeTranscodeNodeProblem },
  EncodeBase64: { execute: encodeBase64Op },
  DecodeBase64: { execute: decodeBase64Op },
  FastWordpieceTokenizeWithOffsets: { execute: fastWordpieceTokenizeWithOffsetsOp, check: fastWordpieceNodeProblem },
  'TFText>FastWordpieceDetokenize': { execute: fastWordpieceDetokenizeOp, check: fastWordpieceNodeProblem },
  FastBertNormalize: { execute: fastBertNormalizeOp, check: fastBertNormalizeNodeProblem },
  NormalizeUTF8: { execute: normalizeUTF8Op, check: unicodeNormalizeNodeProblem },
  CaseFoldUTF8: { execute: caseFoldUTF8Op, check: unicodeNormalizeNodeProblem },
  UnicodeScriptTokenizeWithOffsets: { execute: unicodeScriptTokenizeWithOffsetsOp },
  WhitespaceTokenizeWithOffsets: { execute: whitespaceTokenizeWithOffsetsOp },
  NormalizeUTF8WithOffsetsMap: { execute: normalizeUTF8WithOffsetsMapOp, check: unicodeNormalizeNodeProblem },
  FindSourceOffsets: { execute: findSourceOffsetsOp },
};
