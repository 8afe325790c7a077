// The gRPC-beside-REST CPU measurement: both protocols answered under both kinds of load, and
// the target read from the same-rate comparison (older result files: from the 32 callers).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { grpcCpuLine, measureGrpcCpu, type GrpcCpuResult } from '../../bench/latency/grpc_cpu.js';
import { evaluate, type LatencyResults } from '../../bench/latency/latency_bench.js';

const results = (grpc: GrpcCpuResult): LatencyResults => ({
  date: '2026-11-28',
  quick: true,
  machine: { cores: 2, cpuModel: 'test', node: 'v20' },
  runtimes: [],
  skipped: {},
  targets: [],
  grpc,
});

describe('gRPC server CPU beside REST', () => {
  it('measures both protocols with N callers and at one open-loop rate, every gRPC call answered', async () => {
    // A low open-loop rate: the plumbing is under test, not this machine's capacity (an open loop
    // past it is refused by the executor queue, as it should be).
    const r = await measureGrpcCpu('auto', 8, 0.4, 1, 100);
    for (const v of [r.restCpuMsPerCall, r.grpcCpuMsPerCall, r.sameRate!.restCpuMsPerCall, r.sameRate!.grpcCpuMsPerCall])
      assert.ok(v > 0 && Number.isFinite(v), `${v}`);
    assert.ok(r.grpcCallsPerSec! > 0 && r.restCallsPerSec! > 0);
    assert.equal(r.sameRate!.ratePerSec, 100);
    assert.equal(r.callers, 8);
    assert.equal(r.sameRate!.grpcErrors, 0, r.sameRate!.firstGrpcError);
    assert.match(
      grpcCpuLine(r),
      /both at 100 req\/s: gRPC [\d.]+ ms, REST [\d.]+ ms .*with 8 callers each, gRPC [\d.]+ ms at \d+ calls\/s/,
    );
  });

  it('the target compares the protocols at the same rate; older results keep their 32-caller figure', () => {
    const closed = { restCpuMsPerCall: 0.1, grpcCpuMsPerCall: 0.2, ratio: 2 };
    const [sameRate] = evaluate(
      results({ ...closed, sameRate: { ratePerSec: 1000, restCpuMsPerCall: 0.5, grpcCpuMsPerCall: 0.52, ratio: 1.04, grpcErrors: 0 } }),
    );
    assert.equal(sameRate!.name, 'gRPC Predict server CPU per call ÷ REST :predict (half_plus_two, both at 1000 req/s)');
    assert.equal(sameRate!.measured, '1.04 (0.520 / 0.500 ms)');
    assert.equal(sameRate!.met, true);
    const [old] = evaluate(results(closed));
    assert.equal(old!.name, 'gRPC Predict server CPU per call ÷ REST :predict (half_plus_two, 32 callers)');
    assert.equal(old!.met, false);
    assert.doesNotMatch(grpcCpuLine(closed), /req\/s:/);
  });
});
