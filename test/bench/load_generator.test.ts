// The bench's load generator measured on synthetic latencies and a local server whose
// stalls are known: percentiles and mean from the HDR histogram, Locust's think-time
// distribution, coordinated-omission correction, the open loop counting from due times,
// and the worker-thread runner handing its histogram back whole.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { LatencyRecorder } from '../../bench/load/latency_recorder.js';
import { between } from '../../bench/load/think_time.js';
import { runLoad } from '../../bench/load/generator.js';
import { runLoadInWorker } from '../../bench/load/load_worker.js';
import { seededRandom } from '../../test_util/savedmodel/model_zoo.js';

const close = (a: number, b: number, rel: number) => Math.abs(a - b) <= rel * Math.abs(b);

describe('latency statistics', () => {
  it("percentiles, mean and max of known latencies, within the histogram's 0.1 %", () => {
    const r = new LatencyRecorder();
    const values = Array.from({ length: 10_000 }, (_, i) => (i + 1) / 10); // 0.1 … 1000 ms
    for (const v of seededShuffle(values)) r.record(v);
    const s = r.summary();
    assert.equal(s.count, 10_000);
    for (const [got, exact] of [
      [s.p50Ms, 500],
      [s.p90Ms, 900],
      [s.p99Ms, 990],
      [s.maxMs, 1000],
      [s.meanMs, 500.05],
    ]) {
      assert.ok(close(got, exact, 0.001), `${got} vs ${exact}`);
    }
  });

  it('errors are counted by kind and survive the trip through a worker message', () => {
    const r = new LatencyRecorder();
    [1, 2, 3, 400].forEach((v) => r.record(v));
    r.error('HTTP 503');
    r.error('HTTP 503');
    r.error('ECONNRESET');
    const back = LatencyRecorder.decode(JSON.parse(JSON.stringify(r.encode())));
    assert.deepEqual(back.summary(), r.summary());
    assert.deepEqual(back.summary().errorsByKind, { 'HTTP 503': 2, ECONNRESET: 1 });
  });

  it('between(a, b) think times are uniform on [a, b] and replayable from the seed', () => {
    const think = between(1000, 3000, seededRandom(7));
    const xs = Array.from({ length: 20_000 }, think);
    assert.ok(xs.every((x) => x >= 1000 && x <= 3000));
    const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
    assert.ok(Math.abs(mean - 2000) < 15, `mean ${mean}`);
    const bins = [0, 0, 0, 0];
    for (const x of xs) bins[Math.min(3, Math.floor((x - 1000) / 500))]++;
    for (const b of bins) assert.ok(Math.abs(b - 5000) < 250, `quartile bins ${bins}`);
    assert.deepEqual(Array.from({ length: 5 }, between(1000, 3000, seededRandom(7))), xs.slice(0, 5));
    assert.throws(() => between(3, 1), /need 0 <= min <= max/);
  });

  it('coordinated-omission correction: a stall a closed loop saw once counts for the requests it kept from being sent', () => {
    const plain = new LatencyRecorder();
    const corrected = new LatencyRecorder();
    // One user expected to send every 10 ms: 99 answers of 1 ms, one stall of 1000 ms.
    for (let i = 0; i < 99; i++) {
      plain.record(1);
      corrected.recordCorrected(1, 10);
    }
    plain.record(1000);
    corrected.recordCorrected(1000, 10);
    assert.equal(plain.count, 100);
    assert.ok(plain.percentileMs(90) < 1.01, 'uncorrected, the stall hides above p99');
    // The stall stood for the 99 requests due every 10 ms while it lasted: 990, 980, … 10 ms.
    assert.equal(corrected.count, 199);
    assert.ok(close(corrected.percentileMs(75), 500, 0.03), `corrected p75 ${corrected.percentileMs(75)}`);
  });
});

describe('load generator against a local server that stalls', () => {
  let server: http.Server;
  let url: string;
  let pausedUntil = 0;
  before(async () => {
    server = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        const wait = pausedUntil - performance.now();
        setTimeout(() => res.end('ok'), Math.max(0, wait));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  after(() => new Promise<void>((r) => server.close(() => r())));

  it("open loop: latency counts from each request's due time, so a 400 ms stall shows in many requests", async () => {
    setTimeout(() => (pausedUntil = performance.now() + 400), 500);
    const r = await runLoad({ url, mode: { kind: 'open', ratePerSec: 200 }, durationMs: 1500 });
    const s = r.recorder.summary();
    assert.equal(s.errors, 0);
    // Due every 5 ms for 1500 ms: exactly 300, however late the stall made them.
    assert.equal(s.count, 300);
    assert.equal(r.sent, 300);
    // ~80 requests were due during the stall; each waited the rest of it. Only lower bounds:
    // a busy machine adds latency, so they hold however loaded it is.
    assert.ok(s.p90Ms > 100, `p90 ${s.p90Ms}`);
    assert.ok(s.maxMs >= 350, `max ${s.maxMs}`);
  });

  it('open loop: a client that falls behind (its own event loop blocked 300 ms) still counts from the due times', async () => {
    pausedUntil = 0;
    setTimeout(() => {
      const until = performance.now() + 300;
      while (performance.now() < until); // the sender cannot send meanwhile
    }, 500);
    const r = await runLoad({ url, mode: { kind: 'open', ratePerSec: 200 }, durationMs: 1500 });
    const s = r.recorder.summary();
    // ~60 requests were due while the client was stuck and the server answers at once: measured
    // from their actual send they would look fast, so only due-time counting puts p90 over 100 ms.
    assert.equal(s.count, 300);
    assert.ok(s.p90Ms > 100, `p90 ${s.p90Ms}`);
  });

  it('closed loop with one connection sees the same stall once (coordinated omission), and the correction restores it', async () => {
    setTimeout(() => (pausedUntil = performance.now() + 400), 500);
    const plain = await runLoad({ url, mode: { kind: 'closed', users: 1, thinkMs: [5, 5] }, durationMs: 1500 });
    setTimeout(() => (pausedUntil = performance.now() + 400), 500);
    const corrected = await runLoad({ url, mode: { kind: 'closed', users: 1, thinkMs: [5, 5] }, durationMs: 1500, expectedIntervalMs: 5 });
    // Uncorrected, the stall is one sample among the requests actually sent; corrected, it also
    // stands for the ≥ 79 requests due every 5 ms while it lasted (counts, not times: they hold
    // on a loaded machine, where a longer stall only back-fills more).
    assert.equal(plain.recorder.count, plain.sent);
    assert.ok(corrected.recorder.count - corrected.sent >= 70, `back-filled ${corrected.recorder.count - corrected.sent}`);
    assert.ok(corrected.recorder.percentileMs(90) > plain.recorder.percentileMs(90), 'the correction raises p90');
  });

  it('runs on a worker thread and hands back every latency', async () => {
    pausedUntil = 0;
    const progress: number[] = [];
    const r = await runLoadInWorker({ url, mode: { kind: 'concurrency', connections: 4 }, durationMs: 1200 }, (p) => progress.push(p.done));
    assert.equal(r.recorder.count, r.sent);
    assert.ok(r.sent > 50, `${r.sent} requests`);
    assert.ok(progress.length >= 1 && progress[0] > 0, `progress reports ${progress}`);
  });
});

function seededShuffle<T>(xs: T[]): T[] {
  const rand = seededRandom(3);
  const a = [...xs];
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [a[i], a[j]] = [a[j], a[i]];
  }
  return a;
}
