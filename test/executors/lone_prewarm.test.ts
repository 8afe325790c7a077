// Prewarming the thread of a lone request (lone_prewarm.ts): which runs are kept and replayed,
// which thread a prewarm goes to and when none is sent, and the arrivals that trigger one.
// Decisions are read from the host and from the thread's own answer, never from timings.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import diagnostics from 'node:diagnostics_channel';
import path from 'node:path';
import { ExecutorHost, prewarmForArrival } from '../../src/executors/executor_host.js';
import { keepForReplay, onPostArrival, PREWARM_MAX_BYTES, PREWARM_MAX_MS, replayable } from '../../src/executors/lone_prewarm.js';
import type { RunRequest } from '../../src/executors/protocol.js';
import { writeHalfPlusTwoSavedModel } from '../../test_util/savedmodel/model_zoo.js';
import { tempDir } from '../helpers/temp.js';

const request = (values: Float32Array): RunRequest => ({
  signature: 'serving_default',
  inputs: { x: { dtype: 'float32', shape: [values.length, 1], values } },
  outputKeys: [],
});

describe('lone prewarm policy', () => {
  it('keeps runs of messages up to PREWARM_MAX_BYTES, none carrying strings', () => {
    assert.equal(keepForReplay(new ArrayBuffer(PREWARM_MAX_BYTES)), true);
    assert.equal(keepForReplay(new ArrayBuffer(PREWARM_MAX_BYTES + 1)), false);
    const strings = { dtype: 'string' as const, shape: [1], values: [new TextEncoder().encode('a')] };
    assert.equal(keepForReplay({ flat: new ArrayBuffer(8), whole: [strings], errors: [] }), false);
    const floats = { dtype: 'float32' as const, shape: [2], values: new Float32Array(2) };
    assert.equal(keepForReplay({ flat: new ArrayBuffer(8), whole: [floats], errors: [] }), true);
  });

  it('replays versions whose fastest lone run took at most PREWARM_MAX_MS', () => {
    assert.equal(replayable(PREWARM_MAX_MS), true);
    assert.equal(replayable(PREWARM_MAX_MS + 0.01), false);
  });

  it('calls back on POST arrivals only, until unsubscribed', () => {
    const start = diagnostics.channel('http.server.request.start');
    let posts = 0;
    const stop = onPostArrival(() => posts++);
    start.publish({ request: { method: 'POST' } });
    start.publish({ request: { method: 'GET' } });
    start.publish({});
    stop();
    start.publish({ request: { method: 'POST' } });
    assert.equal(posts, 1);
  });
});

describe('lone prewarm on executor threads (ONNX Runtime)', () => {
  const closing: ExecutorHost[] = [];
  after(async () => {
    await Promise.all(closing.map((h) => h.close()));
  });

  async function hostWithHalfPlusTwo(prewarmAfterIdleMs = 0) {
    const versionDir = path.join(tempDir(), '1');
    await writeHalfPlusTwoSavedModel(versionDir);
    // Any run replayed, however long it took, and sent however soon after the last answer: the time bounds are not what is tested here.
    const host = ExecutorHost.start({ threads: 2, runtime: 'onnx', prewarmMaxMs: Infinity, prewarmAfterIdleMs });
    closing.push(host);
    const { id } = await host.open({ versionDir, tags: ['serve'] });
    /** Sends one message as the pool does (counted, then sent) on the line the host chooses. */
    const send = (values: Float32Array) => {
      const line = host.idleLine(id)!;
      host.countRuns(line, 1);
      return line.send(id, [request(values)]);
    };
    /** Asks the thread holding the version for a prewarm, answered: whether it replayed a run. */
    const replayed = async () => {
      const reply = await host.control(id, { kind: 'prewarm', id });
      assert.ok(reply.ok && reply.kind === 'prewarmed', JSON.stringify(reply));
      return reply.ran;
    };
    return { host, id, send, replayed };
  }

  it('a lone run is replayed on its thread; nothing before one, nor while that thread runs, nor once the version is gone', async () => {
    const { host, id, send, replayed } = await hostWithHalfPlusTwo();
    assert.equal(host.prewarm(), false, 'no lone run yet');
    assert.equal(await replayed(), false);
    await send(Float32Array.of(1, 2, 5));
    assert.equal(await replayed(), true);
    const running = send(Float32Array.of(3));
    assert.equal(host.prewarm(), false, 'its thread is running a message');
    await running;
    assert.equal(host.prewarm(), true);
    await host.unload(id);
    assert.equal(host.prewarm(), false, 'the version was unloaded');
  });

  it('an arrival prewarms the host of the last lone message only', async () => {
    const a = await hostWithHalfPlusTwo();
    const b = await hostWithHalfPlusTwo();
    await a.send(Float32Array.of(1));
    await b.send(Float32Array.of(2));
    // A control round trip on each: the thread's notice that it has a run to replay, sent before, has arrived.
    await a.replayed();
    await b.replayed();
    assert.equal(prewarmForArrival(), b.host);
    await a.send(Float32Array.of(3));
    assert.equal(prewarmForArrival(), a.host);
    const running = a.send(Float32Array.of(4));
    assert.equal(prewarmForArrival(), undefined, 'a thread of the process is running');
    await running;
  });

  it('no prewarm while the thread is still warm from its last answer', async () => {
    const { host, send, replayed } = await hostWithHalfPlusTwo(Infinity);
    await send(Float32Array.of(1));
    await replayed();
    assert.equal(host.prewarm(), false);
  });

  it('no prewarm for a version whose runs take longer than the bound: the thread never says it has one to replay', async () => {
    const versionDir = path.join(tempDir(), '1');
    await writeHalfPlusTwoSavedModel(versionDir);
    const host = ExecutorHost.start({ threads: 1, runtime: 'onnx', prewarmMaxMs: -1, prewarmAfterIdleMs: 0 });
    closing.push(host);
    const { id } = await host.open({ versionDir, tags: ['serve'] });
    const line = host.idleLine(id)!;
    host.countRuns(line, 1);
    await line.send(id, [request(Float32Array.of(1))]);
    const reply = await host.control(id, { kind: 'prewarm', id });
    assert.deepEqual(reply, { ok: true, kind: 'prewarmed', ran: false });
    assert.equal(host.prewarm(), false);
  });

  it('a lone run of a message larger than PREWARM_MAX_BYTES is not kept', async () => {
    const { send, replayed } = await hostWithHalfPlusTwo();
    await send(new Float32Array(PREWARM_MAX_BYTES / 4 + 1));
    assert.equal(await replayed(), false);
  });
});
