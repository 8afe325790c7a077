// The serving path of two builds side by side (this checkout's and --other-bin's, e.g. a
// checkout of main): half_plus_two and a 64×64 conv net (one image), each server in turn,
// rounds alternating so that machine noise hits both alike. Per build: a lone request's
// median and p99 latency, and requests/s with 32 in flight.
//   npm run bench:serving -- --other-bin ../main/bin/tfgate [--rounds 3 --requests 400 --seconds 4]
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { numberArg, stringArg } from './load/args.js';
import { REPO, TFGATE_BIN } from './report/processes.js';
import { percentile } from './load/latency_recorder.js';
import { startBenchServer, versionStates, type BenchServer } from './lifecycle/server.js';
import { writeConvSavedModel } from '../test_util/savedmodel/model_zoo.js';

const ROUNDS = numberArg('rounds', 3);
const REQUESTS = numberArg('requests', 400);
const SECONDS = numberArg('seconds', 4);
const OTHER = stringArg('other-bin', '');

const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

function post(port: number, p: string, body: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        path: p,
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        res.resume();
        res.on('end', () => (res.statusCode === 200 ? resolve(performance.now() - t0) : reject(new Error(`HTTP ${res.statusCode}`))));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

interface Cell {
  lone: number[];
  rps: number[];
}

async function measure(server: BenchServer, model: string, body: string, cell: Cell): Promise<void> {
  for (let i = 0; i < 20; i++) await post(server.restPort, `/v1/models/${model}:predict`, body);
  for (let i = 0; i < REQUESTS; i++) cell.lone.push(await post(server.restPort, `/v1/models/${model}:predict`, body));
  let done = 0;
  const end = performance.now() + SECONDS * 1000;
  await Promise.all(
    Array.from({ length: 32 }, async () => {
      while (performance.now() < end) {
        await post(server.restPort, `/v1/models/${model}:predict`, body);
        done++;
      }
    }),
  );
  cell.rps.push(done / SECONDS);
}

async function main() {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'tfgate-serving-'));
  try {
    await writeConvSavedModel(path.join(root, 'conv', '1'), {
      height: 64,
      width: 64,
      channels: 1,
      filters: [32, 64],
      kernelSize: 3,
      classes: 4,
      seed: 5,
    });
    const config = path.join(root, 'models.config');
    fs.writeFileSync(
      config,
      `model_config_list {\n  config { name: "hp2" base_path: "${path.join(REPO, 'model_repository', 'half_plus_two')}" model_platform: "tensorflow" }\n  config { name: "conv" base_path: "${path.join(root, 'conv')}" model_platform: "tensorflow" }\n}\n`,
    );
    const builds = [
      { name: 'this checkout', bin: TFGATE_BIN },
      ...(OTHER ? [{ name: path.resolve(OTHER), bin: path.resolve(OTHER) }] : []),
    ];
    const bodies = {
      hp2: '{"instances":[1.0,2.0,5.0]}',
      conv: JSON.stringify({ instances: [Array.from({ length: 64 }, () => Array.from({ length: 64 }, () => [0.5]))] }),
    };
    const cells = new Map<string, Cell>();
    for (let round = 0; round < ROUNDS; round++) {
      for (const b of round % 2 ? [...builds].reverse() : builds) {
        let states = new Map<string, string[]>();
        const server = await startBenchServer([`--model_config_file=${config}`], b.bin);
        while (!['hp2', 'conv'].every((m) => states.get(m)?.includes('AVAILABLE'))) {
          await new Promise((r) => setTimeout(r, 200));
          states = (await versionStates(server)).states;
        }
        for (const model of ['hp2', 'conv'] as const) {
          const key = `${b.name}\t${model}`;
          if (!cells.has(key)) cells.set(key, { lone: [], rps: [] });
          await measure(server, model, bodies[model], cells.get(key)!);
        }
        await server.stop();
      }
    }
    console.log(
      `${ROUNDS} rounds, ${os.availableParallelism()} cores, load average ${os.loadavg()[0].toFixed(1)}: lone request median / p99 (ms), requests/s with 32 in flight (median of rounds)`,
    );
    for (const [key, c] of cells) {
      const [build, model] = key.split('\t');
      const sorted = [...c.lone].sort((a, b) => a - b);
      const rps = [...c.rps].sort((a, b) => a - b)[Math.floor(c.rps.length / 2)];
      console.log(
        `  ${model.padEnd(5)} ${percentile(sorted, 50).toFixed(2)} / ${percentile(sorted, 99).toFixed(2)} ms, ${rps.toFixed(0)} req/s   ${build}`,
      );
    }
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
