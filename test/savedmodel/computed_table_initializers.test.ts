// Lookup tables whose contents the graph computes, as TF1's lookup_ops build them (and
// Estimators' categorical_column_with_vocabulary_list through them): index_table_from_tensor
// gives the values as Cast(Range(0, Size(vocabulary))) to int64 and casts an integer
// vocabulary to int64 keys; index_to_string_table_from_tensor computes the keys that way.
// The loader runs such an initializer's inputs once on the engine; the lookups must give what
// TF's lookup_ops_test.py states for them (IndexTableFromTensor, IndexToStringTableFromTensorTest).
// Keys a StringJoin computes are computed too; an op the engine lacks is refused by name.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Code } from '../../src/errors/status.js';
import { EmbeddedRuntime } from '../../src/runtimes/embedded/embedded_runtime.js';
import { OnnxRuntime } from '../../src/runtimes/onnx/onnx_runtime.js';
import { CompositeRuntime } from '../../src/runtimes/composite_runtime.js';
import type { Runtime } from '../../src/runtimes/runtime.js';
import type { DType } from '../../src/tensor/dtype.js';
import type { HostTensor } from '../../src/tensor/host_tensor.js';
import { isError } from '../helpers/errors.js';
import path from 'node:path';
import { attr, GraphBuilder, i32, i64, node, writeTinyModel, type Tensor } from '../helpers/tiny_graphs.js';
import { writeSavedModel } from '../../test_util/savedmodel/saved_model_writer.js';
import { opDefFromRegistration } from '../../test_util/savedmodel/writer/op_registration.js';
import { tempDir } from '../helpers/temp.js';
import { find, staticHashTable, stringJoin } from '../helpers/table_graphs.js';

const enc = new TextEncoder();
const dec = new TextDecoder();
const strings = (values: string[]): HostTensor => ({ dtype: 'string', shape: [values.length], values: values.map((v) => enc.encode(v)) });
const readable = (t: HostTensor) =>
  Array.from(t.values as ArrayLike<unknown>, (v) => (v instanceof Uint8Array ? dec.decode(v) : typeof v === 'bigint' ? Number(v) : v));

/** `math_ops.cast(Range(0, Size(x), 1), int64)` in scope `scope`, as index_table_from_tensor writes it. */
function positions(g: GraphBuilder, scope: string, x: Tensor): Tensor {
  const size = node(g, 'Size', `${scope}/Size`, [x], { T: attr.type(x.dtype), out_type: attr.type('int32') }, 'int32', []);
  const start = g.constant(`${scope}/range/start`, i32([], [0]));
  const delta = g.constant(`${scope}/range/delta`, i32([], [1]));
  const range = node(g, 'Range', `${scope}/range`, [start, size, delta], { Tidx: attr.type('int32') }, 'int32', [-1]);
  return cast(g, `${scope}/ToInt64`, range, 'int64');
}

const cast = (g: GraphBuilder, name: string, x: Tensor, to: DType): Tensor =>
  node(g, 'Cast', name, [x], { SrcT: attr.type(x.dtype), DstT: attr.type(to), Truncate: attr.b(false) }, to, x.shape);

/** As in tensorflow/core/ops/string_ops.cc. */
const UNICODE_TRANSCODE = `REGISTER_OP("UnicodeTranscode")
    .Input("input: string")
    .Output("output: string")
    .Attr("input_encoding: string")
    .Attr("output_encoding: {'UTF-8', 'UTF-16-BE', 'UTF-32-BE'}")
    .Attr("errors: {'strict', 'replace', 'ignore'} = 'replace'")
    .Attr("replacement_char: int = 65533")  // 0xFFFD unicode replacement char
    .Attr("replace_control_characters: bool = false")
    .SetShapeFn(shape_inference::UnchangedShape);`;

/** TF1 `index_table_from_tensor(vocabulary_list=("brain", "salad", "surgery"), default_value=-42)` and a lookup of `k`. */
const stringVocabulary = () =>
  writeTinyModel((g) => {
    const vocabulary = g.constant('string_to_index/Const', strings(['brain', 'salad', 'surgery']));
    const ids = positions(g, 'string_to_index', vocabulary);
    const { table, init } = staticHashTable(g, 'string_to_index/hash_table', 'string', 'int64', vocabulary, ids);
    const k = g.placeholder('k', 'string', [-1]);
    const found = find(g, 'string_to_index_Lookup', table, k, g.constant('string_to_index/default', i64([], [-42])), 'int64');
    return { inputs: { k }, outputs: { ids: found }, nodeCollections: { table_initializer: [init] } };
  });

/**
 * TF1 `index_table_from_tensor(vocabulary_list=(42, 1, -1000), num_oov_buckets=1, dtype=int32)`:
 * the int32 vocabulary cast to int64 keys, and IdTableWithHashBuckets' lookup (the ids cast
 * to int64; an unknown id hashed into the bucket after the vocabulary).
 */
const int32VocabularyWithBucket = () =>
  writeTinyModel((g) => {
    const vocabulary = g.constant('string_to_index/Const', i32([3], [42, 1, -1000]));
    const ids = positions(g, 'string_to_index', vocabulary);
    const keys = cast(g, 'string_to_index/hash_table/ToInt64', vocabulary, 'int64');
    const { table, init } = staticHashTable(g, 'string_to_index/hash_table', 'int64', 'int64', keys, ids);
    const k = g.placeholder('k', 'int32', [-1]);
    const values = cast(g, 'hash_table_Lookup/ToInt64', k, 'int64');
    const asString = node(
      g,
      'AsString',
      'hash_table_Lookup/AsString',
      [values],
      {
        T: attr.type('int64'),
        precision: attr.i(-1),
        scientific: attr.b(false),
        shortest: attr.b(false),
        width: attr.i(-1),
        fill: attr.s(''),
      },
      'string',
      [-1],
    );
    const bucket = node(
      g,
      'StringToHashBucketFast',
      'hash_table_Lookup/hash_bucket',
      [asString],
      { num_buckets: attr.i(1) },
      'int64',
      [-1],
    );
    const dflt = g.constant('string_to_index/default', i64([], [-1]));
    const found = find(g, 'hash_table_Lookup/hash_table_Lookup/LookupTableFindV2', table, values, dflt, 'int64');
    const size = node(g, 'LookupTableSizeV2', 'hash_table_Lookup/hash_table_Size/LookupTableSizeV2', [table], {}, 'int64', []);
    const buckets = node(g, 'AddV2', 'hash_table_Lookup/Add', [bucket, size], { T: attr.type('int64') }, 'int64', [-1]);
    const known = node(
      g,
      'NotEqual',
      'hash_table_Lookup/NotEqual',
      [found, dflt],
      { T: attr.type('int64'), incompatible_shape_error: attr.b(true) },
      'bool',
      [-1],
    );
    const out = node(g, 'SelectV2', 'hash_table_Lookup/SelectV2', [known, found, buckets], { T: attr.type('int64') }, 'int64', [-1]);
    return { inputs: { k }, outputs: { ids: out }, nodeCollections: { table_initializer: [init] } };
  });

/** TF1 `index_to_string_table_from_tensor(["brain", "salad", "surgery"], default_value="NONE")`: the keys are computed. */
const indexToString = () =>
  writeTinyModel((g) => {
    const vocabulary = g.constant('index_to_string/Const', strings(['brain', 'salad', 'surgery']));
    const keys = positions(g, 'index_to_string', vocabulary);
    const { table, init } = staticHashTable(g, 'index_to_string', 'int64', 'string', keys, vocabulary);
    const k = g.placeholder('k', 'int64', [-1]);
    const found = find(
      g,
      'index_to_string_Lookup',
      table,
      k,
      g.constant('index_to_string/default', { dtype: 'string', shape: [], values: [enc.encode('NONE')] }),
      'string',
    );
    return { inputs: { k }, outputs: { words: found }, nodeCollections: { table_initializer: [init] } };
  });

async function lookup(runtime: Runtime, dir: string, input: HostTensor): Promise<unknown[]> {
  const servable = await runtime.load(dir, { tags: ['serve'] });
  try {
    const out = await servable.run('serving_default', { k: input });
    return readable(Object.values(out)[0]);
  } finally {
    servable.dispose();
  }
}

describe('lookup tables whose initializer computes its keys or values (embedded runtime, CPU)', () => {
  const runtime = new EmbeddedRuntime('cpu');

  it('index_table_from_tensor: Cast(Range(Size(vocabulary))) values; salad, surgery, tarkus → 1, 2, -42 (TF test_index_table_from_tensor_with_default_value)', async () => {
    assert.deepEqual(await lookup(runtime, await stringVocabulary(), strings(['salad', 'surgery', 'tarkus'])), [1, 2, -42]);
  });

  it('an int32 vocabulary cast to int64 keys, one OOV bucket: 1, -1000, 11 → 1, 2, 3 (TF test_int32_index_table_from_tensor_with_tensor_init)', async () => {
    assert.deepEqual(await lookup(runtime, await int32VocabularyWithBucket(), i32([3], [1, -1000, 11])), [1, 2, 3]);
  });

  it('index_to_string_table_from_tensor: computed int64 keys; 1, 2, 4 → salad, surgery, NONE (TF test_index_to_string_with_default_value)', async () => {
    assert.deepEqual(await lookup(runtime, await indexToString(), i64([3], [1, 2, 4])), ['salad', 'surgery', 'NONE']);
  });

  it('keys joined in the graph (StringJoin of two vocabularies with "_"): x_1, y_2, x → 0, 1, -1', async () => {
    const dir = await writeTinyModel((g) => {
      const keys = stringJoin(g, 'joined', [g.constant('prefix', strings(['x', 'y'])), g.constant('suffix', strings(['1', '2']))], '_');
      const { table, init } = staticHashTable(g, 'joined_table', 'string', 'int64', keys, g.constant('ids', i64([2], [0, 1])));
      const k = g.placeholder('k', 'string', [-1]);
      return {
        inputs: { k },
        outputs: { ids: find(g, 'lookup', table, k, g.constant('default', i64([], [-1])), 'int64') },
        nodeCollections: { table_initializer: [init] },
      };
    });
    assert.deepEqual(await lookup(runtime, dir, strings(['x_1', 'y_2', 'x'])), [0, 1, -1]);
  });

  it('an initializer input the engine cannot compute refuses the lookup, naming the op and why', async () => {
    const g = new GraphBuilder();
    const keys = node(
      g,
      'UnicodeTranscode',
      'transcoded',
      [g.constant('latin', strings(['a', 'b']))],
      {
        input_encoding: attr.s('Shift_JIS'),
        output_encoding: attr.s('UTF-8'),
        errors: attr.s('replace'),
        replacement_char: attr.i(65533),
        replace_control_characters: attr.b(false),
      },
      'string',
      [2],
    );
    const { table, init } = staticHashTable(g, 'transcoded_table', 'string', 'int64', keys, g.constant('ids', i64([2], [0, 1])));
    const k = g.placeholder('k', 'string', [-1]);
    const ids = find(g, 'lookup', table, k, g.constant('default', i64([], [-1])), 'int64');
    const dir = path.join(tempDir('tfgate-computed-table-'), '1');
    await writeSavedModel(
      dir,
      g,
      { serving_default: { inputs: { k }, outputs: { ids } } },
      { nodeCollections: { table_initializer: [init] }, opDefs: [opDefFromRegistration(UNICODE_TRANSCODE)] },
    );
    await assert.rejects(
      runtime.load(dir, { tags: ['serve'] }),
      isError(
        Code.FAILED_PRECONDITION,
        /LookupTableFindV2 \(node lookup\) looks up table 'transcoded_table\/hash_table' \(HashTableV2\), whose contents tfgate cannot compute at load: InitializeTableV2 'transcoded_table\/table_init' \(init op\) fills it from ops UnicodeTranscode computed at load, which the engine could not run: .*UnicodeTranscode/,
      ),
    );
  });
});

describe('an initializer op whose load check refuses the node (embedded runtime, CPU)', () => {
  it('AsString of float64 keys (precision 10) is refused naming AsString, not computed from float32 into other keys', async () => {
    const dir = await writeTinyModel((g) => {
      const values = g.constant('doubles', { dtype: 'float64', shape: [2], values: Float64Array.of(0.1, 0.2) });
      const keys = node(
        g,
        'AsString',
        'keys',
        [values],
        {
          T: attr.type('float64'),
          precision: attr.i(10),
          scientific: attr.b(false),
          shortest: attr.b(false),
          width: attr.i(-1),
          fill: attr.s(''),
        },
        'string',
        [2],
      );
      const { table, init } = staticHashTable(g, 'double_table', 'string', 'int64', keys, g.constant('ids', i64([2], [0, 1])));
      const k = g.placeholder('k', 'string', [-1]);
      return {
        inputs: { k },
        outputs: { ids: find(g, 'lookup', table, k, g.constant('default', i64([], [-1])), 'int64') },
        nodeCollections: { table_initializer: [init] },
      };
    });
    await assert.rejects(
      new EmbeddedRuntime('cpu').load(dir, { tags: ['serve'] }),
      isError(Code.FAILED_PRECONDITION, /AsString \(node keys: double inputs reach the embedded runtime rounded to float32/),
    );
  });
});

describe('lookup tables whose initializer computes its keys or values (ONNX Runtime, the embedded runtime as fallback)', () => {
  it('the table is computed on the ONNX path too, so the lookup signature reaches the fallback: salad, surgery, tarkus → 1, 2, -42', async () => {
    const runtime = new CompositeRuntime(new OnnxRuntime({ device: 'cpu' }), new EmbeddedRuntime('cpu'));
    assert.deepEqual(await lookup(runtime, await stringVocabulary(), strings(['salad', 'surgery', 'tarkus'])), [1, 2, -42]);
  });
});
