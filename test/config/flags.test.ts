// tensorflow_model_server's flags (main.cc's table) and tfgate's own; ServerOptions; --help.
import { getHeapStatistics } from 'node:v8';
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { FlagError, FLAGS, helpText, parseFlags, parseServerOptions, resolveServerOptions, type FlagName } from '../../src/config/flags.js';
import { cpuCount } from '../../src/config/batching_parameters.js';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../helpers/paths.js';

/** main.cc's flag_list, in order (tensorflow/serving at 9d981c5). */
const TF_FLAGS = [
  'port',
  'grpc_socket_path',
  'rest_api_port',
  'rest_api_num_threads',
  'rest_api_timeout_in_ms',
  'rest_api_enable_cors_support',
  'enable_batching',
  'allow_version_labels_for_unavailable_models',
  'batching_parameters_file',
  'enable_per_model_batching_parameters',
  'model_config_file',
  'model_config_file_poll_wait_seconds',
  'model_name',
  'model_base_path',
  'num_load_threads',
  'num_unload_threads',
  'max_num_load_retries',
  'load_retry_interval_micros',
  'file_system_poll_wait_seconds',
  'flush_filesystem_caches',
  'tensorflow_session_parallelism',
  'tensorflow_session_config_file',
  'tensorflow_intra_op_parallelism',
  'tensorflow_inter_op_parallelism',
  'use_alts_credentials',
  'ssl_config_file',
  'platform_config_file',
  'per_process_gpu_memory_fraction',
  'saved_model_tags',
  'grpc_channel_arguments',
  'grpc_max_threads',
  'enable_model_warmup',
  'num_request_iterations_for_warmup',
  'version',
  'monitoring_config_file',
  'remove_unused_fields_from_bundle_metagraph',
  'prefer_tflite_model',
  'num_tflite_pools',
  'num_tflite_interpreters_per_pool',
  'enable_signature_method_name_check',
  'xla_cpu_compilation_enabled',
  'xla_gpu_compilation_enabled',
  'enable_profiler',
  'thread_pool_factory_config_file',
  'mixed_precision',
  'skip_initialize_tpu',
  'enable_grpc_healthcheck_service',
  'enable_serialization_as_tensor_content',
];

const flagError = (flag: string, re: RegExp) => (e: unknown) =>
  e instanceof FlagError && e.flag === flag && re.test(e.message) && e.message.includes(flag);

describe('flag table', () => {
  it("names each of tfgate's own flags in README's flag table", () => {
    const rows = readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8')
      .split('\n')
      .filter((l) => l.startsWith('| `--'));
    const missing = Object.keys(FLAGS).filter(
      (n) => FLAGS[n as FlagName].own && n !== 'help' && !rows.some((r) => r.includes(`\`--${n}\``)),
    );
    assert.deepEqual(missing, []);
  });
  it("has every flag of main.cc, in its order, then tfgate's own", () => {
    const names = Object.keys(FLAGS);
    assert.deepEqual(
      names.filter((n) => !FLAGS[n as FlagName].own),
      TF_FLAGS,
    );
    assert.deepEqual(
      names.filter((n) => FLAGS[n as FlagName].own),
      [
        'rest_api_host',
        'grpc_api_host',
        'rest_api_ssl_config_file',
        'rest_max_connections',
        'enable_reload_config_request',
        'reload_config_allowed_base_paths',
        'runtime',
        'config',
        'batching_mode',
        'batching_latency_target_ms',
        'dry_run',
        'batching_parameters_poll_wait_seconds',
        'access_log',
        'shutdown_drain_seconds',
        'num_executors',
        'shared_executors_max_mb',
        'enable_load_probe',
        'verify_on_load',
        'verify_on_load_max_mb',
        'load_memory_floor_mb',
        'load_timeout_seconds',
        'max_request_body_bytes',
        'json_max_depth',
        'json_max_elements',
        'max_inflight_request_bytes',
        'max_executor_queue',
        'request_log_file_max_bytes',
        'request_log_queue_max_bytes',
        'model_cache_dir',
        'model_cache_max_mb',
        'help',
      ],
    );
  });
  it("keeps TF Serving's types and defaults (server.h), except rest_api_port", () => {
    const expect: Array<[FlagName, string, unknown]> = [
      ['port', 'int32', 8500],
      ['rest_api_port', 'int32', 8501],
      ['rest_api_num_threads', 'int32', 4 * cpuCount()],
      ['rest_api_timeout_in_ms', 'int32', 30000],
      ['model_name', 'string', 'default'],
      ['model_config_file_poll_wait_seconds', 'int32', 0],
      ['max_num_load_retries', 'int32', 5],
      ['load_retry_interval_micros', 'int64', 60_000_000],
      ['file_system_poll_wait_seconds', 'int32', 1],
      ['flush_filesystem_caches', 'bool', true],
      ['tensorflow_session_parallelism', 'int64', 0],
      ['per_process_gpu_memory_fraction', 'float', 0],
      ['saved_model_tags', 'string', 'serve'],
      ['grpc_max_threads', 'int32', 4 * cpuCount()],
      ['enable_model_warmup', 'bool', true],
      ['remove_unused_fields_from_bundle_metagraph', 'bool', true],
      ['num_tflite_pools', 'int32', cpuCount()],
      ['num_tflite_interpreters_per_pool', 'int32', 1],
      ['enable_profiler', 'bool', true],
      ['rest_api_host', 'string', '0.0.0.0'],
      ['runtime', 'string', 'auto'],
      ['max_request_body_bytes', 'int64', 64 * 1024 * 1024],
      ['json_max_depth', 'int32', 64],
      ['json_max_elements', 'int64', 16 * 1024 * 1024],
    ];
    for (const [name, type, dflt] of expect) {
      assert.equal(FLAGS[name].type, type, name);
      assert.equal(FLAGS[name].default, dflt, name);
    }
    assert.equal(FLAGS.num_executors.default, cpuCount());
  });
  it('classifies each flag: honoured, refused, by runtime, harmless', () => {
    const kind = (n: FlagName) => FLAGS[n].handling.kind;
    for (const n of ['prefer_tflite_model', 'mixed_precision', 'thread_pool_factory_config_file'] as const)
      assert.equal(kind(n), 'refused', n);
    for (const n of [
      'xla_cpu_compilation_enabled',
      'skip_initialize_tpu',
      'enable_profiler',
      'grpc_max_threads',
      'num_tflite_pools',
    ] as const)
      assert.equal(kind(n), 'harmless', n);
    assert.equal(kind('per_process_gpu_memory_fraction'), 'runtime');
    for (const n of [
      'rest_api_port',
      'model_config_file',
      'model_base_path',
      'enable_batching',
      'batching_parameters_file',
      'monitoring_config_file',
      'file_system_poll_wait_seconds',
      'platform_config_file',
      'tensorflow_session_config_file',
      'tensorflow_intra_op_parallelism',
      'tensorflow_session_parallelism',
    ] as const) {
      assert.equal(kind(n), 'honoured', n);
    }
  });
});

describe('parseFlags', () => {
  it('--flag=value, --flag value, bare --flag for booleans; records what was given', () => {
    const { values, given } = parseFlags([
      '--rest_api_port=9000',
      '--model_name',
      'm',
      '--enable_batching',
      '--model_base_path=/x',
      '--per_process_gpu_memory_fraction',
      '0.5',
    ]);
    assert.equal(values.rest_api_port, 9000);
    assert.equal(values.model_name, 'm');
    assert.equal(values.enable_batching, true);
    assert.equal(values.model_base_path, '/x');
    assert.equal(values.per_process_gpu_memory_fraction, 0.5);
    assert.deepEqual([...given].sort(), [
      'enable_batching',
      'model_base_path',
      'model_name',
      'per_process_gpu_memory_fraction',
      'rest_api_port',
    ]);
  });
  it('defaults for everything not given', () => {
    const { values, given } = parseFlags([]);
    for (const [name, spec] of Object.entries(FLAGS)) assert.equal(values[name as FlagName], spec.default, name);
    assert.equal(given.size, 0);
    assert.ok(Object.isFrozen(values));
  });
  it('booleans: =true/=false in any case, =1/=0', () => {
    for (const [arg, v] of [
      ['--enable_model_warmup=false', false],
      ['--enable_model_warmup=FALSE', false],
      ['--enable_model_warmup=0', false],
      ['--enable_batching=True', true],
      ['--enable_batching=1', true],
    ] as const) {
      const name = arg.slice(2).split('=')[0] as FlagName;
      assert.equal(parseFlags([arg]).values[name], v, arg);
    }
  });
  it('ints: sign and leading blanks as sscanf, negatives via both forms; floats: exponents, inf; empty strings', () => {
    assert.equal(parseFlags(['--file_system_poll_wait_seconds=-1']).values.file_system_poll_wait_seconds, -1);
    assert.equal(parseFlags(['--file_system_poll_wait_seconds', '-1']).values.file_system_poll_wait_seconds, -1);
    assert.equal(parseFlags(['--port=+9']).values.port, 9);
    assert.equal(parseFlags(['--per_process_gpu_memory_fraction=1e-1']).values.per_process_gpu_memory_fraction, 0.1);
    assert.equal(parseFlags(['--per_process_gpu_memory_fraction=inf']).values.per_process_gpu_memory_fraction, Infinity);
    assert.equal(parseFlags(['--model_name=']).values.model_name, '');
    assert.equal(parseFlags(['--load_retry_interval_micros=9007199254740991']).values.load_retry_interval_micros, Number.MAX_SAFE_INTEGER);
  });
  it('the last of a repeated flag wins', () => {
    assert.equal(parseFlags(['--port=1', '--port=2']).values.port, 2);
  });
  it('accepts every ignored flag', () => {
    const v = parseFlags([
      '--use_alts_credentials',
      '--ssl_config_file=/s',
      '--prefer_tflite_model=true',
      '--xla_cpu_compilation_enabled',
      '--skip_initialize_tpu',
      '--grpc_max_threads=4',
      '--tensorflow_intra_op_parallelism=2',
      '--mixed_precision=bfloat16',
    ]).values;
    assert.equal(v.use_alts_credentials, true);
    assert.equal(v.mixed_precision, 'bfloat16');
  });
  it('--help and -h', () => {
    assert.equal(parseFlags(['--help']).values.help, true);
    assert.equal(parseFlags(['-h']).values.help, true);
    assert.equal(parseFlags(['--version']).values.version, true);
  });

  const BAD: Array<[string, string[], string, RegExp]> = [
    ['unknown flag', ['--no_such_flag=1'], 'no_such_flag', /^Unknown command line flag 'no_such_flag'$/],
    [
      '--noflag (TF does not take it)',
      ['--noenable_model_warmup'],
      'noenable_model_warmup',
      /Unknown command line flag 'noenable_model_warmup' \(booleans are turned off with --enable_model_warmup=false\)/,
    ],
    ['single dash', ['-port=1'], 'port', /flags start with --/],
    ['bad int', ['--rest_api_port=eighty'], 'rest_api_port', /^Illegal value 'eighty' specified for int flag 'rest_api_port'$/],
    ['int with junk', ['--port=80x'], 'port', /Illegal value '80x' specified for int flag 'port'/],
    ['float for int', ['--port=1.5'], 'port', /Illegal value '1\.5' specified for int flag 'port'/],
    ['int32 overflow', ['--port=2147483648'], 'port', /Illegal value '2147483648' specified for int flag 'port' \(out of int32 range/],
    ['empty int', ['--port='], 'port', /Illegal value '' specified for int flag 'port'/],
    ['bad bool', ['--enable_batching=maybe'], 'enable_batching', /^Illegal value 'maybe' specified for bool flag 'enable_batching'$/],
    [
      'bad float',
      ['--per_process_gpu_memory_fraction=half'],
      'per_process_gpu_memory_fraction',
      /specified for float flag 'per_process_gpu_memory_fraction'/,
    ],
    ['missing value at the end', ['--model_name'], 'model_name', /^Missing value for flag 'model_name'/],
    ['missing value before another flag', ['--model_name', '--port=1'], 'model_name', /^Missing value for flag 'model_name'/],
  ];
  it('REST off is fine while gRPC serves', () => {
    const o = parseServerOptions(
      ['--rest_api_port=0', '--grpc_channel_arguments=grpc.max_receive_message_length=1024,grpc.primary_user_agent=x'],
      '/w',
    );
    assert.equal(o.restApiPort, 0);
    assert.equal(o.grpcPort, 8500);
    assert.deepEqual(o.grpcChannelArguments, { 'grpc.max_receive_message_length': 1024, 'grpc.primary_user_agent': 'x' });
    assert.throws(
      () => parseServerOptions(['--grpc_channel_arguments=novalue'], '/w'),
      flagError('grpc_channel_arguments', /expected key=value, got 'novalue'/),
    );
  });

  for (const [what, argv, flag, re] of BAD) {
    it(`refuses: ${what}`, () => assert.throws(() => parseFlags(argv), flagError(flag, re)));
  }
  it('refuses positional arguments, also after a boolean', () => {
    assert.throws(
      () => parseFlags(['models']),
      (e: unknown) => e instanceof FlagError && /Unexpected command line argument 'models'/.test(e.message),
    );
    assert.throws(
      () => parseFlags(['--enable_batching', 'false']),
      (e: unknown) => e instanceof FlagError && /Unexpected command line argument 'false'/.test(e.message),
    );
  });
});

describe('resolveServerOptions', () => {
  it('defaults: ./model_repository on 8501, TF Serving values elsewhere', () => {
    const o = parseServerOptions([], '/srv');
    assert.deepEqual(o.modelSource, { kind: 'default_repository', dir: '/srv/model_repository' });
    assert.equal(o.restApiPort, 8501);
    assert.equal(o.restApiHost, '0.0.0.0');
    assert.equal(o.restApiTimeoutMs, 30000);
    assert.equal(o.grpcPort, 8500);
    assert.equal(o.fileSystemPollWaitSeconds, 1);
    assert.equal(o.loadRetryIntervalMicros, 60_000_000);
    assert.equal(o.maxNumLoadRetries, 5);
    assert.deepEqual(o.savedModelTags, ['serve']);
    assert.equal(o.enableModelWarmup, true);
    assert.deepEqual(o.batching, {
      enabled: false,
      parametersFile: null,
      perModel: false,
      mode: 'fixed',
      latencyTargetMs: 0,
      pollWaitSeconds: 1,
    });
    assert.equal(o.monitoringConfigFile, null);
    assert.equal(o.runtime, 'auto');
    assert.deepEqual(o.limits, {
      maxRequestBodyBytes: 64 * 1024 * 1024,
      jsonMaxDepth: 64,
      jsonMaxElements: 16 * 1024 * 1024,
      maxInflightRequestBytes: Math.floor(getHeapStatistics().heap_size_limit / 4),
      maxExecutorQueue: 128,
    });
    assert.equal(parseServerOptions(['--max_inflight_request_bytes=1048576']).limits.maxInflightRequestBytes, 1048576);
    assert.throws(() => parseServerOptions(['--max_inflight_request_bytes=-1']), /max_inflight_request_bytes/);
    assert.throws(() => parseServerOptions(['--max_executor_queue=0']), /max_executor_queue/);
    assert.deepEqual(o.harmlessSettingsGiven, []);
    assert.ok(Object.isFrozen(o) && Object.isFrozen(o.modelSource) && Object.isFrozen(o.limits) && Object.isFrozen(o.savedModelTags));
  });
  it('a TF Serving command line: single model, paths against cwd, REST still on 8501 unless given', () => {
    const o = parseServerOptions(
      [
        '--model_name=m',
        '--model_base_path=models/m',
        '--saved_model_tags=serve, gpu',
        '--enable_batching',
        '--batching_parameters_file=b.cfg',
        '--monitoring_config_file=/etc/mon.cfg',
        '--grpc_max_threads=8',
      ],
      '/srv',
    );
    assert.deepEqual(o.modelSource, { kind: 'single_model', name: 'm', basePath: '/srv/models/m' });
    assert.equal(o.restApiPort, 8501);
    assert.deepEqual(o.savedModelTags, ['serve', 'gpu']);
    assert.deepEqual(o.batching, {
      enabled: true,
      parametersFile: '/srv/b.cfg',
      perModel: false,
      mode: 'fixed',
      latencyTargetMs: 0,
      pollWaitSeconds: 1,
    });
    assert.deepEqual(
      parseServerOptions(['--enable_batching', '--batching_mode=adaptive', '--batching_latency_target_ms=40'], '/w').batching,
      { enabled: true, parametersFile: null, perModel: false, mode: 'adaptive', latencyTargetMs: 40, pollWaitSeconds: 1 },
    );
    assert.equal(o.monitoringConfigFile, '/etc/mon.cfg');
    assert.deepEqual(
      o.harmlessSettingsGiven.map((h) => h.name),
      ['--grpc_max_threads'],
    );
    assert.equal(parseServerOptions(['--model_base_path=/m', '--rest_api_port=9001']).restApiPort, 9001);
  });
  it('model_config_file wins over model_name/model_base_path (ignored, as TF Serving); --config is the YAML source', () => {
    const o = parseServerOptions(
      ['--model_config_file=conf/models.config', '--model_config_file_poll_wait_seconds=60', '--model_base_path=/x'],
      '/w',
    );
    assert.deepEqual(o.modelSource, { kind: 'model_config_file', file: '/w/conf/models.config', pollWaitSeconds: 60 });
    assert.deepEqual(parseServerOptions(['--config=tfgate.yaml'], '/w').modelSource, {
      kind: 'yaml_config',
      file: '/w/tfgate.yaml',
      pollWaitSeconds: 0,
    });
  });

  const BAD: Array<[string, string[], string, RegExp]> = [
    [
      'REST off, nothing served',
      ['--rest_api_port=0', '--port=0'],
      'rest_api_port',
      /0 disables the HTTP\/REST API, and --port=0 with no --grpc_socket_path disables gRPC/,
    ],
    ['port above 65535', ['--rest_api_port=70000'], 'rest_api_port', /not a port number/],
    [
      'unknown runtime',
      ['--runtime=gpu'],
      'runtime',
      /Illegal value 'gpu' for flag 'runtime': expected auto, onnx, onnx-cuda, wasm, cpu, tfjs-node/,
    ],
    ['num_executors 0', ['--num_executors=0'], 'num_executors', /must be at least 1/],
    ['zero body limit', ['--max_request_body_bytes=0'], 'max_request_body_bytes', /must be at least 1/],
    [
      'batching file without batching',
      ['--batching_parameters_file=b.cfg'],
      'batching_parameters_file',
      /server_options\.batching_parameters_file is set without setting server_options\.enable_batching to true\./,
    ],
    ['config file and YAML', ['--model_config_file=a', '--config=b.yaml'], 'config', /both give the model config/],
    [
      'model_name without base path',
      ['--model_name=m'],
      'model_base_path',
      /Both server_options\.model_base_path and server_options\.model_config_file are empty!/,
    ],
    ['no saved_model_tags', ['--saved_model_tags=,'], 'saved_model_tags', /no tag given/],
    ['timeout 0', ['--rest_api_timeout_in_ms=0'], 'rest_api_timeout_in_ms', /must be positive/],
    [
      'unknown batching mode',
      ['--batching_mode=eager'],
      'batching_mode',
      /Illegal value 'eager' for flag 'batching_mode': expected fixed or adaptive/,
    ],
    ['negative latency target', ['--batching_latency_target_ms=-1'], 'batching_latency_target_ms', /must not be negative/],
    [
      'latency target under fixed batching',
      ['--enable_batching', '--batching_latency_target_ms=40'],
      'batching_latency_target_ms',
      /read by adaptive batching only, and --batching_mode is fixed/,
    ],
    ['unknown runtime', ['--runtime=tpu'], 'runtime', /expected auto, onnx, onnx-cuda, wasm, cpu, tfjs-node, tfjs-node-gpu/],
    [
      'negative batching poll',
      ['--batching_parameters_poll_wait_seconds=-1'],
      'batching_parameters_poll_wait_seconds',
      /must not be negative/,
    ],
  ];
  for (const [what, argv, flag, re] of BAD) {
    it(`refuses: ${what}`, () => assert.throws(() => resolveServerOptions(parseFlags(argv), '/w'), flagError(flag, re)));
  }
});

describe('--help', () => {
  const help = helpText();
  it("lists acted flags with defaults and TF Serving's help, then tfgate's own", () => {
    assert.match(help, /\t--port=8500 +\tint32\tTCP port to listen on for gRPC\/HTTP API/);
    assert.match(help, /\t--model_name="default" +\tstring\tname of model/);
    assert.match(help, /\t--rest_api_port=8501 +\tint32\t.*tfgate default 8501 \(TF Serving: 0\)/);
    assert.match(help, /tfgate's own flags:\n(.*\n)*\t--rest_api_host="0\.0\.0\.0"/);
  });
  it('lists every flag once, under the heading of its handling, with the reason', () => {
    for (const name of Object.keys(FLAGS)) assert.equal(help.split(`\t--${name}=`).length, 2, name);
    const section = (heading: string) => help.slice(help.indexOf(heading)).split('\n\n')[0];
    const refusedPart = section('Refused when set');
    const harmlessPart = section('Accepted; they change nothing here');
    const runtimePart = section('Honoured or refused according to the runtime');
    for (const [name, spec] of Object.entries(FLAGS)) {
      assert.equal(refusedPart.includes(`\t--${name}=`), spec.handling.kind === 'refused', name);
      assert.equal(harmlessPart.includes(`\t--${name}=`), spec.handling.kind === 'harmless', name);
      assert.equal(runtimePart.includes(`\t--${name}=`), spec.handling.kind === 'runtime', name);
    }
    assert.match(harmlessPart, /\t--skip_initialize_tpu=false *\tbool\tWhether to skip auto initializing TPU\. \[tfgate: no TPU here\]/);
    assert.match(
      runtimePart,
      /\t--per_process_gpu_memory_fraction=0\.000000 *\tfloat\t.*\[tfgate: refused with --runtime onnx-cuda or tfjs-node-gpu/,
    );
    assert.doesNotMatch(help, /no GPU\]|\(gRPC only\)\n.*per_process/);
  });
});
