// README's lists of the ops each engine runs, generated from the op tables: ONNX Runtime's
// converters (src/runtimes/onnx/ops/<family>.ts) and the embedded runtime's own kernels
// (src/runtimes/embedded/ops/<family>/index.ts). To refresh README after adding an op:
// node dist/test/runtimes/ops_markdown.js prints the block that goes between the markers.
import { fileURLToPath } from 'node:url';
import { EMBEDDED_OP_FAMILIES } from '../../src/runtimes/embedded/ops/index.js';
import { ONNX_CONVERTED_OPS } from '../../src/runtimes/onnx/tf_to_onnx.js';
import { ARRAY_OPS } from '../../src/runtimes/onnx/ops/array.js';
import { ELEMENTWISE_OPS } from '../../src/runtimes/onnx/ops/elementwise.js';
import { FAKE_QUANT_OPS } from '../../src/runtimes/onnx/ops/fake_quant.js';
import { IMAGE_OPS } from '../../src/runtimes/onnx/ops/image.js';
import { MATMUL_OPS } from '../../src/runtimes/onnx/ops/matmul.js';
import { NN_OPS } from '../../src/runtimes/onnx/ops/nn.js';
import { REDUCE_OPS } from '../../src/runtimes/onnx/ops/reduce.js';
import { TOP_K_OPS } from '../../src/runtimes/onnx/ops/top_k.js';

export const BEGIN = '<!-- op-tables: generated from the op tables (test/runtimes/ops_markdown.ts) -->';
export const END = '<!-- /op-tables -->';

/** ONNX Runtime's converter tables by family (file name); opsMarkdown() refuses one tf_to_onnx.ts has that is not here. */
const ONNX_FAMILIES: Readonly<Record<string, Readonly<Record<string, unknown>>>> = {
  array: ARRAY_OPS,
  elementwise: ELEMENTWISE_OPS,
  fake_quant: FAKE_QUANT_OPS,
  image: IMAGE_OPS,
  matmul: MATMUL_OPS,
  nn: NN_OPS,
  reduce: REDUCE_OPS,
  top_k: TOP_K_OPS,
};

/** Nodes tfgate's own graph rewrites make (a forest's inference, a resolved table lookup): no TensorFlow op of that name exists. */
const isRewriteNode = (op: string) => op.startsWith('Tfgate');

function familyTable(families: Readonly<Record<string, Readonly<Record<string, unknown>>>>): string[] {
  const rows = Object.entries(families).map(([family, table]) => {
    const ops = Object.keys(table).filter((op) => !isRewriteNode(op)).sort();
    return `| ${family} | ${ops.map((op) => `\`${op}\``).join(', ')} |`;
  });
  return ['| family | ops |', '|---|---|', ...rows];
}

export function opsMarkdown(): string {
  const listed = new Set(Object.values(ONNX_FAMILIES).flatMap((t) => Object.keys(t)));
  const unlisted = ONNX_CONVERTED_OPS.filter((op) => !listed.has(op));
  if (unlisted.length) throw new Error(`ONNX converters of a family ops_markdown.ts does not list: ${unlisted.join(', ')}`);
  return [
    BEGIN,
    '**ONNX Runtime** converts these TensorFlow ops (`src/runtimes/onnx/ops/<family>.ts`); a signature with any other op runs on the embedded runtime:',
    '',
    ...familyTable(ONNX_FAMILIES),
    '',
    "**Embedded runtime**: TF.js's own ops run as tfjs-converter runs them; these are tfgate's own kernels (`src/runtimes/embedded/ops/<family>/`), which take the place of TF.js's where both exist:",
    '',
    ...familyTable(EMBEDDED_OP_FAMILIES),
    END,
  ].join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) process.stdout.write(`${opsMarkdown()}\n`);
