// gRPC throughput bench: Predict throughput over gRPC beside REST :predict on the tiny half_plus_two
// model, one tfgate process serving both, measured in the same run with the same number of
// concurrent callers (Node clients in this process, rounds interleaved, best round kept).
//   npm run bench:grpc [-- --seconds 6 --concurrency 32]
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as grpc from '@grpc/grpc-js';
import { serviceDefinition } from '../src/grpc/service_definitions.js';
import { runLoad, summary, type LoadResult } from './load/generator.js';
import { LatencyRecorder } from './load/latency_recorder.js';
import { numberArg } from './load/args.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const REPO = path.resolve(here, '..', '..');
const SECONDS = numberArg('seconds', 6);
const CONCURRENCY = numberArg('concurrency', 32);
const REST_PORT = 18511;
const GRPC_PORT = 18510;

function start(): Promise<ChildProcess> {
  const proc = spawn(
    process.execPath,
    [
      path.join(REPO, 'bin', 'tfgate'),
      `--model_base_path=${path.join(REPO, 'model_repository', 'half_plus_two')}`,
      '--model_name=half_plus_two',
      `--rest_api_port=${REST_PORT}`,
      '--rest_api_host=127.0.0.1',
      `--port=${GRPC_PORT}`,
    ],
    { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  return new Promise((resolve, reject) => {
    let out = '';
    proc.stderr!.on('data', (d) => {
      out += d;
      // The ports open while the model loads: wait for the first loads to settle too.
      if (/Running gRPC ModelServer/.test(out) && out.includes('"initial_loads_settled"')) resolve(proc);
    });
    proc.once('exit', (code) => reject(new Error(`tfgate exited ${code}: ${out}`)));
  });
}

/** CONCURRENCY loops of unary Predict calls over one channel, for SECONDS. */
async function grpcLoad(client: grpc.Client & Record<string, Function>, request: object): Promise<LoadResult> {
  const recorder = new LatencyRecorder();
  let sent = 0;
  const start = performance.now();
  const end = start + SECONDS * 1000;
  const once = () =>
    new Promise<grpc.ServiceError | null>((resolve) => client.Predict(request, (err: grpc.ServiceError | null) => resolve(err)));
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (performance.now() < end) {
        const t0 = performance.now();
        sent++;
        const err = await once();
        if (err) recorder.error(`gRPC ${grpc.status[err.code] ?? err.code}`);
        recorder.record(performance.now() - t0);
      }
    }),
  );
  const seconds = (performance.now() - start) / 1000;
  return { recorder, seconds, sent, rps: sent / seconds };
}

/** CPU seconds (user + system) the process has used, from /proc. */
function cpuSeconds(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** Runs `load`, adding the server's CPU time per request (where the cost is: server or client). */
async function measured(pid: number, load: () => Promise<LoadResult>): Promise<LoadResult & { serverCpuMsPerRequest: number }> {
  const c0 = cpuSeconds(pid);
  const r = await load();
  return { ...r, serverCpuMsPerRequest: ((cpuSeconds(pid) - c0) * 1000) / Math.max(1, r.sent) };
}

async function main() {
  const server = await start();
  const Client = grpc.makeGenericClientConstructor(serviceDefinition('tensorflow.serving.PredictionService'), 'PredictionService');
  const client = new Client(`127.0.0.1:${GRPC_PORT}`, grpc.credentials.createInsecure()) as unknown as grpc.Client &
    Record<string, Function>;
  const request = {
    modelSpec: { name: 'half_plus_two' },
    inputs: { x: { dtype: 'DT_FLOAT', tensorShape: { dim: [{ size: 3 }, { size: 1 }] }, floatVal: [1, 2, 5] } },
  };
  const body = JSON.stringify({ instances: [[1.0], [2.0], [5.0]] });
  console.log(
    `half_plus_two, 3 rows per request, ${CONCURRENCY} concurrent callers, ${SECONDS} s per measurement, ${os.cpus().length} cores shared by client and server`,
  );
  type Run = LoadResult & { serverCpuMsPerRequest: number };
  const rest: Run[] = [];
  const rpc: Run[] = [];
  const pid = server.pid!;
  for (let round = 0; round < 2; round++) {
    rest.push(
      await measured(pid, () =>
        runLoad({
          url: `http://127.0.0.1:${REST_PORT}/v1/models/half_plus_two:predict`,
          method: 'POST',
          body,
          mode: { kind: 'concurrency', connections: CONCURRENCY },
          durationMs: SECONDS * 1000,
        }),
      ),
    );
    rpc.push(await measured(pid, () => grpcLoad(client, request)));
  }
  const best = (rs: Run[]) => rs.reduce((a, b) => (b.rps > a.rps ? b : a));
  const r = best(rest);
  const g = best(rpc);
  console.log(`REST :predict:  ${summary(r)}; server CPU ${r.serverCpuMsPerRequest.toFixed(3)} ms/request`);
  console.log(`gRPC Predict:   ${summary(g)}; server CPU ${g.serverCpuMsPerRequest.toFixed(3)} ms/request`);
  const p99 = (x: LoadResult) => x.recorder.percentileMs(99);
  console.log(`ratio gRPC/REST: ${(g.rps / r.rps).toFixed(2)} requests/s, p99 ${p99(g).toFixed(2)} vs ${p99(r).toFixed(2)} ms`);
  client.close();
  server.kill('SIGTERM');
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
