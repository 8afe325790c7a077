// The metrics counted in plain numbers write the page prom-client's own Counter and Histogram
// write for the same records: the same text, the same JSON, series in the order first recorded.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Counter, Histogram, Registry } from 'prom-client';
import { CountedCounter, CountedHistogram } from '../../src/monitoring/counted_metrics.js';

const BUCKETS = [10, 18, 32.4, 58.32, 1274820];
const LABELS = ['model_name', 'API', 'entrypoint'] as const;
// Interleaved series (the first-recorded order is not the label order), a value on a bound,
// one above every bound, fractions whose sum depends on the order added, a label to escape.
const RECORDS: Array<[string, string, string, number]> = [
  ['b', 'predict', 'REST', 10],
  ['a', 'predict', 'GRPC', 0.1],
  ['b', 'classify', 'REST', 2e6],
  ['a', 'predict', 'GRPC', 0.2],
  ['q"\\\nx', 'predict', 'REST', 58.32],
  ['b', 'predict', 'REST', 33.3],
  ['a', 'predict', 'GRPC', 1274820],
];

describe('metrics counted in plain numbers', () => {
  it("write prom-client's page for the same records", async () => {
    const reference = new Registry();
    const counted = new Registry();
    const refHistogram = new Histogram({ name: 'h', help: 'H.', labelNames: LABELS, buckets: BUCKETS, registers: [reference] });
    const refCounter = new Counter({ name: 'c', help: 'C.', labelNames: ['model_name', 'status'] as const, registers: [reference] });
    const histogram = new CountedHistogram({ name: 'h', help: 'H.', labelNames: LABELS, buckets: BUCKETS, registers: [counted] });
    const counter = new CountedCounter({ name: 'c', help: 'C.', labelNames: ['model_name', 'status'] as const, registers: [counted] });
    for (const [model, api, entrypoint, value] of RECORDS) {
      refHistogram.labels(model, api, entrypoint).observe(value);
      histogram.series(model, api, entrypoint).observe(value);
      const status = value > 100 ? 'INVALID_ARGUMENT' : 'OK';
      refCounter.labels(model, status).inc();
      counter.series(model, status).inc();
    }
    assert.equal(await counted.metrics(), await reference.metrics());
    assert.deepEqual(await counted.getMetricsAsJSON(), await reference.getMetricsAsJSON());
    counted.resetMetrics();
    reference.resetMetrics();
    assert.equal(await counted.metrics(), await reference.metrics());
  });

  it("write prom-client's page with one label or none, before the first record and after a reset", async () => {
    const reference = new Registry();
    const counted = new Registry();
    const refNone = new Histogram({ name: 'n', help: 'N.', buckets: BUCKETS, registers: [reference] });
    const refOne = new Histogram({ name: 'o', help: 'O.', labelNames: ['pool'] as const, buckets: BUCKETS, registers: [reference] });
    const refCount = new Counter({ name: 'c', help: 'C.', registers: [reference] });
    const none = new CountedHistogram({ name: 'n', help: 'N.', buckets: BUCKETS, registers: [counted] });
    const one = new CountedHistogram({ name: 'o', help: 'O.', labelNames: ['pool'] as const, buckets: BUCKETS, registers: [counted] });
    const count = new CountedCounter({ name: 'c', help: 'C.', registers: [counted] });
    assert.equal(await counted.metrics(), await reference.metrics());
    for (const [pool, , , value] of RECORDS) {
      refNone.observe(value);
      none.series().observe(value);
      refOne.labels(pool).observe(value);
      one.series(pool).observe(value);
      refCount.inc();
      count.series().inc();
    }
    assert.equal(await counted.metrics(), await reference.metrics());
    assert.deepEqual(await counted.getMetricsAsJSON(), await reference.getMetricsAsJSON());
    counted.resetMetrics();
    reference.resetMetrics();
    assert.equal(await counted.metrics(), await reference.metrics());
    assert.throws(() => one.series(), /1 label values expected, got 0/);
  });

  it('refuse what is not a number, and records made other than through series()', () => {
    const histogram = new CountedHistogram({ name: 'h', help: 'H.', labelNames: LABELS, buckets: BUCKETS, registers: [] });
    assert.throws(() => histogram.series('m', 'predict', 'REST').observe(NaN), TypeError);
    assert.throws(() => histogram.labels('m', 'predict', 'REST'), /recorded through series/);
    assert.throws(() => histogram.zero({ model_name: 'm', API: 'predict', entrypoint: 'REST' }), /recorded through series/);
    assert.throws(() => histogram.series('m', 'predict'), /3 label values expected/);
    const counter = new CountedCounter({ name: 'c', help: 'C.', labelNames: ['model_name', 'status'] as const, registers: [] });
    assert.throws(() => counter.inc(), /recorded through series/);
  });
});
