// TensorFlow's op registry, for the ops tfgate meets in SavedModels: each op's inputs,
// outputs and attrs as TF registers them (tensorflow/core/ops/*.cc) and writes them into
// MetaGraphDef.meta_info_def.stripped_op_list. TF checks every NodeDef against its own
// registry, not against the list a model carries, so tfgate does too for the ops listed
// here; an op missing here is checked against the model's stripped_op_list, if it has one.
// The entries were taken from the stripped_op_list of TF 2.x exports (the fixture SavedModels)
// and from core/ops/compat/ops_history_v2/<Op>.pbtxt.
//
// One line per op, in the notation of TF's SummarizeOpDef:
//   '<inputs> -> <outputs> | <attrs>'
//   an arg is `name:T` (its type from attr T), `name:N*T` (N of them), `name:[T]` (a list of
//   the types in list(type) attr T), `name:float` (a fixed type), `name:Ref(T)`;
//   an attr is `name:<kind>[{allowed,...}][>=minimum][=default]`.
import type { AttrValue, OpDef } from './types.js';

const REGISTRY: Readonly<Record<string, string>> = {
  Add: 'x:T, y:T -> z:T | T:type{bfloat16,half,float,double,uint8,int8,int16,int32,int64,complex64,complex128,string}',
  AddN: 'inputs:N*T -> sum:T | N:int>=1; T:type{float,double,int32,uint8,int16,int8,complex64,int64,qint8,quint8,qint32,bfloat16,uint16,complex128,half,uint32,uint64,variant}',
  AddV2: 'x:T, y:T -> z:T | T:type{bfloat16,half,float,double,uint8,int8,int16,int32,int64,complex64,complex128}',
  All: 'input:bool, reduction_indices:Tidx -> output:bool | keep_dims:bool=false; Tidx:type{int32,int64}=int32',
  ApplyAdam:
    'var:Ref(T), m:Ref(T), v:Ref(T), beta1_power:T, beta2_power:T, lr:T, beta1:T, beta2:T, epsilon:T, grad:T -> out:Ref(T) | T:type{float,double,int32,uint8,int16,int8,complex64,int64,qint8,quint8,qint32,bfloat16,uint16,complex128,half,uint32,uint64}; use_locking:bool=false; use_nesterov:bool=false',
  ApplyGradientDescent:
    'var:Ref(T), alpha:T, delta:T -> out:Ref(T) | T:type{float,double,int32,uint8,int16,int8,complex64,int64,qint8,quint8,qint32,bfloat16,uint16,complex128,half,uint32,uint64}; use_locking:bool=false',
  ArgMax:
    'input:T, dimension:Tidx -> output:output_type | T:type{float,double,int32,uint8,int16,int8,complex64,int64,qint8,quint8,qint32,bfloat16,uint16,complex128,half,uint32,uint64}; Tidx:type{int32,int64}=int32; output_type:type{int32,int64}=int64',
  AsString:
    'input:T -> output:string | T:type{float,double,int32,uint8,int16,int8,int64,bfloat16,uint16,half,uint32,uint64,complex64,complex128,bool,variant}; precision:int=-1; scientific:bool=false; shortest:bool=false; width:int=-1; fill:string=""',
  Assert: 'condition:bool, data:[T] ->  | T:list(type)>=1; summarize:int=3',
  Assign: 'ref:Ref(T), value:T -> output_ref:Ref(T) | T:type; validate_shape:bool=true; use_locking:bool=true',
  AssignAdd:
    'ref:Ref(T), value:T -> output_ref:Ref(T) | T:type{float,double,int32,uint8,int16,int8,complex64,int64,qint8,quint8,qint32,bfloat16,uint16,complex128,half,uint32,uint64}; use_locking:bool=false',
  AssignAddVariableOp: 'resource:resource, value:dtype ->  | dtype:type',
  AssignSub:
    'ref:Ref(T), value:T -> output_ref:Ref(T) | T:type{float,double,int32,uint8,int16,int8,complex64,int64,qint8,quint8,qint32,bfloat16,uint16,complex128,half,uint32,uint64}; use_locking:bool=false',
  AssignVariableOp: 'resource:resource, value:dtype ->  | dtype:type',
  AvgPool:
    'value:T -> output:T | ksize:list(int)>=4; strides:list(int)>=4; padding:string{SAME,VALID}; data_format:string{NHWC,NCHW}="NHWC"; T:type{half,bfloat16,float,double}',
  BatchMatMulV2:
    'x:T, y:T -> output:T | T:type{bfloat16,half,float,double,int16,int32,int64,uint8,uint16,uint32,uint64,complex64,complex128}; adj_x:bool=false; adj_y:bool=false; grad_x:bool=false; grad_y:bool=false',
  BiasAdd:
    'value:T, bias:T -> output:T | T:type{float,double,int32,uint8,int16,int8,complex64,int64,qint8,quint8,qint32,bfloat16,uint16,complex128,half,uint32,uint64}; data_format:string{NHWC,NCHW}="NHWC"',
  BiasAddGrad:
    'out_backprop:T -> output:T | T:type{float,double,int32,uint8,int16,int8,complex64,int64,qint8,quint8,qint32,bfloat16,uint16,complex128,half,uint32,uint64}; data_format:string{NHWC,NCHW}="NHWC"',
  Bincount: 'arr:int32, size:int32, weights:T -> bins:T | T:type{int32,int64,float,double}',
  BoostedTreesBucketize:
    'float_values:num_features*float, bucket_boundaries:num_features*float -> buckets:num_features*int32 | num_features:int>=0',
  BroadcastGradientArgs: 's0:T, s1:T -> r0:T, r1:T | T:type{int32,int64}=int32',
  Bucketize: 'input:T -> output:int32 | T:type{int32,int64,float,double}; boundaries:list(float)',
  Cast: 'x:SrcT -> y:DstT | SrcT:type; DstT:type; Truncate:bool=false',
  ComplexAbs: 'x:T -> y:Tout | T:type{complex64,complex128}=complex64; Tout:type{float,double}=float',
  ConcatOffset: 'concat_dim:int32, shape:N*int32 -> offset:N*int32 | N:int>=2',
  ConcatV2: 'values:N*T, axis:Tidx -> output:T | N:int>=2; T:type; Tidx:type{int32,int64}=int32',
  Const: ' -> output:dtype | value:tensor; dtype:type',
  ControlTrigger: ' -> ',
  Conv2D:
    'input:T, filter:T -> output:T | T:type{half,bfloat16,float,double,int32}; strides:list(int); use_cudnn_on_gpu:bool=true; padding:string{SAME,VALID,EXPLICIT}; explicit_paddings:list(int)=[]; data_format:string{NHWC,NCHW}="NHWC"; dilations:list(int)=[1,1,1,1]',
  Cumsum:
    'x:T, axis:Tidx -> out:T | exclusive:bool=false; reverse:bool=false; T:type{float,double,int32,uint8,int16,int8,complex64,int64,qint8,quint8,qint32,bfloat16,uint16,complex128,half,uint32,uint64}; Tidx:type{int32,int64}=int32',
  DepthwiseConv2dNative:
    'input:T, filter:T -> output:T | T:type{half,bfloat16,float,double}; strides:list(int); padding:string{SAME,VALID,EXPLICIT}; explicit_paddings:list(int)=[]; data_format:string{NHWC,NCHW}="NHWC"; dilations:list(int)=[1,1,1,1]',
  DisableCopyOnRead: 'resource:resource -> ',
  DynamicStitch: 'indices:N*int32, data:N*T -> merged:T | N:int>=1; T:type',
  Einsum: 'inputs:N*T -> output:T | equation:string; N:int>=1; T:type',
  EncodeProto:
    'sizes:int32, values:[Tinput_types] -> bytes:string | field_names:list(string); message_type:string; descriptor_source:string="local://"; Tinput_types:list(type)>=1',
  Enter: 'data:T -> output:T | T:type; frame_name:string; is_constant:bool=false; parallel_iterations:int=10',
  Equal:
    'x:T, y:T -> z:bool | T:type{half,bfloat16,float,double,uint8,int8,int16,int32,int64,complex64,quint8,qint8,qint32,string,bool,complex128}',
  Exit: 'data:T -> output:T | T:type',
  ExpandDims: 'input:T, dim:Tdim -> output:T | T:type; Tdim:type{int32,int64}=int32',
  FakeQuantWithMinMaxArgs: 'inputs:float -> outputs:float | min:float=-6; max:float=6; num_bits:int=8; narrow_range:bool=false',
  FakeQuantWithMinMaxVars: 'inputs:float, min:float, max:float -> outputs:float | num_bits:int=8; narrow_range:bool=false',
  FakeQuantWithMinMaxVarsPerChannel: 'inputs:float, min:float, max:float -> outputs:float | num_bits:int=8; narrow_range:bool=false',
  Fill: 'dims:index_type, value:T -> output:T | T:type; index_type:type{int32,int64}=int32',
  Floor: 'x:T -> y:T | T:type{half,bfloat16,float,double}',
  FloorDiv: 'x:T, y:T -> z:T | T:type{bfloat16,half,float,double,uint8,int8,uint16,int16,int32,int64,complex64,complex128}',
  FloorMod: 'x:T, y:T -> z:T | T:type{int32,int64,bfloat16,float,double}',
  FusedBatchNormV3:
    'x:T, scale:U, offset:U, mean:U, variance:U -> y:T, batch_mean:U, batch_variance:U, reserve_space_1:U, reserve_space_2:U, reserve_space_3:U | T:type{half,bfloat16,float}; U:type{float}; epsilon:float=0.00009999999747378752; exponential_avg_factor:float=1; data_format:string{NHWC,NCHW,NDHWC,NCDHW}="NHWC"; is_training:bool=true',
  Gather: 'params:Tparams, indices:Tindices -> output:Tparams | validate_indices:bool=true; Tparams:type; Tindices:type{int32,int64}',
  GatherNd: 'params:Tparams, indices:Tindices -> output:Tparams | Tparams:type; Tindices:type{int16,int32,int64}',
  GatherV2:
    'params:Tparams, indices:Tindices, axis:Taxis -> output:Tparams | batch_dims:int=0; Tparams:type; Tindices:type{int16,int32,int64}; Taxis:type{int32,int64}',
  Greater: 'x:T, y:T -> z:bool | T:type{float,double,int32,uint8,int16,int8,int64,bfloat16,uint16,half,uint32,uint64}',
  GreaterEqual: 'x:T, y:T -> z:bool | T:type{float,double,int32,uint8,int16,int8,int64,bfloat16,uint16,half,uint32,uint64}',
  HashTableV2:
    ' -> table_handle:resource | container:string=""; shared_name:string=""; use_node_name_sharing:bool=false; key_dtype:type; value_dtype:type',
  HistogramSummary:
    'tag:string, values:T -> summary:string | T:type{float,double,int32,uint8,int16,int8,int64,bfloat16,uint16,half,uint32,uint64}=float',
  Identity: 'input:T -> output:T | T:type',
  If: 'cond:Tcond, input:[Tin] -> output:[Tout] | Tcond:type; Tin:list(type)>=0; Tout:list(type)>=0; then_branch:func; else_branch:func; output_shapes:list(shape)=[]',
  InitializeTableFromTextFileV2:
    'table_handle:resource, filename:string ->  | key_index:int>=-2; value_index:int>=-2; vocab_size:int>=-1=-1; delimiter:string="\\t"; offset:int=0',
  InitializeTableV2: 'table_handle:resource, keys:Tkey, values:Tval ->  | Tkey:type; Tval:type',
  InvertPermutation: 'x:T -> y:T | T:type{int32,int64}=int32',
  IsNan: 'x:T -> y:bool | T:type{bfloat16,half,float,double}',
  Iterator: ' -> handle:resource | shared_name:string; container:string; output_types:list(type)>=1; output_shapes:list(shape)>=1',
  IteratorFromStringHandle:
    'string_handle:string -> resource_handle:resource | output_types:list(type)>=0=[]; output_shapes:list(shape)>=0=[]',
  IteratorGetNext: 'iterator:resource -> components:[output_types] | output_types:list(type)>=1; output_shapes:list(shape)>=1',
  IteratorToStringHandle: 'resource_handle:resource -> string_handle:string',
  L2Loss: 't:T -> output:T | T:type{half,bfloat16,float,double}',
  Less: 'x:T, y:T -> z:bool | T:type{float,double,int32,uint8,int16,int8,int64,bfloat16,uint16,half,uint32,uint64}',
  LessEqual: 'x:T, y:T -> z:bool | T:type{float,double,int32,uint8,int16,int8,int64,bfloat16,uint16,half,uint32,uint64}',
  Lgamma: 'x:T -> y:T | T:type{bfloat16,half,float,double}',
  ListDiff: 'x:T, y:T -> out:T, idx:out_idx | T:type; out_idx:type{int32,int64}=int32',
  Log: 'x:T -> y:T | T:type{bfloat16,half,float,double,complex64,complex128}',
  LogicalAnd: 'x:bool, y:bool -> z:bool',
  LogicalOr: 'x:bool, y:bool -> z:bool',
  LookupTableExportV2: 'table_handle:resource -> keys:Tkeys, values:Tvalues | Tkeys:type; Tvalues:type',
  LookupTableFindV2: 'table_handle:resource, keys:Tin, default_value:Tout -> values:Tout | Tin:type; Tout:type',
  LookupTableImportV2: 'table_handle:resource, keys:Tin, values:Tout ->  | Tin:type; Tout:type',
  LookupTableSizeV2: 'table_handle:resource -> size:int64',
  LoopCond: 'input:bool -> output:bool',
  MakeIterator: 'dataset:variant, iterator:resource -> ',
  MapDataset:
    'input_dataset:variant, other_arguments:[Targuments] -> handle:variant | f:func; Targuments:list(type)>=0; output_types:list(type)>=1; output_shapes:list(shape)>=1',
  MatMul:
    'a:T, b:T -> product:T | transpose_a:bool=false; transpose_b:bool=false; T:type{bfloat16,half,float,double,int32,int64,complex64,complex128}',
  Max: 'input:T, reduction_indices:Tidx -> output:T | keep_dims:bool=false; T:type{float,double,int32,uint8,int16,int8,complex64,int64,qint8,quint8,qint32,bfloat16,uint16,complex128,half,uint32,uint64}; Tidx:type{int32,int64}=int32',
  MaxPool:
    'input:T -> output:T | T:type{half,bfloat16,float,double,int32,int64,uint8,int16,int8,uint16,qint8}=float; ksize:list(int)>=4; strides:list(int)>=4; padding:string{SAME,VALID,EXPLICIT}; explicit_paddings:list(int)=[]; data_format:string{NHWC,NCHW,NCHW_VECT_C}="NHWC"',
  Maximum: 'x:T, y:T -> z:T | T:type{bfloat16,half,float,double,int32,int64}',
  Mean: 'input:T, reduction_indices:Tidx -> output:T | keep_dims:bool=false; T:type{float,double,int32,uint8,int16,int8,complex64,int64,qint8,quint8,qint32,bfloat16,uint16,complex128,half,uint32,uint64}; Tidx:type{int32,int64}=int32',
  Merge: 'inputs:N*T -> output:T, value_index:int32 | T:type; N:int>=1',
  MergeSummary: 'inputs:N*string -> summary:string | N:int>=1',
  MergeV2Checkpoints: 'checkpoint_prefixes:string, destination_prefix:string ->  | delete_old_dirs:bool=true',
  Min: 'input:T, reduction_indices:Tidx -> output:T | keep_dims:bool=false; T:type{float,double,int32,uint8,int16,int8,complex64,int64,qint8,quint8,qint32,bfloat16,uint16,complex128,half,uint32,uint64}; Tidx:type{int32,int64}=int32',
  Minimum: 'x:T, y:T -> z:T | T:type{half,bfloat16,float,double,int32,int64}',
  Mul: 'x:T, y:T -> z:T | T:type{bfloat16,half,float,double,uint8,int8,uint16,int16,int32,int64,complex64,complex128}',
  MutableHashTableV2:
    ' -> table_handle:resource | container:string=""; shared_name:string=""; use_node_name_sharing:bool=false; key_dtype:type; value_dtype:type',
  Neg: 'x:T -> y:T | T:type{bfloat16,half,float,double,int32,int64,complex64,complex128}',
  NextIteration: 'data:T -> output:T | T:type',
  NoOp: ' -> ',
  NotEqual: 'x:T, y:T -> z:bool | T:type; incompatible_shape_error:bool=true',
  OneShotIterator:
    ' -> handle:resource | dataset_factory:func; output_types:list(type)>=1; output_shapes:list(shape)>=1; container:string=""; shared_name:string=""',
  Pack: 'values:N*T -> output:T | N:int>=1; T:type; axis:int=0',
  Pad: 'input:T, paddings:Tpaddings -> output:T | T:type; Tpaddings:type{int32,int64}=int32',
  PadV2: 'input:T, paddings:Tpaddings, constant_values:T -> output:T | T:type; Tpaddings:type{int32,int64}=int32',
  PaddedBatchDataset:
    'input_dataset:variant, batch_size:int64, padded_shapes:N*int64, padding_values:[Toutput_types] -> handle:variant | Toutput_types:list(type)>=1; output_shapes:list(shape)>=1; N:int>=1',
  ParseExample:
    'serialized:string, names:string, sparse_keys:Nsparse*string, dense_keys:Ndense*string, dense_defaults:[Tdense] -> sparse_indices:Nsparse*int64, sparse_values:[sparse_types], sparse_shapes:Nsparse*int64, dense_values:[Tdense] | Nsparse:int>=0; Ndense:int>=0; sparse_types:list(type){float,int64,string}>=0; Tdense:list(type){float,int64,string}>=0; dense_shapes:list(shape)>=0',
  ParseExampleV2:
    'serialized:string, names:string, sparse_keys:string, dense_keys:string, ragged_keys:string, dense_defaults:[Tdense] -> sparse_indices:num_sparse*int64, sparse_values:[sparse_types], sparse_shapes:num_sparse*int64, dense_values:[Tdense], ragged_values:[ragged_value_types], ragged_row_splits:[ragged_split_types] | Tdense:list(type){float,int64,string}>=0; num_sparse:int>=0; sparse_types:list(type){float,int64,string}>=0; ragged_value_types:list(type){float,int64,string}>=0; ragged_split_types:list(type){int32,int64}>=0; dense_shapes:list(shape)>=0',
  PartitionedCall:
    'args:[Tin] -> output:[Tout] | Tin:list(type)>=0; Tout:list(type)>=0; f:func; config:string=""; config_proto:string=""; executor_type:string=""',
  Placeholder: ' -> output:dtype | dtype:type; shape:shape=?',
  PlaceholderWithDefault: 'input:dtype -> output:dtype | dtype:type; shape:shape',
  Pow: 'x:T, y:T -> z:T | T:type{bfloat16,float,half,double,int32,int64,complex64,complex128}',
  PreventGradient: 'input:T -> output:T | T:type; message:string=""',
  Prod: 'input:T, reduction_indices:Tidx -> output:T | keep_dims:bool=false; T:type{float,double,int32,uint8,int16,int8,complex64,int64,qint8,quint8,qint32,bfloat16,uint16,complex128,half,uint32,uint64}; Tidx:type{int32,int64}=int32',
  // audio_ops.cc, ctc_ops.cc, spectral_ops.cc and the complex ops of math_ops.cc
  AudioSpectrogram: 'input:float -> spectrogram:float | window_size:int; stride:int; magnitude_squared:bool=false',
  CTCBeamSearchDecoder:
    'inputs:T, sequence_length:int32 -> decoded_indices:top_paths*int64, decoded_values:top_paths*int64, decoded_shape:top_paths*int64, log_probability:T | beam_width:int>=1; top_paths:int>=1; merge_repeated:bool=true; T:type{float,double}=float',
  CTCGreedyDecoder:
    'inputs:T, sequence_length:int32 -> decoded_indices:int64, decoded_values:int64, decoded_shape:int64, log_probability:T | merge_repeated:bool=false; blank_index:int=-1; T:type{float,double}=float',
  Complex: 'real:T, imag:T -> out:Tout | T:type{float,double}=float; Tout:type{complex64,complex128}=complex64',
  DecodeWav: 'contents:string -> audio:float, sample_rate:int32 | desired_channels:int=-1; desired_samples:int=-1',
  FFT: 'input:Tcomplex -> output:Tcomplex | Tcomplex:type{complex64,complex128}=complex64',
  IFFT: 'input:Tcomplex -> output:Tcomplex | Tcomplex:type{complex64,complex128}=complex64',
  FFT2D: 'input:Tcomplex -> output:Tcomplex | Tcomplex:type{complex64,complex128}=complex64',
  IFFT2D: 'input:Tcomplex -> output:Tcomplex | Tcomplex:type{complex64,complex128}=complex64',
  FFT3D: 'input:Tcomplex -> output:Tcomplex | Tcomplex:type{complex64,complex128}=complex64',
  IFFT3D: 'input:Tcomplex -> output:Tcomplex | Tcomplex:type{complex64,complex128}=complex64',
  Imag: 'input:T -> output:Tout | T:type{complex64,complex128}=complex64; Tout:type{float,double}=float',
  Mfcc: 'spectrogram:float, sample_rate:int32 -> output:float | upper_frequency_limit:float=4000; lower_frequency_limit:float=20; filterbank_channel_count:int=40; dct_coefficient_count:int=13',
  Real: 'input:T -> output:Tout | T:type{complex64,complex128}=complex64; Tout:type{float,double}=float',
  RFFT: 'input:Treal, fft_length:int32 -> output:Tcomplex | Treal:type{float,double}=float; Tcomplex:type{complex64,complex128}=complex64',
  RFFT2D:
    'input:Treal, fft_length:int32 -> output:Tcomplex | Treal:type{float,double}=float; Tcomplex:type{complex64,complex128}=complex64',
  RFFT3D:
    'input:Treal, fft_length:int32 -> output:Tcomplex | Treal:type{float,double}=float; Tcomplex:type{complex64,complex128}=complex64',
  IRFFT: 'input:Tcomplex, fft_length:int32 -> output:Treal | Treal:type{float,double}=float; Tcomplex:type{complex64,complex128}=complex64',
  IRFFT2D:
    'input:Tcomplex, fft_length:int32 -> output:Treal | Treal:type{float,double}=float; Tcomplex:type{complex64,complex128}=complex64',
  IRFFT3D:
    'input:Tcomplex, fft_length:int32 -> output:Treal | Treal:type{float,double}=float; Tcomplex:type{complex64,complex128}=complex64',
  RaggedTensorToTensor:
    'shape:Tshape, values:T, default_value:T, row_partition_tensors:num_row_partition_tensors*Tindex -> result:T | T:type; Tindex:type{int64,int32}; Tshape:type{int64,int32}; num_row_partition_tensors:int>=1; row_partition_types:list(string)',
  RandomStandardNormal: 'shape:T -> output:dtype | seed:int=0; seed2:int=0; dtype:type{half,bfloat16,float,double}; T:type{int32,int64}',
  RandomUniform: 'shape:T -> output:dtype | seed:int=0; seed2:int=0; dtype:type{half,bfloat16,float,double}; T:type{int32,int64}',
  Range: 'start:Tidx, limit:Tidx, delta:Tidx -> output:Tidx | Tidx:type{bfloat16,float,double,int32,int64}=int32',
  Rank: 'input:T -> output:int32 | T:type',
  ReadVariableOp: 'resource:resource -> value:dtype | dtype:type',
  RealDiv: 'x:T, y:T -> z:T | T:type{bfloat16,half,float,double,uint8,int8,uint16,int16,int32,int64,complex64,complex128}',
  Relu: 'features:T -> activations:T | T:type{float,double,int32,uint8,int16,int8,int64,bfloat16,uint16,half,uint32,uint64,qint8}',
  Relu6: 'features:T -> activations:T | T:type{float,double,int32,uint8,int16,int8,int64,bfloat16,uint16,half,uint32,uint64}',
  ReluGrad: 'gradients:T, features:T -> backprops:T | T:type{float,double,int32,uint8,int16,int8,int64,bfloat16,uint16,half,uint32,uint64}',
  Reshape: 'tensor:T, shape:Tshape -> output:T | T:type; Tshape:type{int32,int64}=int32',
  ResizeBilinear:
    'images:T, size:int32 -> resized_images:float | T:type{int8,uint8,int16,uint16,int32,int64,bfloat16,half,float,double,bfloat16}; align_corners:bool=false; half_pixel_centers:bool=false',
  ResourceApplyAdam:
    'var:resource, m:resource, v:resource, beta1_power:T, beta2_power:T, lr:T, beta1:T, beta2:T, epsilon:T, grad:T ->  | T:type{float,double,int32,uint8,int16,int8,complex64,int64,qint8,quint8,qint32,bfloat16,uint16,complex128,half,uint32,uint64}; use_locking:bool=false; use_nesterov:bool=false',
  ResourceApplyGradientDescent:
    'var:resource, alpha:T, delta:T ->  | T:type{float,double,int32,uint8,int16,int8,complex64,int64,qint8,quint8,qint32,bfloat16,uint16,complex128,half,uint32,uint64}; use_locking:bool=false',
  ResourceGather:
    'resource:resource, indices:Tindices -> output:dtype | batch_dims:int=0; validate_indices:bool=true; dtype:type; Tindices:type{int32,int64}',
  RestoreV2: 'prefix:string, tensor_names:string, shape_and_slices:string -> tensors:[dtypes] | dtypes:list(type)>=1',
  ReverseSequence: 'input:T, seq_lengths:Tlen -> output:T | seq_dim:int; batch_dim:int=0; T:type; Tlen:type{int32,int64}=int64',
  ReverseV2:
    'tensor:T, axis:Tidx -> output:T | Tidx:type{int32,int64}=int32; T:type{uint8,int8,uint16,int16,int32,int64,bool,bfloat16,half,float,double,complex64,complex128,string}',
  Rsqrt: 'x:T -> y:T | T:type{bfloat16,half,float,double,complex64,complex128}',
  SaveV2: 'prefix:string, tensor_names:string, shape_and_slices:string, tensors:[dtypes] ->  | dtypes:list(type)>=1',
  ScalarSummary:
    'tags:string, values:T -> summary:string | T:type{float,double,int32,uint8,int16,int8,int64,bfloat16,uint16,half,uint32,uint64}',
  ScatterAdd:
    'ref:Ref(T), indices:Tindices, updates:T -> output_ref:Ref(T) | T:type{float,double,int32,uint8,int16,int8,complex64,int64,qint8,quint8,qint32,bfloat16,uint16,complex128,half,uint32,uint64}; Tindices:type{int32,int64}; use_locking:bool=false',
  Select: 'condition:bool, t:T, e:T -> output:T | T:type',
  SelectV2: 'condition:bool, t:T, e:T -> output:T | T:type',
  Shape: 'input:T -> output:out_type | T:type; out_type:type{int32,int64}=int32',
  ShapeN: 'input:N*T -> output:N*out_type | N:int>=1; T:type; out_type:type{int32,int64}=int32',
  ShardedFilename: 'basename:string, shard:int32, num_shards:int32 -> filename:string',
  Sigmoid: 'x:T -> y:T | T:type{half,bfloat16,float,double,complex64,complex128}',
  SigmoidGrad: 'y:T, dy:T -> z:T | T:type{half,bfloat16,float,double,complex64,complex128}',
  Size: 'input:T -> output:out_type | T:type; out_type:type{int32,int64}=int32',
  Slice: 'input:T, begin:Index, size:Index -> output:T | T:type; Index:type{int32,int64}',
  Softmax: 'logits:T -> softmax:T | T:type{half,bfloat16,float,double}',
  SparseCross:
    'indices:N*int64, values:[sparse_types], shapes:N*int64, dense_inputs:[dense_types] -> output_indices:int64, output_values:out_type, output_shape:int64 | N:int>=0; hashed_output:bool; num_buckets:int>=0; hash_key:int; sparse_types:list(type){int64,string}>=0; dense_types:list(type){int64,string}>=0; out_type:type{int64,string}; internal_type:type{int64,string}',
  SparseCrossHashed:
    'indices:N*int64, values:[sparse_types], shapes:N*int64, dense_inputs:[dense_types], num_buckets:int64, strong_hash:bool, salt:int64 -> output_indices:int64, output_values:int64, output_shape:int64 | N:int>=0; sparse_types:list(type){int64,string}>=0; dense_types:list(type){int64,string}>=0',
  SparseCrossV2:
    'indices:N*int64, values:[sparse_types], shapes:N*int64, dense_inputs:[dense_types], sep:string -> output_indices:int64, output_values:string, output_shape:int64 | N:int>=0; sparse_types:list(type){int64,string}>=0; dense_types:list(type){int64,string}>=0',
  SparseFillEmptyRows:
    'indices:int64, values:T, dense_shape:int64, default_value:T -> output_indices:int64, output_values:T, empty_row_indicator:bool, reverse_index_map:int64 | T:type',
  SparseReshape: 'input_indices:int64, input_shape:int64, new_shape:int64 -> output_indices:int64, output_shape:int64',
  SparseSegmentMean:
    'data:T, indices:Tidx, segment_ids:Tsegmentids -> output:T | T:type{bfloat16,half,float,double}; Tidx:type{int32,int64}=int32; Tsegmentids:type{int32,int64}=int32',
  SparseSegmentMeanWithNumSegments:
    'data:T, indices:Tidx, segment_ids:Tsegmentids, num_segments:Tnumsegments -> output:T | T:type{bfloat16,half,float,double}; Tidx:type{int32,int64}=int32; Tnumsegments:type{int32,int64}=int32; Tsegmentids:type{int32,int64}=int32',
  SparseSegmentSqrtN:
    'data:T, indices:Tidx, segment_ids:Tsegmentids -> output:T | T:type{bfloat16,half,float,double}; Tidx:type{int32,int64}=int32; Tsegmentids:type{int32,int64}=int32',
  SparseSegmentSqrtNWithNumSegments:
    'data:T, indices:Tidx, segment_ids:Tsegmentids, num_segments:Tnumsegments -> output:T | T:type{bfloat16,half,float,double}; Tidx:type{int32,int64}=int32; Tnumsegments:type{int32,int64}=int32; Tsegmentids:type{int32,int64}=int32',
  SparseSegmentSum:
    'data:T, indices:Tidx, segment_ids:Tsegmentids -> output:T | T:type{float,double,int32,uint8,int16,int8,int64,bfloat16,uint16,half,uint32,uint64}; Tidx:type{int32,int64}=int32; Tsegmentids:type{int32,int64}=int32',
  SparseSegmentSumWithNumSegments:
    'data:T, indices:Tidx, segment_ids:Tsegmentids, num_segments:Tnumsegments -> output:T | T:type{float,double,int32,uint8,int16,int8,int64,bfloat16,uint16,half,uint32,uint64}; Tidx:type{int32,int64}=int32; Tnumsegments:type{int32,int64}=int32; Tsegmentids:type{int32,int64}=int32',
  SparseSoftmaxCrossEntropyWithLogits:
    'features:T, labels:Tlabels -> loss:T, backprop:T | T:type{half,bfloat16,float,double}; Tlabels:type{int32,int64}=int64',
  SparseTensorDenseMatMul:
    'a_indices:Tindices, a_values:T, a_shape:int64, b:T -> product:T | T:type; Tindices:type{int32,int64}=int64; adjoint_a:bool=false; adjoint_b:bool=false',
  SparseToDense:
    'sparse_indices:Tindices, output_shape:Tindices, sparse_values:T, default_value:T -> dense:T | validate_indices:bool=true; T:type; Tindices:type{int32,int64}',
  Split: 'split_dim:int32, value:T -> output:num_split*T | num_split:int>=1; T:type',
  Sqrt: 'x:T -> y:T | T:type{half,bfloat16,float,double,complex64,complex128}',
  Square: 'x:T -> y:T | T:type{bfloat16,half,float,double,int32,int64,complex64,complex128}',
  SquaredDifference: 'x:T, y:T -> z:T | T:type{bfloat16,half,float,double,int32,int64,complex64,complex128}',
  Squeeze: 'input:T -> output:T | T:type; squeeze_dims:list(int)>=0=[]',
  StackPopV2: 'handle:resource -> elem:elem_type | elem_type:type',
  StackPushV2: 'handle:resource, elem:T -> output:T | T:type; swap_memory:bool=false',
  StackV2: 'max_size:int32 -> handle:resource | elem_type:type; stack_name:string=""',
  StatefulPartitionedCall:
    'args:[Tin] -> output:[Tout] | Tin:list(type)>=0; Tout:list(type)>=0; f:func; config:string=""; config_proto:string=""; executor_type:string=""',
  StatelessIf:
    'cond:Tcond, input:[Tin] -> output:[Tout] | Tcond:type; Tin:list(type)>=0; Tout:list(type)>=0; then_branch:func; else_branch:func; output_shapes:list(shape)=[]',
  StatelessWhile:
    'input:[T] -> output:[T] | T:list(type)>=0; cond:func; body:func; output_shapes:list(shape)=[]; parallel_iterations:int=10',
  StaticRegexFullMatch: 'input:string -> output:bool | pattern:string',
  StaticRegexReplace: 'input:string -> output:string | pattern:string; rewrite:string; replace_global:bool=true',
  StopGradient: 'input:T -> output:T | T:type',
  StridedSlice:
    'input:T, begin:Index, end:Index, strides:Index -> output:T | T:type; Index:type{int32,int64}; begin_mask:int=0; end_mask:int=0; ellipsis_mask:int=0; new_axis_mask:int=0; shrink_axis_mask:int=0',
  StringJoin: 'inputs:N*string -> output:string | N:int>=1; separator:string=""',
  StringLower: 'input:string -> output:string | encoding:string=""',
  StringSplitV2: 'input:string, sep:string -> indices:int64, values:string, shape:int64 | maxsplit:int=-1',
  StringStrip: 'input:string -> output:string',
  StringToHashBucketFast: 'input:string -> output:int64 | num_buckets:int>=1',
  StringToHashBucketStrong: 'input:string -> output:int64 | num_buckets:int>=1; key:list(int)',
  StringUpper: 'input:string -> output:string | encoding:string=""',
  Sub: 'x:T, y:T -> z:T | T:type{bfloat16,half,float,double,uint8,int8,uint16,int16,int32,int64,complex64,complex128}',
  Sum: 'input:T, reduction_indices:Tidx -> output:T | keep_dims:bool=false; T:type{float,double,int32,uint8,int16,int8,complex64,int64,qint8,quint8,qint32,bfloat16,uint16,complex128,half,uint32,uint64}; Tidx:type{int32,int64}=int32',
  Switch: 'data:T, pred:bool -> output_false:T, output_true:T | T:type',
  TFRecordDataset: 'filenames:string, compression_type:string, buffer_size:int64 -> handle:variant',
  Tanh: 'x:T -> y:T | T:type{half,bfloat16,float,double,complex64,complex128}',
  TanhGrad: 'y:T, dy:T -> z:T | T:type{half,bfloat16,float,double,complex64,complex128}',
  TensorArrayGatherV3: 'handle:resource, indices:int32, flow_in:float -> value:dtype | dtype:type; element_shape:shape=?',
  TensorArrayGradV3: 'handle:resource, flow_in:float -> grad_handle:resource, flow_out:float | source:string',
  TensorArrayReadV3: 'handle:resource, index:int32, flow_in:float -> value:dtype | dtype:type',
  TensorArrayScatterV3: 'handle:resource, indices:int32, value:T, flow_in:float -> flow_out:float | T:type',
  TensorArraySizeV3: 'handle:resource, flow_in:float -> size:int32',
  TensorArrayV3:
    'size:int32 -> handle:resource, flow:float | dtype:type; element_shape:shape=?; dynamic_size:bool=false; clear_after_read:bool=true; identical_element_shapes:bool=false; tensor_array_name:string=""',
  TensorArrayWriteV3: 'handle:resource, index:int32, value:T, flow_in:float -> flow_out:float | T:type',
  TensorListElementShape: 'input_handle:variant -> element_shape:shape_type | shape_type:type{int32,int64}',
  TensorListFromTensor:
    'tensor:element_dtype, element_shape:shape_type -> output_handle:variant | element_dtype:type; shape_type:type{int32,int64}',
  TensorListGetItem: 'input_handle:variant, index:int32, element_shape:int32 -> item:element_dtype | element_dtype:type',
  TensorListLength: 'input_handle:variant -> length:int32',
  TensorListReserve: 'element_shape:shape_type, num_elements:int32 -> handle:variant | element_dtype:type; shape_type:type{int32,int64}',
  TensorListSetItem:
    'input_handle:variant, index:int32, item:element_dtype -> output_handle:variant | element_dtype:type; resize_if_index_out_of_bounds:bool=false',
  TensorListStack: 'input_handle:variant, element_shape:int32 -> tensor:element_dtype | element_dtype:type; num_elements:int=-1',
  Tile: 'input:T, multiples:Tmultiples -> output:T | T:type; Tmultiples:type{int32,int64}=int32',
  TopKV2:
    'input:T, k:int32 -> values:T, indices:int32 | sorted:bool=true; T:type{float,double,int32,uint8,int16,int8,int64,bfloat16,uint16,half,uint32,uint64}',
  Transpose: 'x:T, perm:Tperm -> y:T | T:type; Tperm:type{int32,int64}=int32',
  Unique: 'x:T -> y:T, idx:out_idx | T:type; out_idx:type{int32,int64}=int32',
  Unpack: 'value:T -> output:num*T | num:int>=0; T:type; axis:int=0',
  UnsortedSegmentSum:
    'data:T, segment_ids:Tindices, num_segments:Tnumsegments -> output:T | T:type{float,double,int32,uint8,int16,int8,complex64,int64,qint8,quint8,qint32,bfloat16,uint16,complex128,half,uint32,uint64}; Tindices:type{int32,int64}; Tnumsegments:type{int32,int64}=int32',
  UpperBound: 'sorted_inputs:T, values:T -> output:out_type | T:type; out_type:type{int32,int64}=int32',
  VarHandleOp: ' -> resource:resource | container:string=""; shared_name:string=""; dtype:type; shape:shape',
  VarIsInitializedOp: 'resource:resource -> is_initialized:bool',
  VariableV2: ' -> ref:Ref(dtype) | shape:shape; dtype:type; container:string=""; shared_name:string=""',
  Where:
    'input:T -> index:int64 | T:type{float,double,int32,uint8,int16,int8,complex64,int64,qint8,quint8,qint32,bfloat16,uint16,complex128,half,uint32,uint64,bool}=bool',
  While: 'input:[T] -> output:[T] | T:list(type)>=0; cond:func; body:func; output_shapes:list(shape)=[]; parallel_iterations:int=10',
  ZerosLike: 'x:T -> y:T | T:type',
  // Not in any fixture's stripped_op_list: arguments and type attrs only (no allowed-type
  // lists, so no dtype is refused that TF may accept), from tensorflow/core/ops/*.cc.
  Abs: 'x:T -> y:T | T:type',
  Acos: 'x:T -> y:T | T:type',
  Any: 'input:bool, reduction_indices:Tidx -> output:bool | keep_dims:bool=false; Tidx:type{int32,int64}=int32',
  ArgMin:
    'input:T, dimension:Tidx -> output:output_type | T:type; Tidx:type{int16,int32,int64}=int32; output_type:type{int16,uint16,int32,int64}=int64',
  Asin: 'x:T -> y:T | T:type',
  Atan: 'x:T -> y:T | T:type',
  Atan2: 'y:T, x:T -> z:T | T:type',
  BatchMatMul: 'x:T, y:T -> output:T | T:type; adj_x:bool=false; adj_y:bool=false',
  BroadcastTo: 'input:T, shape:Tidx -> output:T | T:type; Tidx:type{int32,int64}=int32',
  Ceil: 'x:T -> y:T | T:type',
  ClipByValue: 't:T, clip_value_min:T, clip_value_max:T -> output:T | T:type',
  Conv2DBackpropInput:
    'input_sizes:int32, filter:T, out_backprop:T -> output:T | T:type; strides:list(int); use_cudnn_on_gpu:bool=true; padding:string{SAME,VALID,EXPLICIT}; explicit_paddings:list(int)=[]; data_format:string{NHWC,NCHW}="NHWC"; dilations:list(int)=[1,1,1,1]',
  Conv3D:
    'input:T, filter:T -> output:T | T:type; strides:list(int)>=5; padding:string{SAME,VALID}; data_format:string{NDHWC,NCDHW}="NDHWC"; dilations:list(int)=[1,1,1,1,1]',
  Cos: 'x:T -> y:T | T:type',
  Cosh: 'x:T -> y:T | T:type',
  Cumprod: 'x:T, axis:Tidx -> out:T | exclusive:bool=false; reverse:bool=false; T:type; Tidx:type{int32,int64}=int32',
  DepthToSpace: 'input:T -> output:T | T:type; block_size:int>=2; data_format:string{NHWC,NCHW,NCHW_VECT_C}="NHWC"',
  Elu: 'features:T -> activations:T | T:type',
  EnsureShape: 'input:T -> output:T | shape:shape; T:type',
  Erf: 'x:T -> y:T | T:type',
  Exp: 'x:T -> y:T | T:type',
  Expm1: 'x:T -> y:T | T:type',
  IdentityN: 'input:[T] -> output:[T] | T:list(type)>=1',
  LeakyRelu: 'features:T -> activations:T | alpha:float=0.2; T:type=float',
  Log1p: 'x:T -> y:T | T:type',
  LogSoftmax: 'logits:T -> logsoftmax:T | T:type',
  LRN: 'input:T -> output:T | depth_radius:int=5; bias:float=1; alpha:float=1; beta:float=0.5; T:type=float',
  MaxPoolV2:
    'input:T, ksize:int32, strides:int32 -> output:T | T:type=float; padding:string{SAME,VALID}; data_format:string{NHWC,NCHW,NCHW_VECT_C}="NHWC"',
  MaxPool3D:
    'input:T -> output:T | ksize:list(int)>=5; strides:list(int)>=5; padding:string{SAME,VALID}; data_format:string{NDHWC,NCDHW}="NDHWC"; T:type',
  AvgPool3D:
    'input:T -> output:T | ksize:list(int)>=5; strides:list(int)>=5; padding:string{SAME,VALID}; data_format:string{NDHWC,NCDHW}="NDHWC"; T:type',
  MirrorPad: 'input:T, paddings:Tpaddings -> output:T | T:type; Tpaddings:type{int32,int64}=int32; mode:string{REFLECT,SYMMETRIC}',
  OneHot: 'indices:TI, depth:int32, on_value:T, off_value:T -> output:T | axis:int=-1; T:type; TI:type{uint8,int8,int32,int64}=int64',
  OnesLike: 'x:T -> y:T | T:type',
  Reciprocal: 'x:T -> y:T | T:type',
  ResizeNearestNeighbor: 'images:T, size:int32 -> resized_images:T | T:type; align_corners:bool=false; half_pixel_centers:bool=false',
  Round: 'x:T -> y:T | T:type',
  Selu: 'features:T -> activations:T | T:type',
  Sign: 'x:T -> y:T | T:type',
  Sin: 'x:T -> y:T | T:type',
  Sinh: 'x:T -> y:T | T:type',
  Softplus: 'features:T -> activations:T | T:type',
  Softsign: 'features:T -> activations:T | T:type',
  SpaceToDepth: 'input:T -> output:T | T:type; block_size:int>=2; data_format:string{NHWC,NCHW,NCHW_VECT_C}="NHWC"',
  Tan: 'x:T -> y:T | T:type',
  // The object-detection ops (image_ops.cc), as registered.
  CombinedNonMaxSuppression:
    'boxes:float, scores:float, max_output_size_per_class:int32, max_total_size:int32, iou_threshold:float, score_threshold:float -> nmsed_boxes:float, nmsed_scores:float, nmsed_classes:float, valid_detections:int32 | pad_per_class:bool=false; clip_boxes:bool=true',
  CropAndResize:
    'image:T, boxes:float, box_ind:int32, crop_size:int32 -> crops:float | T:type{uint8,uint16,int8,int16,int32,int64,half,float,double}; method:string{bilinear,nearest}="bilinear"; extrapolation_value:float=0',
  NonMaxSuppression: 'boxes:float, scores:float, max_output_size:int32 -> selected_indices:int32 | iou_threshold:float=0.5',
  NonMaxSuppressionV2:
    'boxes:T, scores:T, max_output_size:int32, iou_threshold:T_threshold -> selected_indices:int32 | T:type{half,float}=float; T_threshold:type{half,float}=float',
  NonMaxSuppressionV3:
    'boxes:T, scores:T, max_output_size:int32, iou_threshold:T_threshold, score_threshold:T_threshold -> selected_indices:int32 | T:type{half,float}=float; T_threshold:type{half,float}=float',
  NonMaxSuppressionV4:
    'boxes:T, scores:T, max_output_size:int32, iou_threshold:T_threshold, score_threshold:T_threshold -> selected_indices:int32, valid_outputs:int32 | T:type{half,float}=float; T_threshold:type{half,float}=float; pad_to_max_output_size:bool=false',
  NonMaxSuppressionV5:
    'boxes:T, scores:T, max_output_size:int32, iou_threshold:T, score_threshold:T, soft_nms_sigma:T -> selected_indices:int32, selected_scores:T, valid_outputs:int32 | T:type{half,float}=float; pad_to_max_output_size:bool=false',
  NonMaxSuppressionWithOverlaps:
    'overlaps:float, scores:float, max_output_size:int32, overlap_threshold:float, score_threshold:float -> selected_indices:int32',
};

/** TF's DataTypeString of every DataType: what tells a fixed arg type from a type attr's name. */
export const DATA_TYPE_NAMES: ReadonlySet<string> = new Set([
  'float',
  'double',
  'int32',
  'uint8',
  'int16',
  'int8',
  'string',
  'complex64',
  'int64',
  'bool',
  'qint8',
  'quint8',
  'qint32',
  'bfloat16',
  'qint16',
  'quint16',
  'uint16',
  'complex128',
  'half',
  'resource',
  'variant',
  'uint32',
  'uint64',
]);

/** TF's DataTypeString → the DataType enum name: float → DT_FLOAT, half → DT_HALF. */
function dataTypeOf(short: string): string {
  return `DT_${short.toUpperCase()}`;
}

function parseArg(text: string): NonNullable<OpDef['inputArg']>[number] {
  const colon = text.indexOf(':');
  const name = text.slice(0, colon);
  let t = text.slice(colon + 1);
  let isRef = false;
  const ref = /^Ref\((.*)\)$/.exec(t);
  if (ref) {
    isRef = true;
    t = ref[1];
  }
  let numberAttr: string | undefined;
  const star = t.indexOf('*');
  if (star > 0) {
    numberAttr = t.slice(0, star);
    t = t.slice(star + 1);
  }
  const arg: NonNullable<OpDef['inputArg']>[number] = { name };
  if (isRef) arg.isRef = true;
  if (numberAttr) arg.numberAttr = numberAttr;
  if (t.startsWith('[')) arg.typeListAttr = t.slice(1, -1);
  else if (DATA_TYPE_NAMES.has(t)) arg.type = dataTypeOf(t);
  else arg.typeAttr = t;
  return arg;
}

const enc = new TextEncoder();

function parseDefault(kind: string, text: string): AttrValue {
  if (kind === 'type') return { type: dataTypeOf(text) };
  if (kind === 'bool') return { b: text === 'true' };
  if (kind === 'int') return { i: Number(text) };
  if (kind === 'float') return { f: Number(text) };
  if (kind === 'string') return { s: enc.encode(JSON.parse(text) as string) };
  if (kind === 'shape') return { shape: text === '?' ? { unknownRank: true } : {} };
  const items = text === '[]' ? [] : text.slice(1, -1).split(',');
  if (kind === 'list(int)') return { list: { i: items.map(Number) } };
  if (kind === 'list(float)') return { list: { f: items.map(Number) } };
  if (kind === 'list(type)') return { list: { type: items.map(dataTypeOf) } };
  if (kind === 'list(string)') return { list: { s: items.map((x) => enc.encode(JSON.parse(x) as string)) } };
  return { list: {} };
}

function parseAttr(text: string): NonNullable<OpDef['attr']>[number] {
  const m = /^([A-Za-z0-9_]+):([a-z()]+)(?:\{([^}]*)\})?(?:>=(-?\d+))?(?:=(.*))?$/.exec(text);
  if (!m) throw new Error(`op registry: cannot read attr '${text}'`);
  const [, name, kind, allowed, minimum, dflt] = m;
  const attr: NonNullable<OpDef['attr']>[number] = { name, type: kind };
  if (allowed !== undefined) {
    const values = allowed.split(',');
    attr.allowedValues = kind.includes('type')
      ? { list: { type: values.map(dataTypeOf) } }
      : { list: { s: values.map((v) => enc.encode(v)) } };
  }
  if (minimum !== undefined) {
    attr.hasMinimum = true;
    attr.minimum = Number(minimum);
  }
  if (dflt !== undefined) attr.defaultValue = parseDefault(kind, dflt);
  return attr;
}

function parseOpDef(name: string, line: string): OpDef {
  const [signature, attrs = ''] = line.split(' | ');
  const [inputs, outputs] = signature.split('->').map((s) => s.trim());
  const args = (s: string) => (s ? s.split(', ').map(parseArg) : []);
  return { name, inputArg: args(inputs), outputArg: args(outputs), attr: attrs ? attrs.split('; ').map(parseAttr) : [] };
}

const parsed = new Map<string, OpDef>();

/** TF's registered OpDef of `op`, or undefined when tfgate's registry does not list it. */
export function registeredOpDef(op: string): OpDef | undefined {
  let def = parsed.get(op);
  if (!def && Object.hasOwn(REGISTRY, op)) parsed.set(op, (def = parseOpDef(op, REGISTRY[op])));
  return def;
}

/** The registry's signature of `op` as TF's SummarizeOpDef begins it: `Op<name=AddV2; signature=x:T, y:T -> z:T>`. */
export function summarizeOpDef(op: string): string {
  const line = Object.hasOwn(REGISTRY, op) ? REGISTRY[op] : undefined;
  return line ? `Op<name=${op}; signature=${line.split(' | ')[0].replace(/ -> /, ' -> ').trim()}>` : `Op<name=${op}>`;
}
