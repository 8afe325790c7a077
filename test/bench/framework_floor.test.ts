// bench:batching's framework floors: the served ÷ offline ceiling a floor's CPU per request
// allows, and the floor routes themselves (a real echo_server process under real requests).
import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import { floorCeilingPerSec, startFrameworkFloor, type FloorCell } from '../../bench/report/framework_floor.js';
import { stopProcess } from '../../bench/report/processes.js';

const cell = (requests: number, mainCpuMs: number, processCpuMs: number, clientCpuMs: number): FloorCell => ({
  rps: 0,
  requests,
  wallMs: 1000,
  mainCpuMs,
  processCpuMs,
  clientCpuMs,
});

describe('the framework floor', () => {
  it('ceiling: the least of one core ÷ its event loop and the cores ÷ (its process + the engine + wrk), per request', () => {
    // 10 000 requests: loop 50 µs, process 65, wrk 21 a request; the engine 60 µs an item.
    const cells = [cell(4000, 200, 260, 84), cell(6000, 300, 390, 126)];
    assert.equal(Math.round(floorCeilingPerSec(cells, 60, 2)), Math.round(2e6 / (65 + 21 + 60)));
    // One core: the cores' bound is under the loop's.
    assert.equal(Math.round(floorCeilingPerSec(cells, 60, 1)), Math.round(1e6 / (65 + 21 + 60)));
    // A loop slower than the rest together: its own bound.
    assert.equal(Math.round(floorCeilingPerSec([cell(1000, 500, 510, 10)], 0, 8)), 2000);
  });

  const floors: Array<{ proc: import('node:child_process').ChildProcess }> = [];
  after(() => Promise.all(floors.map((f) => stopProcess(f.proc))));
  const body = JSON.stringify({
    instances: [
      [0.5, 1.5, 2.5, 3.5],
      [4, 5, 6, 7],
    ],
  });

  it('answers a :predict body with the first values of each row, parsed by JSON.parse', async () => {
    const floor = await startFrameworkFloor(2);
    floors.push(floor);
    const r = await fetch(floor.url, { method: 'POST', body, headers: { 'content-type': 'application/json' } });
    assert.deepEqual(await r.json(), {
      predictions: [
        [0.5, 1.5],
        [4, 5],
      ],
    });
  });

  it('unread: takes the bytes and answers one row of zeros', async () => {
    const floor = await startFrameworkFloor(3, true);
    floors.push(floor);
    const r = await fetch(floor.url, { method: 'POST', body: 'not JSON at all', headers: { 'content-type': 'application/json' } });
    assert.deepEqual([r.status, await r.json()], [200, { predictions: [[0, 0, 0]] }]);
  });
});
