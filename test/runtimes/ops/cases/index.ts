// Every family of op cases: each engine's test file runs them all.
import type { OpFamilyCases } from '../op_case.js';
import { AUDIO_CASES } from './audio.js';
import { CTC_CASES } from './ctc.js';
import { IMAGE_CASES } from './image.js';
import { IMAGE_DETECTION_CASES } from './image_detection.js';
import { MATH_CASES } from './math.js';
import { NN_CASES } from './nn.js';
import { SPARSE_CASES } from './sparse.js';
import { SPECTRAL_CASES } from './spectral.js';
import { STRING_CASES } from './string.js';
import { FAST_WORDPIECE_CASES } from './string_fast_wordpiece.js';
import { UNICODE_SCRIPT_CASES } from './string_unicode_script.js';
import { WHITESPACE_TOKENIZE_CASES } from './string_whitespace_tokenize.js';

export const OP_CASES: readonly OpFamilyCases[] = [
  AUDIO_CASES,
  CTC_CASES,
  IMAGE_CASES,
  IMAGE_DETECTION_CASES,
  MATH_CASES,
  NN_CASES,
  SPARSE_CASES,
  SPECTRAL_CASES,
  STRING_CASES,
  FAST_WORDPIECE_CASES,
  UNICODE_SCRIPT_CASES,
  WHITESPACE_TOKENIZE_CASES,
];

/**
 * Ops the embedded runtime implements whose tests predate the op cases, and where they are
 * (test/runtimes/ unless said). A new op gets a case instead; moving one of these to a case
 * removes it here.
 */
export const OPS_TESTED_ELSEWHERE: Readonly<Record<string, string>> = {
  ...Object.fromEntries(
    ['Einsum', 'ReverseSequence', 'FakeQuantWithMinMaxArgs', 'FakeQuantWithMinMaxVars', 'FakeQuantWithMinMaxVarsPerChannel'].map((op) => [
      op,
      'embedded_kernel_ops.test.ts',
    ]),
  ),
  ...Object.fromEntries(
    ['FusedBatchNorm', 'FusedBatchNormV2', 'FusedBatchNormV3', 'BatchMatMul', 'BatchMatMulV2'].map((op) => [
      op,
      'embedded_kernel_ops.test.ts, onnx/convert_nn.test.ts, onnx/convert_math.test.ts',
    ]),
  ),
  ...Object.fromEntries(['RaggedTensorToTensor', 'RaggedGather', 'RaggedRange'].map((op) => [op, 'embedded_ragged_ops.test.ts'])),
  ...Object.fromEntries(
    ['ParseExample', 'ParseExampleV2'].map((op) => [
      op,
      'embedded_sparse_ops.test.ts, contract/fixture_cases.ts, onnx_sparse_parse.test.ts',
    ]),
  ),
  ...Object.fromEntries(
    [
      'EmptyTensorList',
      'TensorListReserve',
      'TensorListFromTensor',
      'TensorListScatter',
      'TensorListScatterV2',
      'TensorListSplit',
      'TensorListLength',
      'TensorListElementShape',
      'TensorListGetItem',
      'TensorListSetItem',
      'TensorListStack',
      'TensorListGather',
      'TensorListConcat',
      'TensorListConcatV2',
      'TensorListPushBack',
      'TensorListPopBack',
      'TensorListResize',
    ].map((op) => [op, 'tensor_list_ops.test.ts, embedded_loops.test.ts']),
  ),
  TfgateLookupTableFind: 'lookup_table_cases.ts (what LookupTableFindV2 becomes at load)',
  TfgateWordpieceTokenizeWithOffsets: 'cases/string_wordpiece.ts (what WordpieceTokenizeWithOffsets becomes at load)',
  BoostedTreesBucketize: 'corpus.test.ts (the TFX benchmark models, test/corpus/PROVENANCE.md)',
  TfgateSimpleMLInference: 'decision_forests.test.ts (what SimpleMLInferenceOp… becomes at load)',
};
