// An executor thread imports TF.js (tfjs-core, its backends, tfjs-converter) only when a version
// needs it: under --runtime=auto without libtensorflow, a version ONNX Runtime serves whole —
// its tf.Example parsing steps included — leaves the thread without TF.js; a version with a
// signature only the embedded runtime runs imports it and answers. The thread is the production
// entry module, started directly and asked on its own lines; what it loaded is read from its
// CommonJS module cache (TF.js's packages are CommonJS, loaded with require()).
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { MessageChannel, Worker, type MessagePort } from 'node:worker_threads';
import type {
  ControlAnswer,
  ControlTask,
  ExecutorReply,
  ExecutorThreadData,
  RunLineReply,
  RunRequest,
  ThreadLinesOffer,
} from '../../src/executors/protocol.js';
import { packRequests, unpackReplies } from '../../src/executors/run_wire.js';
import type { HostTensor } from '../../src/tensor/host_tensor.js';
import { writeHalfPlusTwoSavedModel } from '../../test_util/savedmodel/model_zoo.js';
import { example, parseExample, serialized } from '../helpers/sparse_examples.js';
import { attr, f32, i64, node, writeTinyModel } from '../helpers/tiny_graphs.js';
import { find, staticHashTable, stringJoin } from '../helpers/table_graphs.js';
import { tempDir } from '../helpers/temp.js';

const here = fileURLToPath(import.meta.url);
const WORKER_FILE = path.resolve(path.dirname(here), '../../src/executors', `executor_worker${path.extname(here)}`);

/** The executor thread's entry, plus an answer to 'census': the npm packages of TF.js this thread has loaded. */
const CENSUS_THREAD = `
const { parentPort } = require('node:worker_threads');
const { pathToFileURL } = require('node:url');
parentPort.on('message', (m) => {
  if (m !== 'census') return;
  const packages = new Set();
  for (const file of Object.keys(require.cache)) {
    const found = /node_modules[\\\\/](@tensorflow[\\\\/][^\\\\/]+)/.exec(file);
    if (found) packages.add(found[1].replace('\\\\', '/'));
  }
  parentPort.postMessage({ kind: 'census', packages: [...packages].sort() });
});
import(pathToFileURL(${JSON.stringify(WORKER_FILE)}).href);
`;

class ExecutorThread {
  private seq = 0;
  private constructor(
    private readonly worker: Worker,
    private readonly run: MessagePort,
    private readonly control: MessagePort,
  ) {}

  static async start(data: ExecutorThreadData): Promise<ExecutorThread> {
    const worker = new Worker(CENSUS_THREAD, { eval: true, workerData: data });
    const offer = await new Promise<ThreadLinesOffer>((resolve, reject) => {
      worker.once('error', reject);
      worker.on('message', (m: ThreadLinesOffer) => {
        if (m.kind === 'lines') resolve(m);
      });
    });
    return new ExecutorThread(worker, offer.run, offer.control);
  }

  ask(task: ControlTask): Promise<ExecutorReply> {
    const seq = ++this.seq;
    return new Promise((resolve) => {
      const listen = (a: ControlAnswer) => {
        if (a.seq !== seq) return;
        this.control.off('message', listen);
        resolve(a.reply);
      };
      this.control.on('message', listen);
      this.control.postMessage({ seq, task });
    });
  }

  async runOne(id: number, r: RunRequest): Promise<Record<string, HostTensor>> {
    const { packed, transfer } = packRequests(id, [r], []);
    const answer = await new Promise<RunLineReply>((resolve) => {
      this.run.once('message', resolve);
      this.run.postMessage(packed, transfer);
    });
    // The replies packed in one buffer, posted bare, or an ExecutorReply (protocol.ts).
    const reply: ExecutorReply = answer instanceof ArrayBuffer ? { ok: true, kind: 'runMany', replies: answer } : answer;
    assert.equal(reply.ok && reply.kind, 'runMany', reply.ok ? reply.kind : reply.error.message);
    const [one] = unpackReplies((reply as Extract<ExecutorReply, { kind: 'runMany' }>).replies);
    assert.ok(one.ok, one.ok ? '' : one.error.message);
    return one.kind === 'run' ? one.outputs : {};
  }

  /** TF.js's npm packages this thread has loaded. */
  census(): Promise<string[]> {
    return new Promise((resolve) => {
      const listen = (m: { kind?: string; packages: string[] }) => {
        if (m.kind !== 'census') return;
        this.worker.off('message', listen);
        resolve(m.packages);
      };
      this.worker.on('message', listen);
      this.worker.postMessage('census');
    });
  }

  async close(): Promise<void> {
    this.run.close();
    this.control.close();
    await this.worker.terminate();
  }
}

/** half_plus_two as a regress signature reads it: a dense float feature `x` of serialized tf.Examples (ParseExample), times 0.5, plus 2. */
function regressHalfPlusTwoModel(): Promise<string> {
  return writeTinyModel((g) => {
    const p = parseExample(g, [], ['x']);
    const y = g.add('y', g.mul('half', p.dense[0], g.constant('a', f32([], [0.5]))), g.constant('b', f32([], [2])));
    return { inputs: { examples: p.x }, outputs: { y } };
  });
}

/** serving_default: tf.strings.regex_replace(text, r"\p{Ll}", ".") — ONNX Runtime takes no string tensors. */
function regexReplaceModel(): Promise<string> {
  return writeTinyModel((g) => {
    const text = g.placeholder('text', 'string', [-1]);
    const masked = node(
      g,
      'StaticRegexReplace',
      'masked',
      [text],
      { pattern: attr.s('\\p{Ll}'), rewrite: attr.s('.'), replace_global: attr.b(true) },
      'string',
      [-1],
    );
    return { inputs: { text }, outputs: { masked } };
  });
}

/** A string → id table whose keys the graph joins at load (StringJoin: x_1, y_2 → 0, 1), and a lookup of `k`. */
function joinedKeysModel(): Promise<string> {
  return writeTinyModel((g) => {
    const strings = (v: string[]) => ({ dtype: 'string' as const, shape: [v.length], values: v.map((x) => Buffer.from(x)) });
    const keys = stringJoin(g, 'joined', [g.constant('prefix', strings(['x', 'y'])), g.constant('suffix', strings(['1', '2']))], '_');
    const { table, init } = staticHashTable(g, 'joined_table', 'string', 'int64', keys, g.constant('ids', i64([2], [0, 1])));
    const k = g.placeholder('k', 'string', [-1]);
    const ids = find(g, 'lookup', table, k, g.constant('default', i64([], [-1])), 'int64');
    return { inputs: { k }, outputs: { ids }, nodeCollections: { table_initializer: [init] } };
  });
}

const texts = (...v: string[]): HostTensor => ({ dtype: 'string', shape: [v.length], values: v.map((x) => Buffer.from(x)) });

describe('executor threads import TF.js only for a version that needs it', () => {
  const threads: ExecutorThread[] = [];
  const start = async () => {
    const t = await ExecutorThread.start({ runtime: 'onnx+embedded' });
    threads.push(t);
    return t;
  };
  after(async () => {
    await Promise.all(threads.map((t) => t.close()));
  });

  it('versions ONNX Runtime serves whole (half_plus_two; half_plus_two behind a tf.Example parsing step) leave the thread without TF.js', async () => {
    const thread = await start();
    const hp2 = path.join(tempDir(), '1');
    await writeHalfPlusTwoSavedModel(hp2);
    for (const [id, versionDir] of [
      [1, hp2],
      [2, await regressHalfPlusTwoModel()],
    ] as const) {
      const loaded = await thread.ask({ kind: 'load', id, load: { versionDir, tags: ['serve'] } });
      assert.ok(loaded.ok && loaded.kind === 'describe', loaded.ok ? loaded.kind : loaded.error.message);
      assert.deepEqual(loaded.description.engines, { serving_default: { engine: 'onnxruntime' } });
    }
    const y = await thread.runOne(1, {
      signature: 'serving_default',
      inputs: { x: { dtype: 'float32', shape: [3, 1], values: Float32Array.of(1, 2, 5) } },
      outputKeys: [],
    });
    assert.deepEqual(Array.from(y.y.values as Float32Array), [2.5, 3, 4.5]);
    const regressed = await thread.runOne(2, {
      signature: 'serving_default',
      inputs: { examples: serialized(example({ x: { float: [3] } }), example({})) },
      outputKeys: [],
    });
    // The second example has no x: its default, 0.
    assert.deepEqual(Array.from(regressed.y.values as Float32Array), [3.5, 2]);
    assert.deepEqual(await thread.census(), []);
  });

  it('a version with a signature only the embedded runtime runs imports TF.js on that thread and answers', async () => {
    const thread = await start();
    assert.deepEqual(await thread.census(), []);
    const loaded = await thread.ask({ kind: 'load', id: 1, load: { versionDir: await regexReplaceModel(), tags: ['serve'] } });
    assert.ok(loaded.ok && loaded.kind === 'describe', loaded.ok ? loaded.kind : loaded.error.message);
    assert.equal(loaded.description.engines.serving_default.engine, 'wasm');
    const out = await thread.runOne(1, {
      signature: 'serving_default',
      inputs: { text: texts('AbCdEfG', 'HiJkLmN') },
      outputKeys: [],
    });
    // regex_replace_op_test.py testForwarding (after its substr).
    assert.deepEqual(
      (out.masked.values as Uint8Array[]).map((b) => Buffer.from(b).toString()),
      ['A.C.E.G', 'H.J.L.N'],
    );
    assert.ok((await thread.census()).includes('@tensorflow/tfjs-core'));
  });

  it("keys ONNX Runtime computes for a table at load run with the embedded runtime's ops (StringJoin, which tfjs-converter lacks)", async () => {
    const thread = await start();
    const loaded = await thread.ask({ kind: 'load', id: 1, load: { versionDir: await joinedKeysModel(), tags: ['serve'] } });
    assert.ok(loaded.ok && loaded.kind === 'describe', loaded.ok ? loaded.kind : loaded.error.message);
    const out = await thread.runOne(1, { signature: 'serving_default', inputs: { k: texts('x_1', 'y_2', 'x') }, outputKeys: [] });
    assert.deepEqual(Array.from(out.ids.values as BigInt64Array, Number), [0, 1, -1]);
  });
});
