// --platform_config_file end to end (a spawned server, curl-like HTTP): batching parameters
// set only in the platform config batch requests; a harmless field is logged by name.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { postJson, startServer, type RunningServer } from '../helpers/server_process.js';
import { writeHalfPlusTwoSavedModel } from '../../test_util/savedmodel/model_zoo.js';
import { tempDir } from '../helpers/temp.js';

describe('--platform_config_file (real server)', () => {
  let server: RunningServer;
  before(async () => {
    const dir = tempDir('tfgate-platform-');
    await writeHalfPlusTwoSavedModel(path.join(dir, 'm', '1'));
    const platform = path.join(dir, 'platform.config');
    fs.writeFileSync(
      platform,
      `platform_configs {
  key: "tensorflow"
  value {
    source_adapter_config {
      [type.googleapis.com/tensorflow.serving.SavedModelBundleSourceAdapterConfig] {
        legacy_config {
          batching_parameters { max_batch_size { value: 2 } batch_timeout_micros { value: 20000 } num_batch_threads { value: 1 } }
          session_config { intra_op_parallelism_threads: 1 allow_soft_placement: true }
        }
      }
    }
  }
}
`,
    );
    server = await startServer([
      `--model_base_path=${path.join(dir, 'm')}`,
      '--model_name=m',
      `--platform_config_file=${platform}`,
      '--num_executors=1',
    ]);
  });
  after(async () => assert.equal(await server.stop(), 0));

  it("batches with the platform config's batching_parameters (no --enable_batching)", async () => {
    const over = await postJson(server.url('/v1/models/m:predict'), { instances: [[1], [2], [3]] });
    assert.equal(over.status, 400);
    assert.equal(over.json.error, 'Task size 3 is larger than maximum input batch size 2');
    const answers = await Promise.all([1, 2, 3, 4].map((x) => postJson(server.url('/v1/models/m:predict'), { instances: [[x]] })));
    assert.deepEqual(
      answers.map((a) => a.json.predictions[0][0]),
      [2.5, 3, 3.5, 4],
    );
    const batches = answers.map((a) => Number(/batch;desc="(\d+)\/\d+"/.exec(a.headers.get('server-timing') ?? '')?.[1] ?? 0));
    assert.ok(
      batches.every((b) => b >= 1 && b <= 2),
      `batch rows ${batches}`,
    );
    assert.ok(
      batches.some((b) => b === 2),
      'requests that arrived together ran as one batch',
    );
  });

  it('logs the harmless field it was given, by file and name', () => {
    assert.match(server.logs(), /platform\.config: session_config\.allow_soft_placement changes nothing here/);
  });
});
