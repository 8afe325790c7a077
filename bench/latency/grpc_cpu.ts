// Server CPU per call, gRPC Predict beside REST :predict on half_plus_two: one tfgate serving
// both, the same number of callers, rounds interleaved; CPU read from /proc before and after.
import * as grpc from '@grpc/grpc-js';
import { serviceDefinition } from '../../src/grpc/service_definitions.js';
import { runLoadInWorker } from '../load/load_worker.js';
import { REPO, freePort, processCpuMs, startTfgate, stopProcess, waitModelAvailable } from '../report/processes.js';
import path from 'node:path';

export interface GrpcCpuResult {
  restCpuMsPerCall: number;
  grpcCpuMsPerCall: number;
  /** gRPC ÷ REST. */
  ratio: number;
}

type PredictClient = grpc.Client & { Predict(request: object, done: (err: Error | null) => void): void };

async function grpcCalls(client: PredictClient, request: object, callers: number, durationMs: number): Promise<number> {
  let calls = 0;
  const end = performance.now() + durationMs;
  const once = () => new Promise<void>((resolve) => client.Predict(request, () => resolve()));
  await Promise.all(
    Array.from({ length: callers }, async () => {
      while (performance.now() < end) {
        await once();
        calls++;
      }
    }),
  );
  return calls;
}

export async function measureGrpcCpu(runtime: string, callers: number, seconds: number, rounds: number): Promise<GrpcCpuResult> {
  const grpcPort = await freePort();
  const server = await startTfgate('half_plus_two', path.join(REPO, 'model_repository', 'half_plus_two'), [`--runtime=${runtime}`, `--port=${grpcPort}`]);
  const Client = grpc.makeGenericClientConstructor(serviceDefinition('tensorflow.serving.PredictionService'), 'PredictionService');
  const client = new Client(`127.0.0.1:${grpcPort}`, grpc.credentials.createInsecure()) as unknown as PredictClient;
  try {
    await waitModelAvailable(server.port, 'half_plus_two');
    const request = { modelSpec: { name: 'half_plus_two' }, inputs: { x: { dtype: 'DT_FLOAT', tensorShape: { dim: [{ size: 3 }, { size: 1 }] }, floatVal: [1, 2, 5] } } };
    const body = JSON.stringify({ instances: [[1.0], [2.0], [5.0]] });
    const url = `http://127.0.0.1:${server.port}/v1/models/half_plus_two:predict`;
    const pid = server.proc.pid!;
    await grpcCalls(client, request, callers, 500); // connect and warm up
    let rest = { cpu: 0, calls: 0 };
    let rpc = { cpu: 0, calls: 0 };
    for (let round = 0; round < rounds; round++) {
      let c0 = processCpuMs(pid);
      const r = await runLoadInWorker({ url, body, mode: { kind: 'concurrency', connections: callers }, durationMs: seconds * 1000 });
      rest = { cpu: rest.cpu + processCpuMs(pid) - c0, calls: rest.calls + r.recorder.count };
      c0 = processCpuMs(pid);
      const calls = await grpcCalls(client, request, callers, seconds * 1000);
      rpc = { cpu: rpc.cpu + processCpuMs(pid) - c0, calls: rpc.calls + calls };
    }
    const restCpuMsPerCall = rest.cpu / Math.max(1, rest.calls);
    const grpcCpuMsPerCall = rpc.cpu / Math.max(1, rpc.calls);
    return { restCpuMsPerCall, grpcCpuMsPerCall, ratio: grpcCpuMsPerCall / restCpuMsPerCall };
  } finally {
    client.close();
    await stopProcess(server.proc);
  }
}
