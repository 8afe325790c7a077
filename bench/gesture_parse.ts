// Server-Timing of a real tfgate process on keras2_mobilenet_gesture (shared fixtures): a batch
// of 8 images of 160×120×1 as JSON "instances" (pixels k/255 as JavaScript prints them, up to
// 17 digits: about 3.3 MB), sent one after another. Prints each request's `parse` and `run`
// and whether the median parse is ≤ 6× the median run. The same body with one more root member
// holding a string escape (which the tensor reader leaves to the general JSON parser) is sent in
// turn, so the general parser's figure is measured in the same run.
//   npm run bench:gesture [-- --requests 6]
import { startServer, waitAvailable } from '../test/helpers/server_process.js';
import { MODELS } from '../test/helpers/paths.js';
import { numberArg } from './load/args.js';
import path from 'node:path';

const REQUESTS = numberArg('requests', 6);
const WARMUP = 2;
const TARGET = 6;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

function gestureBody(extra: string): string {
  let k = 0;
  const pixel = () => String(((k++ * 37) % 256) / 255);
  const image = () =>
    `[${Array.from({ length: 160 }, () => `[${Array.from({ length: 120 }, () => `[${pixel()}]`).join(', ')}]`).join(', ')}]`;
  return `{${extra}"instances": [${Array.from({ length: 8 }, image).join(', ')}]}`;
}

/** Server-Timing's durations by name: "parse;dur=12.3, run;dur=3.4" → {parse: 12.3, run: 3.4}. */
function timings(header: string | null): Record<string, number> {
  const out: Record<string, number> = {};
  for (const part of (header ?? '').split(',')) {
    const m = /^\s*(\w+);dur=([\d.]+)/.exec(part);
    if (m) out[m[1]] = Number(m[2]);
  }
  return out;
}

async function main(): Promise<void> {
  const server = await startServer([`--model_base_path=${path.join(MODELS, 'keras2_mobilenet_gesture')}`, '--model_name=gesture']);
  try {
    await waitAvailable(server, ['gesture'], 120_000);
    const bodies: Array<[string, string]> = [
      ['tensor reader', gestureBody('')],
      ['general parser', gestureBody('"note": "read by the general parser\\u0021", ')],
    ];
    process.stdout.write(
      `keras2_mobilenet_gesture, batch of 8 images 160×120×1, ${(bodies[0][1].length / 1e6).toFixed(2)} MB of JSON; ${REQUESTS} requests each after ${WARMUP} warm-up\n`,
    );
    const seen: Record<string, { parse: number[]; run: number[] }> = {};
    for (let r = 0; r < WARMUP + REQUESTS; r++) {
      for (const [what, body] of bodies) {
        const res = await fetch(server.url('/v1/models/gesture:predict'), {
          method: 'POST',
          body,
          headers: { 'Content-Type': 'application/json' },
        });
        const text = await res.text();
        if (res.status !== 200) throw new Error(`${what}: ${res.status} ${text.slice(0, 300)}`);
        const t = timings(res.headers.get('server-timing'));
        if (r < WARMUP) continue;
        (seen[what] ??= { parse: [], run: [] }).parse.push(t.parse);
        seen[what].run.push(t.run);
        process.stdout.write(`  ${what.padEnd(15)} parse ${t.parse.toFixed(1).padStart(7)} ms   run ${t.run.toFixed(1).padStart(6)} ms\n`);
      }
    }
    for (const [what, s] of Object.entries(seen)) {
      process.stdout.write(
        `${what}: median parse ${median(s.parse).toFixed(1)} ms, median run ${median(s.run).toFixed(1)} ms: parse = ${(median(s.parse) / median(s.run)).toFixed(1)}× run\n`,
      );
    }
    const reader = seen['tensor reader'];
    const ratio = median(reader.parse) / median(reader.run);
    process.stdout.write(`parse ≤ ${TARGET}× run (tensor reader): ${ratio <= TARGET ? 'met' : 'missed'} (${ratio.toFixed(1)}×)\n`);
  } finally {
    await server.stop();
  }
}

await main();
