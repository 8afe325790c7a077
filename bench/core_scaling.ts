// Core scaling: the same loads on tfgate pinned to one core (`taskset -c 0`) and on every core,
// servers side by side, measured in one run with calls and rounds alternating between them so
// that a noisy spell hits both:
//  - saturated gRPC Predict requests/s on MCUNet (a 160×160×3 conv net, batch 1) from
//    --concurrency callers: target all cores ÷ one core ≥ 0.8 × cores;
//  - 1-user latency (one call at a time) of MCUNet: target all cores ÷ one core ≤ 0.6 on a
//    machine of 4+ cores (fewer: the figure is printed, not judged);
//  - lone batch-1 latency of MCUNet and the bench MLP (256 wide, 192 deep) with tfgate's
//    defaults against the former ones (one executor fewer than the cores, at most 4, each
//    session on one intra-op thread, no wide thread), printed.
// gRPC with tensor_content, so that the event loop's share is small beside the model's.
//   npm run bench:cores [-- --seconds 4 --rounds 3 --concurrency 16 --requests 40]
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { numberArg } from './load/args.js';
import { freePort, REPO, TFGATE_BIN } from './report/processes.js';
import { writeMlpSavedModel } from '../test_util/savedmodel/model_zoo.js';
import { call, connect, type Clients } from '../test/helpers/grpc_client.js';

const SECONDS = numberArg('seconds', 4);
const ROUNDS = numberArg('rounds', 3);
const CONCURRENCY = numberArg('concurrency', 16);
const REQUESTS = numberArg('requests', 40);
const CORES = os.availableParallelism();
const OLD_EXECUTORS = Math.max(1, Math.min(CORES - 1, 4));
const MCUNET = path.join(REPO, 'test', 'corpus', 'models', 'mcunet');

interface Server {
  name: string;
  pid: number;
  clients: Clients;
  stop(): Promise<void>;
}

async function start(name: string, prefix: string[], flags: string[]): Promise<Server> {
  const [rest, grpcPort] = [await freePort(), await freePort()];
  const argv = [
    process.execPath,
    TFGATE_BIN,
    ...flags,
    `--rest_api_port=${rest}`,
    '--rest_api_host=127.0.0.1',
    `--port=${grpcPort}`,
    '--grpc_api_host=127.0.0.1',
  ];
  const proc = spawn(prefix.length ? prefix[0] : argv[0], [...prefix.slice(1), ...(prefix.length ? argv : argv.slice(1))], {
    cwd: REPO,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let out = '';
  proc.stderr!.on('data', (d) => (out = (out + d).slice(-200_000)));
  const exited = new Promise((r) => proc.once('exit', r));
  while (!out.includes('"initial_loads_settled"')) {
    if (proc.exitCode !== null) throw new Error(`${name}: tfgate exited ${proc.exitCode}: ${out.slice(-3000)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  const clients = connect(`127.0.0.1:${grpcPort}`);
  return {
    name,
    pid: proc.pid!,
    clients,
    stop: async () => {
      clients.close();
      if (proc.exitCode === null) proc.kill('SIGTERM');
      await exited;
    },
  };
}

const floats = (n: number) => Buffer.from(Float32Array.from({ length: n }, (_, i) => Math.sin(i * 0.37)).buffer);
const MODELS = {
  mcunet: {
    model_spec: { name: 'mcunet' },
    inputs: {
      input: {
        dtype: 'DT_FLOAT',
        tensor_shape: { dim: [{ size: 1 }, { size: 3 }, { size: 160 }, { size: 160 }] },
        tensor_content: floats(3 * 160 * 160),
      },
    },
  },
  mlp: {
    model_spec: { name: 'mlp' },
    inputs: { x: { dtype: 'DT_FLOAT', tensor_shape: { dim: [{ size: 1 }, { size: 256 }] }, tensor_content: floats(256) } },
  },
};
type ModelName = keyof typeof MODELS;

const predict = (s: Server, model: ModelName) => call(s.clients.prediction, 'Predict', MODELS[model], 120_000);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Median ms of lone calls, the servers taking turns call by call. */
async function loneLatency(servers: Server[], model: ModelName): Promise<number[]> {
  const ms: number[][] = servers.map(() => []);
  for (let i = 0; i < REQUESTS; i++) {
    for (const [k, s] of servers.entries()) {
      const t0 = performance.now();
      await predict(s, model);
      ms[k].push(performance.now() - t0);
    }
  }
  return ms.map(median);
}

/** Requests/s of CONCURRENCY callers for SECONDS, and the failures. */
async function saturated(s: Server, model: ModelName): Promise<{ done: number; failed: number; seconds: number }> {
  let done = 0;
  let failed = 0;
  const t0 = performance.now();
  const end = t0 + SECONDS * 1000;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (performance.now() < end) {
        await predict(s, model).then(
          () => done++,
          () => failed++,
        );
      }
    }),
  );
  return { done, failed, seconds: (performance.now() - t0) / 1000 };
}

const rssMb = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) / 1024;
const verdict = (ok: boolean) => (ok ? 'met' : 'missed');

async function main() {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'tfgate-cores-'));
  const servers: Server[] = [];
  try {
    await writeMlpSavedModel(path.join(root, 'mlp', '1'), {
      inputDim: 256,
      hiddenSizes: new Array(192).fill(256),
      outputDim: 16,
      activation: 'relu',
      seed: 3,
    });
    const config = path.join(root, 'models.config');
    fs.writeFileSync(
      config,
      `model_config_list {\n  config { name: "mcunet" base_path: "${MCUNET}" model_platform: "tensorflow" }\n  config { name: "mlp" base_path: "${path.join(root, 'mlp')}" model_platform: "tensorflow" }\n}\n`,
    );
    const runtime = '--runtime=onnx';
    console.log(
      `${CORES} cores; load before: ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}`,
    );
    const one = await start('one core', ['taskset', '-c', '0'], [runtime, `--model_base_path=${MCUNET}`, '--model_name=mcunet']);
    servers.push(one);
    const all = await start('all cores', [], [runtime, `--model_config_file=${config}`]);
    servers.push(all);
    const old = await start(
      'former defaults',
      [],
      [runtime, `--model_config_file=${config}`, `--num_executors=${OLD_EXECUTORS}`, '--tensorflow_intra_op_parallelism=1'],
    );
    servers.push(old);
    console.log(
      `RSS after load (MB): one core ${rssMb(one.pid).toFixed(0)} (MCUNet only), all cores ${rssMb(all.pid).toFixed(0)}, former defaults ${rssMb(old.pid).toFixed(0)}`,
    );
    console.log(
      `pinned server sees ${
        execFileSync('taskset', ['-c', '-p', String(one.pid)], { encoding: 'utf8' })
          .trim()
          .split(': ')[1]
      } (cores ${CORES} for the others)`,
    );
    for (const s of servers) for (let i = 0; i < 5; i++) await predict(s, 'mcunet');
    for (const s of [all, old]) for (let i = 0; i < 5; i++) await predict(s, 'mlp');

    const [lone1, loneAll, loneOld] = await loneLatency([one, all, old], 'mcunet');
    const [mlpAll, mlpOld] = await loneLatency([all, old], 'mlp');

    const sums = new Map<Server, { done: number; failed: number; seconds: number }>([
      [one, { done: 0, failed: 0, seconds: 0 }],
      [all, { done: 0, failed: 0, seconds: 0 }],
    ]);
    for (let r = 0; r < ROUNDS; r++) {
      for (const s of r % 2 ? [all, one] : [one, all]) {
        const got = await saturated(s, 'mcunet');
        const sum = sums.get(s)!;
        sum.done += got.done;
        sum.failed += got.failed;
        sum.seconds += got.seconds;
      }
    }
    const rps = (s: Server) => sums.get(s)!.done / sums.get(s)!.seconds;
    const failures = [...sums.values()].reduce((n, s) => n + s.failed, 0);

    console.log(`\nMCUNet batch 1, saturated (${CONCURRENCY} gRPC callers, ${ROUNDS} rounds of ${SECONDS} s each, alternating):`);
    console.log(
      `  one core ${rps(one).toFixed(1)} req/s, all ${CORES} cores ${rps(all).toFixed(1)} req/s${failures ? `, ${failures} calls failed` : ''}`,
    );
    const scaling = rps(all) / rps(one);
    console.log(
      `  all ÷ one = ${scaling.toFixed(2)} (target ≥ 0.8 × ${CORES} = ${(0.8 * CORES).toFixed(1)}): ${verdict(scaling >= 0.8 * CORES && failures === 0)}`,
    );
    console.log(`\nMCUNet batch 1, one user (median of ${REQUESTS} lone calls each, alternating):`);
    const latencyRatio = loneAll / lone1;
    console.log(
      `  one core ${lone1.toFixed(2)} ms, all cores ${loneAll.toFixed(2)} ms: all ÷ one = ${latencyRatio.toFixed(2)} (target ≤ 0.6 on 4+ cores): ${CORES >= 4 ? verdict(latencyRatio <= 0.6) : `not judged on ${CORES} cores`}`,
    );
    console.log(
      `\nLone batch-1 latency, tfgate's defaults against the former ones (--num_executors=${OLD_EXECUTORS}, one intra-op thread, no wide thread), median of ${REQUESTS} alternating calls:`,
    );
    console.log(`  MCUNet: ${loneAll.toFixed(2)} ms against ${loneOld.toFixed(2)} ms (${(loneAll / loneOld).toFixed(2)}×)`);
    console.log(`  bench MLP: ${mlpAll.toFixed(2)} ms against ${mlpOld.toFixed(2)} ms (${(mlpAll / mlpOld).toFixed(2)}×)`);
    console.log(
      `\nload after: ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}`,
    );
  } finally {
    await Promise.all(servers.map((s) => s.stop()));
    fs.rmSync(root, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
