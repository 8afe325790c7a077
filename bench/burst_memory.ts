// Memory that comes back: --parallel gRPC Predict calls at once, each --images 64×64 images
// (16 KB each: 960 make a 15 MB request) on a conv net (two conv/pool stages, 32 and 64
// filters: each call's intermediates are ~0.5 MB per image), then the server's RSS 0, 5, 15, 30
// and 60 s after the burst against its RSS before.
//   npm run bench:burst [-- --images 960 --parallel 4] [--flags extra tfgate flags]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { numberArg } from './load/args.js';
import { rssMb, startBenchServer, versionStates } from './lifecycle/server.js';
import { writeConvSavedModel } from '../test_util/savedmodel/model_zoo.js';
import { call, connect } from '../test/helpers/grpc_client.js';

const IMAGES = numberArg('images', 960);
const PARALLEL = numberArg('parallel', 4);
const extra = process.argv.includes('--flags') ? process.argv.slice(process.argv.indexOf('--flags') + 1) : [];
const SIDE = 64;

const request = (n: number) => ({
  model_spec: { name: 'conv' },
  inputs: {
    images: {
      dtype: 'DT_FLOAT',
      tensor_shape: { dim: [{ size: n }, { size: SIDE }, { size: SIDE }, { size: 1 }] },
      tensor_content: Buffer.alloc(4 * n * SIDE * SIDE, 1),
    },
  },
});

async function main() {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'tfgate-burst-'));
  try {
    await writeConvSavedModel(path.join(root, 'conv', '1'), {
      height: SIDE,
      width: SIDE,
      channels: 1,
      filters: [32, 64],
      kernelSize: 3,
      classes: 4,
      seed: 5,
    });
    const server = await startBenchServer([
      `--model_base_path=${path.join(root, 'conv')}`,
      '--model_name=conv',
      '--max_request_body_bytes=1000000000',
      '--max_inflight_request_bytes=4000000000',
      ...extra,
    ]);
    const pid = server.proc.pid!;
    while (!(await versionStates(server)).states.get('conv')?.includes('AVAILABLE')) await new Promise((r) => setTimeout(r, 200));
    const clients = connect(`127.0.0.1:${server.grpcPort}`, {
      'grpc.max_send_message_length': -1,
      'grpc.max_receive_message_length': -1,
    } as grpc.ChannelOptions);
    await call(clients.prediction, 'Predict', request(2));
    await new Promise((r) => setTimeout(r, 2000));
    const before = rssMb(pid);
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, rssMb(pid))), 50);
    const t0 = performance.now();
    const results = await Promise.allSettled(
      Array.from({ length: PARALLEL }, () => call(clients.prediction, 'Predict', request(IMAGES), 600_000)),
    );
    const ms = performance.now() - t0;
    const after: string[] = [];
    let waited = 0;
    for (const s of [0, 5, 15, 30, 60]) {
      await new Promise((r) => setTimeout(r, (s - waited) * 1000));
      waited = s;
      after.push(`${s} s: ${rssMb(pid).toFixed(0)}`);
    }
    clearInterval(sampler);
    const failed = results.filter((r) => r.status === 'rejected');
    console.log(
      `${PARALLEL} × ${((4 * IMAGES * SIDE * SIDE) / 2 ** 20).toFixed(0)} MB gRPC Predict at once (conv 64×64, ${IMAGES} images each), tfgate ${extra.join(' ') || 'defaults'}: ${PARALLEL - failed.length} answered in ${(ms / 1000).toFixed(1)} s${failed.length ? `, ${failed.length} failed (${(failed[0] as PromiseRejectedResult).reason.details})` : ''}`,
    );
    console.log(`  RSS before ${before.toFixed(0)} MB, peak ${peak.toFixed(0)} MB; after the burst (MB): ${after.join(', ')}`);
    clients.close();
    await server.stop();
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
