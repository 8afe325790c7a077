// Load errors of the embedded runtime: each fails the whole load with one message that names
// the file, the op or the missing name, and leaves nothing half-loaded behind.
import { describe, it, before } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { EmbeddedRuntime } from '../../src/runtimes/embedded/embedded_runtime.js';
import { writeMlpSavedModel } from '../../test_util/savedmodel/model_zoo.js';
import { protoType } from '../../src/proto/index.js';
import { Code, ServingError } from '../../src/errors/status.js';
import { tempDir } from '../helpers/temp.js';
import { isError } from '../helpers/errors.js';

const runtime = new EmbeddedRuntime('auto');
const load = (dir: string, tags = ['serve']) => runtime.load(dir, { tags });

/** Rewrites a version's saved_model.pb through the protobuf schema. */
function editSavedModel(dir: string, edit: (sm: { metaGraphs: { graphDef: { node: { name: string; op: string }[] } }[] }) => void): void {
  const file = path.join(dir, 'saved_model.pb');
  const type = protoType('tensorflow.SavedModel');
  const message = type.decode(fs.readFileSync(file));
  edit(message as never);
  fs.writeFileSync(file, type.encode(message).finish());
}

const MLP = { inputDim: 4, outputDim: 3, activation: 'relu' as const, seed: 1 };

describe('embedded runtime load errors', () => {
  let root: string;
  let good: string;
  before(async () => {
    root = tempDir();
    good = path.join(root, 'good');
    await writeMlpSavedModel(good, { ...MLP, hiddenSizes: [5] });
  });

  const copyOfGood = (name: string) => {
    const dir = path.join(root, name);
    fs.cpSync(good, dir, { recursive: true });
    return dir;
  };

  it('the untouched model loads and runs (the cases below differ from it in one thing)', async () => {
    const s = await load(good);
    const out = await s.run('serving_default', { x: { dtype: 'float32', shape: [1, 4], values: new Float32Array(4) } });
    assert.deepEqual(out.y.shape, [1, 3]);
    s.dispose();
  });

  it('a truncated saved_model.pb is DATA_LOSS naming the file', async () => {
    const dir = copyOfGood('truncated');
    const file = path.join(dir, 'saved_model.pb');
    const bytes = fs.readFileSync(file);
    fs.writeFileSync(file, bytes.subarray(0, Math.floor(bytes.length / 2)));
    // protobufjs stops with a RangeError of its own reading past the end: TF's words then (env.cc's ReadBinaryProto).
    await assert.rejects(load(dir), isError(Code.DATA_LOSS, new RegExp(`^Can't parse ${escape(file)} as binary proto$`)));
  });

  it('a saved_model.pb of random bytes is DATA_LOSS naming the file', async () => {
    const dir = copyOfGood('garbage');
    fs.writeFileSync(path.join(dir, 'saved_model.pb'), Buffer.from([0xff, 0xff, 0xff, 0xff, 0x0f, 0x01, 0x02]));
    await assert.rejects(load(dir), isError(Code.DATA_LOSS, /saved_model\.pb as a SavedModel/));
  });

  it('a folder without saved_model.pb is NOT_FOUND naming the folder', async () => {
    const dir = path.join(root, 'empty');
    fs.mkdirSync(dir);
    await assert.rejects(load(dir), isError(Code.NOT_FOUND, new RegExp(`SavedModel not found in export directory: ${escape(dir)}`)));
  });

  it('a variable missing from the checkpoint fails the load naming the variable', async () => {
    // A one-layer MLP's checkpoint holds dense/* only; the two-layer graph also reads dense_1/*.
    const small = path.join(root, 'small');
    await writeMlpSavedModel(small, { ...MLP, hiddenSizes: [] });
    const dir = copyOfGood('missing_variable');
    fs.rmSync(path.join(dir, 'variables'), { recursive: true });
    fs.cpSync(path.join(small, 'variables'), path.join(dir, 'variables'), { recursive: true });
    await assert.rejects(load(dir), isError(Code.NOT_FOUND, /dense_1\/(kernel|bias)/));
  });

  it('an op TF.js lacks fails the load naming the op and its node', async () => {
    const dir = copyOfGood('unsupported_op');
    editSavedModel(dir, (sm) => {
      const relu = sm.metaGraphs[0].graphDef.node.find((n) => n.op === 'Relu')!;
      relu.op = 'Lgamma';
    });
    await assert.rejects(
      load(dir),
      isError(Code.FAILED_PRECONDITION, /serving_default.*ops TF\.js does not support: Lgamma \(node dense\/Relu\)/),
    );
  });

  it('an unknown tag set is NOT_FOUND naming the tags', async () => {
    await assert.rejects(load(good, ['gpu']), isError(Code.NOT_FOUND, /Could not find meta graph def matching supplied tags: \{ gpu \}/));
  });

  it('an unknown signature is an error naming it, and the version goes on serving', async () => {
    const s = await load(good);
    await assert.rejects(s.run('nope', {}), isError(Code.FAILED_PRECONDITION, /"nope" not found/));
    const out = await s.run('serving_default', { x: { dtype: 'float32', shape: [2, 4], values: new Float32Array(8) } });
    assert.deepEqual(out.y.shape, [2, 3]);
    s.dispose();
  });
});

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
