// The versions bench/model_fuzz.ts drops beside a serving model: hand-made hostile ones (files
// that are not files, graphs TF refuses, graphs asking a load for gigabytes, a loop that never
// ends, a 20 000-deep chain) and seeded mutations of two fixtures (half_plus_two, a TF1
// graph; keras3_mnist_conv, a TF2 export with a function library): bytes flipped, files cut
// short, nodes' ops, inputs, dtypes and attrs changed, constants' shapes and values made
// huge, signatures pointed at outputs that do not exist, checkpoints corrupted; and
// mutations that change nothing a client sees (node order, unused nodes), which must load
// and answer as the original. Case i of seed s is the same version on every machine.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { protoType, TO_OBJECT } from '../src/proto/index.js';
import { seededRandom } from '../test_util/savedmodel/model_zoo.js';
import { writeRawSavedModel } from '../test_util/savedmodel/raw_saved_model.js';
import { HOSTILE_GRAPHS, deepChain } from '../test_util/savedmodel/hostile_graphs.js';
import { writeSavedModel } from '../test_util/savedmodel/saved_model_writer.js';
import { Tf2GraphBuilder } from '../test_util/savedmodel/writer/tf2_graph_builder.js';
import { binary, call, identity, scalarF32, scalarI32, whileLoop } from '../test_util/savedmodel/writer/tf2_ops.js';

export interface FuzzCase {
  name: string;
  /** Writes the version folder `dir` (which does not exist yet). */
  make(dir: string): Promise<void>;
  /** Mutations that change nothing a client sees must load and answer as the fixture. */
  mustServe?: boolean;
}

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const SavedModel = () => protoType('tensorflow.SavedModel');

function decode(bytes: Uint8Array): Obj {
  const t = SavedModel();
  return t.toObject(t.decode(bytes), TO_OBJECT);
}

function encode(sm: Obj): Uint8Array {
  const t = SavedModel();
  return t.encode(t.fromObject(sm)).finish();
}

/** Every NodeDef of the first MetaGraph: the graph's and its functions'. */
function allNodes(sm: Obj): Obj[] {
  const mg = sm.metaGraphs[0];
  return [...(mg.graphDef?.node ?? []), ...(mg.graphDef?.library?.function ?? []).flatMap((f: Obj) => f.nodeDef ?? [])];
}

const mkfifo = (file: string) => execFileSync('mkfifo', [file]);

const attrsOf = (n: Obj): Array<[string, Obj]> => Object.entries((n.attr ?? {}) as Record<string, Obj>);

/** A While whose condition is always true, in a tf.function: the load's verification runs it. */
async function writeEndlessLoop(dir: string): Promise<void> {
  const g = new Tf2GraphBuilder();
  const args: Array<[string, string]> = [
    ['i', 'DT_INT32'],
    ['v', 'DT_FLOAT'],
  ];
  const cond = g.library.define('forever_cond', args, (f) => ({
    identity: identity(f, 'Identity', binary(f, 'Greater', 'Greater', scalarF32(f, 'one', 1), scalarF32(f, 'zero', 0))),
  }));
  const body = g.library.define('forever_body', args, (f, [i, v]) => ({
    identity: identity(f, 'Identity', binary(f, 'AddV2', 'add', i, scalarI32(f, 'add/y', 1))),
    identity_1: identity(f, 'Identity_1', v),
  }));
  const serve = g.library.define('__inference_serve_1', [['x', 'DT_FLOAT']], (f, [x]) => ({
    identity: identity(f, 'Identity', whileLoop(f, 'while', [scalarI32(f, 'i0', 0), x], cond, body)[1]),
  }));
  const x = g.top.placeholder('serving_default_x', 'DT_FLOAT', [-1]);
  const [y] = call(g.top, 'StatefulPartitionedCall', serve, [x]);
  await writeSavedModel(dir, g, {
    serving_default: {
      inputs: { x: { name: x.tensorName, dtype: 'DT_FLOAT', shape: [-1] } },
      outputs: { y: { name: y.tensorName, dtype: 'DT_FLOAT', shape: [-1] } },
    },
  });
}

/** The hand-made cases: one per hostile thing, on half_plus_two (`fixture`) where a fixture is needed. */
function handMade(fixture: string): FuzzCase[] {
  const copy = (dir: string) => fs.cpSync(fixture, dir, { recursive: true });
  const file =
    (rel: string, make: (p: string) => void): FuzzCase['make'] =>
    async (dir) => {
      copy(dir);
      const p = path.join(dir, rel);
      fs.rmSync(p, { recursive: true, force: true });
      make(p);
    };
  const cases: FuzzCase[] = [
    { name: 'file: saved_model.pb a FIFO', make: file('saved_model.pb', mkfifo) },
    { name: 'file: variables.index a FIFO', make: file('variables/variables.index', mkfifo) },
    { name: 'file: a data shard a FIFO', make: file('variables/variables.data-00000-of-00001', mkfifo) },
    {
      name: 'file: warmup records a FIFO',
      make: async (dir) =>
        void (
          copy(dir),
          fs.mkdirSync(path.join(dir, 'assets.extra'), { recursive: true }),
          mkfifo(path.join(dir, 'assets.extra', 'tf_serving_warmup_requests'))
        ),
    },
    {
      name: 'file: an unused FIFO in assets/',
      make: async (dir) =>
        void (copy(dir), fs.mkdirSync(path.join(dir, 'assets'), { recursive: true }), mkfifo(path.join(dir, 'assets', 'pipe'))),
    },
    { name: 'file: saved_model.pb → /dev/zero', make: file('saved_model.pb', (p) => fs.symlinkSync('/dev/zero', p)) },
    { name: 'file: variables.index → /dev/zero', make: file('variables/variables.index', (p) => fs.symlinkSync('/dev/zero', p)) },
    {
      name: 'file: data shard → /dev/urandom',
      make: file('variables/variables.data-00000-of-00001', (p) => fs.symlinkSync('/dev/urandom', p)),
    },
    { name: 'file: saved_model.pb → /proc/self/mem', make: file('saved_model.pb', (p) => fs.symlinkSync('/proc/self/mem', p)) },
    {
      name: 'file: saved_model.pb → another model',
      make: file('saved_model.pb', (p) => fs.symlinkSync(path.join(fixture, 'saved_model.pb'), p)),
    },
    { name: 'file: saved_model.pb a directory', make: file('saved_model.pb', (p) => fs.mkdirSync(p)) },
    {
      name: 'file: saved_model.pb of 3 GiB (sparse)',
      make: file('saved_model.pb', (p) => (fs.writeFileSync(p, ''), fs.truncateSync(p, 3 * 2 ** 30))),
    },
    { name: 'file: saved_model.pb empty', make: file('saved_model.pb', (p) => fs.writeFileSync(p, '')) },
    { name: 'file: saved_model.pb a dangling link', make: file('saved_model.pb', (p) => fs.symlinkSync('nowhere.pb', p)) },
    { name: 'file: saved_model.pb a link loop', make: file('saved_model.pb', (p) => fs.symlinkSync('saved_model.pb', p)) },
    { name: 'file: variables/ missing', make: file('variables', () => {}) },
    { name: 'file: data shard empty', make: file('variables/variables.data-00000-of-00001', (p) => fs.writeFileSync(p, '')) },
    { name: 'file: index of 1 byte', make: file('variables/variables.index', (p) => fs.writeFileSync(p, 'x')) },
    { name: 'graph: 20 000-deep chain', make: (dir) => writeRawSavedModel(dir, deepChain(20_000)), mustServe: true },
    { name: 'graph: a While that never ends', make: writeEndlessLoop },
  ];
  for (const [name, make] of Object.entries(HOSTILE_GRAPHS))
    cases.push({ name: `graph: ${name}`, make: (dir) => writeRawSavedModel(dir, make()) });
  return cases;
}

const HUGE = [0, -1, -2, 2 ** 31 - 1, 1e9, 65536, 3];
const BAD_TYPES: Array<string | number> = ['DT_INT32', 'DT_STRING', 'DT_INVALID', 999, 'DT_RESOURCE', 'DT_HALF', 'DT_BOOL', 'DT_FLOAT_REF'];
const OPS = [
  'Neg',
  'AddV2',
  'MatMul',
  'Fill',
  'Tile',
  'Reshape',
  'MaxPool',
  'Conv2D',
  'Identity',
  'NoSuchOp',
  'Const',
  'Placeholder',
  'StatelessWhile',
  'Pad',
  'OneHot',
  'ConcatV2',
  'Sum',
];

type Mutation = (sm: Obj, rand: () => number) => string;

/** The signature a client calls: serving_default (the init-op signature has no inputs). */
const servingSignature = (sm: Obj): Obj => sm.metaGraphs[0].signatureDef.serving_default;

const pick = <T>(rand: () => number, list: readonly T[]): T => list[Math.floor(rand() * list.length)];

/** Structural mutations of a decoded SavedModel; each returns what it did. */
const MUTATIONS: Record<string, Mutation> = {
  op: (sm, r) => {
    const n = pick(r, allNodes(sm));
    const op = pick(r, OPS);
    const was = n.op;
    n.op = op;
    return `${n.name}: op ${was} → ${op}`;
  },
  dropInput: (sm, r) => {
    const n = pick(
      r,
      allNodes(sm).filter((x) => x.input?.length),
    );
    n.input.splice(Math.floor(r() * n.input.length), 1);
    return `${n.name}: one input fewer`;
  },
  addInput: (sm, r) => {
    const nodes = allNodes(sm);
    const n = pick(r, nodes);
    const src = pick(r, nodes);
    const ref = `${src.name}:${Math.floor(r() * 4)}`;
    (n.input ??= []).push(ref);
    return `${n.name}: input ${ref} added`;
  },
  selfLoop: (sm, r) => {
    const n = pick(
      r,
      allNodes(sm).filter((x) => x.input?.length),
    );
    n.input[0] = n.name;
    return `${n.name}: reads itself`;
  },
  dtype: (sm, r) => {
    const n = pick(
      r,
      allNodes(sm).filter((x) => attrsOf(x).some(([, a]) => a.type !== undefined)),
    );
    const [k] = pick(
      r,
      attrsOf(n).filter(([, a]) => a.type !== undefined),
    );
    const t = pick(r, BAD_TYPES);
    n.attr[k] = { type: t };
    return `${n.name}: ${k} = ${t}`;
  },
  listInt: (sm, r) => {
    const withList = allNodes(sm).filter((x) => attrsOf(x).some(([, a]) => a.list?.i?.length));
    if (!withList.length) return 'no list(int) attr';
    const n = pick(r, withList);
    const [k, a] = pick(
      r,
      attrsOf(n).filter(([, v]) => v.list?.i?.length),
    );
    const i = Math.floor(r() * a.list.i.length);
    a.list.i[i] = pick(r, HUGE);
    return `${n.name}: ${k}[${i}] = ${a.list.i[i]}`;
  },
  intAttr: (sm, r) => {
    const withInt = allNodes(sm).filter((x) => attrsOf(x).some(([, a]) => a.i !== undefined));
    if (!withInt.length) return 'no int attr';
    const n = pick(r, withInt);
    const [k, a] = pick(
      r,
      attrsOf(n).filter(([, v]) => v.i !== undefined),
    );
    a.i = pick(r, HUGE);
    return `${n.name}: ${k} = ${a.i}`;
  },
  constShape: (sm, r) => {
    const n = pick(
      r,
      allNodes(sm).filter((x) => x.op === 'Const'),
    );
    const t = n.attr.value.tensor;
    const dims = [pick(r, [20000, 1e9, -5, 0, 3]), pick(r, [20000, 1, 7])];
    t.tensorShape = { dim: dims.map((size) => ({ size })) };
    return `${n.name}: shape [${dims}]`;
  },
  constValue: (sm, r) => {
    const ints = allNodes(sm).filter((x) => x.op === 'Const' && /INT/.test(x.attr?.value?.tensor?.dtype ?? ''));
    if (!ints.length) return 'no integer constant';
    const n = pick(r, ints);
    const t = n.attr.value.tensor;
    const count = (t.tensorShape?.dim ?? []).reduce((a: number, d: Obj) => a * Number(d.size ?? 0), 1);
    const v = pick(r, HUGE);
    delete t.tensorContent;
    t.intVal = new Array(Math.max(1, Math.min(count, 8))).fill(v);
    return `${n.name}: every value ${v}`;
  },
  signatureOutput: (sm, r) => {
    const sig = servingSignature(sm);
    const out = Object.values(sig.outputs)[0] as Obj;
    out.name = pick(r, [`${out.name.split(':')[0]}:7`, 'no_such_node:0', `${out.name.split(':')[0]}:-1`, '']);
    return `signature output ${out.name}`;
  },
  signatureDtype: (sm, r) => {
    const sig = servingSignature(sm);
    const inp = Object.values(sig.inputs)[0] as Obj;
    inp.dtype = pick(r, BAD_TYPES);
    return `signature input dtype ${inp.dtype}`;
  },
  deleteNode: (sm, r) => {
    const mg = sm.metaGraphs[0];
    const list: Obj[] =
      r() < 0.5 || !mg.graphDef.library?.function?.length ? mg.graphDef.node : pick(r, mg.graphDef.library.function as Obj[]).nodeDef;
    const [gone] = list.splice(Math.floor(r() * list.length), 1);
    return `${gone?.name} deleted`;
  },
  duplicateNode: (sm, r) => {
    const nodes = sm.metaGraphs[0].graphDef.node as Obj[];
    nodes.push({ ...pick(r, nodes), op: 'Neg' });
    return 'a node name twice';
  },
  tags: (sm) => {
    sm.metaGraphs[0].metaInfoDef.tags = ['train'];
    return 'tags {train}';
  },
};

/** Changes nothing a client sees. */
const HARMLESS: Record<string, Mutation> = {
  shuffle: (sm, r) => {
    const nodes = sm.metaGraphs[0].graphDef.node as Obj[];
    for (let i = nodes.length - 1; i > 0; i--) {
      const j = Math.floor(r() * (i + 1));
      [nodes[i], nodes[j]] = [nodes[j], nodes[i]];
    }
    return 'node order shuffled';
  },
  unusedNodes: (sm, r) => {
    const nodes = sm.metaGraphs[0].graphDef.node as Obj[];
    const n = 1 + Math.floor(r() * 50);
    for (let i = 0; i < n; i++)
      nodes.push({
        name: `fuzz_unused_${i}`,
        op: 'Const',
        attr: { dtype: { type: 'DT_FLOAT' }, value: { tensor: { dtype: 'DT_FLOAT', tensorShape: {}, floatVal: [i] } } },
      });
    return `${n} unused constants`;
  },
};

/** A seeded mutation of `fixture` (a version folder). */
function mutant(fixture: string, fixtureName: string, index: number, seed: number): FuzzCase {
  const r = seededRandom(seed * 1_000_003 + index);
  const kind = r();
  const pb = () => fs.readFileSync(path.join(fixture, 'saved_model.pb'));
  if (kind < 0.15) {
    const flips = 1 + Math.floor(r() * 8);
    const at = Array.from({ length: flips }, () => r());
    return {
      name: `${fixtureName}: ${flips} byte(s) of saved_model.pb flipped`,
      make: async (dir) => {
        fs.cpSync(fixture, dir, { recursive: true });
        const bytes = pb();
        for (const u of at) bytes[Math.floor(u * bytes.length)] ^= 1 << (Math.floor(u * 8 * 97) % 8);
        fs.writeFileSync(path.join(dir, 'saved_model.pb'), bytes);
      },
    };
  }
  if (kind < 0.22) {
    const cut = r();
    return {
      name: `${fixtureName}: saved_model.pb cut at ${(cut * 100).toFixed(0)} %`,
      make: async (dir) =>
        void (
          fs.cpSync(fixture, dir, { recursive: true }),
          fs.writeFileSync(path.join(dir, 'saved_model.pb'), pb().subarray(0, Math.floor(cut * pb().length)))
        ),
    };
  }
  if (kind < 0.32) {
    const which = r() < 0.7 ? 'variables.data-00000-of-00001' : 'variables.index';
    const u = r();
    return {
      name: `${fixtureName}: a byte of ${which} flipped`,
      make: async (dir) => {
        fs.cpSync(fixture, dir, { recursive: true });
        const file = path.join(dir, 'variables', which);
        const bytes = fs.readFileSync(file);
        bytes[Math.floor(u * bytes.length)] ^= 0x5a;
        fs.writeFileSync(file, bytes);
      },
    };
  }
  const harmless = kind < 0.4;
  const table = harmless ? HARMLESS : MUTATIONS;
  const name = pick(r, Object.keys(table));
  const count = harmless ? 1 : 1 + Math.floor(r() * 2);
  // The mutation's own random stream, fixed before the folder is written.
  const mseed = Math.floor(r() * 2 ** 31);
  let described = '';
  return {
    name: `${fixtureName}: ${name}`,
    mustServe: harmless,
    make: async (dir) => {
      fs.cpSync(fixture, dir, { recursive: true });
      const sm = decode(pb());
      const mr = seededRandom(mseed);
      const did: string[] = [];
      for (let k = 0; k < count; k++) did.push((k === 0 ? table[name] : table[pick(mr, Object.keys(table))])(sm, mr));
      described = did.join('; ');
      fs.writeFileSync(path.join(dir, 'saved_model.pb'), encode(sm));
    },
    get detail() {
      return described;
    },
  } as FuzzCase;
}

/** `count` cases (hand-made first, then mutants alternating between the two fixtures) for `seed`. */
export function fuzzCases(seed: number, count: number, fixtures: { halfPlusTwo: string; conv: string }): FuzzCase[] {
  const cases = handMade(fixtures.halfPlusTwo);
  for (let i = 0; cases.length < count; i++) {
    cases.push(i % 2 === 0 ? mutant(fixtures.halfPlusTwo, 'half_plus_two', i, seed) : mutant(fixtures.conv, 'mnist_conv', i, seed));
  }
  return cases.slice(0, count);
}
