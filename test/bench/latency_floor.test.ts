// The latency bench's floor: the echo that sends each body through a worker thread answers
// every request with its own body, however many are in flight, and the bench's table shows it
// beside tfgate when measured (older results, without it, render as before).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startNodeProcess, stopProcess } from '../../bench/report/processes.js';
import { latencyMarkdown } from '../../bench/latency/latency_markdown.js';
import type { LatencyResults } from '../../bench/latency/latency_bench.js';
import type { ProbeResult } from '../../bench/latency/sequential_probe.js';

const here = path.dirname(fileURLToPath(import.meta.url));

describe('latency floor: the echo through a worker thread', () => {
  it('answers each of many concurrent requests with its own body', async () => {
    const server = await startNodeProcess([path.join(here, '..', '..', 'bench', 'load', 'hop_echo_server.js')], /listening (\d+)/);
    try {
      const bodies = Array.from({ length: 20 }, (_, i) => ({ instances: [i, i / 2], tag: `r${i}` }));
      const answers = await Promise.all(
        bodies.map(async (b) => (await fetch(`http://127.0.0.1:${server.port}/echo`, { method: 'POST', body: JSON.stringify(b) })).json()),
      );
      assert.deepEqual(answers, bodies);
    } finally {
      await stopProcess(server.proc);
    }
  });

  it('the table shows it beside tfgate and the echo, and leaves it out of results without it', () => {
    const probe = (medianMs: number): ProbeResult => ({ count: 10, errors: 0, meanMs: medianMs, medianMs, serverMs: {} });
    const results = (hop: boolean): LatencyResults => ({
      date: '2026-11-28',
      quick: true,
      machine: { cores: 2, cpuModel: 'test', node: 'v20' },
      runtimes: [
        {
          runtime: { choice: 'onnx', resolved: 'onnx', reason: 'test' },
          models: [],
          echo: [{ gapMs: 0, tfgate: probe(0.6), echo: probe(0.1), ...(hop && { hopEcho: probe(0.45) }) }],
        },
      ],
      skipped: {},
      targets: [],
    });
    assert.match(latencyMarkdown(results(true)), /\| none \| 0\.600 \| 0\.100 \| 0\.500 \| 0\.450 \| 0\.350 \| 0\.150 \|/);
    const old = latencyMarkdown(results(false));
    assert.match(old, /\| none \| 0\.600 \| 0\.100 \| 0\.500 \|\n/);
    assert.doesNotMatch(old, /through a thread/);
  });
});
