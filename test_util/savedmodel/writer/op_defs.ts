// OpDefs of the ops the writer emits, as TF's op registry declares them
// (tensorflow/core/ops/{array,math,nn,state,io,no,linalg,spectral,string}_ops.cc) in the TF release the writer
// imitates (WRITER_TF_VERSION), stripped as MetaGraphDef.meta_info_def.stripped_op_list
// holds them: docs removed, defaults and allowed values kept. They serve two purposes:
// * stripped_op_list, which lets TF's importer drop attrs an older consumer does not know
//   when they hold the producer's default (forward compatibility);
// * validating the graphs tfgate writes (every attr without a default present, no unknown
//   attr, the right number of inputs).
// Values were checked against the stripped_op_list of real exports in the fixtures; those of
// the kernel tests' ops no fixture uses (FakeQuant*, ReverseSequence, PadV2, ComplexAbs, Einsum,
// RFFT, Bucketize and the string ops) against the last entry of TF's core/ops/compat/ops_history_v2/<op>.pbtxt.
// The TF2 ops (functions, control flow, TensorLists, resource variables) are in tf2_op_defs.ts,
// the lookup-table ops in lookup_op_defs.ts, the detection ops in image_op_defs.ts.
import { TF2_OP_DEFS } from './tf2_op_defs.js';
import { LOOKUP_OP_DEFS } from './lookup_op_defs.js';
import { IMAGE_OP_DEFS } from './image_op_defs.js';

export interface ArgDefInit {
  name: string;
  type?: string;
  typeAttr?: string;
  numberAttr?: string;
  typeListAttr?: string;
  isRef?: boolean;
}

export interface AttrDefInit {
  name: string;
  type: string;
  defaultValue?: Record<string, unknown>;
  allowedValues?: { list: { s?: Uint8Array[]; type?: string[] } };
  hasMinimum?: boolean;
  minimum?: number;
}

export interface OpDefInit {
  name: string;
  inputArg?: ArgDefInit[];
  outputArg?: ArgDefInit[];
  attr?: AttrDefInit[];
  isCommutative?: boolean;
  isAggregate?: boolean;
  isStateful?: boolean;
  allowsUninitializedInput?: boolean;
  isDistributedCommunication?: boolean;
}

const enc = new TextEncoder();
const arg = (name: string, typeAttr = 'T'): ArgDefInit => ({ name, typeAttr });
const fixed = (name: string, type: string): ArgDefInit => ({ name, type });
const types = (...t: string[]) => ({ list: { type: t.map((x) => `DT_${x}`) } });
const strings = (...s: string[]) => ({ list: { s: s.map((x) => enc.encode(x)) } });
const typeAttr = (name: string, allowed?: string[], dflt?: string): AttrDefInit => ({
  name,
  type: 'type',
  ...(dflt ? { defaultValue: { type: `DT_${dflt}` } } : {}),
  ...(allowed ? { allowedValues: types(...allowed) } : {}),
});
const boolAttr = (name: string, dflt: boolean): AttrDefInit => ({ name, type: 'bool', defaultValue: { b: dflt } });
const dataFormat = (...formats: string[]): AttrDefInit => ({
  name: 'data_format',
  type: 'string',
  defaultValue: { s: enc.encode('NHWC') },
  allowedValues: strings(...formats),
});
const padding = (...p: string[]): AttrDefInit => ({ name: 'padding', type: 'string', allowedValues: strings(...p) });
const explicitPaddings: AttrDefInit = { name: 'explicit_paddings', type: 'list(int)', defaultValue: { list: {} } };
const unaryComplex = (name: string): OpDefInit => ({
  name,
  inputArg: [arg('x')],
  outputArg: [arg('y')],
  attr: [typeAttr('T', ['BFLOAT16', 'HALF', 'FLOAT', 'DOUBLE', 'COMPLEX64', 'COMPLEX128'])],
});
const dtypesList: AttrDefInit = { name: 'dtypes', type: 'list(type)', hasMinimum: true, minimum: 1 };
/** The FakeQuant* ops (array_ops.cc): float in, float out, num_bits and narrow_range with defaults. */
const fakeQuant = (name: string, inputArg: ArgDefInit[], extra: AttrDefInit[] = []): OpDefInit => ({
  name,
  inputArg,
  outputArg: [fixed('outputs', 'DT_FLOAT')],
  attr: [...extra, { name: 'num_bits', type: 'int', defaultValue: { i: 8 } }, boolAttr('narrow_range', false)],
});

/** StringToHashBucketFast / …Strong (string_ops.cc): string in, int64 buckets out. */
const stringToHashBucket = (name: string, extra: AttrDefInit[] = []): OpDefInit => ({
  name,
  inputArg: [fixed('input', 'DT_STRING')],
  outputArg: [fixed('output', 'DT_INT64')],
  attr: [{ name: 'num_buckets', type: 'int', hasMinimum: true, minimum: 1 }, ...extra],
});
/** StringLower / StringUpper (string_ops.cc). */
const stringCase = (name: string): OpDefInit => ({
  name,
  inputArg: [fixed('input', 'DT_STRING')],
  outputArg: [fixed('output', 'DT_STRING')],
  attr: [{ name: 'encoding', type: 'string', defaultValue: { s: new Uint8Array(0) } }],
});

const SPARSE_SEGMENT_OP_NAMES = ['SparseSegmentSum', 'SparseSegmentMean', 'SparseSegmentSqrtN'] as const;
const REAL_NUMBER_TYPES = ['FLOAT', 'DOUBLE', 'INT32', 'UINT8', 'INT16', 'INT8', 'INT64', 'BFLOAT16', 'UINT16', 'HALF', 'UINT32', 'UINT64'];
/** SparseSegmentSum / Mean / SqrtN [WithNumSegments] (math_ops.cc); Sum takes realnumbertype, the others floats. */
const sparseSegment = (name: (typeof SPARSE_SEGMENT_OP_NAMES)[number], withNumSegments = false): OpDefInit => ({
  name: withNumSegments ? `${name}WithNumSegments` : name,
  inputArg: [
    arg('data'),
    arg('indices', 'Tidx'),
    arg('segment_ids', 'Tsegmentids'),
    ...(withNumSegments ? [arg('num_segments', 'Tnumsegments')] : []),
  ],
  outputArg: [arg('output')],
  attr: [
    typeAttr('T', name === 'SparseSegmentSum' ? REAL_NUMBER_TYPES : ['BFLOAT16', 'HALF', 'FLOAT', 'DOUBLE']),
    typeAttr('Tidx', ['INT32', 'INT64'], 'INT32'),
    ...(withNumSegments ? [typeAttr('Tnumsegments', ['INT32', 'INT64'], 'INT32')] : []),
    typeAttr('Tsegmentids', ['INT32', 'INT64'], 'INT32'),
  ],
});

const DEFS: OpDefInit[] = [
  // array_ops.cc
  { name: 'Const', outputArg: [arg('output', 'dtype')], attr: [{ name: 'value', type: 'tensor' }, typeAttr('dtype')] },
  {
    name: 'Placeholder',
    outputArg: [arg('output', 'dtype')],
    attr: [typeAttr('dtype'), { name: 'shape', type: 'shape', defaultValue: { shape: { unknownRank: true } } }],
  },
  {
    name: 'PlaceholderWithDefault',
    inputArg: [arg('input', 'dtype')],
    outputArg: [arg('output', 'dtype')],
    attr: [typeAttr('dtype'), { name: 'shape', type: 'shape' }],
  },
  { name: 'Identity', inputArg: [arg('input')], outputArg: [arg('output')], attr: [typeAttr('T')] },
  {
    name: 'Reshape',
    inputArg: [arg('tensor'), arg('shape', 'Tshape')],
    outputArg: [arg('output')],
    attr: [typeAttr('T'), typeAttr('Tshape', ['INT32', 'INT64'], 'INT32')],
  },
  {
    name: 'ReverseSequence',
    inputArg: [arg('input'), arg('seq_lengths', 'Tlen')],
    outputArg: [arg('output')],
    attr: [
      { name: 'seq_dim', type: 'int' },
      { name: 'batch_dim', type: 'int', defaultValue: { i: 0 } },
      typeAttr('T'),
      typeAttr('Tlen', ['INT32', 'INT64'], 'INT64'),
    ],
  },
  {
    name: 'PadV2',
    inputArg: [arg('input'), arg('paddings', 'Tpaddings'), arg('constant_values')],
    outputArg: [arg('output')],
    attr: [typeAttr('T'), typeAttr('Tpaddings', ['INT32', 'INT64'], 'INT32')],
  },
  fakeQuant(
    'FakeQuantWithMinMaxArgs',
    [fixed('inputs', 'DT_FLOAT')],
    [
      { name: 'min', type: 'float', defaultValue: { f: -6 } },
      { name: 'max', type: 'float', defaultValue: { f: 6 } },
    ],
  ),
  fakeQuant('FakeQuantWithMinMaxVars', [fixed('inputs', 'DT_FLOAT'), fixed('min', 'DT_FLOAT'), fixed('max', 'DT_FLOAT')]),
  fakeQuant('FakeQuantWithMinMaxVarsPerChannel', [fixed('inputs', 'DT_FLOAT'), fixed('min', 'DT_FLOAT'), fixed('max', 'DT_FLOAT')]),
  // math_ops.cc
  {
    name: 'MatMul',
    inputArg: [arg('a'), arg('b')],
    outputArg: [arg('product')],
    attr: [
      boolAttr('transpose_a', false),
      boolAttr('transpose_b', false),
      typeAttr('T', [
        'BFLOAT16',
        'HALF',
        'FLOAT',
        'DOUBLE',
        'INT32',
        'INT64',
        'UINT8',
        'UINT16',
        'UINT32',
        'UINT64',
        'COMPLEX64',
        'COMPLEX128',
      ]),
    ],
  },
  {
    name: 'Mul',
    inputArg: [arg('x'), arg('y')],
    outputArg: [arg('z')],
    attr: [
      typeAttr('T', [
        'BFLOAT16',
        'HALF',
        'FLOAT',
        'DOUBLE',
        'UINT8',
        'INT8',
        'UINT16',
        'INT16',
        'INT32',
        'UINT32',
        'UINT64',
        'INT64',
        'COMPLEX64',
        'COMPLEX128',
      ]),
    ],
    isCommutative: true,
  },
  {
    name: 'AddV2',
    inputArg: [arg('x'), arg('y')],
    outputArg: [arg('z')],
    attr: [
      typeAttr('T', [
        'BFLOAT16',
        'HALF',
        'FLOAT',
        'DOUBLE',
        'UINT8',
        'UINT16',
        'UINT32',
        'UINT64',
        'INT8',
        'INT16',
        'INT32',
        'INT64',
        'COMPLEX64',
        'COMPLEX128',
      ]),
    ],
    isAggregate: true,
    isCommutative: true,
  },
  {
    name: 'Sub',
    inputArg: [arg('x'), arg('y')],
    outputArg: [arg('z')],
    attr: [
      typeAttr('T', [
        'BFLOAT16',
        'HALF',
        'FLOAT',
        'DOUBLE',
        'UINT8',
        'INT8',
        'UINT16',
        'INT16',
        'INT32',
        'INT64',
        'COMPLEX64',
        'COMPLEX128',
        'UINT32',
        'UINT64',
      ]),
    ],
  },
  {
    name: 'ComplexAbs',
    inputArg: [arg('x')],
    outputArg: [arg('y', 'Tout')],
    attr: [typeAttr('T', ['COMPLEX64', 'COMPLEX128'], 'COMPLEX64'), typeAttr('Tout', ['FLOAT', 'DOUBLE'], 'FLOAT')],
  },
  // linalg_ops.cc
  {
    name: 'Einsum',
    inputArg: [{ name: 'inputs', typeAttr: 'T', numberAttr: 'N' }],
    outputArg: [arg('output')],
    attr: [{ name: 'equation', type: 'string' }, { name: 'N', type: 'int', hasMinimum: true, minimum: 1 }, typeAttr('T')],
  },
  // spectral_ops.cc
  {
    name: 'RFFT',
    inputArg: [arg('input', 'Treal'), fixed('fft_length', 'DT_INT32')],
    outputArg: [arg('output', 'Tcomplex')],
    attr: [typeAttr('Treal', ['FLOAT', 'DOUBLE'], 'FLOAT'), typeAttr('Tcomplex', ['COMPLEX64', 'COMPLEX128'], 'COMPLEX64')],
  },
  unaryComplex('Tanh'),
  unaryComplex('Sigmoid'),
  // nn_ops.cc
  {
    name: 'BiasAdd',
    inputArg: [arg('value'), arg('bias')],
    outputArg: [arg('output')],
    attr: [
      typeAttr('T', [
        'FLOAT',
        'DOUBLE',
        'INT32',
        'UINT8',
        'INT16',
        'INT8',
        'COMPLEX64',
        'INT64',
        'QINT8',
        'QUINT8',
        'QINT32',
        'BFLOAT16',
        'QINT16',
        'QUINT16',
        'UINT16',
        'COMPLEX128',
        'HALF',
        'UINT32',
        'UINT64',
      ]),
      dataFormat('NHWC', 'NCHW'),
    ],
  },
  {
    name: 'Relu',
    inputArg: [arg('features')],
    outputArg: [arg('activations')],
    attr: [
      typeAttr('T', [
        'FLOAT',
        'DOUBLE',
        'INT32',
        'UINT8',
        'INT16',
        'INT8',
        'INT64',
        'BFLOAT16',
        'UINT16',
        'HALF',
        'UINT32',
        'UINT64',
        'QINT8',
      ]),
    ],
  },
  {
    name: 'Softmax',
    inputArg: [arg('logits')],
    outputArg: [arg('softmax')],
    attr: [typeAttr('T', ['HALF', 'BFLOAT16', 'FLOAT', 'DOUBLE'])],
  },
  {
    name: 'Conv2D',
    inputArg: [arg('input'), arg('filter')],
    outputArg: [arg('output')],
    attr: [
      typeAttr('T', ['HALF', 'BFLOAT16', 'FLOAT', 'DOUBLE', 'INT32']),
      { name: 'strides', type: 'list(int)' },
      boolAttr('use_cudnn_on_gpu', true),
      padding('SAME', 'VALID', 'EXPLICIT'),
      explicitPaddings,
      dataFormat('NHWC', 'NCHW'),
      { name: 'dilations', type: 'list(int)', defaultValue: { list: { i: [1, 1, 1, 1] } } },
    ],
  },
  {
    name: 'DepthwiseConv2dNative',
    inputArg: [arg('input'), arg('filter')],
    outputArg: [arg('output')],
    attr: [
      typeAttr('T', ['HALF', 'BFLOAT16', 'FLOAT', 'DOUBLE']),
      { name: 'strides', type: 'list(int)' },
      padding('SAME', 'VALID', 'EXPLICIT'),
      explicitPaddings,
      dataFormat('NHWC', 'NCHW'),
      { name: 'dilations', type: 'list(int)', defaultValue: { list: { i: [1, 1, 1, 1] } } },
    ],
  },
  {
    name: 'FusedBatchNormV3',
    inputArg: [arg('x'), arg('scale', 'U'), arg('offset', 'U'), arg('mean', 'U'), arg('variance', 'U')],
    outputArg: [
      arg('y'),
      arg('batch_mean', 'U'),
      arg('batch_variance', 'U'),
      arg('reserve_space_1', 'U'),
      arg('reserve_space_2', 'U'),
      arg('reserve_space_3', 'U'),
    ],
    attr: [
      typeAttr('T', ['HALF', 'BFLOAT16', 'FLOAT']),
      typeAttr('U', ['FLOAT']),
      { name: 'epsilon', type: 'float', defaultValue: { f: 0.0001 } },
      { name: 'exponential_avg_factor', type: 'float', defaultValue: { f: 1 } },
      {
        name: 'data_format',
        type: 'string',
        defaultValue: { s: enc.encode('NHWC') },
        allowedValues: strings('NHWC', 'NCHW', 'NDHWC', 'NCDHW'),
      },
      boolAttr('is_training', true),
    ],
  },
  {
    name: 'MaxPool',
    inputArg: [arg('input')],
    outputArg: [arg('output')],
    attr: [
      typeAttr('T', ['HALF', 'BFLOAT16', 'FLOAT', 'DOUBLE', 'INT32', 'INT64', 'UINT8', 'INT16', 'INT8', 'UINT16', 'QINT8'], 'FLOAT'),
      { name: 'ksize', type: 'list(int)', hasMinimum: true, minimum: 4 },
      { name: 'strides', type: 'list(int)', hasMinimum: true, minimum: 4 },
      padding('SAME', 'VALID', 'EXPLICIT'),
      explicitPaddings,
      dataFormat('NHWC', 'NCHW', 'NCHW_VECT_C'),
    ],
  },
  // state_ops.cc
  {
    name: 'VariableV2',
    outputArg: [{ name: 'ref', typeAttr: 'dtype', isRef: true }],
    attr: [
      { name: 'shape', type: 'shape' },
      typeAttr('dtype'),
      { name: 'container', type: 'string', defaultValue: { s: new Uint8Array(0) } },
      { name: 'shared_name', type: 'string', defaultValue: { s: new Uint8Array(0) } },
    ],
    isStateful: true,
  },
  {
    name: 'Assign',
    inputArg: [{ name: 'ref', typeAttr: 'T', isRef: true }, arg('value')],
    outputArg: [{ name: 'output_ref', typeAttr: 'T', isRef: true }],
    attr: [typeAttr('T'), boolAttr('validate_shape', true), boolAttr('use_locking', true)],
    allowsUninitializedInput: true,
  },
  {
    name: 'Bucketize',
    inputArg: [arg('input')],
    outputArg: [fixed('output', 'DT_INT32')],
    attr: [typeAttr('T', ['INT32', 'INT64', 'FLOAT', 'DOUBLE']), { name: 'boundaries', type: 'list(float)' }],
  },
  // string_ops.cc
  stringToHashBucket('StringToHashBucketFast'),
  stringToHashBucket('StringToHashBucketStrong', [{ name: 'key', type: 'list(int)' }]),
  stringCase('StringLower'),
  stringCase('StringUpper'),
  {
    name: 'StaticRegexReplace',
    inputArg: [fixed('input', 'DT_STRING')],
    outputArg: [fixed('output', 'DT_STRING')],
    attr: [{ name: 'pattern', type: 'string' }, { name: 'rewrite', type: 'string' }, boolAttr('replace_global', true)],
  },
  { name: 'StringStrip', inputArg: [fixed('input', 'DT_STRING')], outputArg: [fixed('output', 'DT_STRING')] },
  {
    // core/ops/ragged_conversion_ops.cc
    name: 'RaggedTensorToTensor',
    inputArg: [
      arg('shape', 'Tshape'),
      arg('values'),
      arg('default_value'),
      { name: 'row_partition_tensors', typeAttr: 'Tindex', numberAttr: 'num_row_partition_tensors' },
    ],
    outputArg: [arg('result')],
    attr: [
      typeAttr('T'),
      typeAttr('Tindex', ['INT64', 'INT32']),
      typeAttr('Tshape', ['INT64', 'INT32']),
      { name: 'num_row_partition_tensors', type: 'int' },
      { name: 'row_partition_types', type: 'list(string)' },
    ],
  },
  {
    name: 'StringSplitV2',
    inputArg: [fixed('input', 'DT_STRING'), fixed('sep', 'DT_STRING')],
    outputArg: [fixed('indices', 'DT_INT64'), fixed('values', 'DT_STRING'), fixed('shape', 'DT_INT64')],
    attr: [{ name: 'maxsplit', type: 'int', defaultValue: { i: -1 } }],
  },
  {
    name: 'AsString',
    inputArg: [arg('input')],
    outputArg: [fixed('output', 'DT_STRING')],
    attr: [
      typeAttr('T', [
        'FLOAT',
        'DOUBLE',
        'INT32',
        'UINT8',
        'INT16',
        'INT8',
        'INT64',
        'BFLOAT16',
        'UINT16',
        'HALF',
        'UINT32',
        'UINT64',
        'COMPLEX64',
        'COMPLEX128',
        'BOOL',
        'VARIANT',
        'STRING',
      ]),
      { name: 'precision', type: 'int', defaultValue: { i: -1 } },
      boolAttr('scientific', false),
      boolAttr('shortest', false),
      { name: 'width', type: 'int', defaultValue: { i: -1 } },
      { name: 'fill', type: 'string', defaultValue: { s: new Uint8Array(0) } },
    ],
  },
  // io_ops.cc
  {
    name: 'SaveV2',
    inputArg: [
      fixed('prefix', 'DT_STRING'),
      fixed('tensor_names', 'DT_STRING'),
      fixed('shape_and_slices', 'DT_STRING'),
      { name: 'tensors', typeListAttr: 'dtypes' },
    ],
    attr: [dtypesList],
    isStateful: true,
  },
  {
    name: 'RestoreV2',
    inputArg: [fixed('prefix', 'DT_STRING'), fixed('tensor_names', 'DT_STRING'), fixed('shape_and_slices', 'DT_STRING')],
    outputArg: [{ name: 'tensors', typeListAttr: 'dtypes' }],
    attr: [dtypesList],
    isStateful: true,
  },
  // parsing_ops.cc, sparse_ops.cc, math_ops.cc, array_ops.cc: Estimator serving inputs with sparse features
  {
    name: 'ParseExample',
    inputArg: [
      fixed('serialized', 'DT_STRING'),
      fixed('names', 'DT_STRING'),
      { name: 'sparse_keys', type: 'DT_STRING', numberAttr: 'Nsparse' },
      { name: 'dense_keys', type: 'DT_STRING', numberAttr: 'Ndense' },
      { name: 'dense_defaults', typeListAttr: 'Tdense' },
    ],
    outputArg: [
      { name: 'sparse_indices', type: 'DT_INT64', numberAttr: 'Nsparse' },
      { name: 'sparse_values', typeListAttr: 'sparse_types' },
      { name: 'sparse_shapes', type: 'DT_INT64', numberAttr: 'Nsparse' },
      { name: 'dense_values', typeListAttr: 'Tdense' },
    ],
    attr: [
      { name: 'Nsparse', type: 'int', hasMinimum: true },
      { name: 'Ndense', type: 'int', hasMinimum: true },
      { name: 'sparse_types', type: 'list(type)', hasMinimum: true, allowedValues: types('FLOAT', 'INT64', 'STRING') },
      { name: 'Tdense', type: 'list(type)', hasMinimum: true, allowedValues: types('FLOAT', 'INT64', 'STRING') },
      { name: 'dense_shapes', type: 'list(shape)', hasMinimum: true },
    ],
  },
  {
    name: 'ParseExampleV2',
    inputArg: [
      fixed('serialized', 'DT_STRING'),
      fixed('names', 'DT_STRING'),
      fixed('sparse_keys', 'DT_STRING'),
      fixed('dense_keys', 'DT_STRING'),
      fixed('ragged_keys', 'DT_STRING'),
      { name: 'dense_defaults', typeListAttr: 'Tdense' },
    ],
    outputArg: [
      { name: 'sparse_indices', type: 'DT_INT64', numberAttr: 'num_sparse' },
      { name: 'sparse_values', typeListAttr: 'sparse_types' },
      { name: 'sparse_shapes', type: 'DT_INT64', numberAttr: 'num_sparse' },
      { name: 'dense_values', typeListAttr: 'Tdense' },
      { name: 'ragged_values', typeListAttr: 'ragged_value_types' },
      { name: 'ragged_row_splits', typeListAttr: 'ragged_split_types' },
    ],
    attr: [
      { name: 'Tdense', type: 'list(type)', hasMinimum: true, allowedValues: types('FLOAT', 'INT64', 'STRING') },
      { name: 'num_sparse', type: 'int', hasMinimum: true },
      { name: 'sparse_types', type: 'list(type)', hasMinimum: true, allowedValues: types('FLOAT', 'INT64', 'STRING') },
      { name: 'ragged_value_types', type: 'list(type)', hasMinimum: true, allowedValues: types('FLOAT', 'INT64', 'STRING') },
      { name: 'ragged_split_types', type: 'list(type)', hasMinimum: true, allowedValues: types('INT32', 'INT64') },
      { name: 'dense_shapes', type: 'list(shape)', hasMinimum: true },
    ],
  },
  {
    name: 'SparseFillEmptyRows',
    inputArg: [fixed('indices', 'DT_INT64'), arg('values'), fixed('dense_shape', 'DT_INT64'), arg('default_value')],
    outputArg: [
      fixed('output_indices', 'DT_INT64'),
      arg('output_values'),
      fixed('empty_row_indicator', 'DT_BOOL'),
      fixed('reverse_index_map', 'DT_INT64'),
    ],
    attr: [typeAttr('T')],
  },
  {
    name: 'SparseReshape',
    inputArg: [fixed('input_indices', 'DT_INT64'), fixed('input_shape', 'DT_INT64'), fixed('new_shape', 'DT_INT64')],
    outputArg: [fixed('output_indices', 'DT_INT64'), fixed('output_shape', 'DT_INT64')],
  },
  {
    name: 'SparseToDense',
    inputArg: [arg('sparse_indices', 'Tindices'), arg('output_shape', 'Tindices'), arg('sparse_values'), arg('default_value')],
    outputArg: [arg('dense')],
    attr: [boolAttr('validate_indices', true), typeAttr('T'), typeAttr('Tindices', ['INT32', 'INT64'])],
  },
  {
    name: 'SparseTensorDenseMatMul',
    inputArg: [arg('a_indices', 'Tindices'), arg('a_values'), fixed('a_shape', 'DT_INT64'), arg('b')],
    outputArg: [arg('product')],
    attr: [typeAttr('T'), typeAttr('Tindices', ['INT32', 'INT64'], 'INT64'), boolAttr('adjoint_a', false), boolAttr('adjoint_b', false)],
  },
  ...SPARSE_SEGMENT_OP_NAMES.map((n) => sparseSegment(n)),
  ...SPARSE_SEGMENT_OP_NAMES.map((n) => sparseSegment(n, true)),
  {
    name: 'ConcatV2',
    inputArg: [{ name: 'values', typeAttr: 'T', numberAttr: 'N' }, arg('axis', 'Tidx')],
    outputArg: [arg('output')],
    attr: [{ name: 'N', type: 'int', hasMinimum: true, minimum: 2 }, typeAttr('T'), typeAttr('Tidx', ['INT32', 'INT64'], 'INT32')],
  },
  {
    name: 'Unique',
    inputArg: [arg('x')],
    outputArg: [arg('y'), arg('idx', 'out_idx')],
    attr: [typeAttr('T'), typeAttr('out_idx', ['INT32', 'INT64'], 'INT32')],
  },
  // no_op.cc
  { name: 'NoOp' },
];

export const OP_DEFS: ReadonlyMap<string, OpDefInit> = new Map(
  [...DEFS, ...TF2_OP_DEFS, ...LOOKUP_OP_DEFS, ...IMAGE_OP_DEFS].map((d) => [d.name, d]),
);

function opDef(name: string, extraDefs: ReadonlyMap<string, OpDefInit>): OpDefInit {
  const d = extraDefs.get(name) ?? OP_DEFS.get(name);
  if (!d) throw new Error(`the SavedModel writer has no OpDef for op ${name}`);
  return d;
}

/** MetaInfoDef.stripped_op_list for a graph using `ops`: one OpDef per op, sorted by name (as TF does). */
export function strippedOpList(ops: Iterable<string>, extraDefs: ReadonlyMap<string, OpDefInit> = new Map()): { op: OpDefInit[] } {
  return { op: [...new Set(ops)].sort().map((op) => opDef(op, extraDefs)) };
}
