// Batching saturation bench: batching on a model whose per-item cost falls steeply with batch size (a deep,
// narrow MLP: per-op dispatch dominates at batch 1, as kernel launches do on a GPU).
//  1. the model's offline T(batch) curve, in this process;
//  2. closed-loop users at light, medium and saturating load against tfgate with batching
//     off, TF Serving-style fixed batch_timeout_micros (a sweep) and tfgate's adaptive mode;
//  3. the targets: saturated throughput ≥ 0.9 × offline throughput at max_batch_size;
//     adaptive at one user ≤ batch-1 latency + 2 ms; adaptive mean ≤ 1.0 × the best fixed
//     timeout at each load.
// Every server is a separate tfgate process with one executor and num_batch_threads 1, all
// started up front (an idle server costs nothing) so that rounds can interleave them: a noisy
// spell on this shared machine then hits every set-up, not whichever ran during it. Each
// cell is the mean over rounds. Closed-loop clients run in this process; the saturating
// load uses wrk (C, far lighter) when it is installed.
//   npm run bench:batching [-- --seconds 3 --rounds 3 --depth 16 --width 512]
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeMlpSavedModel } from '../test_util/savedmodel/model_zoo.js';
import { EmbeddedRuntime } from '../src/runtimes/embedded/embedded_runtime.js';
import { runLoad } from './load/generator.js';
import { hasWrk, runWrk } from './load/wrk.js';
import { numberArg } from './load/args.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const REPO = path.resolve(here, '..', '..');
const SECONDS = numberArg('seconds', 3);
const ROUNDS = numberArg('rounds', 3);
const INPUT = numberArg('input', 256);
const WIDTH = numberArg('width', 512);
const DEPTH = numberArg('depth', 16);
const MAX_BATCH = 32;
const SATURATING_CLIENTS = 64;

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const srv = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

async function start(args: string[]): Promise<{ proc: ChildProcess; port: number }> {
  args = [...args, `--rest_api_port=${await freePort()}`];
  const proc = spawn(process.execPath, [path.join(REPO, 'bin', 'tfgate'), ...args], { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((resolve, reject) => {
    let out = '';
    const on = (d: Buffer) => {
      out += d;
      const m = /Exporting HTTP\/REST API at:[\d.]+:(\d+)/.exec(out);
      if (m) resolve({ proc, port: Number(m[1]) });
    };
    proc.stdout!.on('data', on);
    proc.stderr!.on('data', on);
    proc.once('exit', (c) => reject(new Error(`exited ${c}: ${out}`)));
  });
}

async function waitAvailable(port: number): Promise<void> {
  for (let i = 0; i < 300; i++) {
    const r = await fetch(`http://127.0.0.1:${port}/v1/models/mlp`).catch(() => undefined);
    if (r?.ok && (await r.json()).model_version_status?.[0]?.state === 'AVAILABLE') return;
    await new Promise((res) => setTimeout(res, 100));
  }
  throw new Error('model not available');
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);

interface Load {
  label: string;
  users: number;
  thinkMs?: [number, number];
}

/** One cell of one round, from the Node generator or from wrk (which reports a summary only). */
interface Measured {
  rps: number;
  errors: number;
  meanMs: number;
  p99Ms: number;
}

async function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tfgate-bench-batching-'));
  const version = path.join(dir, 'mlp', '1');
  await writeMlpSavedModel(version, {
    inputDim: INPUT,
    hiddenSizes: new Array(DEPTH).fill(WIDTH),
    outputDim: 16,
    activation: 'relu',
    seed: 3,
  });

  // 1. Offline T(batch), the model alone in this process.
  const servable = await new EmbeddedRuntime('auto').load(version, { tags: ['serve'] });
  const T = new Map<number, number>();
  for (const b of [1, 2, 4, 8, 16, 32]) {
    const x = { dtype: 'float32' as const, shape: [b, INPUT], values: new Float32Array(b * INPUT).fill(0.5) };
    for (let i = 0; i < 5; i++) await servable.run('serving_default', { x });
    const t0 = performance.now();
    let n = 0;
    while (performance.now() - t0 < 1500) {
      await servable.run('serving_default', { x });
      n++;
    }
    T.set(b, (performance.now() - t0) / n);
  }
  servable.dispose();
  const t1 = T.get(1)!;
  const offlineMax = (MAX_BATCH * 1000) / T.get(MAX_BATCH)!; // items/s
  console.log(`model: MLP ${INPUT}-${WIDTH}×${DEPTH}-16 relu, backend WASM, one thread`);
  console.log('| batch | T(batch) ms | ms per item | per item ÷ batch 1 |');
  console.log('|---:|---:|---:|---:|');
  for (const [b, ms] of T) console.log(`| ${b} | ${ms.toFixed(3)} | ${(ms / b).toFixed(3)} | ${(ms / b / t1).toFixed(3)} |`);
  console.log(
    `offline throughput at batch ${MAX_BATCH}: ${offlineMax.toFixed(0)} items/s; at batch 1: ${(1000 / t1).toFixed(0)} items/s\n`,
  );

  // 2. Set-ups × loads. Timeouts are scaled to the model: fractions and multiples of T(1).
  const timeoutsMicros = [0, 0.25, 0.5, 1, 2].map((f) => Math.round(f * t1 * 1000));
  const setups: Array<{ label: string; args: string[]; fixedTimeout?: number; adaptive?: boolean }> = [
    { label: 'batching off', args: [] },
    ...timeoutsMicros.map((t) => ({
      label: `fixed timeout ${t} µs`,
      args: ['--enable_batching', `--batching_parameters_file=${cfg(dir, t)}`],
      fixedTimeout: t,
    })),
    {
      label: 'adaptive',
      args: ['--enable_batching', `--batching_parameters_file=${cfg(dir, 0)}`, '--batching_mode=adaptive'],
      adaptive: true,
    },
  ];
  // Think time so that `users` offer about the given share of batch-1 capacity, ±50 % spread.
  const think = (users: number, load: number): [number, number] => {
    const m = (users * t1) / load;
    return [0.5 * m, 1.5 * m];
  };
  const loads: Load[] = [
    { label: '1 user', users: 1, thinkMs: think(1, 0.1) },
    { label: 'light (8 users, ~40 % of batch-1 capacity)', users: 8, thinkMs: think(8, 0.4) },
    { label: 'medium (32 users, ~150 % of batch-1 capacity)', users: 32, thinkMs: think(32, 1.5) },
    { label: `saturating (${SATURATING_CLIENTS} users, no think time)`, users: SATURATING_CLIENTS },
  ];
  const body = JSON.stringify({ instances: [Array.from({ length: INPUT }, (_, i) => Math.sin(i))] });
  const useWrk = hasWrk();
  const servers = new Map<string, { proc: ChildProcess; url: string }>();
  for (const s of setups) {
    const server = await start([
      `--model_base_path=${path.join(dir, 'mlp')}`,
      '--model_name=mlp',
      '--rest_api_host=127.0.0.1',
      '--port=0',
      '--num_executors=1',
      ...s.args,
    ]);
    await waitAvailable(server.port);
    const url = `http://127.0.0.1:${server.port}/v1/models/mlp:predict`;
    await runLoad({ url, method: 'POST', body, mode: { kind: 'concurrency', connections: 8 }, durationMs: 500 }); // warm up
    servers.set(s.label, { proc: server.proc, url });
  }
  // results[setup][load] = one measurement per round.
  const results = new Map<string, Map<string, Measured[]>>(setups.map((s) => [s.label, new Map(loads.map((l) => [l.label, []]))]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const l of loads) {
      for (const s of setups) {
        const { url } = servers.get(s.label)!;
        let r: Measured;
        if (l.thinkMs === undefined && useWrk) {
          const w = runWrk(url, body, l.users, SECONDS);
          r = { rps: w.rps, errors: w.non2xx, meanMs: w.meanMs, p99Ms: w.p99Ms };
        } else {
          const mode = l.thinkMs
            ? ({ kind: 'closed', users: l.users, thinkMs: l.thinkMs } as const)
            : ({ kind: 'concurrency', connections: l.users } as const);
          const g = await runLoad({ url, method: 'POST', body, mode, durationMs: SECONDS * 1000 });
          const s = g.recorder.summary();
          r = { rps: g.rps, errors: s.errors, meanMs: s.meanMs, p99Ms: s.p99Ms };
        }
        results.get(s.label)!.get(l.label)!.push(r);
      }
      process.stderr.write(`round ${round + 1}/${ROUNDS}: ${l.label} measured on every set-up\n`);
    }
  }
  for (const { proc } of servers.values()) {
    proc.kill();
    await new Promise((res) => proc.once('exit', res));
  }
  const meanLatency = (rs: Measured[]) => mean(rs.map((r) => r.meanMs));
  const p99 = (rs: Measured[]) => mean(rs.map((r) => r.p99Ms));
  const rps = (rs: Measured[]) => mean(rs.map((r) => r.rps));
  const errors = (rs: Measured[]) => rs.reduce((n, r) => n + r.errors, 0);

  console.log(
    `closed-loop users (uniform think time ±50 %), ${SECONDS} s per cell and round, ${ROUNDS} rounds interleaved; mean / p99 latency in ms (req/s; errors)${useWrk ? '; saturating load by wrk' : ''}`,
  );
  console.log(`| set-up | ${loads.map((l) => l.label).join(' | ')} |`);
  console.log(`|---|${loads.map(() => '---:').join('|')}|`);
  for (const [label, byLoad] of results) {
    const cells = loads.map((l) => {
      const rs = byLoad.get(l.label)!;
      return `${meanLatency(rs).toFixed(2)} / ${p99(rs).toFixed(2)} (${rps(rs).toFixed(0)}; ${errors(rs)})`;
    });
    console.log(`| ${label} | ${cells.join(' | ')} |`);
  }

  // 3. Targets.
  console.log('\ntargets:');
  const adaptive = results.get('adaptive')!;
  const saturating = loads[loads.length - 1].label;
  const satRps = rps(adaptive.get(saturating)!);
  console.log(
    `- saturated throughput (adaptive): ${satRps.toFixed(0)} req/s = ${(satRps / offlineMax).toFixed(2)} × offline batch-${MAX_BATCH} (target ≥ 0.9)`,
  );
  const bestFixedSat = Math.max(...timeoutsMicros.map((t) => rps(results.get(`fixed timeout ${t} µs`)!.get(saturating)!)));
  console.log(
    `- saturated throughput (best fixed timeout): ${bestFixedSat.toFixed(0)} req/s = ${(bestFixedSat / offlineMax).toFixed(2)} × offline`,
  );
  const oneUser = meanLatency(adaptive.get(loads[0].label)!);
  console.log(
    `- adaptive at 1 user: ${oneUser.toFixed(2)} ms vs batch-1 latency ${t1.toFixed(2)} ms: +${(oneUser - t1).toFixed(2)} ms (target ≤ +2 ms)`,
  );
  const offOneUser = meanLatency(results.get('batching off')!.get(loads[0].label)!);
  console.log(
    `  (the same request with batching off, i.e. the server's own batch-1 latency over HTTP: ${offOneUser.toFixed(2)} ms; adaptive adds ${(oneUser - offOneUser).toFixed(2)} ms)`,
  );
  for (const l of loads) {
    const fixed = timeoutsMicros.map((t) => [t, meanLatency(results.get(`fixed timeout ${t} µs`)!.get(l.label)!)] as const);
    const [bestT, best] = fixed.reduce((a, b) => (b[1] < a[1] ? b : a));
    const a = meanLatency(adaptive.get(l.label)!);
    console.log(
      `- ${l.label}: adaptive mean ${a.toFixed(2)} ms, best fixed (${bestT} µs) ${best.toFixed(2)} ms: ratio ${(a / best).toFixed(3)} (target ≤ 1.0)`,
    );
  }
  fs.rmSync(dir, { recursive: true, force: true });
}

function cfg(dir: string, timeoutMicros: number): string {
  const file = path.join(dir, `batching_${timeoutMicros}.cfg`);
  fs.writeFileSync(
    file,
    `max_batch_size { value: ${MAX_BATCH} }\nbatch_timeout_micros { value: ${timeoutMicros} }\nmax_enqueued_batches { value: 1000 }\nnum_batch_threads { value: 1 }\n`,
  );
  return file;
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
