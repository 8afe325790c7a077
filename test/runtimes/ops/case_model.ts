// An op case as a one-version SavedModel, written with tfgate's writer as TF's Python would
// build it: one placeholder (or Const) per input, the node with its attrs completed from the
// op's OpDef (type attrs from the inputs' dtypes, list lengths, defaults), an Identity per
// output, serving_default naming them by the OpDef's arg names.
import path from 'node:path';
import { dtypeFromTf, type DType } from '../../../src/tensor/dtype.js';
import type { HostTensor } from '../../../src/tensor/host_tensor.js';
import { attr, GraphBuilder, Tensor, type AttrValueInit } from '../../../test_util/savedmodel/writer/graph_builder.js';
import { OP_DEFS, type ArgDefInit, type OpDefInit } from '../../../test_util/savedmodel/writer/op_defs.js';
import { writeSavedModel, type WriterSignature } from '../../../test_util/savedmodel/saved_model_writer.js';
import { INIT_OP_SIGNATURE_KEY } from '../../../src/savedmodel/signature_spec.js';
import { tempDir } from '../../helpers/temp.js';
import { isFailure, type CaseInput, type OpCase } from './op_case.js';

export interface CaseModel {
  dir: string;
  /** Signature input key → the value fed. */
  feeds: Record<string, HostTensor>;
}

const isHost = (x: CaseInput): x is HostTensor => 'dtype' in x;

function opDefOf(op: string, defs: ReadonlyMap<string, OpDefInit>): OpDefInit {
  const def = defs.get(op) ?? OP_DEFS.get(op);
  if (!def) throw new Error(`no OpDef for ${op}: paste its REGISTER_OP from tensorflow/core/ops/*_ops.cc into the family's registrations`);
  return def;
}

/** Builds the node form of `c` in `g`; returns the signature. */
function buildNode(g: GraphBuilder, c: OpCase, def: OpDefInit, feeds: Record<string, HostTensor>) {
  const attrs: Record<string, AttrValueInit> = { ...c.attrs };
  const args = def.inputArg ?? [];
  if ((c.inputs ?? []).length !== args.length)
    throw new Error(
      `${c.op} takes ${args.length} inputs (${args.map((a) => a.name).join(', ')}), the case gives ${(c.inputs ?? []).length}`,
    );
  const inputs: Record<string, Tensor> = {};
  const nodeInputs: Tensor[] = [];
  args.forEach((arg, i) => {
    const given = c.inputs![i];
    const list = arg.numberAttr !== undefined || arg.typeListAttr !== undefined;
    if (list !== Array.isArray(given))
      throw new Error(`${c.op} input ${arg.name}: ${list ? 'a list input takes an array' : 'takes one value'}`);
    const values = (list ? given : [given]) as readonly CaseInput[];
    values.forEach((v, k) => {
      const name = list ? `${arg.name}_${k}` : arg.name;
      if ('konst' in v) nodeInputs.push(g.constant(name, v.konst));
      else {
        const value = isHost(v) ? v : v.feed;
        const t = g.placeholder(name, value.dtype, isHost(v) ? [...value.shape] : v.shape);
        inputs[t.node] = t;
        feeds[t.node] = value;
        nodeInputs.push(t);
      }
    });
    const dtypes = values.map((v) => ('konst' in v ? v.konst : isHost(v) ? v : v.feed).dtype);
    if (arg.type && dtypes.some((d) => d !== dtypeFromTf(arg.type!)))
      throw new Error(`${c.op} input ${arg.name} is ${arg.type}, the case gives ${dtypes}`);
    if (arg.typeAttr) attrs[arg.typeAttr] ??= attr.type(dtypes[0]);
    if (arg.numberAttr) attrs[arg.numberAttr] ??= attr.i(values.length);
    if (arg.typeListAttr) attrs[arg.typeListAttr] ??= attr.types(dtypes);
  });
  for (const a of def.attr ?? []) if (a.defaultValue && !(a.name in attrs)) attrs[a.name] = a.defaultValue;
  const node = g.addNode(c.op, c.op, nodeInputs, attrs);
  const outputs: Record<string, Tensor> = {};
  const wanted = isFailure(c.want) ? null : new Set(Object.keys(c.want));
  let index = 0;
  for (const arg of def.outputArg ?? []) {
    for (const [k, dtype] of outputTypes(arg, attrs).entries()) {
      const key = arg.numberAttr !== undefined || arg.typeListAttr !== undefined ? `${arg.name}_${k}` : arg.name;
      if (dtype && (!wanted || wanted.has(key))) outputs[key] = g.identity(key, new Tensor(node, index, dtype, null));
      index++;
    }
  }
  return { inputs, outputs };
}

/** The dtype of each tensor an output arg stands for (undefined: one tfgate cannot hold). */
function outputTypes(arg: ArgDefInit, attrs: Record<string, AttrValueInit>): Array<DType | undefined> {
  const typeOf = (t: unknown) => dtypeFromTf(String(t ?? ''));
  if (arg.typeListAttr) return ((attrs[arg.typeListAttr]?.list as { type?: string[] } | undefined)?.type ?? []).map(typeOf);
  const one = arg.type ? typeOf(arg.type) : typeOf(attrs[arg.typeAttr!]?.type);
  const n = arg.numberAttr ? Number(attrs[arg.numberAttr]?.i ?? 0) : 1;
  return Array.from({ length: n }, () => one);
}

const written = new WeakMap<OpCase, Promise<CaseModel>>();

/** Writes `c` as `<tmp>/1`, once per process (engines sharing a process load the same folder). */
export function writeCaseModel(c: OpCase, defs: ReadonlyMap<string, OpDefInit>): Promise<CaseModel> {
  let model = written.get(c);
  if (!model) written.set(c, (model = write(c, defs)));
  return model;
}

async function write(c: OpCase, defs: ReadonlyMap<string, OpDefInit>): Promise<CaseModel> {
  const g = new GraphBuilder();
  const feeds: Record<string, HostTensor> = {};
  let signature;
  let initOp: string | undefined;
  if (c.graph) {
    ({ initOp, ...signature } = c.graph(g));
    Object.assign(feeds, c.feeds);
  } else signature = buildNode(g, c, opDefOf(c.op, defs), feeds);
  const dir = path.join(tempDir('tfgate-op-case-'), '1');
  const signatures: Record<string, WriterSignature> = { serving_default: signature };
  if (initOp)
    signatures[INIT_OP_SIGNATURE_KEY] = {
      methodName: '',
      inputs: {},
      outputs: { [INIT_OP_SIGNATURE_KEY]: { name: initOp, dtype: 'DT_INVALID', shape: null } },
    };
  await writeSavedModel(dir, g, signatures, { opDefs: [...defs.values()] });
  return { dir, feeds };
}
