// The command line: `tfgate show` / `tfgate run` (saved_model_cli) and the server's flag errors.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { REPO_ROOT, fixtureModel } from '../helpers/paths.js';
import { TFGATE_BIN } from '../helpers/server_process.js';
import { tempDir } from '../helpers/temp.js';
import { writeTensorListLoopModel } from '../../test_util/savedmodel/loop_model_zoo.js';

const tfgate = (...args: string[]) =>
  spawnSync(process.execPath, [TFGATE_BIN, ...args], { cwd: REPO_ROOT, encoding: 'utf8', timeout: 60000 });

describe('tfgate show', () => {
  it('lists tag sets, then signatures, then one signature, as saved_model_cli does', () => {
    const dir = fixtureModel('saved_model_half_plus_two_cpu', '00000123');
    assert.equal(tfgate('show', '--dir', dir).stdout, "The given SavedModel contains the following tag-sets:\n'serve'\n");
    assert.match(
      tfgate('show', '--dir', dir, '--tag_set', 'serve').stdout,
      /SignatureDef key: "classify_x_to_y"\nSignatureDef key: "regress_x2_to_y3"/,
    );
    assert.equal(
      tfgate('show', '--dir', dir, '--tag_set', 'serve', '--signature_def', 'serving_default').stdout,
      [
        'The given SavedModel SignatureDef contains the following input(s):',
        "  inputs['x'] tensor_info:",
        '      dtype: DT_FLOAT',
        '      shape: (-1, 1)',
        '      name: x:0',
        'The given SavedModel SignatureDef contains the following output(s):',
        "  outputs['y'] tensor_info:",
        '      dtype: DT_FLOAT',
        '      shape: (-1, 1)',
        '      name: y:0',
        'Method name is: tensorflow/serving/predict',
        '',
      ].join('\n'),
    );
  });
  it('--all prints every signature, with unknown ranks and _REF dtypes as stored', () => {
    const out = tfgate('show', '--dir', fixtureModel('saved_model_counter', '00000123'), '--all').stdout;
    assert.match(out, /MetaGraphDef with tag-set: 'serve' contains the following SignatureDefs:/);
    assert.match(
      out,
      /signature_def\['incr_counter_by'\]:\n  The given SavedModel SignatureDef contains the following input\(s\):\n    inputs\['delta'\] tensor_info:\n        dtype: DT_FLOAT\n        shape: unknown_rank/,
    );
    assert.match(out, /dtype: DT_FLOAT_REF/);
  });
  it('--all ends with the engine each signature runs on, and the ops that keep one off ONNX Runtime', async () => {
    const out = tfgate('show', '--dir', fixtureModel('saved_model_half_plus_two_cpu', '00000123'), '--all').stdout;
    assert.match(out, /tfgate engines for tag-set 'serve' \(--runtime=auto without libtensorflow\):\n/);
    assert.match(out, /signature_def\['serving_default'\]: onnxruntime\n/);
    assert.match(out, /signature_def\['classify_x_to_y'\]: onnxruntime\n/, 'tf.Example parsing runs in front of the ONNX graph');
    // A tf.while_loop with TensorLists: ONNX Runtime cannot run it, the WASM runtime does.
    const loop = path.join(tempDir(), 'loop');
    await writeTensorListLoopModel(loop);
    assert.match(
      tfgate('show', '--dir', loop, '--all').stdout,
      /signature_def\['serving_default'\]: wasm \(ops ONNX Runtime cannot run exactly: (TensorListReserve|StatelessWhile|While) \(node [^)]+: no ONNX converter\)/,
    );
    const counter = tfgate('show', '--dir', fixtureModel('saved_model_counter', '00000123'), '--all').stdout;
    assert.match(counter, /signature_def\['incr_counter'\]: not served \(signature 'incr_counter' updates variables \(AssignAdd/);
  });
  it('an unknown tag set is an error naming it; bad arguments exit 2 with usage', () => {
    const r = tfgate('show', '--dir', fixtureModel('tfrust_regression_model_train_serve_tags', '1'), '--tag_set', 'serve');
    assert.equal(r.status, 1);
    assert.match(r.stderr, /Could not find meta graph def matching supplied tags: \{ serve \}/);
    const usage = tfgate('show', '--bogus');
    assert.equal(usage.status, 2);
    assert.match(usage.stderr, /unknown flag: --bogus\nusage: tfgate show/);
    assert.equal(tfgate('show').status, 2);
  });
});

describe('tfgate run', () => {
  it('prints the outputs as one JSON object', () => {
    const r = tfgate(
      'run',
      '--dir',
      path.join(REPO_ROOT, 'model_repository', 'half_plus_two', '1'),
      '--signature_def',
      'serving_default',
      '--input_exprs',
      'x=[[1],[2],[5]]',
    );
    assert.equal(r.status, 0, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout), { y: [[2.5], [3], [4.5]] });
  });
  it('several inputs, on a TF2 Keras export', () => {
    const r = tfgate(
      'run',
      '--dir',
      fixtureModel('tfrust_keras_multiple_inputs', '1'),
      '--signature_def',
      'serving_default',
      '--input_exprs',
      'test_in1=[[0.1,0.2,0.3,0.4,0.5]];test_in2=[[0.6,0.7,0.8,0.9,0.1]]',
    );
    assert.equal(r.status, 0, r.stderr);
    assert.ok(Math.abs(JSON.parse(r.stdout).test_out[0][0] - 0.5401027) < 1e-4);
  });
  it('missing or malformed arguments exit 2', () => {
    assert.equal(tfgate('run', '--dir', 'x').status, 2);
    const bad = tfgate(
      'run',
      '--dir',
      path.join(REPO_ROOT, 'model_repository', 'half_plus_two', '1'),
      '--signature_def',
      'serving_default',
      '--input_exprs',
      'x',
    );
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /is not <input key>=<value>/);
  });
});

describe('server flags', () => {
  it('an unknown flag or a bad value exits 2 naming it', () => {
    const unknown = tfgate('--no_such_flag=3');
    assert.equal(unknown.status, 2);
    assert.match(unknown.stderr, /no_such_flag/);
    const bad = tfgate('--rest_api_port=eighty');
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /Illegal value 'eighty' specified for int flag 'rest_api_port'/);
    const mode = tfgate('--batching_mode=eager');
    assert.equal(mode.status, 2);
    assert.match(mode.stderr, /Illegal value 'eager' for flag 'batching_mode': expected fixed or adaptive/);
  });
  it('--help lists the flags by how each is handled (no section of ignored ones); --version answers', () => {
    const help = tfgate('--help');
    assert.equal(help.status, 0);
    assert.match(help.stdout, /--model_config_file/);
    for (const section of ['honoured:', 'Refused when set', 'according to the runtime', 'they change nothing here'])
      assert.ok(help.stdout.includes(section), section);
    // Each flag is under the heading of its handling: a refused one with the refused ones.
    const refused = help.stdout.indexOf('Refused when set');
    assert.ok(help.stdout.indexOf('--use_alts_credentials') > refused && help.stdout.indexOf('--model_config_file') < refused);
    assert.doesNotMatch(help.stdout, /accepted and ignored/i);
    assert.match(tfgate('--version').stdout, /TensorFlow ModelServer: tfgate-/);
  });
});
