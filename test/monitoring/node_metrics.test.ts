// Node's own metrics (event-loop lag, heap, GC) are collected only where they are exported: their
// event-loop delay monitor wakes the main thread every 10 ms, a cost an idle server without
// monitoring should not pay.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Metrics } from '../../src/monitoring/metrics.js';

const nodeSeries = (m: Metrics) =>
  m.registry
    .getMetricsAsArray()
    .map((x) => (x as unknown as { name: string }).name)
    .filter((n) => n.startsWith('nodejs_'));

describe("Node's own metrics", () => {
  it('are not collected until asked for, then are, once however often asked', async () => {
    const metrics = new Metrics();
    assert.deepEqual(nodeSeries(metrics), []);
    metrics.collectNodeMetrics();
    metrics.collectNodeMetrics();
    assert.ok(nodeSeries(metrics).includes('nodejs_eventloop_lag_seconds'), nodeSeries(metrics).join(' '));
    assert.match(await metrics.text(), /^nodejs_eventloop_lag_seconds \d/m);
  });
});
