// TensorBundle (checkpoint V2) and its LevelDB-format index table: every checkpoint in the
// fixtures (Snappy-compressed index blocks included), stored values stated in
// PROVENANCE.md, byte-for-byte agreement of the writer with TF-written bundles, and
// corrupt, truncated or missing files.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import {
  BLOCK_TRAILER_SIZE,
  FOOTER_SIZE,
  SSTable,
  TABLE_MAGIC,
  crc32c,
  maskCrc,
  readTable,
  readTensorBundle,
  readTensorBundleSync,
  shardFileName,
  unmaskCrc,
  type TensorBundle,
} from '../../src/savedmodel/tensor_bundle/index.js';
import { encodeTensorBundle, writeTensorBundle } from '../../test_util/savedmodel/tensor_bundle/tensor_bundle_writer.js';
import { TableBuilder, writeTable } from '../../test_util/savedmodel/tensor_bundle/sstable_writer.js';
import { protoType } from '../../src/proto/index.js';
import { Code, ServingError } from '../../src/errors/status.js';
import type { HostTensor } from '../../src/tensor/host_tensor.js';
import { MODELS, fixtureModel } from '../helpers/paths.js';
import { tempDir } from '../helpers/temp.js';
import { wireFields } from '../helpers/wire_fields.js';

const enc = new TextEncoder();
const prefixOf = (model: string, version: string) => path.join(fixtureModel(model, version), 'variables', 'variables');
const open = (model: string, version: string) => readTensorBundle(prefixOf(model, version));
const values = (b: TensorBundle, key: string) => Array.from(b.read(key).values as ArrayLike<number | bigint>);
const close = (a: number, b: number, tol = 1e-6) => Math.abs(a - b) <= tol;

/** Every `…/variables/variables` prefix under the fixture models, all versions. */
function allFixturePrefixes(): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name === 'variables.index') out.push(p.slice(0, -'.index'.length));
    }
  };
  walk(MODELS);
  return out.sort();
}

const SNAPPY_MODELS = [
  'saved_model_half_plus_two_cpu',
  'saved_model_half_plus_two_cpu_with_saved_model_config',
  'saved_model_half_plus_two_cpu_with_empty_saved_model_config',
  'saved_model_half_plus_two_gpu_trt',
  'saved_model_half_plus_two_mlmd',
  'saved_model_half_plus_two_tf2_cpu',
];

/** Top-level field numbers of a protobuf message (wire format walk). */
const fieldNumbers = (bytes: Uint8Array): number[] => [...wireFields(bytes).keys()];

const isError = (code: Code, re: RegExp) => (e: unknown) => {
  assert.ok(e instanceof ServingError, `expected a ServingError, got ${String(e)}`);
  assert.equal(Code[e.code], Code[code], e.message);
  assert.match(e.message, re);
  return true;
};

/** A copy of a fixture's variables folder in a temp dir; returns the new prefix. */
function copyFixture(model = 'saved_model_half_plus_two_cpu', version = '00000123'): string {
  const dir = tempDir('tfgate-bundle-corrupt-');
  const src = path.dirname(prefixOf(model, version));
  for (const f of fs.readdirSync(src)) fs.copyFileSync(path.join(src, f), path.join(dir, f));
  return path.join(dir, 'variables');
}

function patchFile(file: string, edit: (b: Buffer) => Buffer | void): void {
  const b = fs.readFileSync(file);
  fs.writeFileSync(file, edit(b) ?? b);
}

describe('crc32c', () => {
  it('matches the Castagnoli check values and TF masking', () => {
    assert.equal(crc32c(enc.encode('123456789')), 0xe3069283);
    assert.equal(crc32c(new Uint8Array(32)), 0x8a9136aa); // RFC 3720 B.4
    assert.equal(crc32c(new Uint8Array(32).fill(0xff)), 0x62a8ab43);
    assert.equal(crc32c(Uint8Array.from({ length: 32 }, (_, i) => i)), 0x46dd794e);
    const data = Uint8Array.from({ length: 1000 }, (_, i) => (i * 7919) & 0xff);
    for (const cut of [0, 1, 7, 8, 9, 500, 999])
      assert.equal(crc32c(data.subarray(cut), crc32c(data.subarray(0, cut))), crc32c(data), `cut ${cut}`);
    for (const v of [0, 1, 0xe3069283, 0xffffffff]) assert.equal(unmaskCrc(maskCrc(v)), v);
    assert.notEqual(maskCrc(0xe3069283), 0xe3069283);
  });
});

describe('SSTable', () => {
  const entries = Array.from({ length: 1000 }, (_, i): [string, Uint8Array] => [
    `layer_${String(i).padStart(4, '0')}/kernel`,
    enc.encode(`value ${i}`),
  ]);

  it('round-trips many keys over several blocks, with restart points and short index keys', () => {
    const bytes = writeTable(entries, { blockSize: 1024 });
    const table = SSTable.open(bytes);
    assert.deepEqual(
      table.entries().map(({ key, value }) => [new TextDecoder().decode(key), new TextDecoder().decode(value)]),
      entries.map(([k, v]) => [k, new TextDecoder().decode(v)]),
    );
    const data = table.blocks.filter((b) => b.kind === 'data');
    assert.ok(data.length > 10, `${data.length} data blocks`);
    for (const b of data) assert.equal(b.numRestarts, Math.ceil(b.numEntries / 16));
    // Index keys are TF's shortest separators: between blocks, no longer than the last key.
    for (const { key } of table.indexEntries) assert.ok(key.length <= 'layer_0000/kernel'.length);
    assert.equal(table.blocks.find((b) => b.kind === 'index')!.numRestarts, table.indexEntries.length);
    assert.equal(table.footer.magic, TABLE_MAGIC);
    assert.deepEqual(table.get(enc.encode('layer_0500/kernel')), enc.encode('value 500'));
    assert.equal(table.get(enc.encode('layer_0500/kernel0')), undefined);
  });

  it('reads Snappy-compressed blocks (TF table default compression)', () => {
    const bytes = writeTable(entries, { blockSize: 4096, compression: 'snappy' });
    const table = SSTable.open(bytes);
    assert.ok(table.blocks.some((b) => b.kind === 'data' && b.compression === 1));
    assert.equal(table.entries().length, entries.length);
    assert.ok(bytes.length < writeTable(entries, { blockSize: 4096 }).length);
  });

  it('cuts a block before an entry of at least twice the block size, as TF does', () => {
    const b = new TableBuilder({ blockSize: 100 });
    b.add(enc.encode('a'), new Uint8Array(10));
    b.add(enc.encode('b'), new Uint8Array(300));
    b.add(enc.encode('c'), new Uint8Array(10));
    const t = SSTable.open(b.finish());
    assert.deepEqual(
      t.blocks.filter((x) => x.kind === 'data').map((x) => x.numEntries),
      [1, 1, 1],
    );
  });

  it('refuses keys out of order and duplicate keys', () => {
    const b = new TableBuilder();
    b.add(enc.encode('b'), new Uint8Array(0));
    assert.throws(() => b.add(enc.encode('a'), new Uint8Array(0)), /increasing/);
    assert.throws(
      () =>
        writeTable([
          ['x', new Uint8Array(0)],
          ['x', new Uint8Array(1)],
        ]),
      /duplicate/,
    );
  });

  it('rejects bad magic, CRC mismatches, unknown block types and truncation', () => {
    const good = writeTable(entries.slice(0, 50));
    const flip = (i: number) => {
      const b = good.slice();
      b[i] ^= 0x01;
      return b;
    };
    assert.throws(() => SSTable.open(flip(good.length - 1)), /bad magic/);
    assert.throws(() => SSTable.open(flip(5)), /checksum mismatch/);
    const t = SSTable.open(good);
    const dataBlock = t.blocks.find((x) => x.kind === 'data')!;
    // A changed type byte also fails the CRC (which covers it); with a matching CRC it is "bad block type".
    const typed = good.slice();
    const end = dataBlock.handle.offset + dataBlock.handle.size;
    typed[end] = 7;
    new DataView(typed.buffer).setUint32(end + 1, maskCrc(crc32c(typed.subarray(dataBlock.handle.offset, end + 1))), true);
    assert.throws(() => SSTable.open(typed), /bad block type 7/);
    assert.throws(() => SSTable.open(good.subarray(0, 30)), /too short/);
    assert.throws(() => SSTable.open(good.subarray(10)), /past the end|checksum|bad/);
  });
});

describe('TensorBundle reader on the fixtures', () => {
  it('reads every tensor of every checkpoint (all models, all versions)', async () => {
    const prefixes = allFixturePrefixes();
    assert.equal(prefixes.length, 36, prefixes.join('\n'));
    let tensors = 0;
    for (const p of prefixes) {
      const b = await readTensorBundle(p);
      assert.equal(b.numShards, 1);
      assert.equal(b.header.endianness, 'LITTLE');
      assert.equal(b.header.version.producer, 1);
      for (const k of b.keys()) {
        const t = b.read(k);
        const e = b.entry(k);
        assert.deepEqual(t.shape, e.shape, `${p} ${k}`);
        assert.equal(
          t.values.length,
          e.shape.reduce((n, d) => n * d, 1),
        );
        tensors++;
      }
    }
    assert.ok(tensors >= 800, `${tensors} tensors`);
  });

  it('finds Snappy-compressed index blocks in exactly the six models PROVENANCE.md lists', () => {
    for (const p of allFixturePrefixes()) {
      const model = path.relative(MODELS, p).split(path.sep)[0];
      const t = SSTable.open(fs.readFileSync(`${p}.index`));
      const dataTypes = new Set(t.blocks.filter((b) => b.kind === 'data').map((b) => b.compression));
      assert.deepEqual([...dataTypes], [SNAPPY_MODELS.includes(model) ? 1 : 0], model);
    }
  });

  it('holds the stored values stated in PROVENANCE.md', async () => {
    for (const [model, version, extra] of [
      ['saved_model_half_plus_two_2_versions', '00000123', []],
      ['saved_model_half_plus_two_2_versions', '00000124', []],
      ['saved_model_half_plus_two_gpu', '00000123', []],
      ['saved_model_half_plus_two_mkl', '00000123', []],
      ['saved_model_half_plus_two_cpu', '00000123', ['a2', 'c2']], // Snappy index
      ['saved_model_half_plus_two_gpu_trt', '00000123', ['a2', 'c2']], // Snappy index
      ['saved_model_half_plus_two_mlmd', '00000123', ['a2', 'c2']], // Snappy index
    ] as const) {
      const b = await open(model, version);
      assert.deepEqual(values(b, 'a'), [0.5], model);
      assert.deepEqual(values(b, 'b'), [2], model);
      assert.deepEqual(values(b, 'c'), [3], model);
      for (const k of extra) assert.deepEqual(values(b, k), [k === 'a2' ? 0.5 : 3], `${model} ${k}`);
      assert.equal(b.entry('a').dtype, 'DT_FLOAT');
      assert.deepEqual(b.entry('a').shape, []);
    }
    const three = await open('saved_model_half_plus_three', '00000123');
    assert.deepEqual([values(three, 'a'), values(three, 'b'), values(three, 'c')], [[0.5], [3], [3]]);

    const tf2 = await open('saved_model_half_plus_two_tf2_cpu', '00000123'); // Snappy index
    assert.deepEqual(tf2.keys(), [
      '_CHECKPOINTABLE_OBJECT_GRAPH',
      'a/.ATTRIBUTES/VARIABLE_VALUE',
      'b/.ATTRIBUTES/VARIABLE_VALUE',
      'c/.ATTRIBUTES/VARIABLE_VALUE',
    ]);
    assert.deepEqual(values(tf2, 'a/.ATTRIBUTES/VARIABLE_VALUE'), [0.5]);
    assert.deepEqual(values(tf2, 'b/.ATTRIBUTES/VARIABLE_VALUE'), [2]);
    assert.deepEqual(values(tf2, 'c/.ATTRIBUTES/VARIABLE_VALUE'), [3]);

    assert.deepEqual(values(await open('saved_model_counter', '00000123'), 'counter'), [0]);

    const mkl = await open('saved_model_half_plus_two_mkl', '00000123');
    const kernels = ['conv2d', 'conv2d_1', 'conv2d_2'].map((s) => values(mkl, `${s}/kernel`) as number[]);
    assert.ok(
      kernels.every((k) => k.length === 1) && [-0.522, -1.045, 1.578].every((v, i) => close(kernels[i][0], v, 5e-4)),
      String(kernels),
    );
    assert.deepEqual(mkl.entry('conv2d/kernel').shape, [1, 1, 1, 1]);

    const int64 = await open('tfjs_int64_multiply', '1');
    assert.equal(int64.read('v1/.ATTRIBUTES/VARIABLE_VALUE').dtype, 'int64');
    assert.deepEqual(values(int64, 'v1/.ATTRIBUTES/VARIABLE_VALUE'), [3n]);
    assert.deepEqual(values(int64, 'v2/.ATTRIBUTES/VARIABLE_VALUE'), [2n]);
    const uint8 = await open('tfjs_uint8_multiply', '1');
    assert.equal(uint8.entry('v1/.ATTRIBUTES/VARIABLE_VALUE').dtype, 'DT_INT32');
    assert.deepEqual([values(uint8, 'v1/.ATTRIBUTES/VARIABLE_VALUE'), values(uint8, 'v2/.ATTRIBUTES/VARIABLE_VALUE')], [[3], [2]]);
    const timesTwo = await open('tfjs_times_two_int', '1');
    assert.equal(timesTwo.read('v/.ATTRIBUTES/VARIABLE_VALUE').dtype, 'int32');
    assert.deepEqual(values(timesTwo, 'v/.ATTRIBUTES/VARIABLE_VALUE'), [2]);
    assert.deepEqual(values(await open('tfjs_times_three_float', '1'), 'v/.ATTRIBUTES/VARIABLE_VALUE'), [3]);

    const rust = await open('tfrust_regression_savedmodel', '1');
    assert.ok(close(values(rust, 'w/.ATTRIBUTES/VARIABLE_VALUE')[0] as number, 0.20429754, 1e-8));
    assert.deepEqual(values(rust, 'b/.ATTRIBUTES/VARIABLE_VALUE'), [0]);
    const rustTags = await open('tfrust_regression_model_train_serve_tags', '1');
    assert.ok(close(values(rustTags, 'w')[0] as number, -0.8578622, 1e-7));

    const iris = await open('keras3_iris_dense', '1');
    const mean = values(iris, '_layers/1/adapt_mean/.ATTRIBUTES/VARIABLE_VALUE') as number[];
    [5.809, 3.062, 3.727, 1.183].forEach((v, i) => assert.ok(close(mean[i], v, 1e-3), `adapt_mean[${i}] ${mean[i]}`));
    const variance = values(iris, '_layers/1/adapt_variance/.ATTRIBUTES/VARIABLE_VALUE') as number[];
    [0.673, 0.2, 3.045, 0.561].forEach((v, i) => assert.ok(close(variance[i], v, 1e-3), `adapt_variance[${i}] ${variance[i]}`));
  });

  it('reads _CHECKPOINTABLE_OBJECT_GRAPH of every TF2 checkpoint as a scalar string holding a proto', async () => {
    let n = 0;
    for (const p of allFixturePrefixes()) {
      const b = await readTensorBundle(p);
      if (!b.has('_CHECKPOINTABLE_OBJECT_GRAPH')) continue;
      const t = b.read('_CHECKPOINTABLE_OBJECT_GRAPH');
      assert.equal(t.dtype, 'string');
      assert.deepEqual(t.shape, []);
      const graph = (t.values as Uint8Array[])[0];
      // TrackableObjectGraph: repeated TrackableObject nodes = 1.
      assert.ok(graph.length > 50 && fieldNumbers(graph).every((f) => f === 1), p);
      n++;
    }
    assert.ok(n >= 20, `${n} TF2 checkpoints`);
  });

  it('also opens synchronously', () => {
    const b = readTensorBundleSync(prefixOf('saved_model_half_plus_two_2_versions', '00000123'));
    assert.deepEqual(b.keys(), ['a', 'b', 'c']);
  });
});

describe('TensorBundle writer', () => {
  it('re-encodes every uncompressed fixture checkpoint byte for byte, index and data', async () => {
    let same = 0;
    for (const p of allFixturePrefixes()) {
      const b = await readTensorBundle(p);
      // TF writes data in the order tensors were added (SaveV2's order); the index sorts keys.
      const order = b.keys().sort((x, y) => b.entry(x).offset - b.entry(y).offset);
      const { index, data } = encodeTensorBundle(order.map((k) => [k, b.read(k)] as const));
      const model = path.relative(MODELS, p).split(path.sep)[0];
      assert.deepEqual(Buffer.from(data), fs.readFileSync(shardFileName(p, 0, 1)), `${p} data`);
      const theirs = fs.readFileSync(`${p}.index`);
      if (SNAPPY_MODELS.includes(model)) {
        // Same entries once decompressed; TF compressed the block, BundleWriter today does not.
        assert.deepEqual(
          SSTable.open(index)
            .entries()
            .map((e) => [Buffer.from(e.key), Buffer.from(e.value)]),
          SSTable.open(theirs)
            .entries()
            .map((e) => [Buffer.from(e.key), Buffer.from(e.value)]),
          p,
        );
      } else {
        assert.deepEqual(Buffer.from(index), theirs, `${p} index`);
        same++;
      }
    }
    assert.equal(same, 30);
  });

  it('writes the structure of a TF index: header and entry fields, trailers, empty metaindex, footer', async () => {
    const dir = tempDir('tfgate-bundle-structure-');
    await writeTensorBundle(path.join(dir, 'variables'), [
      ['dense/kernel', { dtype: 'float32', shape: [3, 2], values: new Float32Array(6).fill(0.25) }],
      ['dense/bias', { dtype: 'float32', shape: [2], values: Float32Array.of(1, 2) }],
    ]);
    const shape = (file: string) => {
      const bytes = fs.readFileSync(file);
      const t = SSTable.open(bytes);
      const [header, ...entries] = t.entries();
      const version = protoType('tensorflow.BundleHeaderProto').decode(header.value) as unknown as { version: unknown };
      return {
        headerKey: header.key.length,
        headerFields: fieldNumbers(header.value),
        versionFields: fieldNumbers(
          protoType('tensorflow.VersionDef')
            .encode(version.version as never)
            .finish(),
        ),
        entryFields: [...new Set(entries.flatMap((e) => fieldNumbers(e.value)))].sort(),
        blocks: t.blocks.map((b) => [b.kind, b.compression]),
        metaindexSize: t.blocks.find((b) => b.kind === 'metaindex')!.handle.size,
        trailerAndFooter: bytes.length - t.blocks.reduce((n, b) => n + b.handle.size, 0) - t.blocks.length * BLOCK_TRAILER_SIZE,
        magic: t.footer.magic,
      };
    };
    const real = shape(`${prefixOf('saved_model_half_plus_two_2_versions', '00000123')}.index`);
    assert.deepEqual(shape(path.join(dir, 'variables.index')), real);
    assert.deepEqual(real.headerFields, [1, 3]);
    assert.deepEqual(real.entryFields, [1, 2, 4, 5, 6]);
    assert.equal(real.trailerAndFooter, FOOTER_SIZE);
  });

  it('round-trips every dtype, scalars, empty tensors and strings', async () => {
    const dir = tempDir('tfgate-bundle-');
    const tensors: Array<[string, HostTensor]> = [
      ['f32', { dtype: 'float32', shape: [2, 2], values: Float32Array.of(1, -2.5, 3e38, Number.NaN) }],
      ['f64', { dtype: 'float64', shape: [], values: Float64Array.of(Math.PI) }],
      ['f16', { dtype: 'float16', shape: [2], values: Uint16Array.of(0x3c00, 0xc000) }],
      ['bf16', { dtype: 'bfloat16', shape: [1], values: Uint16Array.of(0x3f80) }],
      ['i8', { dtype: 'int8', shape: [3], values: Int8Array.of(-128, 0, 127) }],
      ['i16', { dtype: 'int16', shape: [2], values: Int16Array.of(-32768, 32767) }],
      ['i32', { dtype: 'int32', shape: [3], values: Int32Array.of(-1, 0, 2 ** 31 - 1) }],
      ['i64', { dtype: 'int64', shape: [2], values: BigInt64Array.of(-(2n ** 40n), 2n ** 62n) }],
      ['u8', { dtype: 'uint8', shape: [2], values: Uint8Array.of(0, 255) }],
      ['u16', { dtype: 'uint16', shape: [1], values: Uint16Array.of(65535) }],
      ['u32', { dtype: 'uint32', shape: [1], values: Uint32Array.of(2 ** 32 - 1) }],
      ['u64', { dtype: 'uint64', shape: [1], values: BigUint64Array.of(2n ** 64n - 1n) }],
      ['bool', { dtype: 'bool', shape: [2, 1], values: Uint8Array.of(1, 0) }],
      ['str', { dtype: 'string', shape: [3], values: [enc.encode('hello'), new Uint8Array(0), new Uint8Array(300).fill(7)] }],
      ['str_scalar', { dtype: 'string', shape: [], values: [enc.encode('é')] }],
      ['str_empty', { dtype: 'string', shape: [0], values: [] }],
      ['empty', { dtype: 'float32', shape: [0, 3], values: new Float32Array(0) }],
      ['scalar', { dtype: 'int32', shape: [], values: Int32Array.of(7) }],
      ['ünïcode/kéy', { dtype: 'int32', shape: [1], values: Int32Array.of(1) }],
    ];
    await writeTensorBundle(path.join(dir, 'variables'), tensors);
    assert.deepEqual(fs.readdirSync(dir).sort(), ['variables.data-00000-of-00001', 'variables.index']);
    const b = await readTensorBundle(path.join(dir, 'variables'));
    assert.deepEqual(
      b.keys(),
      [...tensors.map(([k]) => k)].sort((x, y) => Buffer.compare(Buffer.from(x), Buffer.from(y))),
    );
    for (const [k, t] of tensors) {
      const r = b.read(k);
      assert.equal(r.dtype, t.dtype, k);
      assert.deepEqual(r.shape, t.shape, k);
      if (t.dtype === 'string')
        assert.deepEqual(
          (r.values as Uint8Array[]).map((s) => Buffer.from(s)),
          (t.values as Uint8Array[]).map((s) => Buffer.from(s)),
          k,
        );
      else assert.deepEqual(r.values, t.values, k);
    }
    // Data in the given order, each tensor right after the previous one (no alignment).
    let offset = 0;
    for (const [k] of tensors) {
      assert.equal(b.entry(k).offset, offset, k);
      offset += b.entry(k).size;
    }
    assert.equal(fs.statSync(shardFileName(path.join(dir, 'variables'), 0, 1)).size, offset);
  });

  it('spreads thousands of keys over several data blocks of TF’s 256 KiB', async () => {
    const dir = tempDir('tfgate-bundle-many-');
    const tensors = Array.from({ length: 6000 }, (_, i): [string, HostTensor] => [
      `model/block_${String(i).padStart(5, '0')}/sublayer/dense/kernel/.ATTRIBUTES/VARIABLE_VALUE`,
      { dtype: 'float32', shape: [1], values: Float32Array.of(i) },
    ]);
    await writeTensorBundle(path.join(dir, 'variables'), tensors);
    const t = SSTable.open(fs.readFileSync(path.join(dir, 'variables.index')));
    const blocks = t.blocks.filter((b) => b.kind === 'data');
    assert.ok(blocks.length >= 2, `${blocks.length} data blocks`);
    assert.ok(blocks.slice(0, -1).every((b) => b.handle.size >= 262144 && b.handle.size < 262144 + 200));
    const b = await readTensorBundle(path.join(dir, 'variables'));
    assert.equal(b.keys().length, 6000);
    assert.deepEqual(values(b, tensors[4321][0]), [4321]);
  });

  it('pads to a data alignment and writes big-endian data when asked, which the reader swaps back', async () => {
    const dir = tempDir('tfgate-bundle-options-');
    const tensors: Array<[string, HostTensor]> = [
      ['a', { dtype: 'int16', shape: [3], values: Int16Array.of(1, -2, 300) }],
      ['b', { dtype: 'float64', shape: [1], values: Float64Array.of(-1.5) }],
      ['c', { dtype: 'string', shape: [2], values: [enc.encode('xy'), enc.encode('z')] }],
    ];
    await writeTensorBundle(path.join(dir, 'v'), tensors, { dataAlignment: 8, endianness: 'BIG' });
    const b = await readTensorBundle(path.join(dir, 'v'));
    assert.equal(b.header.endianness, 'BIG');
    assert.deepEqual([b.entry('a').offset, b.entry('b').offset, b.entry('c').offset], [0, 8, 16]);
    assert.deepEqual(values(b, 'a'), [1, -2, 300]);
    assert.deepEqual(values(b, 'b'), [-1.5]);
    assert.deepEqual(
      (b.read('c').values as Uint8Array[]).map((s) => Buffer.from(s).toString()),
      ['xy', 'z'],
    );
    const raw = fs.readFileSync(shardFileName(path.join(dir, 'v'), 0, 1));
    assert.deepEqual([...raw.subarray(0, 2)], [0, 1]);
  });

  it('refuses duplicate keys, the header key and values that do not fit the shape', async () => {
    const t: HostTensor = { dtype: 'float32', shape: [2], values: Float32Array.of(1, 2) };
    assert.throws(
      () =>
        encodeTensorBundle([
          ['x', t],
          ['x', t],
        ]),
      isError(Code.INVALID_ARGUMENT, /duplicate key: x/),
    );
    assert.throws(() => encodeTensorBundle([['', t]]), isError(Code.INVALID_ARGUMENT, /reserved/));
    assert.throws(() => encodeTensorBundle([['y', { ...t, shape: [3] }]]), isError(Code.INVALID_ARGUMENT, /tensor y: .*needs 3 values/));
    assert.throws(
      () => encodeTensorBundle([['z', { dtype: 'float64', shape: [2], values: Float32Array.of(1, 2) }]]),
      isError(Code.INVALID_ARGUMENT, /tensor z/),
    );
  });
});

describe('TensorBundle errors name the file', () => {
  it('a missing index is NOT_FOUND', async () => {
    await assert.rejects(
      readTensorBundle(path.join(tempDir('tfgate-bundle-none-'), 'variables')),
      isError(Code.NOT_FOUND, /variables\.index/),
    );
  });

  it('a flipped byte in an index block is DATA_LOSS (block checksum)', async () => {
    const p = copyFixture('saved_model_half_plus_two_2_versions', '00000123');
    patchFile(`${p}.index`, (b) => void (b[10] ^= 0xff));
    await assert.rejects(readTensorBundle(p), isError(Code.DATA_LOSS, /variables\.index.*checksum mismatch/));
  });

  it('a flipped byte in a Snappy-compressed block is DATA_LOSS', async () => {
    const p = copyFixture();
    patchFile(`${p}.index`, (b) => void (b[20] ^= 0x10));
    await assert.rejects(readTensorBundle(p), isError(Code.DATA_LOSS, /variables\.index/));
  });

  it('a damaged footer magic is DATA_LOSS', async () => {
    const p = copyFixture();
    patchFile(`${p}.index`, (b) => void (b[b.length - 1] ^= 0xff));
    await assert.rejects(readTensorBundle(p), isError(Code.DATA_LOSS, /variables\.index.*bad magic/));
  });

  it('a truncated or empty index is DATA_LOSS', async () => {
    for (const n of [30, 100, 0]) {
      const p = copyFixture();
      patchFile(`${p}.index`, (b) => b.subarray(0, n));
      await assert.rejects(readTensorBundle(p), isError(Code.DATA_LOSS, /variables\.index/), `${n} bytes`);
    }
  });

  it('a missing data shard is NOT_FOUND naming it', async () => {
    const p = copyFixture();
    fs.rmSync(`${p}.data-00000-of-00001`);
    await assert.rejects(readTensorBundle(p), isError(Code.NOT_FOUND, /variables\.data-00000-of-00001/));
  });

  it('a header announcing more shards than exist is NOT_FOUND for the missing one', async () => {
    const dir = tempDir('tfgate-bundle-shards-');
    const header = protoType('tensorflow.BundleHeaderProto');
    fs.writeFileSync(
      path.join(dir, 'v.index'),
      writeTable([['', header.encode(header.fromObject({ numShards: 2, version: { producer: 1 } })).finish()]]),
    );
    fs.writeFileSync(path.join(dir, 'v.data-00000-of-00002'), new Uint8Array(0));
    await assert.rejects(readTensorBundle(path.join(dir, 'v')), isError(Code.NOT_FOUND, /v\.data-00001-of-00002/));
  });

  it('a truncated data shard is DATA_LOSS naming it and the tensor', async () => {
    const p = copyFixture();
    patchFile(`${p}.data-00000-of-00001`, (b) => b.subarray(0, 10));
    const b = await readTensorBundle(p);
    assert.deepEqual(values(b, 'a'), [0.5]);
    assert.throws(() => b.read('c2'), isError(Code.DATA_LOSS, /variables\.data-00000-of-00001: tensor c2 .*truncated/));
  });

  it('a flipped byte in the data shard fails that tensor’s checksum', async () => {
    const p = copyFixture();
    const b0 = await readTensorBundle(p);
    patchFile(`${p}.data-00000-of-00001`, (b) => void (b[b0.entry('b').offset] ^= 0x01));
    const b = await readTensorBundle(p);
    assert.deepEqual(values(b, 'a'), [0.5]);
    assert.throws(() => b.read('b'), isError(Code.DATA_LOSS, /variables\.data-00000-of-00001: checksum does not match for tensor b/));
  });

  it('damage inside a string tensor is DATA_LOSS (length checksum or entry checksum)', async () => {
    const p = copyFixture('saved_model_half_plus_two_tf2_cpu', '00000123');
    const e = (await readTensorBundle(p)).entry('_CHECKPOINTABLE_OBJECT_GRAPH');
    for (const [at, re] of [
      [e.offset, /length checksum does not match|malformed|left over|needs/],
      [e.offset + e.size - 1, /checksum does not match for tensor _CHECKPOINTABLE_OBJECT_GRAPH/],
    ] as const) {
      const q = copyFixture('saved_model_half_plus_two_tf2_cpu', '00000123');
      patchFile(`${q}.data-00000-of-00001`, (b) => void (b[at] ^= 0x01));
      const b = await readTensorBundle(q);
      assert.throws(() => b.read('_CHECKPOINTABLE_OBJECT_GRAPH'), isError(Code.DATA_LOSS, re));
      assert.deepEqual(values(b, 'a/.ATTRIBUTES/VARIABLE_VALUE'), [0.5]);
    }
  });

  /** A bundle whose index is written by hand, for entries BundleWriter would never write. */
  function handMadeBundle(
    entries: Record<string, Record<string, unknown>>,
    header: Record<string, unknown> = { numShards: 1, version: { producer: 1 } },
  ): string {
    const dir = tempDir('tfgate-bundle-hand-');
    const h = protoType('tensorflow.BundleHeaderProto');
    const e = protoType('tensorflow.BundleEntryProto');
    const table: Array<[string, Uint8Array]> = [['', h.encode(h.fromObject(header)).finish()]];
    for (const [k, v] of Object.entries(entries)) table.push([k, e.encode(e.fromObject(v)).finish()]);
    fs.writeFileSync(path.join(dir, 'v.index'), writeTable(table));
    fs.writeFileSync(path.join(dir, 'v.data-00000-of-00001'), new Uint8Array(64));
    return path.join(dir, 'v');
  }

  it('refuses partitioned (sliced) variables by key', async () => {
    const p = handMadeBundle({
      'part/kernel': {
        dtype: 'DT_FLOAT',
        shape: { dim: [{ size: 4 }] },
        slices: [{ extent: [{ start: 0, length: 2 }] }, { extent: [{ start: 2, length: 2 }] }],
      },
      'part/kernel/.slice': { dtype: 'DT_FLOAT', shape: { dim: [{ size: 2 }] }, size: 8, crc32c: maskCrc(crc32c(new Uint8Array(8))) },
    });
    const b = await readTensorBundle(p);
    assert.equal(b.entry('part/kernel').slices, 2);
    assert.throws(() => b.read('part/kernel'), isError(Code.UNIMPLEMENTED, /'part\/kernel'.*partitioned/));
  });

  it('checks entry sizes, shapes, shard ids, the header version and unknown keys', async () => {
    const b = await readTensorBundle(
      handMadeBundle({
        wrong_size: { dtype: 'DT_FLOAT', shape: { dim: [{ size: 3 }] }, size: 8 },
        complex: { dtype: 'DT_COMPLEX64', shape: {}, size: 8 },
      }),
    );
    assert.throws(
      () => b.read('wrong_size'),
      isError(Code.DATA_LOSS, /v\.index: invalid size in bundle entry: key wrong_size; stored size 8; expected size 12/),
    );
    assert.throws(() => b.read('complex'), isError(Code.UNIMPLEMENTED, /DT_COMPLEX64/));
    assert.throws(() => b.read('nope'), isError(Code.NOT_FOUND, /Key nope not found in checkpoint .*v\.index/));
    await assert.rejects(
      readTensorBundle(handMadeBundle({ neg: { dtype: 'DT_FLOAT', shape: { dim: [{ size: -1 }] } } })),
      isError(Code.DATA_LOSS, /invalid tensor shape for key neg/),
    );
    await assert.rejects(
      readTensorBundle(handMadeBundle({ far: { dtype: 'DT_FLOAT', shape: {}, shardId: 3, size: 4 } })),
      isError(Code.DATA_LOSS, /shard 3/),
    );
    await assert.rejects(
      readTensorBundle(handMadeBundle({}, { numShards: 1, version: { producer: 1, minConsumer: 2 } })),
      isError(Code.INVALID_ARGUMENT, /min consumer version 2/),
    );
    await assert.rejects(
      readTensorBundle(handMadeBundle({}, { numShards: 1, version: { producer: 1, badConsumers: [1] } })),
      isError(Code.INVALID_ARGUMENT, /disallows/),
    );
    await assert.rejects(readTensorBundle(handMadeBundle({}, { numShards: 0 })), isError(Code.DATA_LOSS, /0 data shards/));
  });

  it('an index without the header entry is DATA_LOSS', async () => {
    const dir = tempDir('tfgate-bundle-nohdr-');
    fs.writeFileSync(path.join(dir, 'v.index'), writeTable([['a', new Uint8Array(0)]]));
    fs.writeFileSync(path.join(dir, 'v.data-00000-of-00001'), new Uint8Array(0));
    await assert.rejects(readTensorBundle(path.join(dir, 'v')), isError(Code.DATA_LOSS, /v\.index.*header entry/));
    assert.deepEqual(
      readTable(fs.readFileSync(path.join(dir, 'v.index'))).map(([k]) => k),
      ['a'],
    );
  });
});
