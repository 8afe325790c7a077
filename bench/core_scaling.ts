// Core scaling: the same loads on tfgate pinned to one core (`taskset -c 0`) and on every core,
// servers side by side (the same models and flags), measured in one run with calls and rounds
// alternating between them so that a noisy spell hits both:
//  - saturated gRPC Predict requests/s on MCUNet (a 160×160×3 conv net, batch 1) from
//    --concurrency callers: target all cores ÷ one core ≥ 0.8 × cores;
//  - 1-user latency (one call at a time) of MCUNet: target all cores ÷ one core ≤ 0.6 on a
//    machine of 4+ cores (fewer: the figure is printed, not judged);
//  - lone batch-1 latency of MCUNet and the bench MLP (256 wide, 192 deep) with tfgate's
//    defaults against the former ones (one executor fewer than the cores, at most 4, each
//    session on one intra-op thread, no wide thread), printed.
// gRPC with tensor_content, the cheapest request to read (the event loop still takes a share
// of the server's CPU per request: printed with the rest).
// The callers run in this process, on the same cores as the servers, where a real deployment's
// clients run on other machines: so they do as little as a client can (each request framed
// once and sent as those bytes on Node's HTTP/2 client with grpc-js's headers; the answers'
// sizes checked, one in 16 decoded and compared with the server's first answer, read by
// grpc-js). The server reads and answers the same bytes as from a grpc-js client. Each
// saturated cell prints where the CPU went (the server's event loop and busy threads, with the
// time they waited for a core; the callers; other processes), read from /proc. The one-core
// server leaves the callers a core of their own; the all-cores server shares its cores with
// them, so the callers' CPU per request bounds the ratio below the core count (printed as the
// ceiling). One more pair of cells runs grpc-js callers, for their CPU per call beside these.
//   npm run bench:cores [-- --seconds 4 --rounds 3 --concurrency 16 --requests 40]
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { numberArg } from './load/args.js';
import { freePort, REPO, TFGATE_BIN } from './report/processes.js';
import { writeMlpSavedModel } from '../test_util/savedmodel/model_zoo.js';
import { connect, type Clients } from '../test/helpers/grpc_client.js';
import { grpcFrame, LeanGrpcCaller } from './load/lean_grpc_caller.js';

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
  /** Runs so far on wide and on narrow executor threads (tfgate_executor_runs_total). */
  runs(): Promise<{ wide: number; narrow: number }>;
  clients: Clients;
  /** The saturated cells' callers: one HTTP/2 connection, as grpc-js's one channel. */
  lean: LeanGrpcCaller;
  /** Each model's first answer from this server (read by grpc-js), which later answers must match. */
  answers: Map<ModelName, Answer>;
  /** Answers decoded and compared so far. */
  checked: number;
  stop(): Promise<void>;
}

const METRICS = '/monitoring/prometheus/metrics';

async function start(name: string, prefix: string[], flags: string[], monitoring: string): Promise<Server> {
  const [rest, grpcPort] = [await freePort(), await freePort()];
  const argv = [
    process.execPath,
    TFGATE_BIN,
    ...flags,
    `--rest_api_port=${rest}`,
    `--monitoring_config_file=${monitoring}`,
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
  const lean = new LeanGrpcCaller(`127.0.0.1:${grpcPort}`);
  const runs = async () => {
    const text = await (await fetch(`http://127.0.0.1:${rest}${METRICS}`)).text();
    const count = (width: string) => Number(new RegExp(`tfgate_executor_runs_total\\{width="${width}"\\} (\\d+)`).exec(text)?.[1] ?? 0);
    return { wide: count('wide'), narrow: count('narrow') };
  };
  return {
    name,
    pid: proc.pid!,
    runs,
    clients,
    lean,
    answers: new Map(),
    checked: 0,
    stop: async () => {
      clients.close();
      lean.close();
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

// The saturated cells' callers (bench/load/lean_grpc_caller.ts) send each request as bytes
// framed once, on Node's HTTP/2 client with grpc-js's headers, and count the answer's bytes;
// one answer in CHECK_EVERY (and every lone call's) is decoded and compared with the server's
// first answer, read by a grpc-js client. The callers share the cores measured, where a real
// deployment's clients run on other machines: the server reads and answers the same bytes
// either way, and the former callers (grpc-js, request pre-encoded, answer not decoded) run
// one more pair of cells, so that both callers' CPU per call is printed side by side.
const PREDICT = '/tensorflow.serving.PredictionService/Predict';
const DEADLINE_MS = 120_000;
const CHECK_EVERY = 16;
const encoded = new Map<ModelName, Buffer>();
const framed = new Map<ModelName, Buffer>();
function requestBytes(s: Server, model: ModelName): Buffer {
  let bytes = encoded.get(model);
  if (!bytes) {
    bytes = predictionCodec(s).requestSerialize(MODELS[model]);
    encoded.set(model, bytes);
    framed.set(model, grpcFrame(bytes));
  }
  return bytes;
}

/** The former callers' way: grpc-js, the request encoded once, the answer not decoded. */
function predictViaGrpcJs(s: Server, model: ModelName): Promise<Buffer> {
  const asIs = (b: Buffer) => b;
  return new Promise((resolve, reject) =>
    s.clients.prediction.makeUnaryRequest(
      PREDICT,
      asIs,
      asIs,
      requestBytes(s, model),
      { deadline: Date.now() + DEADLINE_MS },
      (err, res) => (err ? reject(err) : resolve(res!)),
    ),
  );
}

let calls = 0;
/** A lean call; the answer's size is checked, and its values on every CHECK_EVERY-th call (or when `check`). */
async function predict(s: Server, model: ModelName, check = false): Promise<void> {
  requestBytes(s, model);
  const reference = s.answers.get(model)!;
  if (check || calls++ % CHECK_EVERY === 0) {
    compareAnswer(
      reference,
      predictionCodec(s).responseDeserialize(await s.lean.call(PREDICT, framed.get(model)!, DEADLINE_MS, true)),
      s.name,
    );
    s.checked++;
    return;
  }
  const size = await s.lean.call(PREDICT, framed.get(model)!, DEADLINE_MS);
  if (size !== reference.size) throw new Error(`${s.name}: a ${model} answer of ${size} bytes, not ${reference.size}`);
}

interface PredictionCodec {
  requestSerialize(m: unknown): Buffer;
  responseDeserialize(b: Buffer): PredictResponse;
}
const predictionCodec = (s: Server) =>
  (s.clients.prediction.constructor as unknown as { service: { Predict: PredictionCodec } }).service.Predict;

interface PredictResponse {
  outputs: Record<string, { tensor_content?: Buffer; float_val?: number[] }>;
}
interface Answer {
  size: number;
  outputs: Map<string, Float32Array>;
}
function floatsOf(r: PredictResponse): Map<string, Float32Array> {
  const out = new Map<string, Float32Array>();
  for (const [name, t] of Object.entries(r.outputs)) {
    const c = t.tensor_content;
    out.set(
      name,
      c?.length ? new Float32Array(c.buffer.slice(c.byteOffset, c.byteOffset + c.length)) : Float32Array.from(t.float_val ?? []),
    );
  }
  return out;
}

/** The server's first answer, read the way a user's grpc-js client reads it. */
async function referenceAnswer(s: Server, model: ModelName): Promise<Answer> {
  const raw = await predictViaGrpcJs(s, model);
  return { size: raw.length, outputs: floatsOf(predictionCodec(s).responseDeserialize(raw)) };
}

/** Throws unless `got` has the reference's outputs, each value within float32 rounding of a differently ordered sum. */
function compareAnswer(reference: Answer, got: PredictResponse, who: string): void {
  const outputs = floatsOf(got);
  if (outputs.size !== reference.outputs.size)
    throw new Error(`${who}: outputs ${[...outputs.keys()]}, expected ${[...reference.outputs.keys()]}`);
  for (const [name, want] of reference.outputs) {
    const have = outputs.get(name);
    if (!have || have.length !== want.length) throw new Error(`${who}: output ${name} has ${have?.length} values, expected ${want.length}`);
    for (let i = 0; i < want.length; i++)
      if (!(Math.abs(have[i] - want[i]) <= 1e-4 * (1 + Math.abs(want[i]))))
        throw new Error(`${who}: output ${name}[${i}] = ${have[i]}, expected ${want[i]}`);
  }
}
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

type Callers = 'lean' | 'grpc-js';
/** The former callers' call: the answer's size checked, not its values. */
async function predictGrpcJs(s: Server, model: ModelName): Promise<void> {
  const size = (await predictViaGrpcJs(s, model)).length;
  const want = s.answers.get(model)!.size;
  if (size !== want) throw new Error(`${s.name}: a ${model} answer of ${size} bytes, not ${want}`);
}

interface Cell {
  done: number;
  failed: number;
  firstFailure?: string;
  seconds: number;
  cpu: CellCpu;
}

/** Requests/s of CONCURRENCY callers for SECONDS, the failures, and where the CPU went meanwhile. */
async function saturated(s: Server, model: ModelName, callers: Callers = 'lean'): Promise<Cell> {
  let done = 0;
  let failed = 0;
  let firstFailure: string | undefined;
  const call = callers === 'lean' ? predict : predictGrpcJs;
  const split = new CpuSplit(s.pid);
  const t0 = performance.now();
  const end = t0 + SECONDS * 1000;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (performance.now() < end) {
        await call(s, model).then(
          () => done++,
          (e: Error) => {
            failed++;
            firstFailure ??= e.message;
          },
        );
      }
    }),
  );
  return { done, failed, firstFailure, seconds: (performance.now() - t0) / 1000, cpu: split.end() };
}

/** One thread's scheduler times (ms): on a core, and runnable but waiting for one; its nice value. */
interface ThreadTimes {
  runMs: number;
  waitMs: number;
  nice: number;
}

function threadTimes(pid: number): Map<number, ThreadTimes> {
  const out = new Map<number, ThreadTimes>();
  for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
    try {
      const [run, wait] = fs.readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ').map(Number);
      const stat = fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const nice = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
      out.set(Number(tid), { runMs: run / 1e6, waitMs: wait / 1e6, nice });
    } catch {
      // The thread ended meanwhile.
    }
  }
  return out;
}

/** Busy CPU time of the whole machine (every process), ms. */
function machineBusyMs(): number {
  const [, ...f] = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/);
  const [user, nice, system, , , irq, softirq, steal] = f.map(Number);
  return ((user + nice + system + irq + softirq + steal) * 1000) / CLOCK_TICKS;
}
const CLOCK_TICKS = 100;

/** Where the CPU went over one saturated cell: the server's threads, the bench's callers, everything else. */
class CpuSplit {
  private readonly server: Map<number, ThreadTimes>;
  private readonly client = process.cpuUsage();
  private readonly machine = machineBusyMs();
  private readonly t0 = performance.now();

  constructor(private readonly pid: number) {
    this.server = threadTimes(pid);
  }

  end(): CellCpu {
    const wallMs = performance.now() - this.t0;
    const client = process.cpuUsage(this.client);
    const threads: Array<ThreadTimes & { tid: number }> = [];
    for (const [tid, t] of threadTimes(this.pid)) {
      const b = this.server.get(tid) ?? { runMs: 0, waitMs: 0, nice: t.nice };
      threads.push({ tid, runMs: t.runMs - b.runMs, waitMs: t.waitMs - b.waitMs, nice: t.nice });
    }
    const sum = (ts: typeof threads, k: 'runMs' | 'waitMs') => ts.reduce((n, t) => n + t[k], 0);
    const main = threads.filter((t) => t.tid === this.pid);
    // Executor threads (and ONNX Runtime's intra-op threads they start) are the ones that ran
    // for more than 5 % of the cell besides the event loop; the rest is Node's helpers and GC.
    const workers = threads.filter((t) => t.tid !== this.pid && t.runMs > 0.05 * wallMs);
    const rest = threads.filter((t) => t.tid !== this.pid && t.runMs <= 0.05 * wallMs);
    return {
      wallMs,
      serverMs: sum(threads, 'runMs'),
      loopMs: sum(main, 'runMs'),
      workers: workers.map((t) => ({ runMs: t.runMs, waitMs: t.waitMs, nice: t.nice })).sort((a, b) => b.runMs - a.runMs),
      restMs: sum(rest, 'runMs'),
      clientMs: (client.user + client.system) / 1000,
      machineMs: machineBusyMs() - this.machine,
    };
  }
}

interface CellCpu {
  wallMs: number;
  serverMs: number;
  loopMs: number;
  workers: ThreadTimes[];
  restMs: number;
  clientMs: number;
  machineMs: number;
}

/** Cores' worth of CPU (CPU time ÷ wall time) summed over a server's cells, as a line. */
function cpuLine(name: string, requests: number, cells: CellCpu[], executors: number): string {
  const total = (f: (c: CellCpu) => number) => cells.reduce((n, c) => n + f(c), 0);
  const wall = total((c) => c.wallMs);
  const cores = (ms: number) => (ms / wall).toFixed(2);
  const width = Math.max(...cells.map((c) => c.workers.length));
  const workers = Array.from({ length: width }, (_, i) => {
    const run = total((c) => c.workers[i]?.runMs ?? 0);
    const wait = total((c) => c.workers[i]?.waitMs ?? 0);
    const nice = cells.find((c) => c.workers[i])?.workers[i].nice ?? 0;
    return `${cores(run)} on a core + ${cores(wait)} waiting for one${nice ? ` (nice ${nice})` : ''}`;
  });
  const server = total((c) => c.serverMs);
  const client = total((c) => c.clientMs);
  const machine = total((c) => c.machineMs);
  const perRequest = (ms: number) => (ms / requests).toFixed(2);
  const loop = total((c) => c.loopMs);
  // The busiest threads but the event loop are the executors (MCUNet's narrow ones): the rest
  // are V8's helpers (garbage collection), libuv's and ONNX Runtime's.
  const executorMs = total((c) => c.workers.slice(0, executors).reduce((n, w) => n + w.runMs, 0));
  return [
    `  ${name}: cores' worth of CPU (CPU time ÷ wall time) over its cells:`,
    `    server ${cores(server)} = event loop ${cores(total((c) => c.loopMs))} + busy threads [${workers.join('; ')}] + other threads ${cores(total((c) => c.restMs))}`,
    `    bench's gRPC callers ${cores(client)} (${((client / machine) * 100).toFixed(0)} % of the machine's busy CPU), other processes ${cores(machine - server - client)}; machine busy ${cores(machine)} of ${CORES}`,
    `    server CPU per request ${perRequest(server)} ms (event loop ${perRequest(loop)} + ${executors} executor thread${executors > 1 ? 's' : ''} ${perRequest(executorMs)} + other threads ${perRequest(server - loop - executorMs)}), callers' ${perRequest(client)} ms`,
  ].join('\n');
}

const threadCount = (pid: number) => fs.readdirSync(`/proc/${pid}/task`).length;
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
    const monitoring = path.join(root, 'monitoring.cfg');
    fs.writeFileSync(monitoring, `prometheus_config { enable: true path: "${METRICS}" }\n`);
    console.log(
      `${CORES} cores; load before: ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}`,
    );
    const one = await start('one core', ['taskset', '-c', '0'], [runtime, `--model_config_file=${config}`], monitoring);
    servers.push(one);
    const all = await start('all cores', [], [runtime, `--model_config_file=${config}`], monitoring);
    servers.push(all);
    const old = await start(
      'former defaults',
      [],
      [runtime, `--model_config_file=${config}`, `--num_executors=${OLD_EXECUTORS}`, '--tensorflow_intra_op_parallelism=1'],
      monitoring,
    );
    servers.push(old);
    console.log(
      `RSS after load of MCUNet and the bench MLP (MB): one core ${rssMb(one.pid).toFixed(0)}, all cores ${rssMb(all.pid).toFixed(0)}, former defaults ${rssMb(old.pid).toFixed(0)}; threads ${servers.map((s) => threadCount(s.pid)).join(', ')}`,
    );
    console.log(
      `pinned server sees ${
        execFileSync('taskset', ['-c', '-p', String(one.pid)], { encoding: 'utf8' })
          .trim()
          .split(': ')[1]
      } (cores ${CORES} for the others)`,
    );
    for (const s of servers) s.answers.set('mcunet', await referenceAnswer(s, 'mcunet'));
    for (const s of [all, old]) s.answers.set('mlp', await referenceAnswer(s, 'mlp'));
    // The servers agree with each other too (the same model on other threads).
    for (const s of [all, old])
      compareAnswer(one.answers.get('mcunet')!, predictionCodec(s).responseDeserialize(await predictViaGrpcJs(s, 'mcunet')), s.name);
    compareAnswer(all.answers.get('mlp')!, predictionCodec(old).responseDeserialize(await predictViaGrpcJs(old, 'mlp')), old.name);
    for (const s of servers) for (let i = 0; i < 5; i++) await predict(s, 'mcunet', true);
    for (const s of [all, old]) for (let i = 0; i < 5; i++) await predict(s, 'mlp', true);

    const before = await all.runs();
    const [lone1, loneAll, loneOld] = await loneLatency([one, all, old], 'mcunet');
    const loneRuns = await all.runs();
    const [mlpAll, mlpOld] = await loneLatency([all, old], 'mlp');

    type Sum = { done: number; failed: number; firstFailure?: string; seconds: number; cpu: CellCpu[] };
    const sumsOf = () =>
      new Map<Server, Sum>([
        [one, { done: 0, failed: 0, seconds: 0, cpu: [] }],
        [all, { done: 0, failed: 0, seconds: 0, cpu: [] }],
      ]);
    const sumsBy: Record<Callers, Map<Server, Sum>> = { lean: sumsOf(), 'grpc-js': sumsOf() };
    const cell = async (s: Server, callers: Callers) => {
      const got = await saturated(s, 'mcunet', callers);
      const sum = sumsBy[callers].get(s)!;
      sum.done += got.done;
      sum.failed += got.failed;
      sum.firstFailure ??= got.firstFailure;
      sum.seconds += got.seconds;
      sum.cpu.push(got.cpu);
    };
    const beforeSaturated = await all.runs();
    for (let r = 0; r < ROUNDS; r++) for (const s of r % 2 ? [all, one] : [one, all]) await cell(s, 'lean');
    const saturatedRuns = await all.runs();
    // The former callers, for their CPU per call beside the lean ones' (and the ratio they leave).
    for (const s of ROUNDS % 2 ? [all, one] : [one, all]) await cell(s, 'grpc-js');
    console.log(
      `\nRSS after the saturated cells (MB): one core ${rssMb(one.pid).toFixed(0)}, all cores ${rssMb(all.pid).toFixed(0)}, former defaults ${rssMb(old.pid).toFixed(0)} (MCUNet's threads ran; the MLP's idle since their warm-up calls)`,
    );
    const sums = sumsBy.lean;
    const rps = (sums: Map<Server, Sum>, s: Server) => sums.get(s)!.done / sums.get(s)!.seconds;
    const failuresOf = (sums: Map<Server, Sum>) => {
      const failed = [...sums.values()].filter((s) => s.failed);
      return failed.length ? `, ${failed.reduce((n, s) => n + s.failed, 0)} calls failed (first: ${failed[0].firstFailure})` : '';
    };
    const failures = [...sumsBy.lean.values(), ...sumsBy['grpc-js'].values()].reduce((n, s) => n + s.failed, 0);

    console.log(
      `\nMCUNet batch 1, saturated (${CONCURRENCY} lean gRPC callers, ${ROUNDS} rounds of ${SECONDS} s each, alternating; ${servers.reduce((n, s) => n + s.checked, 0)} answers decoded and compared, the others' sizes):`,
    );
    console.log(`  one core ${rps(sums, one).toFixed(1)} req/s, all ${CORES} cores ${rps(sums, all).toFixed(1)} req/s${failuresOf(sums)}`);
    for (const s of [one, all]) console.log(cpuLine(s.name, sums.get(s)!.done, sums.get(s)!.cpu, s === one ? 1 : CORES));
    console.log(
      `  all cores' MCUNet runs meanwhile: ${saturatedRuns.wide - beforeSaturated.wide} on the wide thread, ${saturatedRuns.narrow - beforeSaturated.narrow} on narrow ones`,
    );
    const scaling = rps(sums, all) / rps(sums, one);
    console.log(
      `  all ÷ one = ${scaling.toFixed(2)} (target ≥ 0.8 × ${CORES} = ${(0.8 * CORES).toFixed(1)}): ${verdict(scaling >= 0.8 * CORES && failures === 0)}`,
    );
    const got = (sums: Map<Server, Sum>, s: Server) => {
      const cells = sums.get(s)!.cpu;
      const total = (f: (c: CellCpu) => number) => cells.reduce((n, c) => n + f(c), 0);
      const done = sums.get(s)!.done;
      return {
        cores: total((c) => c.serverMs) / total((c) => c.wallMs),
        perRequest: total((c) => c.serverMs) / done,
        callers: total((c) => c.clientMs) / done,
      };
    };
    const [g1, gAll] = [got(sums, one), got(sums, all)];
    console.log(
      `  = CPU the servers got, all ÷ one ${(gAll.cores / g1.cores).toFixed(2)}, ÷ server CPU per request, all ÷ one ${(gAll.perRequest / g1.perRequest).toFixed(2)}`,
    );
    // With the machine to themselves: the one-core server's core does its work alone (the callers
    // have the other cores); the all-cores server's cores do its work and the callers'.
    const ceiling = (g1: ReturnType<typeof got>, gAll: ReturnType<typeof got>) =>
      `${CORES} × ${g1.perRequest.toFixed(2)} ÷ (${gAll.perRequest.toFixed(2)} + callers' ${gAll.callers.toFixed(2)}) ms = ${((CORES * g1.perRequest) / (gAll.perRequest + gAll.callers)).toFixed(2)}`;
    console.log(`  ceiling with no other process: ${ceiling(g1, gAll)}`);
    const former = sumsBy['grpc-js'];
    const [f1, fAll] = [got(former, one), got(former, all)];
    console.log(
      `  the former callers (grpc-js client, request encoded once, answer's size checked), one round: one core ${rps(former, one).toFixed(1)} req/s, all cores ${rps(former, all).toFixed(1)} req/s${failuresOf(former)}, all ÷ one = ${(rps(former, all) / rps(former, one)).toFixed(2)}, ceiling ${ceiling(f1, fAll)}`,
    );
    console.log(
      `  callers' CPU per call: lean ${g1.callers.toFixed(2)} ms (one-core cells) and ${gAll.callers.toFixed(2)} ms (all-cores cells), grpc-js ${f1.callers.toFixed(2)} and ${fAll.callers.toFixed(2)} ms; server CPU per request meanwhile: lean ${g1.perRequest.toFixed(2)} and ${gAll.perRequest.toFixed(2)} ms, grpc-js ${f1.perRequest.toFixed(2)} and ${fAll.perRequest.toFixed(2)} ms`,
    );
    console.log(`\nMCUNet batch 1, one user (median of ${REQUESTS} lone calls each, alternating):`);
    const latencyRatio = loneAll / lone1;
    // A version up to --shared_executors_max_mb shares narrow threads and has no wide one.
    console.log(
      `  all cores' lone MCUNet calls ran ${loneRuns.wide - before.wide} times on the wide thread, ${loneRuns.narrow - before.narrow} on narrow ones`,
    );
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
