// The WebAssembly kernel that reads the tensor reader's float32 lists (json_float32_kernel.ts):
// with it and without it (the reader's TypeScript road alone) the reader gives the same
// float32 tensors, bit for bit, and both are the general path's (parseBothWays): on decimals at
// and a hair from float32 halfway points (where the double's own rounding decides), 15 to 20+
// digits, 21 to 23 fraction digits, exponents, subnormals, -0, NaN / Infinity, and on bodies
// larger than the kernel's 64 KiB window, their items cut at its end at every offset. And the
// committed module is what its source builds to.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { readFloatBody, useFloat32Kernel } from '../../src/rest/json_tensor_reader.js';
import { Float32Window } from '../../src/rest/json_float32_kernel.js';
import type { SignatureSpec } from '../../src/savedmodel/signature_spec.js';
import { parseBothWays } from '../helpers/predict_both_ways.js';
import { REPO_ROOT } from '../helpers/paths.js';
import { seededRandom } from '../../test_util/savedmodel/model_zoo.js';

const LIMITS = { maxDepth: 64, maxElements: 1 << 24 };
const SIGNATURE: SignatureSpec = {
  key: 'serving_default',
  methodName: 'tensorflow/serving/predict',
  inputs: { x: { name: 'x:0', dtype: 'DT_FLOAT', shape: null } },
  outputs: {},
  defaults: {},
};

/** The reader's float32 tensor of `body` in one pass, with the kernel or without it: every body here is read, none declined. */
function read(body: string, kernel: boolean): Uint32Array {
  useFloat32Kernel(kernel);
  try {
    const read = readFloatBody(Buffer.from(body), LIMITS, SIGNATURE, () => {});
    assert.ok(read, `declined ${kernel ? 'with' : 'without'} the kernel: ${body.slice(0, 120)}`);
    const values = read.inputs.x.values as Float32Array;
    return new Uint32Array(values.buffer, values.byteOffset, values.length);
  } finally {
    useFloat32Kernel(true);
  }
}

/** Both roads the same, bit for bit, and the general path's (parseBothWays checks the reader, kernel on, against it). */
function agree(body: string): void {
  parseBothWays(body, SIGNATURE, LIMITS);
  assert.deepEqual(read(body, true), read(body, false), body.slice(0, 120));
}

const nextUp = (x: number): number => {
  const v = new DataView(new ArrayBuffer(8));
  v.setFloat64(0, x);
  v.setBigUint64(0, v.getBigUint64(0) + 1n);
  return v.getFloat64(0);
};

/**
 * Decimals whose double is, or is next to, a halfway point between two floats32 (there the
 * double's own rounding decides the float32: "1.0000000596046448" is above the halfway point
 * 1 + 2^-24, yet its double is that point, which rounds to even: 1), at 15 to 19 digits.
 */
function halfwayTexts(next: () => number, count: number): string[] {
  const texts: string[] = [];
  for (let k = 0; k < count; k++) {
    const f = Math.fround((next() < 0.5 ? 1 : 1e-3) * (0.5 + next()) * 2 ** Math.floor(next() * 40 - 20));
    const up = Math.fround(f * (1 + 2 ** -23));
    const h = f + (up - f) / 2;
    const sign = next() < 0.5 ? '-' : '';
    for (const x of [h, nextUp(h), h - (nextUp(h) - h)]) {
      texts.push(sign + String(x), String(Number(x.toPrecision(15))), x.toPrecision(16), x.toPrecision(18), x.toPrecision(19));
    }
  }
  return texts.filter((t) => !t.includes('e'));
}

/** Numbers of every form a client sends, and the fast roads' edges. */
function edgeTexts(next: () => number): string[] {
  const texts = ['0', '-0', '0.0', '-0.0', '1', '-1', '1e5', '-1.5E-3', '2.5e+1', 'NaN', '-NaN', 'Infinity', '-Inf', '1.0000000596046448'];
  const digits = '98765432109876543210987';
  for (let n = 14; n <= 22; n++) {
    texts.push(digits.slice(0, n), `-${digits.slice(0, 2)}.${digits.slice(2, n)}`, `0.${digits.slice(0, n)}`);
    for (let fraction = n; fraction <= 24; fraction += 2) texts.push(`0.${'0'.repeat(fraction - n)}${digits.slice(0, n)}`);
  }
  // Subnormal and tiny floats32, as JavaScript prints them and as fixed decimals.
  for (const x of [1e-45, 1.4e-45, 2 ** -149, 2 ** -126, 1.1754942e-38, 3e-39]) texts.push(String(x), x.toFixed(60).replace(/0+$/, ''));
  for (let k = 0; k < 200; k++)
    texts.push(String(Number(((next() * 2 - 1) * 10 ** Math.floor(next() * 8 - 4)).toPrecision(3 + Math.floor(next() * 15)))));
  return texts;
}

describe('json_float32_kernel: float32 lists read by WebAssembly as by TypeScript', () => {
  it('reads decimals at and next to float32 halfway points, 15–23 digit numbers, exponents, subnormals, -0, NaN and Infinity bit for bit as the TypeScript road and the general path do', () => {
    const next = seededRandom(5);
    const texts = [...edgeTexts(next), ...halfwayTexts(next, 400)];
    // The kernel's own double rounding: "1.0000000596046448" is 1 in float32, not 1 + 2^-23.
    assert.equal(Math.fround(Number('1.0000000596046448')), 1);
    for (let k = 0; k + 240 <= texts.length; k += 240) {
      const some = texts.slice(k, k + 240);
      const rows = (width: number) =>
        Array.from({ length: Math.floor(some.length / width) }, (_, r) => `[${some.slice(r * width, r * width + width).join(', ')}]`);
      agree(`{"instances": [${some.join(', ')}]}`);
      agree(`{"instances": [${rows(240).join(', ')}]}`);
      agree(`{"instances": [${rows(24).join(', ')}]}`);
      // Image rows: [[r, g, b], …] lists of lists of three.
      agree(`{"instances": [[${rows(3).slice(0, 40).join(', ')}], [${rows(3).slice(40, 80).join(', ')}]]}`);
    }
  });

  it('reads fractions of every length (its 8-byte steps end anywhere) and whatever follows them, bit for bit as the TypeScript road does', () => {
    // Fractions of 1 to 24 digits after integer parts of 0 to 7 digits (up to 20 digits in
    // all, past the 19 the kernel reads itself), leading zeros, and each byte a number may
    // end at: a separator, whitespace, a bracket, an exponent.
    const digits = '7340981265873409812658734';
    const texts: string[] = [];
    for (let fraction = 1; fraction <= 24; fraction++)
      for (const int of ['0', '1', '-0', '-93', '4096', '-8765432'])
        for (const zeros of ['', '00', '0000000']) texts.push(`${int}.${(zeros + digits).slice(0, fraction)}`);
    const ends = [', ', ',', ' , ', '\n,', '\t, '];
    const rows = (width: number) =>
      Array.from(
        { length: Math.floor(texts.length / width) },
        (_, r) =>
          `[${texts
            .slice(r * width, r * width + width)
            .map((t, k) => t + (k === width - 1 ? ' ' : ends[k % ends.length]))
            .join('')}]`,
      );
    agree(`{"instances": [${rows(texts.length).join(', ')}]}`);
    agree(`{"instances": [${rows(4).join(',')}]}`);
    for (const exponent of ['e3', 'E-2', 'e+1'])
      agree(
        `{"instances": [${texts
          .filter((_, k) => k % 7 === 0)
          .map((t) => t + exponent)
          .join(', ')}]}`,
      );
  });

  it('reads bodies past its 64 KiB window, items cut by the window at every offset, as the TypeScript road does', () => {
    const next = seededRandom(9);
    const space = () => [' ', '', '\n', '\t ', '  \r\n   '][Math.floor(next() * 5)].repeat(1 + Math.floor(next() * 3));
    const num = () => String(Number(((next() * 2 - 1) * 10 ** Math.floor(next() * 3 - 2)).toPrecision(1 + Math.floor(next() * 17))));
    for (const width of [512, 3]) {
      const rows: string[] = [];
      for (let len = 0; len < 200_000;) {
        const row = `[${space()}${Array.from({ length: width }, () => num() + space()).join(`,${space()}`)}]`;
        rows.push(row);
        len += row.length;
      }
      const body = width === 3 ? `{"instances": [[${rows.join(`,${space()}`)}]]}` : `{"instances": [${rows.join(`,${space()}`)}]}`;
      agree(body);
    }
  });

  it('reads a body whose numbers it mostly leaves (it then stops trying) as the TypeScript road does', () => {
    const rows = (n: number, text: (k: number) => string) => Array.from({ length: n }, (_, k) => `[${text(k)}, ${text(k + 1)}, 0.5]`);
    agree(`{"instances": [${[...rows(40, (k) => `${k}.5e-3`), ...rows(40, (k) => `0.${k}25`)].join(', ')}]}`);
    agree(`{"instances": [${[...rows(40, (k) => `0.${k}25`), ...rows(40, (k) => `1.${k}234567890123456789`)].join(', ')}]}`);
  });

  it('stops before an item it is not sure of, storing nothing for it, and after the list it closes', () => {
    const b = Buffer.from('1, -0.5, 2e3, 4]');
    const window = new Float32Window(b);
    const out = new Float32Array(8);
    const i = window.read(0, out, 0, 8, 0);
    assert.equal(b.toString('latin1', i), '2e3, 4]');
    assert.deepEqual([window.stored, window.closed, [...out.slice(0, 3)]], [2, false, [1, -0.5, 0]]);
    assert.equal(window.read(i + 5, out, 2, 8, 0), b.length);
    assert.deepEqual([window.stored, window.closed, out[2]], [1, true, 4]);
    // At most `limit` items, and never past the room `out` has.
    const rows = Buffer.from('[1, 2], [3, 4], [5, 6]]');
    const two = new Float32Window(rows);
    assert.equal(rows.toString('latin1', two.read(0, new Float32Array(4), 0, 8, 2)), '[5, 6]]');
    assert.deepEqual([two.rows, two.stored, two.closed], [2, 4, false]);
    // A body that ends inside a list: nothing past its last byte is read (the memory after it
    // still holds an earlier, longer window's bytes).
    new Float32Window(Buffer.from(`[${'1, '.repeat(1000)}1]`)).read(1, new Float32Array(1001), 0, 1001, 0);
    const cut = Buffer.from('1, 2, 3');
    const last = new Float32Window(cut);
    assert.equal(last.read(0, out, 0, 8, 0), 6);
    assert.deepEqual([last.stored, last.closed, [...out.slice(0, 2)]], [2, false, [1, 2]]);
  });
});

describe('json_float32_wasm: the committed module', () => {
  it('is what wasm/json_float32.ts builds to (wasm/build.mjs --check), where AssemblyScript is installed', (t) => {
    const run = spawnSync(process.execPath, [path.join(REPO_ROOT, 'wasm', 'build.mjs'), '--check'], { encoding: 'utf8' });
    if (run.status === 2) {
      t.skip(run.stderr.trim());
      return;
    }
    assert.equal(run.status, 0, run.stdout + run.stderr);
  });
});
