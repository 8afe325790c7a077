// --tensorflow_session_config_file, --platform_config_file and the session-parallelism flags:
// read, combined as server.cc combines them, refused by field name where tfgate cannot
// honour them; and what ONNX Runtime's sessions and libtensorflow's environment are given.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { FlagError, parseServerOptions } from '../../src/config/flags.js';
import { ConfigError } from '../../src/config/schema.js';
import { checkEngineForRuntime, EngineSettingRefused, parseSessionConfigText } from '../../src/config/session_config.js';
import { parsePlatformConfigText } from '../../src/config/platform_config.js';
import { readEngineConfigFiles } from '../../src/server/engine_config_files.js';
import { ortSessionOptions } from '../../src/runtimes/onnx/ort_session_options.js';
import { libtensorflowEnvironment } from '../../src/runtimes/tfjs_node/libtensorflow_environment.js';
import { tempDir } from '../helpers/temp.js';

const dir = tempDir('tfgate-session-config-');
const write = (name: string, text: string) => {
  const file = path.join(dir, name);
  fs.writeFileSync(file, text);
  return file;
};
const configError = (re: RegExp, field?: string) => (e: unknown) =>
  e instanceof ConfigError && re.test(e.message) && (field === undefined || e.field === field);

const PLATFORM = (legacy: string) => `platform_configs {
  key: "tensorflow"
  value {
    source_adapter_config {
      [type.googleapis.com/tensorflow.serving.SavedModelBundleSourceAdapterConfig] {
        legacy_config { ${legacy} }
      }
    }
  }
}
`;

describe('session-parallelism flags', () => {
  it('intra/inter as given; session_parallelism sets both; 0 leaves the engine default', () => {
    const e = parseServerOptions(['--tensorflow_intra_op_parallelism=3', '--tensorflow_inter_op_parallelism=2'], '/w').engine;
    assert.deepEqual([e.intraOpThreads, e.interOpThreads], [3, 2]);
    const s = parseServerOptions(['--tensorflow_session_parallelism=4'], '/w').engine;
    assert.deepEqual([s.intraOpThreads, s.interOpThreads], [4, 4]);
    assert.equal(s.from.threads, '--tensorflow_session_parallelism=4');
    const d = parseServerOptions([], '/w').engine;
    assert.deepEqual([d.intraOpThreads, d.interOpThreads, d.gpuMemoryFraction], [0, 0, 0]);
  });
  it("refuses session_parallelism beside either of the others (TF Serving's message), negatives and a fraction above 1", () => {
    assert.throws(
      () => parseServerOptions(['--tensorflow_session_parallelism=4', '--tensorflow_intra_op_parallelism=2'], '/w'),
      (e: unknown) => e instanceof FlagError && e.flag === 'tensorflow_session_parallelism' && /You cannot configure all/.test(e.message),
    );
    assert.throws(
      () => parseServerOptions(['--tensorflow_inter_op_parallelism=-1'], '/w'),
      (e: unknown) => e instanceof FlagError && e.flag === 'tensorflow_inter_op_parallelism',
    );
    assert.throws(
      () => parseServerOptions(['--per_process_gpu_memory_fraction=1.5'], '/w'),
      (e: unknown) => e instanceof FlagError && e.flag === 'per_process_gpu_memory_fraction',
    );
  });
});

describe('what the engines are given', () => {
  it('ONNX Runtime: thread counts as session options, parallel mode above one inter-op thread; tfgate defaults otherwise', () => {
    const engine = parseServerOptions(['--tensorflow_intra_op_parallelism=3', '--tensorflow_inter_op_parallelism=2'], '/w').engine;
    assert.deepEqual(ortSessionOptions('cpu', engine), {
      executionProviders: ['cpu'],
      intraOpNumThreads: 3,
      interOpNumThreads: 2,
      executionMode: 'parallel',
      graphOptimizationLevel: 'all',
      enableCpuMemArena: false,
      logSeverityLevel: 4,
      // More than one thread: ONNX Runtime's pools do not spin (they burn shared cores: ort_session_options.ts).
      extra: { session: { intra_op: { allow_spinning: '0' }, inter_op: { allow_spinning: '0' } } },
    });
    assert.deepEqual(ortSessionOptions('cpu'), {
      executionProviders: ['cpu'],
      intraOpNumThreads: 1,
      interOpNumThreads: 1,
      executionMode: 'sequential',
      graphOptimizationLevel: 'all',
      enableCpuMemArena: false,
      logSeverityLevel: 4,
    });
  });
  it("ONNX Runtime's CUDA provider: the device from visible_device_list (the one option onnxruntime-node passes it)", () => {
    const file = write('gpu1.pbtxt', 'gpu_options { visible_device_list: "1,0" allow_growth: true }\n');
    const options = readEngineConfigFiles(parseServerOptions([`--tensorflow_session_config_file=${file}`], '/w'));
    assert.deepEqual(ortSessionOptions('cuda', options.engine).executionProviders, [{ name: 'cuda', deviceId: 1 }]);
    assert.deepEqual(checkEngineForRuntime(options.engine, 'onnx-cuda'), []);
    assert.throws(
      () => checkEngineForRuntime(options.engine, 'tfjs-node-gpu'),
      (e: unknown) =>
        e instanceof EngineSettingRefused && e.flag === undefined && e.message.includes(`${file}: gpu_options.visible_device_list`),
    );
  });
  it('libtensorflow (tfjs-node): thread counts and allow_growth through its environment', () => {
    const file = write(
      'tf.pbtxt',
      'intra_op_parallelism_threads: 2\ninter_op_parallelism_threads: 1\ngpu_options { allow_growth: true }\n',
    );
    const engine = readEngineConfigFiles(parseServerOptions([`--tensorflow_session_config_file=${file}`], '/w')).engine;
    assert.deepEqual(libtensorflowEnvironment(engine), {
      TF_NUM_INTRAOP_THREADS: '2',
      TF_NUM_INTEROP_THREADS: '1',
      TF_FORCE_GPU_ALLOW_GROWTH: 'true',
    });
    assert.deepEqual(libtensorflowEnvironment(parseServerOptions([], '/w').engine), {});
  });
});

describe('--tensorflow_session_config_file', () => {
  it('reads thread counts and GPU options; a flag given wins over the file', () => {
    const file = write(
      'session.pbtxt',
      '# ConfigProto\nintra_op_parallelism_threads: 4\ninter_op_parallelism_threads: 2\ngpu_options { per_process_gpu_memory_fraction: 0.25 }\nallow_soft_placement: true\n',
    );
    const fromFile = readEngineConfigFiles(parseServerOptions([`--tensorflow_session_config_file=${file}`], '/w'));
    assert.deepEqual([fromFile.engine.intraOpThreads, fromFile.engine.interOpThreads, fromFile.engine.gpuMemoryFraction], [4, 2, 0.25]);
    assert.deepEqual(
      fromFile.harmlessSettingsGiven.map((h) => h.name),
      [`${file}: allow_soft_placement`],
    );
    const flagWins = readEngineConfigFiles(
      parseServerOptions(
        [`--tensorflow_session_config_file=${file}`, '--tensorflow_intra_op_parallelism=1', '--per_process_gpu_memory_fraction=0.5'],
        '/w',
      ),
    );
    assert.deepEqual([flagWins.engine.intraOpThreads, flagWins.engine.interOpThreads, flagWins.engine.gpuMemoryFraction], [1, 0, 0.5]);
  });
  it("a fraction from the file is refused with a GPU runtime naming the file's field (config error, not a flag)", () => {
    const file = write('fraction.pbtxt', 'gpu_options { per_process_gpu_memory_fraction: 0.3 }\n');
    const engine = readEngineConfigFiles(parseServerOptions([`--tensorflow_session_config_file=${file}`], '/w')).engine;
    assert.throws(
      () => checkEngineForRuntime(engine, 'onnx-cuda'),
      (e: unknown) =>
        e instanceof EngineSettingRefused &&
        e.flag === undefined &&
        e.message.startsWith(`${file}: gpu_options.per_process_gpu_memory_fraction is refused with runtime onnx-cuda`),
    );
  });
  it('refuses fields tfgate cannot honour by name, with where they are', () => {
    assert.throws(
      () =>
        parseSessionConfigText(
          'intra_op_parallelism_threads: 2\ngraph_options { optimizer_options { global_jit_level: ON_1 } }\n',
          's.pbtxt',
        ),
      configError(/^s\.pbtxt:2:1: graph_options is not supported by tfgate: TF graph optimizer/, 'graph_options'),
    );
    assert.throws(
      () => parseSessionConfigText('operation_timeout_in_ms: 100\n', 's.pbtxt'),
      configError(/operation_timeout_in_ms is not supported by tfgate/, 'operation_timeout_in_ms'),
    );
    assert.throws(
      () => parseSessionConfigText('gpu_options { experimental { virtual_devices { memory_limit_mb: 1024 } } }\n', 's.pbtxt'),
      configError(/gpu_options\.experimental is not supported/, 'gpu_options.experimental'),
    );
    assert.throws(
      () => parseSessionConfigText('no_such_field: 1\n', 's.pbtxt'),
      configError(/Message type "tensorflow\.ConfigProto" has no field named "no_such_field"/),
    );
  });
  it('device_count { GPU: 0 } is refused with a GPU runtime and honoured by a CPU one', () => {
    const file = write('nogpu.pbtxt', 'device_count { key: "GPU" value: 0 }\n');
    const engine = readEngineConfigFiles(parseServerOptions([`--tensorflow_session_config_file=${file}`], '/w')).engine;
    assert.throws(
      () => checkEngineForRuntime(engine, 'onnx-cuda'),
      (e: unknown) => e instanceof EngineSettingRefused && e.message.includes(`${file}: device_count`),
    );
    assert.deepEqual(checkEngineForRuntime(engine, 'onnx'), []);
  });
  it('a missing file stops start-up naming it, as TF Serving aborts', () => {
    const missing = path.join(dir, 'missing.pbtxt');
    assert.throws(
      () => readEngineConfigFiles(parseServerOptions([`--tensorflow_session_config_file=${missing}`], '/w')),
      configError(new RegExp(`^${missing}: cannot read --tensorflow_session_config_file`)),
    );
  });
});

describe('--platform_config_file', () => {
  it('replaces batching, tags, warmup and session config with its legacy_config', () => {
    const file = write(
      'platform.config',
      PLATFORM(`
          batching_parameters { max_batch_size { value: 4 } batch_timeout_micros { value: 5000 } num_batch_threads { value: 1 } }
          session_config { intra_op_parallelism_threads: 2 inter_op_parallelism_threads: 1 }
          saved_model_tags: "serve"
          enable_model_warmup: true
          model_warmup_options { num_request_iterations { value: 3 } num_model_warmup_threads { value: 2 } }
          enable_per_model_batching_params: true`),
    );
    const o = readEngineConfigFiles(parseServerOptions([`--platform_config_file=${file}`], '/w'));
    assert.equal(o.batching.enabled, true);
    assert.equal(o.batching.parametersFile, null);
    assert.equal(o.batching.perModel, true);
    assert.deepEqual(
      [o.batching.parameters?.max_batch_size, o.batching.parameters?.batch_timeout_micros, o.batching.parameters?.num_batch_threads],
      [4, 5000, 1],
    );
    assert.deepEqual(o.savedModelTags, ['serve']);
    assert.deepEqual([o.enableModelWarmup, o.numRequestIterationsForWarmup], [true, 3]);
    assert.deepEqual([o.engine.intraOpThreads, o.engine.interOpThreads], [2, 1]);
    assert.deepEqual(
      o.harmlessSettingsGiven.map((h) => h.name),
      [`${file}: model_warmup_options.num_model_warmup_threads`],
    );
  });
  it('proto3 defaults: no batching_parameters, no batching; warmup off unless enable_model_warmup', () => {
    const o = readEngineConfigFiles(parseServerOptions([`--platform_config_file=${write('empty_legacy.config', PLATFORM(''))}`], '/w'));
    assert.deepEqual([o.batching.enabled, o.enableModelWarmup, o.savedModelTags], [false, false, ['serve']]);
  });
  it('refuses the flags it replaces beside it (TF Serving ignores them), naming the field to set instead', () => {
    const file = write('p.config', PLATFORM(''));
    for (const [flag, field] of [
      ['--enable_batching', 'batching_parameters'],
      ['--tensorflow_intra_op_parallelism=2', 'session_config.intra_op_parallelism_threads'],
      ['--enable_model_warmup=false', 'enable_model_warmup'],
      ['--saved_model_tags=serve,gpu', 'saved_model_tags'],
    ]) {
      const name = flag.slice(2).split('=')[0];
      assert.throws(
        () => parseServerOptions([`--platform_config_file=${file}`, flag], '/w'),
        (e: unknown) => e instanceof FlagError && e.flag === name && e.message.includes(`set ${field} in the platform config`),
        flag,
      );
    }
  });
  it('refuses what tfgate cannot honour, by field name', () => {
    assert.throws(
      () => parsePlatformConfigText(PLATFORM('mixed_precision: "bfloat16"'), 'p.config'),
      configError(/p\.config:6:25: legacy_config\.mixed_precision is not supported by tfgate/, 'mixed_precision'),
    );
    assert.throws(
      () => parsePlatformConfigText(PLATFORM('prefer_tflite_model: true'), 'p.config'),
      configError(/prefer_tflite_model is not supported by tfgate: no engine here runs TensorFlow Lite/),
    );
    assert.throws(
      () => parsePlatformConfigText(PLATFORM('session_config { graph_options { } }'), 'p.config'),
      configError(/session_config\.graph_options is not supported by tfgate/),
    );
    assert.throws(
      () => parsePlatformConfigText(PLATFORM('batching_parameters { } wrap_session_with_no_threading_params: true'), 'p.config'),
      configError(/wrap_session_with_no_threading_params is not supported/),
    );
    assert.throws(
      () => parsePlatformConfigText(PLATFORM('batching_parameters { max_batch_size { value: 0 } }'), 'p.config'),
      configError(/max_batch_size must be positive/),
    );
    assert.throws(
      () => parsePlatformConfigText('platform_configs { key: "tfrt" value { } }\n', 'p.config'),
      configError(/platform "tfrt" is not supported by tfgate/),
    );
    assert.throws(() => parsePlatformConfigText('', 'p.config'), configError(/no platform_configs entry for "tensorflow"/));
    assert.throws(
      () =>
        parsePlatformConfigText(
          'platform_configs { key: "tensorflow" value { source_adapter_config { [type.googleapis.com/tensorflow.serving.TfrtSavedModelSourceAdapterConfig] { } } } }\n',
          'p.config',
        ),
      configError(/Any type "tensorflow\.serving\.TfrtSavedModelSourceAdapterConfig" is not one tfgate reads here/),
    );
  });
  it('a missing file stops start-up naming it', () => {
    const missing = path.join(dir, 'nope.config');
    assert.throws(
      () => readEngineConfigFiles(parseServerOptions([`--platform_config_file=${missing}`], '/w')),
      configError(/cannot read --platform_config_file/),
    );
  });
});
