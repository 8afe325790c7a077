// Warmup over the real server: a new version with warmup records is LOADING while its
// executors replay them, the previous version answers meanwhile, and it turns AVAILABLE after.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { getJson, postJson, startServer } from '../helpers/server_process.js';
import { tempDir } from '../helpers/temp.js';
import { writeConvSavedModel, writeHalfPlusTwoSavedModel } from '../../test_util/savedmodel/model_zoo.js';
import { writeTfRecords } from '../../src/savedmodel/tfrecord.js';
import { WARMUP_FILE } from '../../src/savedmodel/warmup_requests.js';
import { protoType } from '../../src/proto/index.js';

const HW = 64;
const ROWS = 8;

function convWarmupRecord(): Uint8Array {
  const PredictionLog = protoType('tensorflow.serving.PredictionLog');
  const values = new Float32Array(ROWS * HW * HW).fill(0.5);
  return PredictionLog.encode(
    PredictionLog.fromObject({
      predictLog: {
        request: {
          modelSpec: { name: 'm' },
          inputs: {
            images: {
              dtype: 'DT_FLOAT',
              tensorShape: { dim: [ROWS, HW, HW, 1].map((size) => ({ size })) },
              tensorContent: new Uint8Array(values.buffer),
            },
          },
        },
      },
    }),
  ).finish();
}

describe('warmup (real process)', () => {
  it('a new version is LOADING while it warms up, the old one serves, then it is AVAILABLE', async () => {
    const root = tempDir();
    await writeHalfPlusTwoSavedModel(path.join(root, 'm', '1'));
    const server = await startServer([
      `--model_base_path=${path.join(root, 'm')}`,
      '--model_name=m',
      '--file_system_poll_wait_seconds=1',
      '--num_executors=1',
    ]);
    try {
      // Version 2: a conv net with warmup records that take a while to replay, written
      // elsewhere and moved in whole.
      const staging = path.join(root, 'staging');
      await writeConvSavedModel(staging, { height: HW, width: HW, channels: 1, filters: [32, 64], kernelSize: 3, classes: 4, seed: 5 });
      fs.mkdirSync(path.join(staging, 'assets.extra'));
      fs.writeFileSync(path.join(staging, WARMUP_FILE), writeTfRecords(new Array(30).fill(0).map(convWarmupRecord)));
      fs.renameSync(staging, path.join(root, 'm', '2'));

      const seen: string[] = [];
      let oldAnswered = 0;
      const deadline = Date.now() + 60_000;
      while (Date.now() < deadline) {
        const s = await getJson(server.url('/v1/models/m/versions/2'));
        const state = s.status === 200 ? s.json.model_version_status[0].state : `HTTP ${s.status}`;
        if (seen.at(-1) !== state) seen.push(state);
        if (state === 'AVAILABLE') break;
        if (state === 'LOADING') {
          const r = await postJson(server.url('/v1/models/m:predict'), '{"instances": [1.0]}');
          // Version 2 may have turned AVAILABLE between the status read and the predict; only
          // an answer given while it is still LOADING afterwards must come from version 1.
          const after = await getJson(server.url('/v1/models/m/versions/2'));
          if (after.status === 200 && after.json.model_version_status[0].state === 'LOADING') {
            assert.deepEqual(r.json, { predictions: [2.5] }, 'version 1 answers while 2 warms up');
            oldAnswered++;
          }
        }
        await new Promise((r) => setTimeout(r, 50));
      }
      assert.ok(seen.includes('LOADING'), `states seen: ${seen}`);
      assert.equal(seen.at(-1), 'AVAILABLE', `states seen: ${seen}`);
      assert.ok(oldAnswered > 0);
      const body = JSON.stringify({ instances: [Array.from({ length: HW }, () => Array.from({ length: HW }, () => [0.5]))] });
      assert.equal((await postJson(server.url('/v1/models/m:predict'), body)).json.predictions[0].length, 4, 'version 2 serves');
    } finally {
      await server.stop();
    }
  });
});
