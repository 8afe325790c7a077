// The deployment files as far as this machine can check them without a Docker engine:
// docker-compose.yml validated by Debian's docker-compose, and each image's start command
// (Dockerfile ENTRYPOINT + the compose service's command, with compose's volumes mapped onto
// this checkout) run through tfgate's own flag parser and config loading with --dry_run.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { parse as parseYaml } from 'yaml';
import { REPO_ROOT } from '../helpers/paths.js';

const run = promisify(execFile);
const hasDockerCompose = spawnSync('docker-compose', ['version'], { stdio: 'ignore' }).status === 0;
const NO_COMPOSE = "skipped: docker-compose is not on PATH (.ci/run installs Debian's package)";

interface ComposeService {
  image?: string;
  command?: string[];
  environment?: Record<string, string>;
  volumes?: string[];
  ports?: unknown[];
  profiles?: string[];
  healthcheck?: { test: string[] };
  build?: { context: string; dockerfile?: string };
  deploy?: { resources?: { reservations?: { devices?: { driver: string; count: number; capabilities: string[] }[] } } };
}

/** docker-compose's own resolved view of the file (profiles given are included). */
async function composeConfig(profiles: string[] = []): Promise<{ services: Record<string, ComposeService> }> {
  const args = [...profiles.flatMap((p) => ['--profile', p]), '-f', path.join(REPO_ROOT, 'docker-compose.yml'), 'config'];
  const { stdout } = await run('docker-compose', args, { cwd: REPO_ROOT });
  return parseYaml(stdout);
}

describe('docker-compose.yml', () => {
  it('is valid for docker-compose and serves ./model_repository read-only with ./batching', async (t) => {
    if (!hasDockerCompose) return t.skip(NO_COMPOSE);
    const { services } = await composeConfig();
    assert.equal(services.tfgate.profiles, undefined, '`docker compose up` starts the CPU service');
    assert.deepEqual(services['tfgate-gpu'].profiles, ['gpu'], 'the GPU service only with --profile gpu');
    const s = services.tfgate;
    assert.ok(
      s.volumes!.some((v) => v === `${path.join(REPO_ROOT, 'model_repository')}:/models:ro`),
      JSON.stringify(s.volumes),
    );
    assert.ok(s.volumes!.some((v) => v === `${path.join(REPO_ROOT, 'batching')}:/etc/tfgate/batching:ro`));
    assert.ok(s.command!.includes('--batching_parameters_file=/etc/tfgate/batching/batching.cfg'));
    assert.match(s.healthcheck!.test.join(' '), /127\.0\.0\.1:8501\/monitoring\/tfgate\/ready'/);
  });

  it('has a GPU service under the gpu profile, with an NVIDIA device reservation and the GPU image', async (t) => {
    if (!hasDockerCompose) return t.skip(NO_COMPOSE);
    const { services } = await composeConfig(['gpu']);
    const gpu = services['tfgate-gpu'];
    assert.ok(gpu, 'tfgate-gpu service');
    assert.equal(gpu.build!.dockerfile, 'Dockerfile.gpu');
    assert.deepEqual(gpu.deploy!.resources!.reservations!.devices, [{ driver: 'nvidia', count: 1, capabilities: ['gpu'] }]);
    assert.deepEqual(gpu.command, services.tfgate.command, 'same flags as the CPU service');
  });

  it('a broken compose file is refused (the check can fail)', async (t) => {
    if (!hasDockerCompose) return t.skip(NO_COMPOSE);
    const dir = fs.mkdtempSync(path.join(REPO_ROOT, '.compose-check-'));
    try {
      fs.writeFileSync(path.join(dir, 'docker-compose.yml'), 'services:\n  tfgate:\n    image: x\n    ports: 8501\n');
      await assert.rejects(run('docker-compose', ['-f', path.join(dir, 'docker-compose.yml'), 'config'], { cwd: dir }));
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

/** The ENTRYPOINT exec array and ENV defaults of a Dockerfile's last stage, or of stage `target`. */
function imageStart(dockerfile: string, target?: string): { entrypoint: string[]; env: Record<string, string> } {
  const text = fs.readFileSync(path.join(REPO_ROOT, dockerfile), 'utf8').replace(/\\\n/g, ' ');
  const stages = text.split(/\n(?=FROM )/);
  const lastStage = target ? stages.find((st) => new RegExp(`^FROM \\S+ AS ${target}\\s*\\n`).test(st)) : stages.at(-1);
  assert.ok(lastStage, `${dockerfile}: stage ${target}`);
  const entry = /^ENTRYPOINT (\[.*\])$/m.exec(lastStage);
  assert.ok(entry, `${dockerfile}: ENTRYPOINT in exec form`);
  const env: Record<string, string> = {};
  for (const m of lastStage.matchAll(/^ENV (.*)$/gm)) for (const kv of m[1].matchAll(/(\w+)=(\S+)/g)) env[kv[1]] = kv[2];
  return { entrypoint: JSON.parse(entry[1]) as string[], env };
}

/**
 * Runs an image's start command here: the paths compose mounts (/models, the batching
 * folder) and the image's /app are mapped onto this checkout, then --dry_run is appended.
 */
function dryRunImage(dockerfile: string, command: string[], env: Record<string, string>, target?: string) {
  const mounts: [string, string][] = [
    ['/etc/tfgate/batching', path.join(REPO_ROOT, 'batching')],
    ['/models', path.join(REPO_ROOT, 'model_repository')],
    ['/app', REPO_ROOT],
  ];
  // Whole leading path segments only: /models/models.config is <repo>/model_repository/models.config.
  const local = (s: string) =>
    mounts.reduce((acc, [from, to]) => acc.replace(new RegExp(`(?<=^|[\\s="'])${from}(?=/|$|[\\s"'])`, 'g'), to), s);
  const image = imageStart(dockerfile, target);
  const [shell, ...args] = image.entrypoint.map(local);
  const merged = { ...image.env, ...env };
  const p = spawnSync(shell, [...args, ...command.map(local), '--dry_run'], {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH, ...Object.fromEntries(Object.entries(merged).map(([k, v]) => [k, local(v)])) },
    encoding: 'utf8',
  });
  return { status: p.status, stdout: p.stdout, stderr: p.stderr };
}

const COMPOSE_COMMAND = [
  '--model_config_file=/models/models.config',
  '--model_config_file_poll_wait_seconds=30',
  '--enable_batching',
  '--batching_parameters_file=/etc/tfgate/batching/batching.cfg',
  '--file_system_poll_wait_seconds=1',
];

describe("image start commands (dry run through tfgate's flag parser)", () => {
  it("the CPU image with compose's command: TF Serving's ports, every example model of models.config, batching.cfg read", async (t) => {
    if (hasDockerCompose) {
      const { services } = await composeConfig();
      assert.deepEqual(services.tfgate.command, COMPOSE_COMMAND, "the command this test runs is compose's");
    } else t.diagnostic(NO_COMPOSE);
    const r = dryRunImage('Dockerfile', COMPOSE_COMMAND, { MODEL_NAME: 'half_plus_two' });
    assert.equal(r.status, 0, r.stderr);
    const summary = JSON.parse(r.stdout) as {
      rest_api: string;
      grpc_port: number;
      models: { name: string; base_path: string }[];
      batching: { max_batch_size: number };
    };
    assert.equal(summary.rest_api, '0.0.0.0:8501');
    assert.equal(summary.grpc_port, 8500);
    const examples = fs
      .readdirSync(path.join(REPO_ROOT, 'model_repository'), { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name);
    assert.deepEqual(
      summary.models.map((m) => [m.name, m.base_path]).sort(),
      examples.map((m) => [m, path.join(REPO_ROOT, 'model_repository', m)]).sort(),
      'models.config lists every example model',
    );
    const cfg = fs.readFileSync(path.join(REPO_ROOT, 'batching', 'batching.cfg'), 'utf8');
    assert.equal(summary.batching.max_batch_size, Number(/max_batch_size\s*{\s*value:\s*(\d+)/.exec(cfg)![1]));
  });

  it('extra docker run arguments reach the server, and a bad one fails the start with exit 2', () => {
    const ok = dryRunImage('Dockerfile', ['--rest_api_timeout_in_ms=1234'], { MODEL_NAME: 'half_plus_two' });
    assert.equal(ok.status, 0, ok.stderr);
    const bad = dryRunImage('Dockerfile', ['--enable_batching=maybe'], { MODEL_NAME: 'half_plus_two' });
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /enable_batching/);
  });

  it('MODEL_BASE_PATH and MODEL_NAME make the base path; a folder not there yet is no start error (it is polled, as in TF Serving)', () => {
    const r = dryRunImage('Dockerfile', [], { MODEL_NAME: 'half_plus_two', MODEL_BASE_PATH: '/nonexistent' });
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /"base_path": "\/nonexistent\/half_plus_two"/);
  });

  it("the GPU image's onnx-cuda target starts on ONNX Runtime's CUDA provider (the package imports here; the provider loads only on a GPU host)", () => {
    const r = dryRunImage('Dockerfile.gpu', COMPOSE_COMMAND, { MODEL_NAME: 'half_plus_two' }, 'onnx-cuda');
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /"runtime": "onnx-cuda"/);
  });

  it('the GPU image insists on tfjs-node-gpu: here, where it is not installed, the start fails naming it', async () => {
    const installed = await import('@tensorflow/tfjs-node-gpu' as string).then(
      () => true,
      () => false,
    );
    const r = dryRunImage('Dockerfile.gpu', COMPOSE_COMMAND, { MODEL_NAME: 'half_plus_two' });
    if (installed) {
      assert.equal(r.status, 0, r.stderr);
      assert.match(r.stdout, /"runtime": "tfjs-node-gpu"/);
    } else {
      assert.equal(r.status, 1);
      assert.match(r.stderr, /--runtime=tfjs-node-gpu: @tensorflow\/tfjs-node-gpu is not installed/);
    }
  });
});
