// Engine settings reaching the engines themselves, in this process: thread counts reaching
// ONNX Runtime's sessions (seen as the threads its intra-op pools start), and a TFLite-only
// version folder refused naming TensorFlow Lite (--prefer_tflite_model is refused).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createRuntime } from '../../src/runtimes/index.js';
import { parseServerOptions } from '../../src/config/flags.js';
import { readMetaGraph } from '../../src/savedmodel/saved_model_reader.js';
import { Code, ServingError } from '../../src/errors/status.js';
import { fixtureModel } from '../helpers/paths.js';
import { tempDir } from '../helpers/temp.js';

const threadsOfThisProcess = () => fs.readdirSync('/proc/self/task').length;

describe('engine settings reach the engine', () => {
  it(
    '--tensorflow_intra_op_parallelism=4: each ONNX Runtime session starts its intra-op threads',
    { skip: process.platform !== 'linux' && 'counts threads in /proc' },
    async () => {
      const dir = fixtureModel('saved_model_half_plus_two_cpu', '00000123');
      const load = async (argv: string[]) => {
        const before = threadsOfThisProcess();
        const servable = await (
          await createRuntime('onnx', undefined, undefined, parseServerOptions(argv, '/w').engine)
        ).load(dir, { tags: ['serve'], signatures: ['serving_default'] });
        return { added: threadsOfThisProcess() - before, servable };
      };
      await load([]); // the first load starts the process's own helpers (libuv's pool …)
      const byDefault = await load([]);
      const four = await load(['--tensorflow_intra_op_parallelism=4']);
      const sessions = Object.values(four.servable.engines).filter((e) => e.engine === 'onnxruntime').length;
      assert.ok(sessions >= 1, 'the fixture runs on ONNX Runtime');
      // ONNX Runtime's intra-op pool: the calling thread plus n-1 of its own, per session.
      assert.ok(
        four.added - byDefault.added >= 3 * sessions,
        `${four.added} threads with 4 intra-op threads, ${byDefault.added} by default, ${sessions} sessions`,
      );
    },
  );
});

describe('TensorFlow Lite', () => {
  it('a version folder with model.tflite and no saved_model.pb fails its load naming TensorFlow Lite', async () => {
    const dir = tempDir('tfgate-tflite-');
    fs.writeFileSync(path.join(dir, 'model.tflite'), Buffer.from('TFL3'));
    await assert.rejects(
      readMetaGraph(dir, ['serve']),
      (e: unknown) =>
        e instanceof ServingError &&
        e.code === Code.UNIMPLEMENTED &&
        e.message ===
          `${dir} holds a TensorFlow Lite model (model.tflite) and no saved_model.pb: tfgate does not run TensorFlow Lite models`,
    );
    fs.rmSync(path.join(dir, 'model.tflite'));
    await assert.rejects(
      readMetaGraph(dir, ['serve']),
      (e: unknown) => e instanceof ServingError && e.code === Code.NOT_FOUND && /SavedModel not found in export directory/.test(e.message),
    );
  });
});
