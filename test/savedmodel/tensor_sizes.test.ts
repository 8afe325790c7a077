// A load's memory bound: graphs whose tensor sizes are known before anything runs (constant
// shapes; the smallest request; a verification or warmup run's inputs) are refused before
// an engine allocates them, naming the op and node. Every fixture stays within its bound.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { Code } from '../../src/errors/status.js';
import { readMetaGraph } from '../../src/savedmodel/saved_model_reader.js';
import { prepareSignatureGraph } from '../../src/savedmodel/graph/prepare_signature_graph.js';
import { LoadRunCheck, checkTensorSizes, sizeGraph } from '../../src/savedmodel/graph/tensor_sizes.js';
import { loadMemoryBound, loadTimeoutMs } from '../../src/savedmodel/load_bounds.js';
import { openSavedModelVersion } from '../../src/savedmodel/saved_model_version.js';
import type { NodeDef } from '../../src/savedmodel/graph/types.js';
import { writeRawSavedModel, type RawSavedModel } from '../../test_util/savedmodel/raw_saved_model.js';
import { HOSTILE_GRAPHS, constNode, floatOp, placeholder, signature } from '../../test_util/savedmodel/hostile_graphs.js';
import { attr } from '../../test_util/savedmodel/writer/graph_builder.js';
import { isError } from '../helpers/errors.js';
import { MODELS } from '../helpers/paths.js';
import { tempDir } from '../helpers/temp.js';

async function prepareBounded(m: RawSavedModel) {
  const dir = path.join(tempDir('tfgate-sizes-'), '1');
  await writeRawSavedModel(dir, m);
  const v = await openSavedModelVersion(dir, ['serve']);
  return prepareSignatureGraph(v.metaGraph, 'serving_default', v.variables, { isSupportedOp: () => true, memoryBound: v.memoryBound });
}

const OOM = (shape: string, op: string, node: string) =>
  isError(
    Code.RESOURCE_EXHAUSTED,
    new RegExp(
      `OOM when allocating tensor with shape\\[${shape}\\] and type float: ${op} \\(node ${node}\\) would make a tensor of \\d+ bytes, over this load's memory bound of 268435456 bytes`,
    ),
  );

describe("a load's memory bound", () => {
  it('the rule: max(--load_memory_floor_mb, 4 × the size on disk); time: --load_timeout_seconds + 1 s per 4 MB', () => {
    assert.equal(loadMemoryBound(1000).bytes, 256 * 2 ** 20);
    assert.equal(loadMemoryBound(100 * 2 ** 20).bytes, 400 * 2 ** 20);
    assert.equal(loadMemoryBound(1000, 16).bytes, 16 * 2 ** 20);
    assert.equal(loadTimeoutMs(1000), 120_000);
    assert.equal(loadTimeoutMs(400 * 2 ** 20, 60), 160_000);
    assert.equal(loadTimeoutMs(1000, 0), 0);
  });

  it('Fill [30000, 30000], a broadcast Const of 1.6 GB, OneHot of depth 2^31-1, Pad 1e9, Tile [1e9, 1e9]: refused by op and node', async () => {
    await assert.rejects(prepareBounded(HOSTILE_GRAPHS.fillSum()), OOM('30000,30000', 'Fill', 'fill'));
    await assert.rejects(prepareBounded(HOSTILE_GRAPHS.broadcastConst()), OOM('20000,20000', 'Const', 'big'));
    await assert.rejects(prepareBounded(HOSTILE_GRAPHS.oneHot()), OOM('1,2147483647', 'OneHot', 'oh'));
    // Pad and Tile of x [-1, 1]: the smallest request (one row) is already over the bound.
    await assert.rejects(prepareBounded(HOSTILE_GRAPHS.pad()), OOM('1000000001,1', 'Pad', 'y'));
    await assert.rejects(prepareBounded(HOSTILE_GRAPHS.tile()), OOM('1000000000,1000000000', 'Tile', 'y'));
  });

  it('many tensors each under the bound, alive at once over it', () => {
    const bound = { bytes: 1000, rule: 'test' };
    const c = (name: string) => ({
      name,
      op: 'Const',
      input: [],
      attr: { dtype: { type: 'DT_FLOAT' }, value: { tensor: { dtype: 'DT_FLOAT', tensorShape: { dim: [{ size: 100 }] } } } },
    });
    const nodes: NodeDef[] = [
      c('a'),
      ...['n1', 'n2', 'n3'].map((n) => ({ name: n, op: 'Neg', input: ['a'], attr: { T: { type: 'DT_FLOAT' } } })),
      { name: 's', op: 'AddN', input: ['n1', 'n2', 'n3'], attr: { T: { type: 'DT_FLOAT' }, N: { i: 3 } } },
    ];
    // n1..n3 (400 bytes each) are alive together when AddN runs.
    assert.throws(
      () => checkTensorSizes(nodes, new Map(), bound),
      isError(
        Code.RESOURCE_EXHAUSTED,
        /the tensors alive when Neg \(node n3\) runs would take 1200 bytes, over this load's memory bound of 1000 bytes/,
      ),
    );
    // In a chain each is freed after its one consumer: within the bound.
    const chain: NodeDef[] = [
      c('a'),
      { name: 'n1', op: 'Neg', input: ['a'], attr: { T: { type: 'DT_FLOAT' } } },
      { name: 'n2', op: 'Neg', input: ['n1'], attr: { T: { type: 'DT_FLOAT' } } },
      { name: 'n3', op: 'Neg', input: ['n2'], attr: { T: { type: 'DT_FLOAT' } } },
    ];
    assert.doesNotThrow(() => checkTensorSizes(chain, new Map(), bound));
  });

  it('a verification or warmup run: sizes from its inputs, values included (a Fill of dims fed by the request)', async () => {
    const m: RawSavedModel = {
      nodes: [
        placeholder('dims', 'int32', [2]),
        constNode('one', { dtype: 'float32', shape: [], values: Float32Array.of(1) }),
        floatOp('Fill', 'y', ['dims', 'one'], { index_type: attr.type('int32') }),
      ],
      signatures: signature('dims:0', 'y:0', [2], null),
    };
    m.signatures.serving_default.inputs.x.dtype = 'DT_INT32';
    const prepared = await prepareBounded(m); // nothing is known of dims before a run
    const check = new LoadRunCheck(new Map([['serving_default', sizeGraph(prepared.nodes, { x: 'dims' })]]), loadMemoryBound(1000));
    assert.doesNotThrow(() => check.check('serving_default', { x: { dtype: 'int32', shape: [2], values: Int32Array.of(3, 4) } }));
    assert.throws(
      () => check.check('serving_default', { x: { dtype: 'int32', shape: [2], values: Int32Array.of(100000, 100000) } }),
      isError(
        Code.RESOURCE_EXHAUSTED,
        /signature 'serving_default': OOM when allocating tensor with shape\[100000,100000\] and type float: Fill \(node y\)/,
      ),
    );
  });

  it("every fixture signature prepares within its version's bound", async () => {
    let prepared = 0;
    for (const model of fs.readdirSync(MODELS)) {
      const base = path.join(MODELS, model);
      if (!fs.statSync(base).isDirectory()) continue;
      for (const version of fs.readdirSync(base)) {
        const dir = path.join(base, version);
        if (!fs.existsSync(path.join(dir, 'saved_model.pb'))) continue;
        let v;
        try {
          v = await openSavedModelVersion(dir, ['serve']);
        } catch {
          continue;
        }
        for (const key of Object.keys(v.metaGraph.signatureDef ?? {})) {
          if (key === '__saved_model_init_op') continue;
          try {
            prepareSignatureGraph(v.metaGraph, key, v.variables, { isSupportedOp: () => true, memoryBound: v.memoryBound });
            prepared++;
          } catch (e) {
            assert.doesNotMatch((e as Error).message, /memory bound/, `${dir} ${key}`);
          }
        }
      }
    }
    assert.ok(prepared > 30, `${prepared} signatures prepared`);
  });
});
