// The run line's room (protocol.ts, ThreadLinesOffer) is used only where nobody else can be
// reading or writing it: a message sent on an idle line goes there, one sent behind another
// goes as buffers; the thread answers in the room only a message that came in it.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { MessageChannel, Worker, type MessagePort } from 'node:worker_threads';
import { RunLine } from '../../src/executors/run_line.js';
import { packReplies, packRequests, takeFromRoom, unpackReplies } from '../../src/executors/run_wire.js';
import type { ControlAnswer, ExecutorThreadData, RunLineReply, RunRequest, ThreadLinesOffer } from '../../src/executors/protocol.js';
import { writeHalfPlusTwoSavedModel } from '../../test_util/savedmodel/model_zoo.js';
import { tempDir } from '../helpers/temp.js';

const here = fileURLToPath(import.meta.url);
const WORKER_FILE = path.resolve(path.dirname(here), '../../src/executors', `executor_worker${path.extname(here)}`);

const request = (...v: number[]): RunRequest => ({
  signature: 'serving_default',
  inputs: { x: { dtype: 'float32', shape: [v.length, 1], values: Float32Array.from(v) } },
  outputKeys: [],
});

const messages = (port: MessagePort, n: number): Promise<unknown[]> =>
  new Promise((resolve) => {
    const got: unknown[] = [];
    port.on('message', (m: unknown) => {
      got.push(m);
      if (got.length === n) resolve(got);
    });
  });

const first = (replies: ArrayBuffer) => {
  const [r] = unpackReplies(replies);
  assert.ok(r.ok);
  return Array.from((r as { outputs: Record<string, { values: Float32Array }> }).outputs.y.values);
};

describe('run line room', () => {
  it('a message sent behind another goes as buffers; replies from the room are copied out as they arrive', async () => {
    const { port1, port2 } = new MessageChannel();
    const room = new SharedArrayBuffer(64 * 1024);
    const line = new RunLine(port1, () => {}, room);
    try {
      const sent = messages(port2, 2);
      const a = line.send(1, [request(1)]);
      a.catch(() => {});
      assert.ok(line.canQueue);
      const b = line.send(1, [request(2)]);
      b.catch(() => {});
      const [ma, mb] = await sent;
      assert.equal(typeof ma, 'number', 'on an idle line: in the room');
      assert.ok(mb instanceof ArrayBuffer, 'behind another: as buffers, the room left to the running message');
      // The thread's side: the first answered in the room, the second as buffers.
      const y = (v: number) => ({
        ok: true as const,
        kind: 'run' as const,
        outputs: { y: { dtype: 'float32' as const, shape: [1], values: Float32Array.of(v) } },
        computeMs: 0,
        startedAt: 0,
        endedAt: 0,
      });
      port2.postMessage(packReplies([y(10)], room).packed);
      const rb = packReplies([y(20)]);
      port2.postMessage(rb.packed, rb.transfer);
      const ra = await a;
      new Uint8Array(room).fill(0);
      assert.ok(ra.ok && ra.kind === 'runMany' && ra.replies instanceof ArrayBuffer);
      assert.deepEqual(first(ra.replies as ArrayBuffer), [10]);
      const rbReply = await b;
      assert.ok(rbReply.ok && rbReply.kind === 'runMany');
      assert.deepEqual(first(rbReply.replies as ArrayBuffer), [20]);
    } finally {
      line.close();
      port2.close();
    }
  });

  it('the thread answers in the room only a message that came in it', async () => {
    const dir = path.join(tempDir(), '1');
    await writeHalfPlusTwoSavedModel(dir);
    const worker = new Worker(WORKER_FILE, { workerData: { runtime: 'onnx' } satisfies ExecutorThreadData });
    try {
      const offer = await new Promise<ThreadLinesOffer>((resolve) =>
        worker.on('message', (m: ThreadLinesOffer) => m.kind === 'lines' && resolve(m)),
      );
      const loaded = await new Promise<ControlAnswer>((resolve) => {
        offer.control.once('message', resolve);
        offer.control.postMessage({ seq: 1, task: { kind: 'load', id: 1, load: { versionDir: dir, tags: ['serve'] } } });
      });
      assert.ok(loaded.reply.ok, JSON.stringify(loaded.reply));
      const ask = (packed: unknown, transfer: ArrayBuffer[]) =>
        new Promise<RunLineReply>((resolve) => {
          offer.run.once('message', resolve);
          offer.run.postMessage(packed, transfer);
        });
      const inRoom = packRequests(1, [request(4)], [], offer.room);
      assert.equal(typeof inRoom.packed, 'number');
      const roomReply = await ask(inRoom.packed, inRoom.transfer);
      assert.equal(typeof roomReply, 'number');
      assert.deepEqual(first(takeFromRoom(offer.room, roomReply as number)), [4]);
      const asBuffers = packRequests(1, [request(6)], []);
      const bufferReply = await ask(asBuffers.packed, asBuffers.transfer);
      assert.ok(bufferReply instanceof ArrayBuffer, 'a message that came as buffers is answered as buffers');
      assert.deepEqual(first(bufferReply), [5]);
    } finally {
      await worker.terminate();
    }
  });
});
