// REST :predict bodies of floats, parsed four ways in one run: the tensor reader
// (src/rest/json_tensor_reader.ts, straight from the body's bytes into the Float32Array, its
// float32 lists read by WebAssembly: json_float32_kernel.ts), the same reader with the
// WebAssembly kernel turned off (its TypeScript road alone), the general parser
// (src/rest/json_parse.ts + json_tensor.ts, a JSON tree then the tensor), and JSON.parse of the
// already decoded text plus a loop filling a Float32Array (what a new user would write; its
// UTF-8 decoding is not counted). Bodies of about 0.1, 1 and 10 MB, shaped as batches of images
// ([n, 32, 32, 3]) and as flat vectors ([n, 512]), numbers printed with 3, 9 or 17 significant
// digits (and a mix of 3 to 17). Prints MB/s of each, from the CPU time the process spent
// (process.cpuUsage: on a shared machine that is the work done, not the time spent waiting
// for a core), median of the rounds, the four taking turns; and the reader's speed-up over
// JSON.parse + fill, then whether every body meets "reader ≥ 3× JSON.parse + fill".
// Every way is warmed alike before its rounds (run until it has spent WARM_MS of CPU, at least
// twice), and a round of a small body repeats the call until it has spent ROUND_MS (the time
// of one call is the round's time divided by its calls), so that 0.1 MB bodies are not timed
// on one half-millisecond call each.
//   npm run bench:json [-- --rounds 7] [-- --sizes 0.1,1,10] [-- --only vectors]
import { readPredictBody } from '../src/rest/predict_body_reader.js';
import { readFloatBody, useFloat32Kernel } from '../src/rest/json_tensor_reader.js';
import { parseJsonBody } from '../src/rest/json_parse.js';
import { parsePredictRequest } from '../src/rest/json_tensor.js';
import type { SignatureSpec } from '../src/savedmodel/signature_spec.js';
import { numberArg, stringArg } from './load/args.js';

const ROUNDS = numberArg('rounds', 7);
const SIZES_MB = stringArg('sizes', '0.1,1,10').split(',').map(Number);
/** Only the bodies whose description ("vectors [n,512], 17 digits, 0.1 MB") holds this text. */
const ONLY = stringArg('only', '');
const WARM_MS = 200;
const ROUND_MS = 20;
const TARGET = 3;
const LIMITS = { maxDepth: 64, maxElements: 1 << 26 };
const SIGNATURE: SignatureSpec = {
  key: 'serving_default',
  methodName: 'tensorflow/serving/predict',
  inputs: { x: { name: 'x:0', dtype: 'DT_FLOAT', shape: null } },
  outputs: {},
  defaults: {},
};
const LOOKAHEAD = { signature: () => SIGNATURE, charge: () => {} };
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** A seeded generator (mulberry32): the same bodies on every run. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A number in [-1, 1) printed with `digits` significant digits (0: 3 to 17, at random). */
function numberText(next: () => number, digits: number): string {
  const d = digits === 0 ? 3 + Math.floor(next() * 15) : digits;
  return String(Number(((next() * 2 - 1) * (next() < 0.5 ? 1 : 0.01)).toPrecision(d)));
}

/** `{"instances": …}` of about `bytes`, items of `itemShape`. */
function body(bytes: number, itemShape: number[], digits: number): string {
  const next = random(bytes + digits);
  const item = (shape: number[]): string =>
    shape.length === 0 ? numberText(next, digits) : `[${Array.from({ length: shape[0] }, () => item(shape.slice(1))).join(', ')}]`;
  const items: string[] = [];
  for (let len = 0; len < bytes;) {
    const text = item(itemShape);
    items.push(text);
    len += text.length + 2;
  }
  return `{"instances": [${items.join(', ')}]}`;
}

/** JSON.parse + a loop filling a Float32Array of the nested lists' leaves. */
function jsonParseAndFill(text: string): Float32Array {
  const instances = (JSON.parse(text) as { instances: unknown[] }).instances;
  let size = 1;
  for (let v: unknown = instances; Array.isArray(v); v = v[0]) size *= v.length;
  const out = new Float32Array(size);
  let n = 0;
  const fill = (v: unknown[]): void => {
    if (Array.isArray(v[0])) for (const e of v) fill(e as unknown[]);
    else for (const e of v) out[n++] = e as number;
  };
  fill(instances);
  return out;
}

interface Case {
  what: string;
  text: string;
  bytes: Uint8Array;
}

/** CPU milliseconds of f(), once. */
function cpuMs(f: () => unknown): number {
  const t0 = process.cpuUsage();
  f();
  const t = process.cpuUsage(t0);
  return (t.user + t.system) / 1e3;
}

/** CPU milliseconds of one call of f: calls repeated until they have spent ROUND_MS. */
function roundMs(f: () => unknown): number {
  let spent = 0;
  let calls = 0;
  while (spent < ROUND_MS) {
    spent += cpuMs(f);
    calls++;
  }
  return spent / calls;
}

const WAYS = ['reader', 'readerTs', 'general', 'native'] as const;
type Way = (typeof WAYS)[number];

function time(c: Case): Record<Way, number> {
  // As the REST handler calls it: the signature looked up ahead, so a float body is read in one pass.
  const read = () => readPredictBody(c.bytes, LIMITS, LOOKAHEAD)!.tensors(SIGNATURE);
  const ways: Record<Way, () => unknown> = {
    reader: read,
    readerTs: () => {
      useFloat32Kernel(false);
      try {
        return read();
      } finally {
        useFloat32Kernel(true);
      }
    },
    general: () => parsePredictRequest(parseJsonBody(c.text, LIMITS), SIGNATURE),
    native: () => jsonParseAndFill(c.text),
  };
  // The reader's answer is the general parser's (test/rest/json_tensor_reader.test.ts); here it
  // must read the body itself, in one pass, with and without the kernel (not leave it to the general parser).
  for (const kernel of [true, false]) {
    useFloat32Kernel(kernel);
    const check = readFloatBody(c.bytes, LIMITS, SIGNATURE, () => {})?.inputs.x.values;
    useFloat32Kernel(true);
    if (check?.length !== jsonParseAndFill(c.text).length)
      throw new Error(`${c.what}: the reader ${kernel ? 'with' : 'without'} its kernel did not read the body`);
  }
  for (const way of WAYS) {
    let spent = 0;
    for (let calls = 0; calls < 2 || spent < WARM_MS; calls++) spent += cpuMs(ways[way]);
  }
  const ms: Record<Way, number[]> = { reader: [], readerTs: [], general: [], native: [] };
  for (let i = 0; i < ROUNDS; i++) for (const way of WAYS) ms[way].push(roundMs(ways[way]));
  return { reader: median(ms.reader), readerTs: median(ms.readerTs), general: median(ms.general), native: median(ms.native) };
}

const SHAPES: Array<[string, number[]]> = [
  ['images [n,32,32,3]', [32, 32, 3]],
  ['vectors [n,512]', [512]],
];
const DIGITS = [3, 9, 17, 0];

process.stdout.write(
  `tensor reader vs JSON.parse + Float32Array fill (and the reader's TypeScript road alone, and the general parser), CPU time, median of ${ROUNDS} rounds, each way warmed ${WARM_MS} ms first\n`,
);
process.stdout.write(
  `${'body'.padEnd(44)} ${'MB'.padStart(6)} ${'reader MB/s'.padStart(12)} ${'TS road MB/s'.padStart(13)} ${'general MB/s'.padStart(13)} ${'JSON.parse+fill MB/s'.padStart(21)} ${'reader ÷ JSON.parse+fill'.padStart(25)} ${'TS road ÷ JSON.parse+fill'.padStart(26)}\n`,
);
const ratios: Array<[string, number]> = [];
for (const mb of SIZES_MB) {
  for (const [shapeName, shape] of SHAPES) {
    for (const digits of DIGITS) {
      const what = `${shapeName}, ${digits === 0 ? '3–17' : digits} digits`;
      if (!`${what}, ${mb} MB`.includes(ONLY)) continue;
      const text = body(mb * 1e6, shape, digits);
      const c: Case = { what, text, bytes: Buffer.from(text) };
      const t = time(c);
      const size = c.bytes.length / 1e6;
      const mbs = (ms: number) => (size / (ms / 1e3)).toFixed(0);
      const ratio = t.native / t.reader;
      ratios.push([`${c.what}, ${mb} MB`, ratio]);
      process.stdout.write(
        `${c.what.padEnd(44)} ${size.toFixed(2).padStart(6)} ${mbs(t.reader).padStart(12)} ${mbs(t.readerTs).padStart(13)} ${mbs(t.general).padStart(13)} ${mbs(t.native).padStart(21)} ${`${ratio.toFixed(2)}×`.padStart(25)} ${`${(t.native / t.readerTs).toFixed(2)}×`.padStart(26)}\n`,
      );
    }
  }
}
if (ratios.length === 0) throw new Error(`no body matches --only ${ONLY}`);
const worst = ratios.reduce((a, b) => (b[1] < a[1] ? b : a));
const met = ratios.filter(([, r]) => r >= TARGET).length;
process.stdout.write(
  `reader ≥ ${TARGET}× JSON.parse + fill on every body: ${met === ratios.length ? 'met' : 'missed'} (${met} of ${ratios.length} bodies; lowest ${worst[1].toFixed(2)}× on ${worst[0]})\n`,
);
