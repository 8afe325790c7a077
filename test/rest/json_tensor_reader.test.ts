// The tensor reader against the general parser: on generated :predict bodies (random shapes and
// dtypes, numbers of 3 to 17 significant digits, edge numbers) it must give the same tensors,
// bit for bit, or decline; every case of json_tensor.test.ts runs both ways as well
// (test/helpers/predict_both_ways.ts). Its decimal → double conversion is held to Number()'s.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { nearestDouble } from '../../src/rest/decimal_double.js';
import { base64Unescape, base64UnescapeBytes } from '../../src/rest/base64.js';
import { readPredictBody } from '../../src/rest/predict_body_reader.js';
import { Code, ServingError } from '../../src/errors/status.js';
import type { SignatureSpec } from '../../src/savedmodel/signature_spec.js';
import { parseBothWays, readerOutcomes } from '../helpers/predict_both_ways.js';

const LIMITS = { maxDepth: 64, maxElements: 1 << 24 };

const sig = (inputs: Record<string, string>): SignatureSpec => ({
  key: 'serving_default',
  methodName: 'tensorflow/serving/predict',
  inputs: Object.fromEntries(Object.entries(inputs).map(([k, dtype]) => [k, { name: `${k}:0`, dtype, shape: null }])),
  outputs: {},
  defaults: {},
});

/** A small seeded generator (mulberry32): the same bodies on every run. */
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

/** Outcome counts before and after f. */
function outcomes(f: () => void): typeof readerOutcomes {
  const before = { ...readerOutcomes };
  f();
  return Object.fromEntries(
    Object.entries(readerOutcomes).map(([k, v]) => [k, v - before[k as keyof typeof before]]),
  ) as typeof readerOutcomes;
}

/** Either outcome of the general path: its tensors are checked against the reader's inside parseBothWays. */
function both(body: string, s: SignatureSpec, limits = LIMITS): void {
  try {
    parseBothWays(body, s, limits);
  } catch (e) {
    if (!(e instanceof ServingError)) throw e;
  }
}

// ---- numbers ---------------------------------------------------------------------------------

/** The exact decimal of the midpoint between the double x > 0 and the next one up, to `digits` significant digits (truncated), as "d.ddd…e±x". */
function midpointDigits(x: number, digits: number): string {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  const bits = view.getBigUint64(0);
  const biased = Number(bits >> 52n);
  let m = bits & ((1n << 52n) - 1n);
  let e: number;
  if (biased === 0) e = -1074;
  else {
    m |= 1n << 52n;
    e = biased - 1075;
  }
  // midpoint = (2m + 1) · 2^(e - 1)
  let num = 2n * m + 1n;
  let scale = 0; // the midpoint is num · 10^-scale
  const e1 = e - 1;
  if (e1 >= 0) num <<= BigInt(e1);
  else {
    num *= 5n ** BigInt(-e1);
    scale = -e1;
  }
  const text = num.toString();
  const exponent = text.length - 1 - scale;
  const kept = text.slice(0, digits);
  return `${kept[0]}.${kept.slice(1) || '0'}e${exponent}`;
}

/** A double of about 10^-25 … 10^25, mantissa bits all random. */
function randomDouble(next: () => number): number {
  const view = new DataView(new ArrayBuffer(8));
  view.setUint32(0, ((1023 + Math.floor(next() * 166) - 83) << 20) | Math.floor(next() * (1 << 20)));
  view.setUint32(4, Math.floor(next() * 4294967296));
  return view.getFloat64(0);
}

/** The arguments of nearestDouble for a decimal text of digits, a fraction and an exponent (positive, at most 19 digits). */
function decompose(text: string): [number, number, number, number] {
  const [mantissa, exp = '0'] = text.toLowerCase().split('e');
  const [int, frac = ''] = mantissa.split('.');
  let digits = (int + frac).replace(/^0+/, '');
  let p = Number(exp) - frac.length;
  if (digits === '') digits = '0';
  const w1 = Number(digits.slice(0, 15));
  const rest = digits.slice(15);
  return [w1, rest === '' ? 0 : Number(rest), rest.length, p];
}

describe('decimal_double: nearestDouble is Number() or NaN', () => {
  it('agrees with Number() on random 16–19 digit decimals and on truncated midpoints between doubles, and is rarely unsure', () => {
    const next = random(7);
    let unsure = 0;
    let checked = 0;
    for (let k = 0; k < 40_000; k++) {
      const x = randomDouble(next);
      const digits = 16 + (k % 4);
      // Half the cases sit right at a rounding boundary (the hard ones), half anywhere.
      const text = k % 2 === 0 ? midpointDigits(x, digits) : x.toPrecision(digits);
      const [w1, w2, k2, p] = decompose(text);
      if (p < -22 || p > 22) continue;
      checked++;
      const got = nearestDouble(w1, w2, k2, p);
      if (Number.isNaN(got)) unsure++;
      else assert.equal(got, Number(text), text);
    }
    assert.ok(checked > 5_000, `${checked} cases in range`);
    // Unsure (then Number() reads the text) only on the midpoint cases' closest calls.
    assert.ok(unsure < checked / 4, `${unsure} unsure of ${checked}`);
  });

  it("is exact on Clinger's fast path and on the classic hard cases", () => {
    const cases = [
      '0.1',
      '1.7976931348623157e22',
      '9007199254740993',
      '9007199254740992',
      '9007199254740991',
      '1.0000000000000002',
      '123456789012345678e-5',
      '0.3333333432674408',
      '2.2250738585072011e-3',
      '1152921504606846977',
    ];
    for (const text of cases) {
      const [w1, w2, k2, p] = decompose(text);
      const got = nearestDouble(w1, w2, k2, p);
      if (!Number.isNaN(got)) assert.equal(got, Number(text), text);
    }
    // 2^53 + 1 is halfway between 2^53 and 2^53 + 2: to even.
    assert.equal(nearestDouble(900719925474099, 3, 1, 0), 9007199254740992);
  });
});

describe('base64UnescapeBytes: base64Unescape, from bytes', () => {
  it('decodes, or refuses, every generated string as base64Unescape does', () => {
    const next = random(64);
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/= .\n\t-_!';
    for (let k = 0; k < 5000; k++) {
      const length = Math.floor(next() * 14);
      let text = Array.from({ length }, () => alphabet[Math.floor(next() * (next() < 0.8 ? 64 : alphabet.length))]).join('');
      if (k % 3 === 0) text = Buffer.from(text).toString('base64');
      const want = base64Unescape(text);
      const got = base64UnescapeBytes(Buffer.from(`"${text}"`, 'latin1'), 1, text.length + 1);
      assert.deepEqual(got && Array.from(got), want && Array.from(want), JSON.stringify(text));
    }
  });
});

// ---- bodies ----------------------------------------------------------------------------------

const EDGE_FLOATS = [
  '0',
  '-0',
  '0.0',
  '-0.0',
  '-0e0',
  '1',
  '-1',
  '1.0',
  '1e0',
  '1E2',
  '1e+2',
  '1e-2',
  '2.5',
  '-2.5',
  '4.9e-324',
  '5e-324',
  '2.4703282292062327e-324',
  '2.2250738585072011e-308',
  '2.2250738585072014e-308',
  '1.401298464324817e-45',
  '3.4028234663852886e38',
  '3.4028235677973366e38',
  '1e308',
  '1.7976931348623157e308',
  '1.7976931348623159e308',
  '1e-400',
  '0.0001e309',
  '9007199254740991',
  '9007199254740992',
  '9007199254740993',
  '-9007199254740993',
  '18446744073709551615',
  '18446744073709551616',
  '-9223372036854775808',
  '123456789012345678901234567890',
  '0.1',
  '0.30000000000000004',
  '1.00000000000000011102230246251565404236316680908203125',
  '16777217',
  '16777216.5',
  'NaN',
  '-NaN',
  'Infinity',
  '-Infinity',
  'Inf',
  '-Inf',
  '1e22',
  '1e23',
  '8.589973e9',
  '0.000001',
  '1.5e-45',
  '7.0064923216240854e-46',
];
const EDGE_INTS = [
  '0',
  '-0',
  '1',
  '-1',
  '2147483647',
  '2147483648',
  '-2147483648',
  '-2147483649',
  '4294967295',
  '4294967296',
  '9007199254740993',
  '-9007199254740993',
  '9223372036854775807',
  '9223372036854775808',
  '-9223372036854775808',
  '-9223372036854775809',
  '18446744073709551615',
  '18446744073709551616',
  '1.0',
  '1e2',
  '255',
  '256',
  '65535',
  '65536',
  '-128',
];

/** A float's text with `digits` significant digits in one of the forms clients print. */
function floatText(next: () => number, digits: number): string {
  const v = (next() - 0.5) * 10 ** Math.floor(next() * 12 - 6);
  const form = Math.floor(next() * 4);
  if (form === 0) return v.toPrecision(digits);
  if (form === 1) return v.toExponential(digits - 1);
  if (form === 2) return v.toExponential(digits - 1).toUpperCase();
  return String(Number(v.toPrecision(digits)));
}

/** Nested lists of `shape` with leaves from `leaf`, with random whitespace. */
function nested(shape: number[], leaf: () => string, next: () => number): string {
  if (shape.length === 0) return leaf();
  const sep = next() < 0.5 ? ',' : next() < 0.5 ? ', ' : ' ,\n\t';
  return `[${Array.from({ length: shape[0] }, () => nested(shape.slice(1), leaf, next)).join(sep)}]`;
}

function randomShape(next: () => number, rank: number): number[] {
  return Array.from({ length: rank }, () => 1 + Math.floor(next() * 4));
}

describe('tensor reader: generated bodies read as the general path reads them', () => {
  it('reads every valid float body (row and columnar, 3–17 digit numbers) to the same float32 / float64 tensors', () => {
    const next = random(33);
    const counted = outcomes(() => {
      for (let k = 0; k < 300; k++) {
        const dtype = k % 3 === 0 ? 'DT_DOUBLE' : 'DT_FLOAT';
        const shape = randomShape(next, Math.floor(next() * 4));
        const leaf = () => floatText(next, 3 + Math.floor(next() * 15));
        if (k % 2 === 0)
          parseBothWays(`{"instances": [${nested(shape, leaf, next)}, ${nested(shape, leaf, next)}]}`, sig({ x: dtype }), LIMITS);
        else
          parseBothWays(
            `{"signature_name": "serving_default", "inputs": {"x": ${nested(shape, leaf, next)}, "y": ${nested(randomShape(next, 2), leaf, next)}}}`,
            sig({ x: dtype, y: 'DT_FLOAT' }),
            LIMITS,
          );
      }
    });
    assert.deepEqual(counted, { read: 300, declinedPlan: 0, declinedBind: 0, declinedFill: 0, onePass: 300 });
  });

  it('reads the edge numbers as the general path does (subnormals, 2^53 ± 1, 1e308, -0.0, halfway cases, NaN, Infinity)', () => {
    for (const dtype of ['DT_FLOAT', 'DT_DOUBLE']) {
      const counted = outcomes(() => {
        for (const text of EDGE_FLOATS) {
          both(`{"instances": [${text}]}`, sig({ x: dtype }));
          both(`{"inputs": {"x": [[${text}, 1.5], [2, ${text}]]}}`, sig({ x: dtype }));
        }
        both(`{"instances": [${EDGE_FLOATS.join(',')}]}`, sig({ x: dtype }));
      });
      // Declined: only the numbers RapidJSON may refuse as too big, and none else.
      assert.ok(counted.read >= 2 * EDGE_FLOATS.length - 6, JSON.stringify(counted));
    }
  });

  it('reads integer inputs as the general path does, and leaves out-of-range or float literals to it', () => {
    for (const dtype of ['DT_INT32', 'DT_INT8', 'DT_UINT8', 'DT_INT16', 'DT_UINT16', 'DT_UINT32', 'DT_INT64', 'DT_UINT64']) {
      for (const text of EDGE_INTS) {
        both(`{"instances": [${text}, 7]}`, sig({ x: dtype }));
        both(`{"inputs": [[${text}], [-3]]}`, sig({ x: dtype }));
      }
    }
    const next = random(5);
    const counted = outcomes(() => {
      for (let k = 0; k < 100; k++) {
        const shape = randomShape(next, 1 + Math.floor(next() * 3));
        const int = () => String(Math.floor((next() - 0.5) * 2 ** (1 + Math.floor(next() * 62))));
        parseBothWays(`{"instances": ${nested([2, ...shape], int, next)}}`, sig({ x: 'DT_INT64' }), LIMITS);
      }
    });
    assert.equal(counted.read, 100);
  });

  it('reads bool, string and b64 inputs, named instances and several inputs as the general path does', () => {
    const s = sig({ flag: 'DT_BOOL', tag: 'DT_STRING', ids: 'DT_INT32', x: 'DT_FLOAT' });
    const counted = outcomes(() => {
      parseBothWays(
        '{"instances": [{"flag": true, "tag": "héllo", "ids": [1, 2], "x": [[0.5]]}, {"flag": false, "tag": {"b64": "aGVsbG8="}, "ids": [3, 4], "x": [[1e-3]]}]}',
        s,
        LIMITS,
      );
      parseBothWays(
        '{"inputs": {"flag": [[true, false]], "tag": ["a", "b", "c"], "ids": 5, "x": [NaN, -Infinity], "unused": [[1], [2]]}, "other": {"deep": [1, {"a": null}]}}',
        s,
        LIMITS,
      );
      parseBothWays(
        '{"instances": [{"b64": "aGVsbG8="}, {"b64": "d29y bGQ="}, {"b64": "YQ=="}, {"b64": ""}]}',
        sig({ x: 'DT_STRING' }),
        LIMITS,
      );
      parseBothWays(
        '{"other": [1, 2, {"x": "y"}], "instances": ["\u00ff\u20ac", "plain"], "after": null}',
        sig({ x: 'DT_STRING' }),
        LIMITS,
      );
    });
    assert.deepEqual(counted, { read: 4, declinedPlan: 0, declinedBind: 0, declinedFill: 0, onePass: 0 });
  });

  it('declines, or agrees with, every malformed or wrong body (the general path answers with its error)', () => {
    const bodies = [
      '',
      ' ',
      '[]',
      '{}',
      '{"instances": []}',
      '{"instances": [[]]}',
      '{"instances": [1, [2]]}',
      '{"instances": [[1, 2], [3]]}',
      '{"instances": [1,]}',
      '{"instances": [1 2]}',
      '{"instances": [01]}',
      '{"instances": [1.]}',
      '{"instances": [.5]}',
      '{"instances": [1e]}',
      '{"instances": [-]}',
      '{"instances": [+1]}',
      '{"instances": [Nan]}',
      '{"instances": [Infinit]}',
      '{"instances": [null]}',
      '{"instances": [true]}',
      '{"instances": ["1"]}',
      '{"instances": [1]',
      '{"instances": [1]} trailing',
      '{"instances": [1], "inputs": [2]}',
      '{"instances": [1], "instances": [2]}',
      '{"signature_name": 5, "instances": [1]}',
      '{"signature_name": "a\\"b", "instances": [1]}',
      '{"inputs": {"x": [1], "x": [2]}}',
      '{"inputs": {"y": [1]}}',
      '{"instances": [{"x": 1}, {"y": 2}]}',
      '{"instances": [{"x": 1}, {"x": 2, "x": 3}]}',
      '{"instances": [{"b64": "!!"}]}',
      '{"instances": [{"b64": "aGVsbG8"}]}',
      '{"instances": [1e400]}',
      '{"instances": [1' + '0'.repeat(400) + ']}',
      '{"instances": [1]}\u0000',
      '{"instances": [1\u0000]}',
      '{"instances":\t[ 1 ,\r\n2 ] }',
      '{"instances": ["a\\u0041"]}',
      '{"instances": ["tab\there"]}',
      '{"instances": [1.5], "signature_name": "s2"}',
      '{"instances": [1.5], "signature\\u005fname": "s2"}',
      '{"inputs": {"x": [1.5]}, "other": ["signature_name"], "signature_name": "s2"}',
      '{"inputs": 1.5}',
      '{"inputs": [1, 2]}',
      '{"inputs": {"b64": "YQ=="}}',
      '{"inputs": {"x": {"b64": "YQ=="}}}',
    ];
    for (const body of bodies) {
      for (const dtype of ['DT_FLOAT', 'DT_INT32', 'DT_STRING', 'DT_INT64', 'DT_BOOL', 'DT_COMPLEX64']) both(body, sig({ x: dtype }));
      both(body, sig({ x: 'DT_FLOAT', z: 'DT_INT32' }));
    }
    // The depth and element limits: at and around each body's own figures.
    for (const maxDepth of [1, 2, 3, 4])
      for (const maxElements of [1, 2, 3, 4, 5, 6, 7, 100]) {
        for (const body of [
          '{"instances": [[1, 2], [3, 4]]}',
          '{"inputs": {"x": [[1]], "y": {"b64": "YQ=="}}, "z": [[[1]]]}',
          '{"instances": [{"x": [1], "y": {"b64": "YQ=="}}]}',
        ]) {
          both(body, sig({ x: 'DT_FLOAT', y: 'DT_STRING' }), { maxDepth, maxElements });
        }
      }
  });
});

// ---- the float32 fast path ------------------------------------------------------------------

/** The float32 just above f > 0 (f a float32). */
function nextFloat32(f: number): number {
  const bits = new Uint32Array(new Float32Array([f]).buffer);
  bits[0]++;
  return new Float32Array(bits.buffer)[0];
}

/** x (a double of finite binary fraction) as an exact decimal: an integer and its count of fraction digits. */
function exactDecimal(x: number): { units: bigint; fraction: number } {
  let fraction = 0;
  let scaled = x;
  while (!Number.isInteger(scaled)) {
    scaled *= 2;
    fraction++;
  }
  // x = scaled / 2^fraction = scaled · 5^fraction / 10^fraction (scaled exact: x has at most 53 bits)
  return { units: BigInt(scaled) * 5n ** BigInt(fraction), fraction };
}

/** units / 10^fraction in fixed notation ("-0.000123"). */
function fixed(units: bigint, fraction: number): string {
  const negative = units < 0n;
  const digits = (negative ? -units : units).toString().padStart(fraction + 1, '0');
  const text = fraction === 0 ? digits : `${digits.slice(0, digits.length - fraction)}.${digits.slice(digits.length - fraction)}`;
  return negative ? `-${text}` : text;
}

/**
 * Decimals within a hair of a halfway point h between two floats32, as clients print them (no
 * exponent, at most 24 digits): h itself, and h ± 10^-k for the first k that makes the
 * distance less than half a double's spacing at h, so that the double nearest to them is h and
 * float32 rounds it to even, where rounding the decimal straight to float32 would not.
 */
function float32HalfwayTexts(next: () => number, count: number): string[] {
  const texts: string[] = [];
  while (texts.length < 3 * count) {
    // A float32 in [2^3, 2^23): its halfway point has 1 to 21 fraction digits.
    const k = 3 + Math.floor(next() * 20);
    const f = Math.fround(2 ** k * (1 + next()));
    const h = (f + nextFloat32(f)) / 2;
    const { units, fraction } = exactDecimal(h);
    let extra = fraction + 1;
    while (10 ** -extra >= 2 ** (k - 53)) extra++;
    const scaled = units * 10n ** BigInt(extra - fraction);
    const sign = next() < 0.5 ? -1n : 1n;
    if (extra > 22 || fixed(scaled, extra).replace('.', '').replace(/^0+/, '').length > 24) continue;
    texts.push(fixed(sign * units, fraction), fixed(sign * (scaled + 1n), extra), fixed(sign * (scaled - 1n), extra));
  }
  return texts;
}

describe('tensor reader: the float32 fast path (digits gathered as integers, the double then float32)', () => {
  it('reads decimals a hair from a float32 halfway point as the general path does: the double first, then float32', () => {
    const texts = float32HalfwayTexts(random(21), 400);
    // The point of these: the double of each is h, and float32(h) is h rounded to even.
    for (let k = 0; k < 30; k += 3) {
      const h = Number(texts[k]);
      assert.equal(Number(texts[k + 1]), h);
      assert.equal(Number(texts[k + 2]), h);
    }
    const counted = outcomes(() => {
      for (let k = 0; k < texts.length; k += 60) {
        parseBothWays(`{"instances": [${texts.slice(k, k + 60).join(', ')}]}`, sig({ x: 'DT_FLOAT' }), LIMITS);
        parseBothWays(`{"instances": [[${texts.slice(k, k + 60).join('], [')}]]}`, sig({ x: 'DT_FLOAT' }), LIMITS);
      }
    });
    assert.equal(counted.onePass, 2 * Math.ceil(texts.length / 60));
  });

  it("reads numbers at the fast path's edges as the general path does (15–25 digits, 21–23 fraction digits, -0, exponents)", () => {
    const digits = '123456789012345678901234567';
    const texts: string[] = [];
    for (let n = 14; n <= 26; n++) {
      texts.push(digits.slice(0, n), `-${digits.slice(0, n)}`, `9${'9'.repeat(n - 1)}`);
      for (let fraction = n; fraction <= 24; fraction++) texts.push(`0.${'0'.repeat(fraction - n)}${digits.slice(0, n)}`);
      texts.push(`${digits.slice(0, 3)}.${digits.slice(3, n)}`, `-${digits.slice(0, 1)}.${digits.slice(1, n)}`);
    }
    for (let fraction = 20; fraction <= 24; fraction++)
      texts.push(`0.${'0'.repeat(fraction - 1)}7`, `-0.${'0'.repeat(fraction)}`, `1.${'0'.repeat(fraction - 1)}1`);
    texts.push(
      '0',
      '-0',
      '0.0',
      '-0.0',
      '-0e0',
      '-0.0e0',
      '5e-1',
      '5E+1',
      '1.5e22',
      '1.5e23',
      '3.4028235e38',
      '3.4028236e38',
      '340282356779733661637539',
    );
    texts.push('16777217.000000001', '16777216.999999999', '-16777219.000000001', '0.100000001490116119384765625');
    for (const dtype of ['DT_FLOAT', 'DT_DOUBLE']) {
      const counted = outcomes(() => {
        for (const text of texts) parseBothWays(`{"instances": [[${text}, 1], [2, ${text}]]}`, sig({ x: dtype }), LIMITS);
        parseBothWays(`{"instances": [${texts.join(', ')}]}`, sig({ x: dtype }), LIMITS);
      });
      assert.equal(counted.onePass, texts.length + 1, dtype);
    }
  });

  it('reads lists of short inner lists (image rows) as the general path does, and declines what is ragged or not numbers', () => {
    const next = random(77);
    const valid: string[] = [];
    for (let k = 0; k < 90; k++) {
      const width = 1 + Math.floor(next() * 4);
      // Images, and rows of one to four values.
      const shape =
        k % 3 === 0
          ? [2 + Math.floor(next() * 6), width]
          : [1 + Math.floor(next() * 3), 2 + Math.floor(next() * 3), 2 + Math.floor(next() * 3), width];
      valid.push(`{"instances": ${nested(shape, () => floatText(next, 3 + Math.floor(next() * 15)), next)}}`);
    }
    const counted = outcomes(() => {
      for (const body of valid) parseBothWays(body, sig({ x: 'DT_FLOAT' }), LIMITS);
    });
    assert.equal(counted.onePass, valid.length);
    // Two passes (an int32 input beside it): named instances and columnar inputs of images.
    const twoPass = outcomes(() => {
      for (let k = 0; k < 20; k++) {
        const shape = [2 + Math.floor(next() * 3), 2 + Math.floor(next() * 3), 1 + Math.floor(next() * 3)];
        const image = () => nested(shape, () => floatText(next, 3 + Math.floor(next() * 15)), next);
        const s = sig({ x: 'DT_FLOAT', k: 'DT_INT32' });
        parseBothWays(`{"instances": [{"x": ${image()}, "k": 1}, {"k": 2, "x": ${image()}}]}`, s, LIMITS);
        parseBothWays(`{"inputs": {"k": [3], "x": [${image()}, ${image()}]}}`, s, LIMITS);
      }
    });
    assert.deepEqual(twoPass, { read: 40, declinedPlan: 0, declinedBind: 0, declinedFill: 0, onePass: 0 });
    // Each valid body broken in one of its later inner lists (after the first row has set the shape).
    const breaks: Array<(inner: string) => string> = [
      (inner) => inner.replace(/[^,\s[\]]+\s*\]$/, ']'), // one number short (or empty)
      (inner) => inner.replace(/\]$/, ', 1]'), // one number more
      (inner) => inner.replace(/^\[/, '[[1], '), // a list inside
      (inner) => inner.replace(/\]$/, ',]'),
      (inner) => inner.replace(/^\[[^,\]]*/, '[true'),
      (inner) => inner.replace(/^\[[^,\]]*/, '[null'),
      (inner) => inner.replace(/^\[[^,\]]*/, '["1"'),
      (inner) => inner.replace(/^\[[^,\]]*/, '[01'),
      (inner) => inner.replace(/^\[[^,\]]*/, '[1.'),
      (inner) => inner.replace(/^\[[^,\]]*/, '[-'),
      (inner) => inner.replace(/^\[[^,\]]*/, '[NaN'),
      (inner) => inner.replace(/^\[[^,\]]*/, '[1e400'),
      (inner) => inner.replace(/^\[/, '').replace(/\]$/, ''), // numbers where a list belongs
      () => '[]',
    ];
    for (const body of valid) {
      const inner = [...body.matchAll(/\[[^[\]]*\]/g)];
      // One number moved from the last inner list to the one before: the count is right, the shape ragged.
      const [before, last] = inner.slice(-2);
      const items = (m: RegExpMatchArray) =>
        m[0]
          .slice(1, -1)
          .split(',')
          .map((x) => x.trim());
      const moved = `[${[...items(before), items(last)[0]].join(', ')}]${body.slice(before.index! + before[0].length, last.index)}[${items(last).slice(1).join(', ')}]`;
      both(body.slice(0, before.index) + moved + body.slice(last.index! + last[0].length), sig({ x: 'DT_FLOAT' }));
      const at = inner[inner.length - 1 - Math.floor(next() * Math.min(3, inner.length - 1))];
      for (const breakIt of breaks) {
        const broken = body.slice(0, at.index) + breakIt(at[0]) + body.slice(at.index! + at[0].length);
        both(broken, sig({ x: 'DT_FLOAT' }));
      }
    }
    // The element limit, around a body's own count (8 numbers + 4 inner lists + 2 rows + 1 + 1).
    for (let maxElements = 12; maxElements <= 18; maxElements++)
      both('{"instances": [[[1, 2], [3, 4]], [[5, 6], [7, 8]]]}', sig({ x: 'DT_FLOAT' }), { maxDepth: 64, maxElements });
  });
});

describe('readPredictBody: the entry the :predict handler calls', () => {
  const body = new TextEncoder().encode('{"signature_name": "s", "instances": [[1.5, 2], [3, 4]]}');
  const full = () => {
    throw new ServingError(Code.RESOURCE_EXHAUSTED, 'full');
  };

  it('two passes: gives the signature name, then the tensors, charging their memory before allocating it', () => {
    const read = readPredictBody(body, LIMITS)!;
    assert.equal(read.signatureName, 's');
    const charged: number[] = [];
    const request = read.tensors(sig({ x: 'DT_FLOAT' }), (bytes) => charged.push(bytes));
    assert.deepEqual(Array.from(request.inputs.x.values as Float32Array), [1.5, 2, 3, 4]);
    assert.equal(charged.length, 1);
    assert.ok(charged[0] >= 16, `${charged[0]} bytes charged`);
    // A full budget stops the read before anything is built.
    assert.throws(() => read.tensors(sig({ x: 'DT_FLOAT' }), full), /full/);
  });

  it('one pass, the signature looked up first: the same tensors, charged as the storage grows', () => {
    const s = sig({ x: 'DT_FLOAT' });
    const names: Array<string | undefined> = [];
    let charged = 0;
    const read = readPredictBody(body, LIMITS, { signature: (name) => (names.push(name), s), charge: (bytes) => (charged += bytes) })!;
    assert.deepEqual(names, ['s']);
    assert.ok(charged >= 16, `${charged} bytes charged`);
    assert.deepEqual(Array.from(read.tensors(s).inputs.x.values as Float32Array), [1.5, 2, 3, 4]);
    // Another signature by the time the tensors are asked for (the version changed): read anew for it.
    assert.deepEqual(Array.from(read.tensors(sig({ x: 'DT_DOUBLE' })).inputs.x.values as Float64Array), [1.5, 2, 3, 4]);
    assert.throws(() => readPredictBody(body, LIMITS, { signature: () => s, charge: full }), /full/);
  });

  it('one pass charges a growing tensor about twice its size, not its whole doubling sequence', () => {
    const numbers = (n: number) => Array.from({ length: n }, (_, k) => String((k % 97) / 8)).join(', ');
    for (const [text, s, elements] of [
      [`{"inputs": {"a": [${numbers(3000)}], "b": [${numbers(100_000)}]}}`, sig({ a: 'DT_FLOAT', b: 'DT_FLOAT' }), 103_000],
      [`{"instances": [[${numbers(50_000)}], [${numbers(50_000)}]]}`, sig({ x: 'DT_FLOAT' }), 100_000],
    ] as const) {
      let charged = 0;
      const read = readPredictBody(new TextEncoder().encode(text), LIMITS, { signature: () => s, charge: (bytes) => (charged += bytes) })!;
      const inputs = read.tensors(s).inputs;
      assert.equal(
        Object.values(inputs).reduce((sum, t) => sum + (t.values as Float32Array).length, 0),
        elements,
      );
      // Doubling from 1024 up and the exact copy: 3.6 times.
      assert.ok(charged <= 2.5 * 4 * elements, `${charged / (4 * elements)} times the tensors' bytes charged`);
    }
  });

  it('small tensors (their storage shared by many bodies) each keep their own values, in two passes and in one', () => {
    const s = sig({ x: 'DT_FLOAT', y: 'DT_INT32' });
    const kept: Array<{ k: number; x: Float32Array; y: Int32Array }> = [];
    for (let k = 0; k < 300; k++) {
      const xs = Array.from({ length: 20 + (k % 50) }, (_, j) => k + j / 4);
      const ys = Array.from({ length: 17 + (k % 9) }, (_, j) => k * 100 + j);
      const body = new TextEncoder().encode(`{"inputs": {"x": [${xs.join(', ')}], "y": [${ys.join(', ')}]}}`);
      const onePass = k % 2 === 1 ? { signature: () => sig({ x: 'DT_FLOAT' }), charge: () => {} } : undefined;
      const { inputs } = readPredictBody(body, LIMITS, onePass)!.tensors(k % 2 === 1 ? sig({ x: 'DT_FLOAT' }) : s);
      kept.push({ k, x: inputs.x.values as Float32Array, y: (inputs.y?.values ?? new Int32Array(ys)) as Int32Array });
    }
    for (const { k, x, y } of kept) {
      assert.deepEqual(
        Array.from(x),
        Array.from({ length: 20 + (k % 50) }, (_, j) => k + j / 4),
        `body ${k}: x`,
      );
      assert.deepEqual(
        Array.from(y),
        Array.from({ length: 17 + (k % 9) }, (_, j) => k * 100 + j),
        `body ${k}: y`,
      );
    }
  });

  it("answers what the reader does not take with the general path's error, verbatim; leaves what is no JSON to the caller", () => {
    const lookahead = { signature: () => sig({ x: 'DT_INT32' }), charge: () => {} };
    const read = readPredictBody(new TextEncoder().encode('{"instances": [[1.5, 2]]}'), LIMITS, lookahead)!;
    assert.throws(
      () => read.tensors(sig({ x: 'DT_INT32' })),
      (e: unknown) =>
        e instanceof ServingError &&
        e.message ===
          "Failed to process element: 0 of 'instances' list. Error: INVALID_ARGUMENT: JSON Value: 1.5 Type: Number is not of expected type: int32",
    );
    // Refused before any look-up, as TF Serving parses the body before it finds the model.
    assert.equal(
      readPredictBody(new TextEncoder().encode('{"instances": [[1.5, 2]'), LIMITS, {
        signature: () => sig({ x: 'DT_FLOAT' }),
        charge: () => {},
      }),
      undefined,
    );
  });
});
