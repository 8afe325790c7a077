// A version with many signatures (all on one small graph, as the 314 KB saved_model.pb of
// 3 000 signatures a user reported leaking on unload) dropped into a base path and removed again, --cycles
// times: the server's RSS and threads once each version is AVAILABLE and once it is unloaded.
//   npm run bench:unload [-- --signatures 3000 --cycles 12] [--flags extra tfgate flags]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { numberArg } from './load/args.js';
import { rssMb, startBenchServer, threadsOf, versionStates, type BenchServer } from './lifecycle/server.js';
import { writeManySignaturesSavedModel } from '../test_util/savedmodel/model_zoo.js';

const SIGNATURES = numberArg('signatures', 3000);
const CYCLES = numberArg('cycles', 12);
const extra = process.argv.includes('--flags') ? process.argv.slice(process.argv.indexOf('--flags') + 1) : [];

async function until(server: BenchServer, state: 'AVAILABLE' | 'END'): Promise<number> {
  const t0 = performance.now();
  while (!(await versionStates(server)).states.get('m')?.includes(state)) await new Promise((r) => setTimeout(r, 100));
  return performance.now() - t0;
}

async function main() {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'tfgate-unload-'));
  try {
    const model = path.join(root, 'model');
    await writeManySignaturesSavedModel(model, SIGNATURES);
    const base = path.join(root, 'base');
    fs.mkdirSync(base);
    const server = await startBenchServer([`--model_base_path=${base}`, '--model_name=m', '--file_system_poll_wait_seconds=1', ...extra]);
    const pid = server.proc.pid!;
    console.log(
      `${SIGNATURES} signatures (saved_model.pb ${(fs.statSync(path.join(model, 'saved_model.pb')).size / 1024).toFixed(0)} KB), ${CYCLES} load/unload cycles, tfgate ${extra.join(' ') || 'defaults'}; RSS at start ${rssMb(pid).toFixed(0)} MB, ${threadsOf(pid)} threads`,
    );
    for (let i = 1; i <= CYCLES; i++) {
      fs.cpSync(model, path.join(base, '1'), { recursive: true });
      const loadMs = await until(server, 'AVAILABLE');
      const loaded = rssMb(pid);
      fs.rmSync(path.join(base, '1'), { recursive: true });
      await until(server, 'END');
      console.log(
        `cycle ${String(i).padStart(2)}: loaded in ${(loadMs / 1000).toFixed(1)} s, RSS ${loaded.toFixed(0)} MB; unloaded: RSS ${rssMb(pid).toFixed(0)} MB, ${threadsOf(pid)} threads`,
      );
    }
    await server.stop();
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
