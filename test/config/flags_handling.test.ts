// The rule kept by the flag table: no flag that changes security, results or resource bounds
// is accepted and ignored. Each flag is honoured, refused when set (start-up and --dry_run
// stop naming it, exit 2), decided by the runtime in force, or harmless with a reason.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { FlagError, FLAGS, parseServerOptions, type FlagName, type FlagSpec } from '../../src/config/flags.js';
import { checkEngineForRuntime, EngineSettingRefused } from '../../src/config/session_config.js';
import { TFGATE_BIN } from '../helpers/server_process.js';
import { REPO_ROOT } from '../helpers/paths.js';

/** Flags accepted and ignored: none (the TLS flags, the last, are honoured or refused). Nothing may join this list. */
const NOT_YET_HONOURED: string[] = [];

/** A value other than the flag's default, as it would be written on the command line. */
function otherValue(spec: FlagSpec): string {
  switch (spec.type) {
    case 'bool':
      return String(!spec.default);
    case 'string':
      return 'bfloat16';
    case 'float':
      return spec.default === 0 ? '0.5' : '0';
    default:
      return String((spec.default as number) + 1);
  }
}

const entries = Object.entries(FLAGS) as Array<[FlagName, FlagSpec]>;
const ofKind = (kind: string) => entries.filter(([, s]) => s.handling.kind === kind);

describe('flag table: nothing accepted and ignored', () => {
  it('gives every harmless, refused and runtime-decided flag its reason', () => {
    for (const [name, spec] of entries) {
      const h = spec.handling;
      if (h.kind === 'honoured' || h.kind === 'ignored') continue;
      const reason = h.kind === 'runtime' ? h.how : h.why;
      assert.ok(reason.trim().length >= 10, `--${name} is ${h.kind} without a reason`);
    }
  });

  it('has no flag accepted and ignored but the ones another part makes honoured', () => {
    assert.deepEqual(
      ofKind('ignored').map(([n]) => n),
      NOT_YET_HONOURED,
    );
  });

  it("marks none of tfgate's own flags other than honoured", () => {
    assert.deepEqual(
      entries.filter(([, s]) => s.own && s.handling.kind !== 'honoured').map(([n]) => n),
      [],
    );
  });

  for (const [name, spec] of ofKind('refused')) {
    it(`refuses --${name} given a value other than its default, naming it and why`, () => {
      const value = otherValue(spec);
      assert.throws(
        () => parseServerOptions([`--${name}=${value}`], '/w'),
        (e: unknown) =>
          e instanceof FlagError &&
          e.flag === name &&
          e.message.startsWith(`--${name}=`) &&
          e.message.includes(spec.handling.kind === 'refused' ? spec.handling.why : '?'),
      );
      // Its default, given explicitly, is fine.
      parseServerOptions([`--${name}=${String(spec.default)}`], '/w');
    });
  }

  for (const [name, spec] of ofKind('runtime')) {
    it(`--${name} given: refused with a GPU runtime naming it, logged with a CPU one`, () => {
      const options = parseServerOptions([`--${name}=${otherValue(spec)}`], '/w');
      for (const runtime of ['onnx-cuda', 'tfjs-node-gpu']) {
        assert.throws(
          () => checkEngineForRuntime(options.engine, runtime),
          (e: unknown) => e instanceof EngineSettingRefused && e.flag === name && e.message.includes(`--${name}`),
          runtime,
        );
      }
      for (const runtime of ['onnx+embedded', 'embedded', 'tfjs-node']) {
        const notes = checkEngineForRuntime(options.engine, runtime);
        assert.equal(notes.length, 1, runtime);
        assert.match(notes[0], new RegExp(`--${name}=.*uses no GPU`));
      }
    });
  }

  it('logs each harmless flag given, with its reason', () => {
    const o = parseServerOptions(['--grpc_max_threads=8', '--skip_initialize_tpu', '--port=9000'], '/w');
    assert.deepEqual(o.harmlessSettingsGiven, [
      { name: '--grpc_max_threads', why: (FLAGS.grpc_max_threads.handling as { why: string }).why },
      { name: '--skip_initialize_tpu', why: 'no TPU here' },
    ]);
  });
});

describe('--dry_run stops on a refused flag (real process)', () => {
  const dryRun = (args: string[]) =>
    spawnSync(process.execPath, [TFGATE_BIN, '--dry_run', '--model_base_path=/nonexistent', ...args], {
      cwd: REPO_ROOT,
      encoding: 'utf8',
      timeout: 60000,
    });

  it('a refused flag: exit 2, the flag and the reason on stderr', () => {
    const r = dryRun(['--prefer_tflite_model']);
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stderr, /--prefer_tflite_model=true is refused: no engine here runs TensorFlow Lite models/);
  });

  it('a GPU memory fraction with --runtime=onnx-cuda: exit 2 naming the flag', () => {
    const r = dryRun(['--runtime=onnx-cuda', '--per_process_gpu_memory_fraction=0.4']);
    assert.equal(r.status, 2, r.stderr);
    assert.match(
      r.stderr,
      /--per_process_gpu_memory_fraction=0\.4 is refused with runtime onnx-cuda: onnxruntime-node gives the CUDA execution provider only its deviceId/,
    );
  });
});
