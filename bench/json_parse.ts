// The REST body parser (src/rest/json_parse.ts) next to JSON.parse on three ~0.4–1 MB predict
// bodies: random 6-decimal floats, small ints, and "12.0"-style floats (each one recorded as a
// float literal). Prints the median ms per parse of each; nothing is asserted.
//   npm run bench:json [-- --rounds 10]
import { parseJsonBody } from '../src/rest/json_parse.js';
import { numberArg } from './load/args.js';

const ROUNDS = numberArg('rounds', 10);
const LIMITS = { maxDepth: 64, maxElements: 1 << 24 };
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** `{"instances": [[…28 values…], …]}` of about `bytes` characters. */
function body(bytes: number, value: (i: number) => string): string {
  const rows: string[] = [];
  for (let len = 0, i = 0; len < bytes; ) {
    const row = `[${Array.from({ length: 28 }, () => value(i++)).join(', ')}]`;
    rows.push(row);
    len += row.length + 2;
  }
  return `{"instances": [${rows.join(', ')}]}`;
}

/** Median ms per call, the two parsers taking turns so that a slow spell hits both alike. */
function time(text: string): { ours: number; native: number } {
  for (let i = 0; i < 3; i++) parseJsonBody(text, LIMITS), JSON.parse(text);
  const ours: number[] = [];
  const native: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    let t0 = performance.now();
    parseJsonBody(text, LIMITS);
    ours.push(performance.now() - t0);
    t0 = performance.now();
    JSON.parse(text);
    native.push(performance.now() - t0);
  }
  return { ours: median(ours), native: median(native) };
}

const BODIES: Array<[string, string]> = [
  ['random 6-decimal floats', body(1_000_000, (i) => (((i * 7919) % 1000003) / 1000003).toFixed(6))],
  ['small ints', body(400_000, (i) => String(i % 100))],
  ['"12.0"-style floats', body(630_000, (i) => `${i % 100}.0`)],
];
for (const [what, text] of BODIES) {
  const { ours, native } = time(text);
  process.stdout.write(`${what}, ${(text.length / 1e6).toFixed(2)} MB: parseJsonBody ${ours.toFixed(1)} ms, JSON.parse ${native.toFixed(1)} ms\n`);
}
