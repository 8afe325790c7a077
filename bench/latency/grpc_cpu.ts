// Server CPU per call, gRPC Predict beside REST :predict on half_plus_two: one tfgate serving
// both, rounds interleaved; CPU read from /proc before and after.
//
// Server CPU per call falls as the rate rises (more requests share each wake-up and each
// message to an executor), so the protocols are compared at one open-loop rate. With 32
// callers each, each protocol runs as fast as its client can go, and the grpc-js client here
// reaches a fraction of the REST loader's rate: that figure is kept beside, with its rates.
import * as grpc from '@grpc/grpc-js';
import { serviceDefinition } from '../../src/grpc/service_definitions.js';
import { runLoadInWorker } from '../load/load_worker.js';
import { openLoop } from '../load/open_loop.js';
import { REPO, freePort, processCpuMs, startTfgate, stopProcess, waitModelAvailable } from '../report/processes.js';
import path from 'node:path';

/** CPU per call of each protocol under one kind of load. */
interface ProtocolCpu {
  restCpuMsPerCall: number;
  grpcCpuMsPerCall: number;
  /** gRPC ÷ REST. */
  ratio: number;
  restCallsPerSec?: number;
  grpcCallsPerSec?: number;
}

export interface GrpcCpuResult extends ProtocolCpu {
  /** Concurrent callers of each protocol in the closed loops (older result files: 32). */
  callers?: number;
  /** Both at the same open-loop rate: the comparison of the protocols themselves. */
  sameRate?: ProtocolCpu & { ratePerSec: number; grpcErrors: number; firstGrpcError?: string };
}

type PredictClient = grpc.Client & { Predict(request: object, done: (err: Error | null) => void): void };
type Calls = { calls: number; errors: number; firstError?: string };

function predict(client: PredictClient, request: object, tally: Calls): Promise<void> {
  return new Promise<void>((resolve) =>
    client.Predict(request, (err) => {
      if (err) {
        tally.errors++;
        tally.firstError ??= err.message;
      } else tally.calls++;
      resolve();
    }),
  );
}

async function grpcClosedLoop(client: PredictClient, request: object, callers: number, durationMs: number): Promise<Calls> {
  const tally = { calls: 0, errors: 0 };
  const end = performance.now() + durationMs;
  await Promise.all(
    Array.from({ length: callers }, async () => {
      while (performance.now() < end) await predict(client, request, tally);
    }),
  );
  return tally;
}

/** CPU and calls summed over rounds. */
class CpuTally {
  cpuMs = 0;
  calls = 0;
  add(cpuMs: number, calls: number): void {
    this.cpuMs += cpuMs;
    this.calls += calls;
  }
  get msPerCall(): number {
    return this.cpuMs / Math.max(1, this.calls);
  }
}

export async function measureGrpcCpu(
  runtime: string,
  callers: number,
  seconds: number,
  rounds: number,
  ratePerSec = 1000,
): Promise<GrpcCpuResult> {
  const grpcPort = await freePort();
  const server = await startTfgate('half_plus_two', path.join(REPO, 'model_repository', 'half_plus_two'), [
    `--runtime=${runtime}`,
    `--port=${grpcPort}`,
  ]);
  const Client = grpc.makeGenericClientConstructor(serviceDefinition('tensorflow.serving.PredictionService'), 'PredictionService');
  const client = new Client(`127.0.0.1:${grpcPort}`, grpc.credentials.createInsecure()) as unknown as PredictClient;
  try {
    await waitModelAvailable(server.port, 'half_plus_two');
    const request = {
      modelSpec: { name: 'half_plus_two' },
      inputs: { x: { dtype: 'DT_FLOAT', tensorShape: { dim: [{ size: 3 }, { size: 1 }] }, floatVal: [1, 2, 5] } },
    };
    const body = JSON.stringify({ instances: [[1.0], [2.0], [5.0]] });
    const url = `http://127.0.0.1:${server.port}/v1/models/half_plus_two:predict`;
    const pid = server.proc.pid!;
    const cpuOf = async <T>(load: () => Promise<T>): Promise<[T, number]> => {
      const c0 = processCpuMs(pid);
      const r = await load();
      return [r, processCpuMs(pid) - c0];
    };
    await grpcClosedLoop(client, request, callers, 500); // connect and warm up
    const durationMs = seconds * 1000;
    const rest = new CpuTally();
    const rpc = new CpuTally();
    const restOpen = new CpuTally();
    const rpcOpen = new CpuTally();
    let rpcOpenErrors = 0;
    let firstGrpcError: string | undefined;
    for (let round = 0; round < rounds; round++) {
      const [r, restCpu] = await cpuOf(() =>
        runLoadInWorker({ url, body, mode: { kind: 'concurrency', connections: callers }, durationMs }),
      );
      rest.add(restCpu, r.recorder.count);
      const [g, rpcCpu] = await cpuOf(() => grpcClosedLoop(client, request, callers, durationMs));
      rpc.add(rpcCpu, g.calls);
      const [ro, restOpenCpu] = await cpuOf(() => runLoadInWorker({ url, body, mode: { kind: 'open', ratePerSec }, durationMs }));
      restOpen.add(restOpenCpu, ro.recorder.count);
      const go: Calls = { calls: 0, errors: 0 };
      const [, rpcOpenCpu] = await cpuOf(() => openLoop(ratePerSec, durationMs, () => predict(client, request, go)));
      rpcOpen.add(rpcOpenCpu, go.calls);
      rpcOpenErrors += go.errors;
      firstGrpcError ??= go.firstError;
    }
    const perSec = (calls: number) => calls / (rounds * seconds);
    return {
      callers,
      restCpuMsPerCall: rest.msPerCall,
      grpcCpuMsPerCall: rpc.msPerCall,
      ratio: rpc.msPerCall / rest.msPerCall,
      restCallsPerSec: perSec(rest.calls),
      grpcCallsPerSec: perSec(rpc.calls),
      sameRate: {
        ratePerSec,
        restCpuMsPerCall: restOpen.msPerCall,
        grpcCpuMsPerCall: rpcOpen.msPerCall,
        ratio: rpcOpen.msPerCall / restOpen.msPerCall,
        grpcErrors: rpcOpenErrors,
        ...(firstGrpcError && { firstGrpcError }),
      },
    };
  } finally {
    client.close();
    await stopProcess(server.proc);
  }
}

/** One sentence: both measurements, with the rates the closed loops reached. */
export function grpcCpuLine(g: GrpcCpuResult): string {
  const ms = (v: number) => `${v.toFixed(3)} ms`;
  const closed = `with ${g.callers ?? 32} callers each, gRPC ${ms(g.grpcCpuMsPerCall)}${g.grpcCallsPerSec ? ` at ${g.grpcCallsPerSec.toFixed(0)} calls/s` : ''} against REST ${ms(g.restCpuMsPerCall)}${g.restCallsPerSec ? ` at ${g.restCallsPerSec.toFixed(0)} req/s` : ''} (ratio ${g.ratio.toFixed(2)})`;
  if (!g.sameRate) return `Server CPU per call ${closed}.`;
  const s = g.sameRate;
  const errors = s.grpcErrors ? `; ${s.grpcErrors} gRPC calls failed` : '';
  return `Server CPU per call, both at ${s.ratePerSec} req/s: gRPC ${ms(s.grpcCpuMsPerCall)}, REST ${ms(s.restCpuMsPerCall)} (ratio ${s.ratio.toFixed(2)})${errors}; ${closed}. CPU per call falls as the rate rises, so only the first compares the protocols.`;
}
