// The bench report's parts, on synthetic figures and small real processes: the server-metrics
// split, the targets' verdicts, the written report (JSON, SVG charts, Markdown), freezing a
// process tree, and the two contrast servers (naive inline, N processes on one port).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { countersFromText, serverView } from '../../bench/report/server_metrics.js';
import { evaluateTargets } from '../../bench/report/targets.js';
import { chanceSpread, writeReport } from '../../bench/report/results_markdown.js';
import type { BenchResults } from '../../bench/report/results.js';
import type { SeedCell } from '../../bench/report/seed_experiment.js';
import { LatencyRecorder } from '../../bench/load/latency_recorder.js';
import { roundOrder } from '../../bench/report/round_order.js';
import { REPO, freePort, setTreeFrozen, startNodeProcess, stopProcess, treeRssMb } from '../../bench/report/processes.js';
import { writeMlpSavedModel, describeMlp } from '../../test_util/savedmodel/model_zoo.js';
import { EmbeddedRuntime } from '../../src/runtimes/embedded/embedded_runtime.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const benchReportDir = path.join(here, '..', '..', 'bench', 'report');

function metricsText(latencySumUs: number, requests: number, queueSumS: number, rows: number, batches: number): string {
  return [
    '# HELP :tensorflow:serving:request_latency Distribution of wall time (in microseconds) for Tensorflow Serving request.',
    `:tensorflow:serving:request_latency_bucket{model_name="m",API="predict",entrypoint="REST",le="+Inf"} ${requests}`,
    `:tensorflow:serving:request_latency_sum{model_name="m",API="predict",entrypoint="REST"} ${latencySumUs}`,
    `:tensorflow:serving:request_latency_count{model_name="m",API="predict",entrypoint="REST"} ${requests}`,
    `:tensorflow:serving:request_latency_count{model_name="other",API="predict",entrypoint="GRPC"} 0`,
    `tfgate_batch_queuing_delay_seconds_sum{model_name="m"} ${queueSumS}`,
    `tfgate_batch_queuing_delay_seconds_count{model_name="m"} ${requests}`,
    `tfgate_batch_size_sum{model_name="m"} ${rows}`,
    `tfgate_batch_size_count{model_name="m"} ${batches}`,
  ].join('\n');
}

function summary(meanMs: number) {
  const r = new LatencyRecorder();
  for (let i = 0; i < 100; i++) r.record(meanMs);
  return r.summary();
}

function syntheticResults(
  adaptiveMs: Record<number, number>,
  naiveMs: Record<number, number>,
  fixedMs: Record<number, number>,
  saturatedRps: number,
): BenchResults {
  const cells: SeedCell[] = [];
  for (const users of [1, 20]) {
    cells.push({ setup: 'naive', users, rps: 1, latency: summary(naiveMs[users]) });
    cells.push({ setup: 'executors', users, rps: 1, latency: summary(naiveMs[users] + 1) });
    cells.push({ setup: 'fixed_0', users, rps: 1, latency: summary(fixedMs[users]) });
    cells.push({
      setup: 'adaptive',
      users,
      rps: 1,
      latency: summary(adaptiveMs[users]),
      server: { requests: 100, requestMs: adaptiveMs[users] - 1, queueingMs: 0.1, meanBatchSize: 1 },
    });
  }
  const curve = [1, 32].map((batch) => ({
    batch,
    ms: batch === 1 ? 10 : 64,
    msPerItem: batch === 1 ? 10 : 2,
    itemsPerSec: batch === 1 ? 100 : 500,
    gflops: 1,
  }));
  return {
    name: 'synthetic',
    date: '2026-11-24T00:00:00.000Z',
    quick: true,
    command: 'npm run bench:report -- --quick',
    durationSeconds: 1,
    machine: { cores: 2, cpuModel: 'test', node: 'v20', platform: 'linux', totalMemoryGiB: 1 },
    model: {
      description: 'MLP',
      backend: 'wasm',
      flopsPerItem: 1e6,
      maxBatchSize: 32,
      curve,
      batch1Ms: 10,
      offlineItemsPerSecAtMaxBatch: 500,
    },
    seed: {
      scale: 10 / 300,
      thinkMs: [33.3, 100],
      users: [1, 20],
      cellSeconds: 1,
      rounds: 1,
      setups: [
        { key: 'naive', label: 'naive', kind: 'naive' },
        { key: 'executors', label: 'executors', kind: 'executors' },
        { key: 'fixed_0', label: 'fixed 0', kind: 'fixed', timeoutMicros: 0 },
        { key: 'adaptive', label: 'adaptive', kind: 'adaptive' },
      ],
      cells,
      saturation: [{ setup: 'adaptive', client: 'wrk', rps: saturatedRps, meanMs: 1, p99Ms: 2, errors: 0 }],
      generatorCheck: { route: 'r', wrkRps: 100, generatorRps: 95, ratio: 0.95 },
      peakRssMb: { naive: 100, executors: 200, fixed_0: 200, adaptive: 200 },
    },
    eventLoop: { modelMs: 4, seconds: 1, rows: [{ setup: 'naive', ratePerSec: 2, predict: summary(5), status: summary(1) }] },
    overhead: {
      client: 'wrk',
      echoRps: 1000,
      predictRps: 800,
      ratio: 0.8,
      echoCpu: { mainUs: 41, processUs: 44 },
      predictCpu: { mainUs: 78.5, processUs: 112 },
    },
    targets: [],
  };
}

describe('bench report', () => {
  it("splits a measurement with the server's own counters, summed over label sets", () => {
    const before = countersFromText(metricsText(1_000_000, 100, 0.5, 100, 50));
    const after = countersFromText(metricsText(1_000_000 + 200 * 12_000, 300, 0.5 + 200 * 0.003, 300, 100));
    const v = serverView(before, after);
    assert.equal(v.requests, 200);
    assert.ok(Math.abs(v.requestMs - 12) < 1e-9, `requestMs ${v.requestMs}`);
    assert.ok(Math.abs(v.queueingMs - 3) < 1e-9, `queueingMs ${v.queueingMs}`);
    assert.equal(v.meanBatchSize, 4);
  });

  it('interleaves rounds forward then backward, so that over two rounds every set-up sits at the same mean position', () => {
    const setups = ['naive', 'fixed_0', 'fixed_750', 'adaptive'];
    assert.deepEqual(
      [0, 1, 2, 3].map((r) => roundOrder(setups, r).join(' ')),
      [
        'naive fixed_0 fixed_750 adaptive',
        'adaptive fixed_750 fixed_0 naive',
        'naive fixed_0 fixed_750 adaptive',
        'adaptive fixed_750 fixed_0 naive',
      ],
    );
    // A steady drift (each slot 1 ms slower than the one before) adds the same to every set-up.
    const drift = setups.map((s) => [0, 1].reduce((sum, round) => sum + (round * setups.length + roundOrder(setups, round).indexOf(s)), 0));
    assert.deepEqual(drift, [7, 7, 7, 7]);
    assert.deepEqual(setups, ['naive', 'fixed_0', 'fixed_750', 'adaptive'], "the caller's list is left as it was");
  });

  it('reads how far apart cells that served alike are: tfgate set-ups that never waited at the lightest load', () => {
    const view = (queueingMs: number, meanBatchSize: number) => ({ requests: 100, requestMs: 4, queueingMs, meanBatchSize });
    const cells: SeedCell[] = [
      { setup: 'naive', users: 1, rps: 1, latency: summary(4) }, // no server view: not tfgate's
      { setup: 'executors', users: 1, rps: 1, latency: summary(5.6), server: view(0, 1) },
      { setup: 'fixed_0', users: 1, rps: 1, latency: summary(6.1), server: view(0.04, 1) },
      { setup: 'fixed_942', users: 1, rps: 1, latency: summary(7.6), server: view(1.2, 1) }, // waited for its timer
      { setup: 'adaptive', users: 1, rps: 1, latency: summary(6.5), server: view(0.06, 1.02) },
      { setup: 'adaptive', users: 20, rps: 1, latency: summary(3), server: view(0, 1) }, // not the lightest load
    ];
    const labels = new Map([
      ['executors', 'no batching'],
      ['fixed_0', 'fixed 0'],
      ['adaptive', 'adaptive'],
    ]);
    const spread = chanceSpread(cells, labels)!;
    assert.deepEqual([spread.users, spread.labels], [1, ['no batching', 'fixed 0', 'adaptive']]);
    // The recorder keeps latencies in fine buckets: means within 0.01 ms.
    assert.ok(Math.abs(spread.minMs - 5.6) < 0.01 && Math.abs(spread.maxMs - 6.5) < 0.01, JSON.stringify(spread));
    assert.equal(
      chanceSpread(
        cells.filter((c) => c.setup !== 'fixed_0' && c.setup !== 'executors'),
        labels,
      ),
      undefined,
      'one such cell: nothing to compare',
    );
  });

  it('judges the targets: met and missed on either side of each goal', () => {
    const good = evaluateTargets(syntheticResults({ 1: 11.5, 20: 20 }, { 1: 11, 20: 200 }, { 1: 11, 20: 20.4 }, 460));
    const verdict = (ts: typeof good, prefix: string) => ts.find((t) => t.name.startsWith(prefix))?.met;
    assert.equal(verdict(good, 'bench model'), true); // 2 / 10 = 0.2
    assert.equal(verdict(good, '20 users: adaptive batching mean ÷ naive'), true); // 0.1
    assert.equal(verdict(good, '1 user: adaptive mean − model batch-1'), true); // +1.5 ms
    assert.equal(verdict(good, '20 users: adaptive mean ÷ best fixed'), true); // 20 / 20.4
    assert.equal(verdict(good, 'saturated throughput'), true); // 0.92
    assert.equal(verdict(good, 'load generator'), true);
    const bad = evaluateTargets(syntheticResults({ 1: 12.5, 20: 40 }, { 1: 11, 20: 200 }, { 1: 11, 20: 30 }, 440));
    assert.equal(verdict(bad, '20 users: adaptive batching mean ÷ naive'), false); // 0.2
    assert.equal(verdict(bad, '1 user: adaptive mean − model batch-1'), false); // +2.5 ms
    assert.equal(verdict(bad, '20 users: adaptive mean ÷ best fixed'), false); // 1.33
    const slightlySlower = evaluateTargets(syntheticResults({ 1: 11.5, 20: 20 }, { 1: 11, 20: 200 }, { 1: 11, 20: 19 }, 460));
    assert.equal(verdict(slightlySlower, '20 users: adaptive mean ÷ best fixed'), false); // 1.05: any slower than the best timeout misses
    assert.equal(verdict(bad, 'saturated throughput'), false); // 0.88
  });

  it('judges adaptive against the fixed timeout chosen on the other rounds when the cells kept their rounds', () => {
    const r = syntheticResults({ 1: 11.5, 20: 10 }, { 1: 11, 20: 200 }, { 1: 11, 20: 10 }, 460);
    const rounds: Record<string, number[]> = { adaptive: [10, 10, 10, 10], fixed_0: [10, 10, 10, 10], fixed_942: [6, 11, 11, 11] };
    const f942 = { ...r.seed.cells.find((c) => c.setup === 'fixed_0' && c.users === 20)!, setup: 'fixed_942', latency: summary(9.75) };
    r.seed.cells.push(f942);
    r.seed.setups.push({ ...r.seed.setups.find((s) => s.key === 'fixed_0')!, key: 'fixed_942' });
    for (const c of r.seed.cells) if (c.users === 20 && rounds[c.setup]) c.roundMeansMs = rounds[c.setup];
    const t = evaluateTargets(r).find((x) => x.name.startsWith('20 users: adaptive mean ÷ best fixed'))!;
    // After the fact fixed_942's lucky round (9.75 ms mean) would make adaptive miss; chosen on the other rounds: 10 / 10.5.
    assert.equal(t.name, '20 users: adaptive mean ÷ best fixed timeout (fixed_942 / fixed_0, chosen on the other rounds)');
    assert.equal(t.met, true);
    assert.match(
      t.measured,
      /^0\.952 \(10\.00 \/ 10\.50 ms; per round 1\.00, 0\.91, 1\.00, 0\.91; picked after the fact: fixed_942, 1\.026\)$/,
    );
  });

  it('writes the JSON, three SVG charts and the Markdown with every table', async () => {
    const bench = fs.mkdtempSync(path.join(os.tmpdir(), 'tfgate-report-'));
    try {
      const r = syntheticResults({ 1: 11.5, 20: 20 }, { 1: 11, 20: 200 }, { 1: 11, 20: 19 }, 460);
      r.targets = evaluateTargets(r);
      const files = await writeReport(r, bench);
      assert.deepEqual(JSON.parse(fs.readFileSync(path.join(bench, 'results', 'synthetic.json'), 'utf8')), JSON.parse(JSON.stringify(r)));
      const svgs = files.filter((f) => f.endsWith('.svg'));
      assert.equal(svgs.length, 3);
      for (const f of svgs) assert.match(fs.readFileSync(f, 'utf8'), /^<svg [^>]*xmlns="http:\/\/www.w3.org\/2000\/svg"/);
      assert.match(
        fs.readFileSync(
          svgs.find((f) => f.includes('latency-vs-users'))!,
          'utf8',
        ),
        /adaptive/,
      );
      const md = fs.readFileSync(path.join(bench, 'results', 'synthetic.md'), 'utf8');
      for (const heading of [
        '## Targets',
        '## The bench model',
        '### Beside the seed',
        '### Every set-up',
        '## The event-loop experiment',
        '## Serving overhead',
        '## The load generator against wrk',
      ])
        assert.ok(md.includes(heading), heading);
      assert.match(md, /\| 20 \| 4100 \| 6000 \|/); // the seed's 4.1 s beside naive's 200 ms scaled by 300/10
      assert.match(md, /!\[latency vs users\]\(synthetic-latency-vs-users\.svg\)/);
      // The overhead section says where the CPU goes: tfgate's event loop beside the echo's, and their ratio.
      assert.match(
        md,
        /tfgate 78\.5 µs on its event loop, 112\.0 µs in all its threads; the echo 41\.0 µs and 44\.0 µs\..*event-loop CPU 0\.52\./,
      );
    } finally {
      fs.rmSync(bench, { recursive: true, force: true });
    }
  });

  it('renders a results file written before CPU per request was measured, without the CPU sentence', async () => {
    const bench = fs.mkdtempSync(path.join(os.tmpdir(), 'tfgate-bench-'));
    try {
      const r = syntheticResults({ 1: 11.5, 20: 20 }, { 1: 11, 20: 200 }, { 1: 11, 20: 19 }, 460);
      r.overhead = { client: 'wrk', echoRps: 1000, predictRps: 800, ratio: 0.8 };
      r.targets = evaluateTargets(r);
      await writeReport(r, bench);
      const md = fs.readFileSync(path.join(bench, 'results', 'synthetic.md'), 'utf8');
      assert.ok(md.includes('## Serving overhead'));
      assert.doesNotMatch(md, /Server CPU per request/);
    } finally {
      fs.rmSync(bench, { recursive: true, force: true });
    }
  });

  it('freezes and thaws a whole process tree', async () => {
    const parent = spawn(
      process.execPath,
      [
        '-e',
        "require('child_process').spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'inherit' }); setInterval(() => {}, 1000)",
      ],
      { stdio: 'ignore' },
    );
    try {
      const pids = async () => {
        for (let i = 0; i < 400; i++) {
          const kids = fs.readFileSync(`/proc/${parent.pid}/task/${parent.pid}/children`, 'utf8').trim();
          if (kids) return [parent.pid!, Number(kids)];
          await new Promise((r) => setTimeout(r, 50));
        }
        throw new Error('child not started');
      };
      const all = await pids();
      const state = (pid: number) => /State:\s+(\S)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))![1];
      assert.ok(treeRssMb(parent.pid!) > 0);
      // A signal takes effect when the kernel next schedules the process: poll for the state.
      const settled = async (ok: (states: string[]) => boolean) => {
        for (let i = 0; i < 200 && !ok(all.map(state)); i++) await new Promise((r) => setTimeout(r, 50));
        return all.map(state);
      };
      setTreeFrozen(parent.pid!, true);
      assert.deepEqual(await settled((s) => s.every((x) => x === 'T')), ['T', 'T']);
      setTreeFrozen(parent.pid!, false);
      const thawed = await settled((s) => s.every((x) => x === 'S' || x === 'R'));
      assert.ok(
        thawed.every((s) => s === 'S' || s === 'R'),
        thawed.join(),
      );
    } finally {
      setTreeFrozen(parent.pid!, false);
      for (const pid of fs.readFileSync(`/proc/${parent.pid}/task/${parent.pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean))
        process.kill(Number(pid), 'SIGKILL');
      parent.kill('SIGKILL');
    }
  });

  it("the naive contrast server answers the model's own outputs and refuses malformed rows", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tfgate-naive-'));
    const options = { inputDim: 4, hiddenSizes: [8], outputDim: 2, activation: 'relu' as const, seed: 5 };
    await writeMlpSavedModel(path.join(dir, '1'), options);
    const server = await startNodeProcess([path.join(benchReportDir, 'naive_server.js'), path.join(dir, '1')], /listening (\d+)/);
    try {
      const rows = [
        [1, 2, 3, 4],
        [0.5, -1, 0, 2],
      ];
      const res = await fetch(`http://127.0.0.1:${server.port}/v1/models/mlp:predict`, {
        method: 'POST',
        body: JSON.stringify({ instances: rows }),
      });
      assert.equal(res.status, 200);
      const { predictions } = (await res.json()) as { predictions: number[][] };
      const servable = await new EmbeddedRuntime('cpu').load(path.join(dir, '1'), { tags: ['serve'] });
      const { y } = await servable.run('serving_default', {
        x: { dtype: 'float32', shape: [2, 4], values: Float32Array.from(rows.flat()) },
      });
      servable.dispose();
      assert.equal(describeMlp(options).outputDim, predictions[0].length);
      predictions.flat().forEach((v, i) => assert.ok(Math.abs(v - (y.values[i] as number)) < 1e-4, `${v} vs ${y.values[i]}`));
      const bad = await fetch(`http://127.0.0.1:${server.port}/v1/models/mlp:predict`, {
        method: 'POST',
        body: JSON.stringify({ instances: [[1, 2]] }),
      });
      assert.equal(bad.status, 400);
    } finally {
      await stopProcess(server.proc);
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('N tfgate processes share one port and all exit on SIGTERM', async () => {
    const port = await freePort();
    const flags = [
      '--model_name=half_plus_two',
      `--model_base_path=${path.join(REPO, 'model_repository', 'half_plus_two')}`,
      '--rest_api_host=127.0.0.1',
      '--port=0',
      '--num_executors=1',
    ];
    const cluster = await startNodeProcess(
      [path.join(benchReportDir, 'cluster_server.js'), '2', String(port), ...flags],
      /listening (\d+)/,
    );
    try {
      assert.equal(cluster.port, port);
      const workers = fs.readFileSync(`/proc/${cluster.proc.pid}/task/${cluster.proc.pid}/children`, 'utf8').trim().split(/\s+/);
      assert.equal(workers.length, 2);
      for (let i = 0; i < 4; i++) {
        const res = await fetch(`http://127.0.0.1:${port}/v1/models/half_plus_two:predict`, {
          method: 'POST',
          headers: { connection: 'close' },
          body: '{"instances":[1,2,5]}',
        });
        assert.deepEqual(await res.json(), { predictions: [2.5, 3, 4.5] });
      }
      const exited = new Promise<number | null>((r) => cluster.proc.once('exit', r));
      cluster.proc.kill('SIGTERM');
      assert.equal(await exited, 0);
      for (const pid of workers)
        assert.ok(
          !fs.existsSync(`/proc/${pid}`) || /State:\s+Z/.test(fs.readFileSync(`/proc/${pid}/status`, 'utf8')),
          `worker ${pid} still running`,
        );
    } finally {
      await stopProcess(cluster.proc);
    }
  });
});
