// What the server takes from its config files, in-process (checkConfig: --dry_run's answer,
// no model loaded, no port bound).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { parseFlags, resolveServerOptions } from '../../src/config/flags.js';
import { ModelServer } from '../../src/server/model_server.js';
import { tempDir } from '../helpers/temp.js';

const quiet = () => {};

async function checkConfig(argv: string[]) {
  const server = new ModelServer(resolveServerOptions(parseFlags(argv)), quiet);
  return server.checkConfig();
}

describe('model server config', () => {
  const dir = tempDir('tfgate-config-');
  fs.mkdirSync(path.join(dir, 'm', '1'), { recursive: true });

  it("the YAML config's monitoring_config: section is applied (Prometheus path)", async () => {
    const yaml = path.join(dir, 'tfgate.yaml');
    fs.writeFileSync(
      yaml,
      'models:\n  - {name: m, base_path: m}\nmonitoring_config:\n  prometheus_config: {enable: true, path: /metrics/here}\n',
    );
    assert.equal((await checkConfig(['--config', yaml])).monitoring_path, '/metrics/here');
  });

  it('a YAML config without monitoring_config: leaves Prometheus off', async () => {
    const yaml = path.join(dir, 'plain.yaml');
    fs.writeFileSync(yaml, 'models:\n  - {name: m, base_path: m}\n');
    assert.equal((await checkConfig(['--config', yaml])).monitoring_path, null);
  });

  it('--monitoring_config_file wins over the YAML section', async () => {
    const yaml = path.join(dir, 'both.yaml');
    fs.writeFileSync(
      yaml,
      'models:\n  - {name: m, base_path: m}\nmonitoring_config:\n  prometheus_config: {enable: true, path: /from/yaml}\n',
    );
    const file = path.join(dir, 'monitoring.config');
    fs.writeFileSync(file, 'prometheus_config { enable: true path: "/from/file" }\n');
    assert.equal((await checkConfig(['--config', yaml, '--monitoring_config_file', file])).monitoring_path, '/from/file');
  });

  it("with --enable_batching, the YAML's batching: section and models come from one read", async () => {
    const yaml = path.join(dir, 'batching.yaml');
    fs.writeFileSync(yaml, 'models:\n  - {name: m, base_path: m}\nbatching: {max_batch_size: 7}\n');
    const server = new ModelServer(resolveServerOptions(parseFlags(['--config', yaml, '--enable_batching'])), quiet);
    // The file changes after the constructor read it: what checkConfig reports is that read.
    fs.writeFileSync(yaml, 'models:\n  - {name: other, base_path: m}\n');
    const config = await server.checkConfig();
    assert.equal((config.batching as { max_batch_size: number }).max_batch_size, 7);
    assert.deepEqual(
      (config.models as { name: string }[]).map((m) => m.name),
      ['m'],
    );
  });

  it("--dry_run shows each model's logging_config as it will be honoured (prefix resolved), and refuses an unknown collector", async () => {
    const yaml = path.join(dir, 'logging.yaml');
    fs.writeFileSync(
      yaml,
      'models:\n  - {name: m, base_path: m, logging_config: {log_collector_config: {type: file, filename_prefix: logs/m}, sampling_config: {sampling_rate: 0.5}}}\n  - {name: n, base_path: m}\n',
    );
    const models = (await checkConfig(['--config', yaml])).models as { name: string; logging_config?: unknown }[];
    assert.deepEqual(models[0].logging_config, {
      log_collector_config: { type: 'file', filename_prefix: path.join(dir, 'logs', 'm') },
      sampling_config: { sampling_rate: 0.5 },
    });
    assert.equal('logging_config' in models[1], false);
    fs.writeFileSync(
      yaml,
      'models:\n  - {name: m, base_path: m, logging_config: {log_collector_config: {type: bigquery, filename_prefix: l}}}\n',
    );
    await assert.rejects(checkConfig(['--config', yaml]), /Cannot find LogCollector::Factory for type: bigquery/);
  });
});
