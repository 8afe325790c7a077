// A version whose signatures take strings, for the load-time check: one cannot run on the
// embedded runtime whatever the request (ReverseV2 of a string tensor: TF.js's reverse takes
// numbers only, which no load-time op check sees — only a run does), the others can: string
// labels picked by SelectV2 (a BigQuery ML export's pattern), and tf.Example parsing.
import path from 'node:path';
import { writeSavedModel } from '../../test_util/savedmodel/saved_model_writer.js';
import { opDefFromRegistration } from '../../test_util/savedmodel/writer/op_registration.js';
import { attr, GraphBuilder, i32, node, Tensor } from './tiny_graphs.js';
import { parseExample } from './sparse_examples.js';
import { tempDir } from './temp.js';

const REGISTRATIONS = [
  // tensorflow/core/ops/array_ops.cc
  `REGISTER_OP("ReverseV2")
    .Input("tensor: T")
    .Input("axis: Tidx")
    .Output("output: T")
    .Attr("Tidx: {int32, int64} = DT_INT32")
    .Attr("T: {uint8, int8, uint16, int16, int32, uint32, int64, uint64, bool, bfloat16, half, float, double, complex64, complex128, string}")`,
  // tensorflow/core/ops/math_ops.cc
  `REGISTER_OP("SelectV2")
    .Input("condition: bool")
    .Input("t: T")
    .Input("e: T")
    .Output("output: T")
    .Attr("T: type")`,
];

/** Signatures `reversed` (cannot run), `labels` and `parsed` (can), version 1 under the returned base path. */
export async function writeStringSignaturesModel(): Promise<string> {
  const g = new GraphBuilder();
  const words = g.placeholder('words', 'string', [-1]);
  const reversed = node(
    g,
    'ReverseV2',
    'reverse_words',
    [words, g.constant('axis', i32([1], [0]))],
    { T: attr.type('string'), Tidx: attr.type('int32') },
    'string',
    [-1],
  );
  const flags = g.placeholder('flags', 'bool', [-1]);
  const none = g.constant('none', { dtype: 'string', shape: [], values: [Buffer.from('none')] });
  const picked = node(g, 'SelectV2', 'pick_labels', [flags, words, none], { T: attr.type('string') }, 'string', [-1]);
  const p = parseExample(g, [], ['x']);
  const base = tempDir('tfgate-strings-');
  await writeSavedModel(
    path.join(base, '1'),
    g,
    {
      reversed: { inputs: { words }, outputs: { reversed: g.identity('reversed', reversed) } },
      labels: { inputs: { words, flags }, outputs: { labels: g.identity('labels', picked) } },
      parsed: {
        inputs: { examples: p.x },
        outputs: { x: g.identity('x', new Tensor(p.dense[0].node, p.dense[0].index, 'float32', [-1, 1])) },
      },
    },
    { opDefs: REGISTRATIONS.map(opDefFromRegistration) },
  );
  return base;
}
