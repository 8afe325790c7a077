// Unload gives back what a version held: a version of many signatures (one session each),
// dropped into its base path and removed again, cycle after cycle, leaves the server's RSS
// where the cycles after the first few left it. RSS after each unload is read at its lowest over
// four cycles, so that a garbage collection falling in one cycle or another does not decide. The
// first eight cycles are warm-up: no thread loads an engine or TF.js it does not need, so the
// heaps start small and V8 grows them over the first loads, a one-off step of ~9 MB (measured at
// the seventh unload; 24 cycles: 152 … 160, 169, then 170–176 to the end).
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
/** Growth allowed between the lowest RSS of cycles 9–12 and that of the last four (the old design's leak, ~3 MB a cycle, grew 12 MB between them). */
const GROWTH_LIMIT = 10 * 2 ** 20;

describe('unload gives back what a version held (real process)', () => {
  it(`${CYCLES} load/unload cycles of a ${SIGNATURES}-signature version: RSS after unloading stops growing`, async () => {
    const root = tempDir('tfgate-unload-');
    const base = path.join(root, 'm');
    await writeManySignaturesSavedModel(path.join(base, '1'), SIGNATURES);
    const empty = path.join(root, 'models.config');
    fs.writeFileSync(empty, 'model_config_list {}\n');
    const port = await freePort();
    const server = await startServer([`--port=${port}`, `--model_config_file=${empty}`, '--num_executors=1']);
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
      const early = Math.min(...unloaded.slice(8, 12));
      const late = Math.min(...unloaded.slice(-4));
      console.log(`# unload cycles: RSS after each unload (MB) ${unloaded.map(mb).join(' ')}`);
      assert.ok(
        late - early < GROWTH_LIMIT,
        `RSS grew ${mb(late - early)} MB from cycles 9–12 to the last four: ${unloaded.map(mb).join(' ')}`,
      );
    } finally {
      clients.close();
      assert.equal(await server.stop(), 0, server.logs());
    }
  });
});
