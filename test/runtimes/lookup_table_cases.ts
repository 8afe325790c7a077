// Hash-table lookups with TF's semantics through a runtime, on tiny SavedModels written with
// tfgate's writer: tables filled by the init op (LookupTableImportV2, or
// InitializeTableFromTextFileV2 over an asset fed through asset_file_def), lookups whose
// result has the keys' shape, LookupTableSizeV2, and the load-time refusals. Shared by the
// per-backend test files (TF.js picks one backend per process).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as tf from '@tensorflow/tfjs-core';
import { Code } from '../../src/errors/status.js';
import type { Runtime, Servable } from '../../src/runtimes/runtime.js';
import type { HostTensor } from '../../src/tensor/host_tensor.js';
import type { DType } from '../../src/tensor/dtype.js';
import type { WriterAsset } from '../../test_util/savedmodel/saved_model_writer.js';
import { isError } from '../helpers/errors.js';
import { attr, f32, i64, node, writeTinyModel, type GraphBuilder, type Tensor, type TinySignature } from '../helpers/tiny_graphs.js';
import { writeSavedModel, type WriterTensorInfo } from '../../test_util/savedmodel/saved_model_writer.js';
import { INIT_OP_SIGNATURE_KEY } from '../../src/savedmodel/signature_spec.js';
import { Tf2GraphBuilder } from '../../test_util/savedmodel/writer/tf2_graph_builder.js';
import { emit, type Value } from '../../test_util/savedmodel/writer/function_library.js';
import { call, constant, identity, readVariable } from '../../test_util/savedmodel/writer/tf2_ops.js';
import { tempDir } from '../helpers/temp.js';
import pathLib from 'node:path';

const enc = new TextEncoder();
export const strings = (shape: number[], values: string[]): HostTensor => ({
  dtype: 'string',
  shape,
  values: values.map((v) => enc.encode(v)),
});

function hashTable(g: GraphBuilder, keyDtype: DType, valueDtype: DType, name = 'hash_table'): Tensor {
  return node(g, 'HashTableV2', name, [], {
    container: attr.s(''),
    shared_name: attr.s(`${name}_0c4b1d`),
    use_node_name_sharing: attr.b(false),
    key_dtype: attr.type(keyDtype),
    value_dtype: attr.type(valueDtype),
  });
}

const kv = (keyDtype: DType, valueDtype: DType) => ({ Tin: attr.type(keyDtype), Tout: attr.type(valueDtype) });

export type Fill =
  | { kind: 'import'; keys: HostTensor; values: HostTensor }
  | { kind: 'text file'; contents: string; keyIndex: number; valueIndex: number; delimiter?: string; vocabSize?: number }
  | { kind: 'none' };

/**
 * The bug report's model: Placeholder k, table t, outputs LookupTableFindV2(t, k, default)
 * and LookupTableSizeV2(t); the init op's NoOp control-depends on what fills t.
 */
export function lookupModel(o: {
  keyDtype: DType;
  valueDtype: DType;
  fill: Fill;
  defaultValue: HostTensor;
  /** How the loader finds the init op: the TF2 signature, or (TF1) the table_initializer collection. */
  initVia?: 'signature' | 'collection';
}): Promise<string> {
  return writeTinyModel((g): TinySignature => {
    const t = hashTable(g, o.keyDtype, o.valueDtype);
    let initOp: string | undefined;
    const assets: WriterAsset[] = [];
    if (o.fill.kind === 'import') {
      const keys = g.constant('table_keys', o.fill.keys);
      const values = g.constant('table_values', o.fill.values);
      initOp = g.noOp('init_all_tables', [g.addNode('LookupTableImportV2', 'table_init', [t, keys, values], kv(o.keyDtype, o.valueDtype))]);
    } else if (o.fill.kind === 'text file') {
      const path = g.placeholder('asset_path_initializer', 'string', []);
      assets.push({ tensor: path, filename: 'vocab.txt', contents: o.fill.contents });
      const init = g.addNode('InitializeTableFromTextFileV2', 'table_init', [t, path], {
        key_index: attr.i(o.fill.keyIndex),
        value_index: attr.i(o.fill.valueIndex),
        vocab_size: attr.i(o.fill.vocabSize ?? -1),
        delimiter: attr.s(o.fill.delimiter ?? '\t'),
        offset: attr.i(0),
      });
      initOp = g.noOp('init_all_tables', [init]);
    }
    const k = g.placeholder('k', o.keyDtype, null);
    const dflt = g.constant('default_value', o.defaultValue);
    const ids = node(g, 'LookupTableFindV2', 'lookup', [t, k, dflt], kv(o.keyDtype, o.valueDtype), o.valueDtype, null);
    const size = node(g, 'LookupTableSizeV2', 'size', [t], {}, 'int64', []);
    if (o.initVia === 'collection' && initOp)
      return { inputs: { k }, outputs: { ids, size }, assets, nodeCollections: { table_initializer: ['table_init'] } };
    return { inputs: { k }, outputs: { ids, size }, initOp, assets };
  });
}

const info = (v: Value, shape: number[] | null): WriterTensorInfo => ({ name: v.tensorName, dtype: v.type, shape });
const kvTypes = (keys: string, values: string) => ({ Tin: { type: keys }, Tout: { type: values } });

/**
 * A TF2 export as tf.saved_model.save writes a StaticHashTable over a TextFileInitializer:
 * the table and the asset's path variable are top-level resources; `__saved_model_init_op`
 * runs the path variable's AssignVariableOp (from the asset placeholder) and a
 * StatefulPartitionedCall of `__inference__initializer_*`, which reads the variable and runs
 * InitializeTableFromTextFileV2 on the captured table; the serving function looks up inside.
 */
async function writeTf2TextFileTableModel(vocabulary: string): Promise<string> {
  const g = new Tf2GraphBuilder();
  const table = emit(g.top, 'HashTableV2', 'hash_table', [], {
    container: { s: new Uint8Array(0) },
    shared_name: { s: enc.encode('hash_table_/tmp/vocab.txt_-2_-1') },
    use_node_name_sharing: { b: false },
    key_dtype: { type: 'DT_STRING' },
    value_dtype: { type: 'DT_INT64' },
  })[0];
  const assetPath = g.top.placeholder('asset_path_initializer', 'DT_STRING', []);
  const pathVariable = emit(g.top, 'VarHandleOp', 'Variable', [], {
    container: { s: new Uint8Array(0) },
    shared_name: { s: enc.encode('Variable') },
    dtype: { type: 'DT_STRING' },
    shape: { shape: {} },
    allowed_devices: { list: {} },
  })[0];
  const assign = g.top.addNode('AssignVariableOp', 'Variable/Assign', [pathVariable, assetPath], {
    dtype: { type: 'DT_STRING' },
    validate_shape: { b: false },
  });
  const initializer = g.library.define(
    '__inference__initializer_27',
    [
      ['unknown', 'DT_RESOURCE'],
      ['readvariableop_resource', 'DT_RESOURCE'],
    ],
    (f, [t, v]) => {
      const filename = readVariable(f, 'ReadVariableOp', v, 'DT_STRING');
      const init = f.addNode('InitializeTableFromTextFileV2', 'text_file_init/InitializeTableFromTextFileV2', [t, filename], {
        key_index: { i: -2 },
        value_index: { i: -1 },
        vocab_size: { i: -1 },
        delimiter: { s: enc.encode('\t') },
        offset: { i: 0 },
      });
      return { identity: identity(f, 'Identity', constant(f, 'Const', { dtype: 'bool', shape: [], values: Uint8Array.of(1) }), [init]) };
    },
  );
  const [initialized] = call(g.top, 'StatefulPartitionedCall', initializer, [table, pathVariable]);
  const initOp = g.top.addNode('NoOp', 'NoOp', [], {}, { control: [assign, initialized.ref] });
  const serve = g.library.define(
    '__inference_signature_wrapper_41',
    [
      ['k', 'DT_STRING'],
      ['unknown', 'DT_RESOURCE'],
    ],
    (f, [k, t]) => {
      const found = emit(
        f,
        'LookupTableFindV2',
        'None_Lookup/LookupTableFindV2',
        [t, k, constant(f, 'Const', i64([], [-1]))],
        kvTypes('DT_STRING', 'DT_INT64'),
      )[0];
      return { output_0: identity(f, 'Identity', found) };
    },
  );
  const k = g.top.placeholder('serving_default_k', 'DT_STRING', null);
  const [ids] = call(g.top, 'StatefulPartitionedCall_1', serve, [k, table]);
  const dir = pathLib.join(tempDir('tfgate-tf2-table-'), '1');
  await writeSavedModel(
    dir,
    g,
    {
      serving_default: { inputs: { k: info(k, null) }, outputs: { ids: info(ids, null) } },
      [INIT_OP_SIGNATURE_KEY]: {
        methodName: '',
        inputs: {},
        outputs: { [INIT_OP_SIGNATURE_KEY]: { name: initOp, dtype: 'DT_INVALID', shape: null } },
      },
    },
    { assets: [{ tensor: info(assetPath, []), filename: 'vocab.txt', contents: vocabulary }] },
  );
  return dir;
}

/**
 * Keras' adapted StringLookup in a TF2 export: a MutableHashTableV2 the checkpoint fills
 * (`…/.ATTRIBUTES/table-keys`, `table-values`, by LookupTableImportV2 in the restore
 * function); the serving function looks up with the OOV index as default and reads the size.
 */
async function writeCheckpointedTableModel(): Promise<string> {
  const g = new Tf2GraphBuilder();
  const table = g.checkpointedTable(
    'string_lookup_table',
    strings([3], ['earth', 'wind', 'fire']),
    i64([3], [1, 2, 3]),
    'layer-0/lookup_table',
  );
  const serve = g.library.define(
    '__inference_signature_wrapper_12',
    [
      ['k', 'DT_STRING'],
      ['unknown', 'DT_RESOURCE'],
    ],
    (f, [k, t]) => {
      const found = emit(
        f,
        'LookupTableFindV2',
        'string_lookup/None_Lookup/LookupTableFindV2',
        [t, k, constant(f, 'Const', i64([], [0]))],
        kvTypes('DT_STRING', 'DT_INT64'),
      )[0];
      const size = emit(f, 'LookupTableSizeV2', 'string_lookup/Size/LookupTableSizeV2', [t], {})[0];
      return { output_0: identity(f, 'Identity', found), output_1: identity(f, 'Identity_1', size) };
    },
  );
  const k = g.top.placeholder('serving_default_k', 'DT_STRING', null);
  const [ids, size] = call(g.top, 'StatefulPartitionedCall', serve, [k, table]);
  const dir = pathLib.join(tempDir('tfgate-tf2-table-'), '1');
  await writeSavedModel(dir, g, {
    serving_default: { inputs: { k: info(k, null) }, outputs: { ids: info(ids, null), size: info(size, []) } },
  });
  return dir;
}

const plain = (t: HostTensor) => ({
  dtype: t.dtype,
  shape: t.shape,
  values: Array.from(t.values as ArrayLike<unknown>, (v) => (typeof v === 'bigint' ? Number(v) : v)),
});

export function lookupTableCases(runtime: () => Runtime, backend: string): void {
  const load = async (dir: string) => runtime().load(dir, { tags: ['serve'] });
  async function lookup(s: Servable, k: HostTensor): Promise<{ ids: ReturnType<typeof plain>; size: ReturnType<typeof plain> }> {
    const out = await s.run('serving_default', { k });
    return { ids: plain(out.ids), size: plain(out.size) };
  }
  const stringToId = (fill: Fill) => lookupModel({ keyDtype: 'string', valueDtype: 'int64', fill, defaultValue: i64([], [-1]) });
  const fills: Record<string, Fill> = {
    'LookupTableImportV2(t, ["a","b"], [0,1])': { kind: 'import', keys: strings([2], ['a', 'b']), values: i64([2], [0, 1]) },
    'InitializeTableFromTextFileV2 over the asset "a\\nb\\n" (whole line → line number)': {
      kind: 'text file',
      contents: 'a\nb\n',
      keyIndex: -2,
      valueIndex: -1,
    },
  };

  for (const [what, fill] of Object.entries(fills)) {
    describe(`string → int64 table filled by ${what} (${backend})`, () => {
      it('a scalar key gives a scalar; keys [2,2] give [2,2]; unknown keys the default; size 2', async () => {
        const s = await load(await stringToId(fill));
        try {
          assert.deepEqual((await lookup(s, strings([], ['b']))).ids, { dtype: 'int64', shape: [], values: [1] });
          assert.deepEqual((await lookup(s, strings([2, 2], ['a', 'zz', 'b', 'a']))).ids, {
            dtype: 'int64',
            shape: [2, 2],
            values: [0, -1, 1, 0],
          });
          const unknown = await lookup(s, strings([], ['c']));
          assert.deepEqual(unknown.ids, { dtype: 'int64', shape: [], values: [-1] });
          assert.deepEqual(unknown.size, { dtype: 'int64', shape: [], values: [2] });
          assert.deepEqual((await lookup(s, strings([0], []))).ids, { dtype: 'int64', shape: [0], values: [] });
        } finally {
          s.dispose();
        }
      });
    });
  }

  describe(`more table kinds (${backend})`, () => {
    it('int64 keys → float values, with a float default; a key beyond int32 still counts in the size', async () => {
      const dir = await lookupModel({
        keyDtype: 'int64',
        valueDtype: 'float32',
        fill: { kind: 'import', keys: i64([3], [10, 20, 3000000000]), values: f32([3], [0.5, 1.5, 2.5]) },
        defaultValue: f32([], [0.25]),
      });
      const s = await load(dir);
      try {
        const out = await lookup(s, i64([2, 2], [20, 7, 10, 20]));
        assert.deepEqual(out.ids, { dtype: 'float32', shape: [2, 2], values: [1.5, 0.25, 0.5, 1.5] });
        assert.deepEqual(out.size, { dtype: 'int64', shape: [], values: [3] });
      } finally {
        s.dispose();
      }
    });

    it('string values from a tab-separated vocabulary (key field 1, value field 0)', async () => {
      const dir = await lookupModel({
        keyDtype: 'int64',
        valueDtype: 'string',
        fill: { kind: 'text file', contents: 'apple\t7\r\nbanana\t9\n', keyIndex: 1, valueIndex: 0 },
        defaultValue: strings([], ['UNK']),
      });
      const s = await load(dir);
      try {
        const out = await s.run('serving_default', { k: i64([3], [9, 8, 7]) });
        assert.deepEqual(out.ids.shape, [3]);
        assert.deepEqual(
          (out.ids.values as Uint8Array[]).map((v) => new TextDecoder().decode(v)),
          ['banana', 'UNK', 'apple'],
        );
      } finally {
        s.dispose();
      }
    });

    it('TF1: the init op found through the table_initializer collection', async () => {
      const dir = await lookupModel({
        keyDtype: 'string',
        valueDtype: 'int64',
        defaultValue: i64([], [-1]),
        fill: fills['LookupTableImportV2(t, ["a","b"], [0,1])'],
        initVia: 'collection',
      });
      const s = await load(dir);
      try {
        assert.deepEqual((await lookup(s, strings([3], ['b', 'q', 'a']))).ids, { dtype: 'int64', shape: [3], values: [1, -1, 0] });
      } finally {
        s.dispose();
      }
    });

    it('the per-table key index is built once: repeated requests leak no tensors and agree', async () => {
      const s = await load(await stringToId(fills['LookupTableImportV2(t, ["a","b"], [0,1])']));
      try {
        const first = await lookup(s, strings([3], ['b', 'a', 'x']));
        const before = tf.memory().numTensors;
        for (let i = 0; i < 3; i++) assert.deepEqual(await lookup(s, strings([3], ['b', 'a', 'x'])), first);
        assert.equal(tf.memory().numTensors, before);
        assert.deepEqual(first.ids.values, [1, 0, -1]);
      } finally {
        s.dispose();
      }
    });
  });

  describe(`TF2 exports (${backend})`, () => {
    it('a StaticHashTable filled by the __inference__initializer_ function from an asset read through a string variable', async () => {
      const s = await load(await writeTf2TextFileTableModel('a\nb\n'));
      try {
        const out = await s.run('serving_default', { k: strings([2, 2], ['a', 'zz', 'b', 'a']) });
        assert.deepEqual(plain(out.ids), { dtype: 'int64', shape: [2, 2], values: [0, -1, 1, 0] });
        assert.deepEqual(plain((await s.run('serving_default', { k: strings([], ['b']) })).ids), {
          dtype: 'int64',
          shape: [],
          values: [1],
        });
      } finally {
        s.dispose();
      }
    });

    it("Keras' MutableHashTableV2 restored from the checkpoint (table-keys, table-values)", async () => {
      const s = await load(await writeCheckpointedTableModel());
      try {
        const out = await s.run('serving_default', { k: strings([4], ['fire', 'rain', 'earth', 'wind']) });
        assert.deepEqual(plain(out.ids), { dtype: 'int64', shape: [4], values: [3, 0, 1, 2] });
        assert.deepEqual(plain(out.size), { dtype: 'int64', shape: [], values: [3] });
      } finally {
        s.dispose();
      }
    });
  });

  describe(`refusals and TF's initialisation errors (${backend})`, () => {
    it('a table nothing initialises refuses the signature, naming the table and the op', async () => {
      await assert.rejects(
        load(await stringToId({ kind: 'none' })),
        isError(
          Code.FAILED_PRECONDITION,
          /LookupTableFindV2 \(node lookup\) looks up table 'hash_table' \(HashTableV2\), which nothing in the SavedModel initialises/,
        ),
      );
    });

    it('a table filled from a tensor tfgate cannot compute refuses the signature, naming the node and why', async () => {
      const dir = await writeTinyModel((g) => {
        const t = hashTable(g, 'string', 'int64');
        const keys = g.placeholder('fed_keys', 'string', [2]);
        const values = g.constant('table_values', i64([2], [0, 1]));
        const initOp = g.noOp('init_all_tables', [
          g.addNode('LookupTableImportV2', 'table_init', [t, keys, values], kv('string', 'int64')),
        ]);
        const k = g.placeholder('k', 'string', null);
        const ids = node(
          g,
          'LookupTableFindV2',
          'lookup',
          [t, k, g.constant('default_value', i64([], [-1]))],
          kv('string', 'int64'),
          'int64',
          null,
        );
        return { inputs: { k }, outputs: { ids }, initOp };
      });
      await assert.rejects(
        load(dir),
        isError(
          Code.FAILED_PRECONDITION,
          /LookupTableFindV2 \(node lookup\) looks up table 'hash_table' \(HashTableV2\), whose contents tfgate cannot compute at load: LookupTableImportV2 'table_init' \(init op\) fills it from Placeholder 'fed_keys', which no asset_file_def feeds/,
        ),
      );
    });

    it("an empty line in the vocabulary fails the load with TF's message", async () => {
      const dir = await stringToId({ kind: 'text file', contents: 'a\n\nb\n', keyIndex: -2, valueIndex: -1 });
      await assert.rejects(
        load(dir),
        isError(
          Code.INVALID_ARGUMENT,
          /initialising lookup tables failed: Invalid content in .*vocab\.txt: empty line found at position 3\./,
        ),
      );
    });

    it('a repeated vocabulary word fails the load: HashTable has different value for same key', async () => {
      const dir = await stringToId({ kind: 'text file', contents: 'a\nb\na\n', keyIndex: -2, valueIndex: -1 });
      await assert.rejects(
        load(dir),
        isError(Code.FAILED_PRECONDITION, /HashTable has different value for same key\. Key a has 0 and trying to add value 2/),
      );
    });
  });
}
