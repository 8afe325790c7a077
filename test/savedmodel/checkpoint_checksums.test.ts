// TF's RestoreV2 restores every tensor of a checkpoint, so a corrupt tensor fails the load
// with DATA_LOSS even when no signature reads it; tfgate checks every checksum at load.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { Code } from '../../src/errors/status.js';
import { readTensorBundle } from '../../src/savedmodel/tensor_bundle/index.js';
import { EmbeddedRuntime } from '../../src/runtimes/embedded/embedded_runtime.js';
import { writeSavedModel } from '../../test_util/savedmodel/saved_model_writer.js';
import { GraphBuilder } from '../../test_util/savedmodel/writer/graph_builder.js';
import { isError } from '../helpers/errors.js';
import { tempDir } from '../helpers/temp.js';

/** y = x * w; `unused` is saved beside w and read by nothing. */
async function writeModel(dir: string): Promise<void> {
  const g = new GraphBuilder();
  const x = g.placeholder('x', 'float32', [-1, 2]);
  const w = g.variable('w', { dtype: 'float32', shape: [2], values: Float32Array.of(2, 3) });
  g.variable('unused', { dtype: 'float32', shape: [4], values: Float32Array.of(1, 2, 3, 4) });
  const y = g.mul('y', x, w);
  await writeSavedModel(dir, g, { serving_default: { inputs: { x }, outputs: { y } } });
}

/** Flips one byte of `key`'s data. */
async function corrupt(dir: string, key: string): Promise<void> {
  const bundle = await readTensorBundle(path.join(dir, 'variables', 'variables'), dir);
  const e = bundle.entry(key);
  const file = path.join(dir, 'variables', 'variables.data-00000-of-00001');
  const bytes = fs.readFileSync(file);
  bytes[e.offset + 1] ^= 0xff;
  fs.writeFileSync(file, bytes);
}

describe('checkpoint checksums at load', () => {
  it('a corrupt tensor no signature reads fails the load with DATA_LOSS naming it', async () => {
    const dir = path.join(tempDir('tfgate-crc-'), '1');
    await writeModel(dir);
    const good = await new EmbeddedRuntime('cpu').load(dir, { tags: ['serve'] });
    good.dispose();
    await corrupt(dir, 'unused');
    const bundle = await readTensorBundle(path.join(dir, 'variables', 'variables'), dir);
    assert.deepEqual(Array.from(bundle.read('w').values as Float32Array), [2, 3]);
    assert.throws(() => bundle.verifyChecksums(), isError(Code.DATA_LOSS, /checksum does not match for tensor unused/));
    await assert.rejects(
      new EmbeddedRuntime('cpu').load(dir, { tags: ['serve'] }),
      isError(Code.DATA_LOSS, /1: .*checksum does not match for tensor unused/),
    );
  });
});
