// The TensorBundle reader on every checkpoint in the fixtures (Snappy-compressed index
// blocks included), stored values stated in PROVENANCE.md, and corrupt or missing files.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { readTensorBundle, writeTensorBundle } from '../../src/savedmodel/tensor_bundle/index.js';
import { Code, ServingError } from '../../src/core/status.js';
import type { HostTensor } from '../../src/tensor/host_tensor.js';
import { MODELS, fixtureModel } from '../helpers/paths.js';
import { tempDir } from '../helpers/temp.js';

const prefix = (model: string, version: string) => path.join(fixtureModel(model, version), 'variables', 'variables');
const scalar = async (model: string, version: string, key: string) => Array.from((await readTensorBundle(prefix(model, version))).read(key).values as Float32Array);

function allIndexes(): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name === 'variables.index') out.push(p.slice(0, -'.index'.length));
    }
  };
  walk(MODELS);
  return out;
}

describe('TensorBundle reader', () => {
  it('reads every tensor of every checkpoint in the fixtures', async () => {
    const prefixes = allIndexes();
    assert.ok(prefixes.length >= 35, `found ${prefixes.length}`);
    for (const p of prefixes) {
      const b = await readTensorBundle(p);
      for (const k of b.keys()) b.read(k);
    }
  });

  it('stored values: TF1 names, Snappy index blocks, TF2 object paths, ints', async () => {
    assert.deepEqual(await scalar('saved_model_half_plus_two_2_versions', '00000123', 'a'), [0.5]);
    assert.deepEqual(await scalar('saved_model_half_plus_two_cpu', '00000123', 'b'), [2]); // Snappy
    assert.deepEqual(await scalar('saved_model_half_plus_three', '00000123', 'b'), [3]);
    assert.deepEqual(await scalar('saved_model_half_plus_two_tf2_cpu', '00000123', 'c/.ATTRIBUTES/VARIABLE_VALUE'), [3]);
    assert.deepEqual(await scalar('saved_model_counter', '00000123', 'counter'), [0]);
    const w = await scalar('tfrust_regression_savedmodel', '1', 'w/.ATTRIBUTES/VARIABLE_VALUE');
    assert.ok(Math.abs(w[0] - 0.20429754) < 1e-7);
    const int64 = (await readTensorBundle(prefix('tfjs_int64_multiply', '1'))).read('v1/.ATTRIBUTES/VARIABLE_VALUE');
    assert.equal(int64.dtype, 'int64');
    assert.deepEqual(Array.from(int64.values as BigInt64Array), [3n]);
    const graph = (await readTensorBundle(prefix('saved_model_half_plus_two_tf2_cpu', '00000123'))).read('_CHECKPOINTABLE_OBJECT_GRAPH');
    assert.equal(graph.dtype, 'string');
    assert.ok((graph.values as Uint8Array[])[0].length > 10);
  });

  it('round-trips what it writes, all dtypes, scalars, empty tensors and many keys', async () => {
    const dir = tempDir('tfgate-bundle-');
    const tensors: Array<[string, HostTensor]> = [
      ['f32', { dtype: 'float32', shape: [2, 2], values: Float32Array.of(1, 2, 3, 4) }],
      ['f64', { dtype: 'float64', shape: [], values: Float64Array.of(Math.PI) }],
      ['i32', { dtype: 'int32', shape: [3], values: Int32Array.of(-1, 0, 1) }],
      ['i64', { dtype: 'int64', shape: [1], values: BigInt64Array.of(-(2n ** 40n)) }],
      ['u8', { dtype: 'uint8', shape: [2], values: Uint8Array.of(0, 255) }],
      ['b', { dtype: 'bool', shape: [2], values: Uint8Array.of(1, 0) }],
      ['s', { dtype: 'string', shape: [2], values: [Buffer.from('hello'), Buffer.from('')] }],
      ['empty', { dtype: 'float32', shape: [0, 3], values: new Float32Array(0) }],
      ...Array.from({ length: 300 }, (_, i): [string, HostTensor] => [`layer_${String(i).padStart(3, '0')}/kernel`, { dtype: 'float32', shape: [1], values: Float32Array.of(i) }]),
    ];
    await writeTensorBundle(path.join(dir, 'variables'), tensors);
    const b = await readTensorBundle(path.join(dir, 'variables'));
    for (const [k, t] of tensors) {
      const r = b.read(k);
      assert.equal(r.dtype, t.dtype, k);
      assert.deepEqual(r.shape, t.shape, k);
      assert.deepEqual(Array.from(r.values as ArrayLike<unknown>).map(String), Array.from(t.values as ArrayLike<unknown>).map(String), k);
    }
  });

  function copyFixture(): string {
    const dir = tempDir('tfgate-corrupt-');
    for (const f of ['variables.index', 'variables.data-00000-of-00001']) fs.copyFileSync(path.join(fixtureModel('saved_model_half_plus_two_cpu', '00000123'), 'variables', f), path.join(dir, f));
    return path.join(dir, 'variables');
  }
  const isError = (code: Code, re: RegExp) => (e: unknown) => e instanceof ServingError && e.code === code && re.test(e.message);

  it('a flipped byte in the index is DATA_LOSS naming the file', async () => {
    const p = copyFixture();
    const bytes = fs.readFileSync(`${p}.index`);
    bytes[10] ^= 0xff;
    fs.writeFileSync(`${p}.index`, bytes);
    await assert.rejects(readTensorBundle(p), isError(Code.DATA_LOSS, /variables\.index/));
  });
  it('a truncated index is DATA_LOSS', async () => {
    const p = copyFixture();
    fs.writeFileSync(`${p}.index`, fs.readFileSync(`${p}.index`).subarray(0, 30));
    await assert.rejects(readTensorBundle(p), isError(Code.DATA_LOSS, /variables\.index/));
  });
  it('a flipped byte in the data shard fails that tensor\'s checksum', async () => {
    const p = copyFixture();
    const data = fs.readFileSync(`${p}.data-00000-of-00001`);
    data[0] ^= 0x01;
    fs.writeFileSync(`${p}.data-00000-of-00001`, data);
    const b = await readTensorBundle(p);
    assert.throws(() => b.read('a'), isError(Code.DATA_LOSS, /checksum does not match for tensor a/));
  });
  it('a missing data shard is NOT_FOUND naming it', async () => {
    const p = copyFixture();
    fs.rmSync(`${p}.data-00000-of-00001`);
    const b = await readTensorBundle(p);
    assert.throws(() => b.read('a'), isError(Code.NOT_FOUND, /variables\.data-00000-of-00001/));
  });
});
