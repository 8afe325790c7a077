// What TF refuses when it builds a graph, refused at load with TF's words and codes: cycles,
// fetches of outputs a node does not have, DataTypes types.proto does not know, dtypes an
// op's registration does not accept, attrs out of their allowed values; zero-size pooling
// windows and the other kernel attrs TF's kernels check; and a 20 000-deep chain prepared
// without recursion. Every fixture signature still prepares.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { Code } from '../../src/errors/status.js';
import { readMetaGraph } from '../../src/savedmodel/saved_model_reader.js';
import { prepareSignatureGraph } from '../../src/savedmodel/graph/prepare_signature_graph.js';
import { checkKernelAttrs } from '../../src/savedmodel/graph/kernel_attr_checks.js';
import { opDefLookup, validateGraph } from '../../src/savedmodel/graph/graph_validation.js';
import { openVersionVariables } from '../../src/savedmodel/version_variables.js';
import type { NodeDef } from '../../src/savedmodel/graph/types.js';
import { writeRawSavedModel, type RawSavedModel } from '../../test_util/savedmodel/raw_saved_model.js';
import { HOSTILE_GRAPHS, constNode, deepChain, floatOp, i32, placeholder, signature } from '../../test_util/savedmodel/hostile_graphs.js';
import { attr } from '../../test_util/savedmodel/writer/graph_builder.js';
import { isError } from '../helpers/errors.js';
import { MODELS } from '../helpers/paths.js';
import { tempDir } from '../helpers/temp.js';

async function prepare(m: RawSavedModel) {
  const dir = path.join(tempDir('tfgate-validate-'), '1');
  await writeRawSavedModel(dir, m);
  return prepareSignatureGraph(await readMetaGraph(dir, ['serve']), 'serving_default', null, { isSupportedOp: () => true });
}

describe("TF's graph checks at load", () => {
  it('a cycle: "Graph is invalid, contains a cycle"', async () => {
    await assert.rejects(
      prepare(HOSTILE_GRAPHS.cycle()),
      isError(Code.INVALID_ARGUMENT, /Graph is invalid, contains a cycle with 2 nodes, including: a, b/),
    );
  });

  it('a signature fetching output 7 of a one-output node: FetchOutputs', async () => {
    await assert.rejects(
      prepare(HOSTILE_GRAPHS.missingOutput()),
      isError(Code.INVALID_ARGUMENT, /FetchOutputs y:7: output index too large, must be < 1/),
    );
  });

  it('an input reading output 3 of a one-output node: "Connecting to invalid output"', async () => {
    const m: RawSavedModel = {
      nodes: [placeholder('x'), floatOp('Identity', 'i', ['x']), floatOp('Neg', 'y', ['i:3'])],
      signatures: signature(),
    };
    await assert.rejects(
      prepare(m),
      isError(Code.INVALID_ARGUMENT, /Node 'y': Connecting to invalid output 3 of source node i which has 1 outputs/),
    );
  });

  it('DataType 999 in a signature and in an attr', async () => {
    await assert.rejects(
      prepare(HOSTILE_GRAPHS.unknownDtype()),
      isError(Code.INVALID_ARGUMENT, /input 'x' has dtype 999, which is not a valid DataType/),
    );
    const m: RawSavedModel = {
      nodes: [placeholder('x'), { name: 'y', op: 'Neg', input: ['x'], attr: { T: { type: 999 } } }],
      signatures: signature(),
    };
    await assert.rejects(prepare(m), isError(Code.INVALID_ARGUMENT, /AttrValue has invalid DataType enum: 999 for attr 'T'/));
  });

  it('AddV2 of float fed int32: MakeEdge\'s "incompatible with expected float"', async () => {
    await assert.rejects(
      prepare(HOSTILE_GRAPHS.mixedTypes()),
      isError(Code.INVALID_ARGUMENT, /Input 1 of node y was passed int32 from k:0 incompatible with expected float\./),
    );
  });

  it('a float Reshape shape: "not in the list of allowed values"', async () => {
    await assert.rejects(
      prepare(HOSTILE_GRAPHS.floatReshapeShape()),
      isError(Code.INVALID_ARGUMENT, /Value for attr 'Tshape' of float is not in the list of allowed values: int32, int64/),
    );
  });

  it('a missing required attr and a wrong number of inputs', async () => {
    const noT: RawSavedModel = { nodes: [placeholder('x'), { name: 'y', op: 'Neg', input: ['x'] }], signatures: signature() };
    await assert.rejects(prepare(noT), isError(Code.INVALID_ARGUMENT, /NodeDef missing attr 'T' from Op<name=Neg/));
    const extra: RawSavedModel = { nodes: [placeholder('x'), floatOp('Neg', 'y', ['x', 'x'])], signatures: signature() };
    await assert.rejects(prepare(extra), isError(Code.INVALID_ARGUMENT, /NodeDef expected inputs 'float' do not match 2 inputs specified/));
  });

  it('a number attr of 1e9 (AddN N, as a mutated ParseExample Ndense) is refused naming it, before a list of a billion dtypes is made', async () => {
    // The list used to be built first: a heap abort in V8 (the model fuzzer's seed 1, case 229).
    const huge: RawSavedModel = {
      nodes: [placeholder('x'), floatOp('AddN', 'y', ['x', 'x'], { N: attr.i(1e9) })],
      signatures: signature(),
    };
    await assert.rejects(
      prepare(huge),
      isError(
        Code.INVALID_ARGUMENT,
        /Value for attr 'N' of 1000000000 would make 'inputs' of AddN 1000000000 tensors, more than 1048576 a graph can hold; NodeDef: \{\{node y\}\}/,
      ),
    );
  });

  it("a node naming one of tfgate's internal ops (a table lookup the load-time rewrite never checked) is refused as an op TF does not register", async () => {
    const m: RawSavedModel = { nodes: [placeholder('x'), floatOp('TfgateLookupTableFind', 'y', ['x'])], signatures: signature() };
    await assert.rejects(prepare(m), isError(Code.NOT_FOUND, /Op type not registered 'TfgateLookupTableFind' in binary running on tfgate/));
  });

  it("a 20 000-deep chain prepares (no recursion over the graph's depth)", async () => {
    const prepared = await prepare(deepChain(20_000));
    assert.equal(prepared.nodes.length, 20_001);
  });

  it("a TF1 loop's NextIteration → Merge edge is no cycle", () => {
    const n = (name: string, op: string, input: string[], a: NodeDef['attr'] = {}): NodeDef => ({
      name,
      op,
      input,
      attr: { T: { type: 'DT_FLOAT' }, ...a },
    });
    const nodes: NodeDef[] = [
      { name: 'x', op: 'Placeholder', input: [], attr: { dtype: { type: 'DT_FLOAT' } } },
      n('enter', 'Enter', ['x'], { frame_name: { s: new TextEncoder().encode('f') } }),
      n('merge', 'Merge', ['enter', 'next'], { N: { i: 2 } }),
      n('next', 'NextIteration', ['merge']),
    ];
    assert.doesNotThrow(() => validateGraph(nodes, opDefLookup(new Map())));
    nodes[3] = n('next', 'Identity', ['merge']);
    assert.throws(() => validateGraph(nodes, opDefLookup(new Map())), isError(Code.INVALID_ARGUMENT, /contains a cycle with 2 nodes/));
  });

  it('every signature of every fixture SavedModel still prepares', async () => {
    let prepared = 0;
    for (const model of fs.readdirSync(MODELS)) {
      const base = path.join(MODELS, model);
      if (!fs.statSync(base).isDirectory()) continue;
      for (const version of fs.readdirSync(base)) {
        const dir = path.join(base, version);
        if (!fs.existsSync(path.join(dir, 'saved_model.pb'))) continue;
        let mg;
        try {
          mg = await readMetaGraph(dir, ['serve']);
        } catch {
          continue; // another tag set (the tfrust train/serve model): not this test's subject
        }
        const variables = await openVersionVariables(dir);
        for (const key of Object.keys(mg.signatureDef ?? {})) {
          if (key === '__saved_model_init_op') continue;
          try {
            prepareSignatureGraph(mg, key, variables, { isSupportedOp: () => true });
            prepared++;
          } catch (e) {
            // Refusals that are not graph validation's (sparse inputs, variable updates) are fine here.
            assert.doesNotMatch(
              (e as Error).message,
              /Graph is invalid|FetchOutputs|incompatible with expected|allowed values|NodeDef|AttrValue|Connecting to invalid output/,
              `${dir} ${key}`,
            );
          }
        }
      }
    }
    assert.ok(prepared > 30, `${prepared} signatures prepared`);
  });
});

describe("TF's kernel attr checks at load", () => {
  const pool = (op: string, ksize: number[], strides = [1, 1, 1, 1], extra: NodeDef['attr'] = {}): NodeDef[] => [
    { name: 'x', op: 'Placeholder', input: [], attr: { dtype: { type: 'DT_FLOAT' } } },
    {
      name: 'p',
      op,
      input: ['x'],
      attr: {
        T: { type: 'DT_FLOAT' },
        ksize: { list: { i: ksize } },
        strides: { list: { i: strides } },
        padding: { s: new TextEncoder().encode('VALID') },
        ...extra,
      },
    },
  ];
  const conv = (strides: number[], dilations = [1, 1, 1, 1], padding = 'SAME', op = 'Conv2D'): NodeDef[] => [
    { name: 'x', op: 'Placeholder', input: [], attr: { dtype: { type: 'DT_FLOAT' } } },
    { name: 'w', op: 'Placeholder', input: [], attr: { dtype: { type: 'DT_FLOAT' } } },
    {
      name: 'c',
      op,
      input: ['x', 'w'],
      attr: {
        T: { type: 'DT_FLOAT' },
        strides: { list: { i: strides } },
        dilations: { list: { i: dilations } },
        padding: { s: new TextEncoder().encode(padding) },
      },
    },
  ];

  it("MaxPool ksize [1,0,0,1] is refused with TF's message, through preparation", async () => {
    await assert.rejects(
      prepare(HOSTILE_GRAPHS.maxPoolZeroWindow()),
      isError(Code.INVALID_ARGUMENT, /Sliding window ksize for dimension 1 was zero\.\n\t \[\[\{\{node y\}\}\]\]/),
    );
  });

  it("pooling: window and stride lengths, batch pooling, AvgPool's own words, strides of zero", () => {
    assert.throws(
      () => checkKernelAttrs(pool('MaxPool', [1, 2, 2])),
      isError(Code.INVALID_ARGUMENT, /Sliding window ksize field must specify 4 dimensions/),
    );
    assert.throws(
      () => checkKernelAttrs(pool('MaxPool', [1, 2, 2, 1], [1, 1, 1])),
      isError(Code.INVALID_ARGUMENT, /Sliding window stride field must specify 4 dimensions/),
    );
    assert.throws(
      () => checkKernelAttrs(pool('MaxPool', [2, 2, 2, 1])),
      isError(Code.UNIMPLEMENTED, /Pooling is not yet supported on the batch dimension\./),
    );
    assert.throws(
      () => checkKernelAttrs(pool('AvgPool', [1, 0, 2, 1])),
      isError(Code.INVALID_ARGUMENT, /ksize must be a positive int32 value, got:0/),
    );
    assert.throws(
      () => checkKernelAttrs(pool('MaxPool', [1, 2, 2, 1], [1, 0, 1, 1])),
      isError(Code.INVALID_ARGUMENT, /Stride must be > 0, but got 0/),
    );
    assert.doesNotThrow(() => checkKernelAttrs(pool('MaxPool', [1, 2, 2, 1], [1, 2, 2, 1])));
  });

  it('convolution: strides, dilations, explicit paddings', () => {
    assert.throws(
      () => checkKernelAttrs(conv([1, 0, 1, 1])),
      isError(Code.INVALID_ARGUMENT, /Row and column strides should be larger than 0\./),
    );
    assert.throws(() => checkKernelAttrs(conv([2, 1, 1, 1])), isError(Code.UNIMPLEMENTED, /strides in the batch and depth dimensions/));
    assert.throws(
      () => checkKernelAttrs(conv([1, 1, 1, 1], [1, 0, 1, 1])),
      isError(Code.INVALID_ARGUMENT, /Dilated rates should be larger than 0\./),
    );
    assert.throws(
      () => checkKernelAttrs(conv([1, 1, 1], [1, 1, 1, 1])),
      isError(Code.INVALID_ARGUMENT, /Sliding window strides field must specify 4 dimensions/),
    );
    assert.throws(
      () => checkKernelAttrs(conv([1, 2, 1, 1], [1, 1, 1, 1], 'SAME', 'DepthwiseConv2dNative')),
      isError(Code.INVALID_ARGUMENT, /equal length strides in the row and column dimensions/),
    );
    const explicit = conv([1, 1, 1, 1], [1, 1, 1, 1], 'EXPLICIT');
    explicit[2].attr!.explicit_paddings = { list: { i: [0, 0, 1, 1] } };
    assert.throws(
      () => checkKernelAttrs(explicit),
      isError(Code.INVALID_ARGUMENT, /explicit_paddings attribute must contain 8 values, but got: 4/),
    );
    assert.doesNotThrow(() => checkKernelAttrs(conv([1, 2, 2, 1])));
  });

  it('constant inputs every run sees: Reshape with two -1, Range with delta 0, negative paddings and depth', async () => {
    const reshape: RawSavedModel = {
      nodes: [placeholder('x'), constNode('s', i32([-1, -1], [2])), floatOp('Reshape', 'y', ['x', 's'], { Tshape: attr.type('int32') })],
      signatures: signature(),
    };
    await assert.rejects(prepare(reshape), isError(Code.INVALID_ARGUMENT, /Only one input size may be -1, not both 0 and 1/));
    const pad: RawSavedModel = {
      nodes: [
        placeholder('x'),
        constNode('p', i32([0, -1, 0, 0], [2, 2])),
        floatOp('Pad', 'y', ['x', 'p'], { Tpaddings: attr.type('int32') }),
      ],
      signatures: signature(),
    };
    await assert.rejects(prepare(pad), isError(Code.INVALID_ARGUMENT, /Paddings must be non-negative: 0 -1/));
    const range: NodeDef[] = [
      ...['a', 'b', 'd'].map((n, i) => ({
        name: n,
        op: 'Const',
        input: [],
        attr: { dtype: { type: 'DT_INT32' }, value: { tensor: { dtype: 'DT_INT32', tensorShape: {}, intVal: [[0, 5, 0][i]] } } },
      })),
      { name: 'r', op: 'Range', input: ['a', 'b', 'd'], attr: { Tidx: { type: 'DT_INT32' } } },
    ];
    assert.throws(() => checkKernelAttrs(range), isError(Code.INVALID_ARGUMENT, /Requires delta != 0: 0/));
  });
});
