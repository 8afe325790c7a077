// How wide executor threads run (core_sizing.ts) and the session options that follow from it:
// which thread takes a message as the load changes, when there is a wide thread at all, and
// that thread counts set by the operator hold for every thread.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { chooseLine, wideThreadWidth, WidthChoice, type LineView } from '../../src/executors/core_sizing.js';
import { ortSessionOptions } from '../../src/runtimes/onnx/ort_session_options.js';
import { DEFAULT_ENGINE_SETTINGS } from '../../src/config/session_config.js';
import { FLAGS } from '../../src/config/flags.js';
import { cpuCount } from '../../src/config/batching_parameters.js';

const line = (wide: boolean, idle = true, loaded = true): LineView => ({ wide, idle, loaded });
const unset = { intraOpThreads: 0, interOpThreads: 0 };

describe('wide thread: when there is one', () => {
  it('on ONNX Runtime on the CPU with 2+ cores and no thread count set: as wide as the cores', () => {
    assert.equal(wideThreadWidth('onnx', unset, 8), 8);
    assert.equal(wideThreadWidth('onnx+embedded', undefined, 2), 2);
  });
  it('none on one core, on a GPU, or on runtimes that cannot size a session per thread', () => {
    assert.equal(wideThreadWidth('onnx', unset, 1), 0);
    for (const runtime of ['onnx-cuda', 'embedded', 'wasm', 'cpu', 'tfjs-node', 'tfjs-node-gpu'])
      assert.equal(wideThreadWidth(runtime, unset, 8), 0, runtime);
  });
  it('none when a thread count is set (intra, inter, or both as --tensorflow_session_parallelism sets them): it holds for every thread', () => {
    assert.equal(wideThreadWidth('onnx', { intraOpThreads: 1, interOpThreads: 0 }, 8), 0);
    assert.equal(wideThreadWidth('onnx', { intraOpThreads: 0, interOpThreads: 2 }, 8), 0);
    assert.equal(wideThreadWidth('onnx', { intraOpThreads: 4, interOpThreads: 4 }, 8), 0);
  });
});

describe('wide or narrow: which thread takes the next message', () => {
  const lines = [line(false), line(false), line(true)];
  it('a lone request (nothing running in the process) takes the wide thread', () => {
    assert.equal(chooseLine(lines, 0), 2);
  });
  it('with anything running anywhere in the process, a narrow one: the wide one is never used beside others', () => {
    assert.equal(chooseLine(lines, 1), 0);
    assert.equal(chooseLine([line(false, false), line(false), line(true)], 1), 1);
    assert.equal(chooseLine([line(false, false), line(false, false), line(true)], 2), undefined, 'waits for a narrow one');
  });
  it('while the wide thread runs, the next request takes a narrow one', () => {
    assert.equal(chooseLine([line(false), line(false), line(true, false)], 1), 0);
  });
  it('a wide thread without the version (still loading it) is passed over; a narrow one without it too', () => {
    assert.equal(chooseLine([line(false), line(true, true, false)], 0), 0);
    assert.equal(chooseLine([line(false, true, false), line(false), line(true, true, false)], 0), 1);
  });
  it('without a wide thread, the first free narrow one, as before', () => {
    assert.equal(chooseLine([line(false, false), line(false)], 0), 1);
    assert.equal(chooseLine([], 0), undefined);
  });
});

describe("wide or narrow for a version's lone requests: learned from their compute times", () => {
  /** The widths `n` lone requests get when wide runs take `wideMs` and narrow ones `narrowMs`. */
  const widths = (choice: WidthChoice, n: number, wideMs: number, narrowMs: number) =>
    Array.from({ length: n }, () => {
      const wide = choice.tryWide();
      choice.record(wide ? 'wide' : 'narrow', wide ? wideMs : narrowMs);
      return wide ? 'W' : 'n';
    }).join('');

  it('the first lone requests try the wide thread; where it is faster it keeps them, one in eight checking a narrow one', () => {
    const choice = new WidthChoice();
    assert.equal(widths(choice, 8, 3, 4), 'WWWWWWWW');
    assert.equal(widths(choice, 16, 3, 4), 'WWWWWWWnWWWWWWWn');
  });
  it('where the wide thread is slower (cores busy with other work) lone requests go narrow, one in eight trying wide again', () => {
    const choice = new WidthChoice();
    assert.equal(widths(choice, 16, 30, 20), 'WWWWWWWWWWWWWWWn');
    assert.equal(widths(choice, 16, 30, 20), 'nnnnnnnWnnnnnnnW');
  });
  it('switches back once the wide thread is faster again', () => {
    const choice = new WidthChoice();
    widths(choice, 24, 30, 20);
    assert.match(widths(choice, 64, 5, 20), /W{7}n$/);
  });
});

describe('session options', () => {
  it('one intra-op thread by default, sequential, nothing to spin', () => {
    const o = ortSessionOptions('cpu');
    assert.equal(o.intraOpNumThreads, 1);
    assert.equal(o.executionMode, 'sequential');
    assert.equal(o.extra, undefined);
  });
  it('a wide session gets its threads, and they do not spin waiting for work', () => {
    const o = ortSessionOptions('cpu', { ...DEFAULT_ENGINE_SETTINGS, intraOpThreads: 4 });
    assert.equal(o.intraOpNumThreads, 4);
    assert.deepEqual(o.extra, { session: { intra_op: { allow_spinning: '0' }, inter_op: { allow_spinning: '0' } } });
  });
  it('--num_executors defaults to one executor per core, as num_batch_threads', () => {
    assert.equal(FLAGS.num_executors.default, cpuCount());
  });
});
