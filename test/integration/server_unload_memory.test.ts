// Unload gives back what a version held: a version of many signatures (one session each),
// dropped into its base path and removed again, cycle after cycle, leaves the server's RSS
// where the cycles after the first few left it. RSS after each unload is read at its lowest over
// four cycles, so that a garbage collection falling in one cycle or another does not decide.
// The server's young generation is held at its smallest (--max-semi-space-size=1): V8 otherwise
// grows it in steps of ~9–10 MB at a cycle of its choosing and shrinks it later (seen: 157 167
// 177 … 184 then 165), which alone moved RSS by more than a leak does; held, RSS after each
// unload stays within ±3 MB over 16 cycles (4 runs: 129–133, 132–138, 131–136, 129–134 MB).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { freePort, startServer } from '../helpers/server_process.js';
import { mb, rssBytes } from '../helpers/rss.js';
import { tempDir } from '../helpers/temp.js';
import { call, connect } from '../helpers/grpc_client.js';
import { writeManySignaturesSavedModel } from '../../test_util/savedmodel/model_zoo.js';

const SIGNATURES = 100;
const CYCLES = 16;
/** Growth allowed between the lowest RSS of cycles 5–8 and that of the last four (the old design's leak, ~3 MB a cycle, grows 24 MB between them). */
const GROWTH_LIMIT = 10 * 2 ** 20;

describe('unload gives back what a version held (real process)', () => {
  it(`${CYCLES} load/unload cycles of a ${SIGNATURES}-signature version: RSS after unloading stops growing`, async () => {
    const root = tempDir('tfgate-unload-');
    const base = path.join(root, 'm');
    await writeManySignaturesSavedModel(path.join(base, '1'), SIGNATURES);
    const empty = path.join(root, 'models.config');
    fs.writeFileSync(empty, 'model_config_list {}\n');
    const port = await freePort();
    const nodeOptions = `${process.env.NODE_OPTIONS ?? ''} --max-semi-space-size=1`.trim();
    const server = await startServer([`--port=${port}`, `--model_config_file=${empty}`, '--num_executors=1'], {
      env: { NODE_OPTIONS: nodeOptions },
    });
    const clients = connect(`127.0.0.1:${port}`);
    // HandleReloadConfigRequest answers once the loads (or unloads) it started have settled.
    const reload = (names: string[]) =>
      call(
        clients.model,
        'HandleReloadConfigRequest',
        { config: { model_config_list: { config: names.map((name) => ({ name, base_path: base, model_platform: 'tensorflow' })) } } },
        120_000,
      );
    try {
      const unloaded: number[] = [];
      for (let i = 0; i < CYCLES; i++) {
        await reload(['m']);
        const status = (await (await fetch(server.url('/v1/models/m'))).json()) as { model_version_status: { state: string }[] };
        assert.equal(status.model_version_status[0].state, 'AVAILABLE', server.logs());
        await reload([]);
        unloaded.push(rssBytes(server.proc.pid!));
      }
      const early = Math.min(...unloaded.slice(4, 8));
      const late = Math.min(...unloaded.slice(-4));
      console.log(`# unload cycles: RSS after each unload (MB) ${unloaded.map(mb).join(' ')}`);
      assert.ok(
        late - early < GROWTH_LIMIT,
        `RSS grew ${mb(late - early)} MB from cycles 5–8 to the last four: ${unloaded.map(mb).join(' ')}`,
      );
    } finally {
      clients.close();
      assert.equal(await server.stop(), 0, server.logs());
    }
  });
});
