// REST throughput bench, two figures measured in one run:
//  1. :predict throughput on half_plus_two (batching off) against a bare Hono JSON echo
//     route, same client, same request body, each server in its own process;
//  2. p99 latency of GET /v1/models/{m} while a heavy model is saturated with predicts.
//   npm run bench:rest [-- --seconds 8 --concurrency 16]
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeMlpSavedModel } from '../test_util/savedmodel/model_zoo.js';
import { runLoad, summary, type LoadResult } from './load/generator.js';
import { hasWrk, runWrk } from './load/wrk.js';
import { numberArg } from './load/args.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const REPO = path.resolve(here, '..', '..');
const arg = numberArg;
const SECONDS = arg('seconds', 6);
const CONCURRENCY = arg('concurrency', 64);

async function startProcess(args: string[], ready: (line: string) => number | undefined): Promise<{ proc: ChildProcess; port: number }> {
  const proc = spawn(process.execPath, args, { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((resolve, reject) => {
    let out = '';
    const onData = (d: Buffer) => {
      out += d;
      for (const line of out.split('\n')) {
        const port = ready(line);
        if (port) return resolve({ proc, port });
      }
    };
    proc.stdout!.on('data', onData);
    proc.stderr!.on('data', onData);
    proc.once('exit', (code) => reject(new Error(`exited ${code}: ${out}`)));
  });
}

// The port opens while the model loads: wait for the first loads to settle too.
let tfgateListening: number | undefined;
let tfgateLoaded = false;
const tfgatePort = (line: string) => {
  tfgateListening ??= Number(/Exporting HTTP\/REST API at:[\d.]+:(\d+)/.exec(line)?.[1]) || undefined;
  tfgateLoaded ||= line.includes('"initial_loads_settled"');
  return tfgateLoaded ? tfgateListening : undefined;
};

async function main() {
  const body = JSON.stringify({ instances: [1.0, 2.0, 5.0] });
  const echo = await startProcess([path.join(here, 'load', 'echo_server.js')], (l) => Number(/listening (\d+)/.exec(l)?.[1]) || undefined);
  const tfgate = await startProcess(
    [
      path.join(REPO, 'bin', 'tfgate'),
      `--model_base_path=${path.join(REPO, 'model_repository', 'half_plus_two')}`,
      '--model_name=half_plus_two',
      '--rest_api_port=18501',
      '--rest_api_host=127.0.0.1',
      '--port=0',
    ],
    tfgatePort,
  );
  const echoUrl = `http://127.0.0.1:${echo.port}/echo`;
  const predictUrl = `http://127.0.0.1:${tfgate.port}/v1/models/half_plus_two:predict`;
  // Alternate the two servers so that machine noise hits both alike; keep each one's best.
  if (hasWrk()) {
    console.log(
      `client: wrk, 1 thread, ${CONCURRENCY} connections, ${SECONDS} s per measurement, ${os.cpus().length} cores shared by client and servers`,
    );
    const echoRuns = [];
    const predictRuns = [];
    for (let round = 0; round < 2; round++) {
      echoRuns.push(runWrk(echoUrl, body, CONCURRENCY, SECONDS));
      predictRuns.push(runWrk(predictUrl, body, CONCURRENCY, SECONDS));
    }
    const e = echoRuns.reduce((a, b) => (b.rps > a.rps ? b : a));
    const p = predictRuns.reduce((a, b) => (b.rps > a.rps ? b : a));
    console.log(`Hono JSON echo:          ${e.rps.toFixed(0)} req/s (${e.latency})`);
    console.log(`tfgate :predict (hp2):   ${p.rps.toFixed(0)} req/s (${p.latency})`);
    console.log(`ratio predict/echo: ${(p.rps / e.rps).toFixed(2)} (target ≥ 0.6)`);
  } else {
    console.log(
      `client: Node (wrk not installed), ${CONCURRENCY} keep-alive connections, ${SECONDS} s per measurement, ${os.cpus().length} cores shared by client and servers`,
    );
    const echoRuns: LoadResult[] = [];
    const predictRuns: LoadResult[] = [];
    for (let round = 0; round < 2; round++) {
      echoRuns.push(
        await runLoad({
          url: echoUrl,
          method: 'POST',
          body,
          mode: { kind: 'concurrency', connections: CONCURRENCY },
          durationMs: SECONDS * 1000,
        }),
      );
      predictRuns.push(
        await runLoad({
          url: predictUrl,
          method: 'POST',
          body,
          mode: { kind: 'concurrency', connections: CONCURRENCY },
          durationMs: SECONDS * 1000,
        }),
      );
    }
    const best = (rs: LoadResult[]) => rs.reduce((a, b) => (b.rps > a.rps ? b : a));
    const e = best(echoRuns);
    const p = best(predictRuns);
    console.log(`Hono JSON echo:          ${summary(e)}`);
    console.log(`tfgate :predict (hp2):   ${summary(p)}`);
    console.log(`ratio predict/echo: ${(p.rps / e.rps).toFixed(2)} (target ≥ 0.6)`);
  }
  echo.proc.kill();
  tfgate.proc.kill();

  // 2. A heavy model saturated with predicts; status requests must not wait behind inference.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tfgate-bench-heavy-'));
  // Heavy in compute (~0.6 GFLOP a request), light on the wire (8×256 floats in, 8×16 out).
  await writeMlpSavedModel(path.join(dir, 'heavy', '1'), {
    inputDim: 256,
    hiddenSizes: [4096, 4096, 4096],
    outputDim: 16,
    activation: 'relu',
    seed: 1,
  });
  const heavy = await startProcess(
    [
      path.join(REPO, 'bin', 'tfgate'),
      `--model_base_path=${path.join(dir, 'heavy')}`,
      '--model_name=heavy',
      '--rest_api_port=18502',
      '--rest_api_host=127.0.0.1',
      '--port=0',
      `--num_executors=${arg('heavy-executors', 1)}`,
    ],
    tfgatePort,
  );
  const batch = JSON.stringify({ instances: Array.from({ length: 8 }, (_, i) => Array.from({ length: 256 }, (_, j) => Math.sin(i + j))) });
  const load = runLoad({
    url: `http://127.0.0.1:${heavy.port}/v1/models/heavy:predict`,
    method: 'POST',
    body: batch,
    mode: { kind: 'concurrency', connections: 8 },
    durationMs: SECONDS * 1000 + 1000,
  });
  await new Promise((r) => setTimeout(r, 500));
  const status = await runLoad({
    url: `http://127.0.0.1:${heavy.port}/v1/models/heavy`,
    method: 'GET',
    mode: { kind: 'closed', users: 1, thinkMs: [20, 20] },
    durationMs: SECONDS * 1000,
  });
  const predicts = await load;
  console.log(`heavy :predict (8 rows, MLP 256-4096-4096-4096-16), 8 loops: ${summary(predicts)}`);
  console.log(`GET /v1/models/heavy meanwhile: ${summary(status)}`);
  console.log(`status p99 under saturation: ${status.recorder.percentileMs(99).toFixed(2)} ms (target ≤ 10 ms)`);
  heavy.proc.kill();
  fs.rmSync(dir, { recursive: true, force: true });
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
