// README's tables of every TF Serving flag and config field stay true: they are what the
// tables in src/config say, and those tables cover every field of the schemas tfgate reads.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../helpers/paths.js';
import { BEGIN, END, settingsMarkdown } from './settings_markdown.js';
import { BATCHING_PARAMETERS_FIELDS, MODEL_SERVER_CONFIG_FIELDS, MONITORING_CONFIG_FIELDS } from '../../src/config/config_fields.js';
import { SESSION_BUNDLE_CONFIG_FIELDS, SessionBundleConfigSchema } from '../../src/config/platform_config.js';
import { ConfigProtoSchema, SESSION_CONFIG_FIELDS } from '../../src/config/session_config.js';
import { ModelConfigSchema } from '../../src/config/model_server_config.js';
import { BatchingParametersSchema } from '../../src/config/batching_parameters.js';
import { MonitoringConfigSchema } from '../../src/config/monitoring_config.js';
import type { MessageSchema } from '../../src/config/schema.js';

/** Field paths of a schema: `prefix.name`, and one level into the messages listed in `into`. */
function fieldPaths(schema: MessageSchema, prefix: string, into: readonly string[] = []): string[] {
  return Object.entries(schema.fields).flatMap(([name, f]) =>
    into.includes(name) && f.kind === 'message' ? fieldPaths(f.message, `${prefix}${name}.`) : [`${prefix}${name}`],
  );
}

describe('settings tables', () => {
  it("README's tables are the ones generated from src/config", () => {
    const readme = readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8');
    const start = readme.indexOf(BEGIN);
    const end = readme.indexOf(END);
    assert.ok(start >= 0 && end > start, 'README has the settings tables');
    assert.equal(
      readme.slice(start, end + END.length),
      settingsMarkdown(),
      'README is stale: node dist/test/config/settings_markdown.js prints the block',
    );
  });

  it('classify every field of the schemas tfgate reads, and nothing else', () => {
    const same = (table: Readonly<Record<string, unknown>>, paths: string[], what: string) =>
      assert.deepEqual(Object.keys(table).sort(), paths.sort(), what);
    same(
      MODEL_SERVER_CONFIG_FIELDS,
      ['model_config_list', 'custom_model_config', ...fieldPaths(ModelConfigSchema, 'config.')],
      'models.config',
    );
    same(BATCHING_PARAMETERS_FIELDS, fieldPaths(BatchingParametersSchema, ''), 'BatchingParameters');
    same(MONITORING_CONFIG_FIELDS, fieldPaths(MonitoringConfigSchema, '', ['prometheus_config']), 'MonitoringConfig');
    same(SESSION_BUNDLE_CONFIG_FIELDS, fieldPaths(SessionBundleConfigSchema, '', ['model_warmup_options']), 'SessionBundleConfig');
    same(SESSION_CONFIG_FIELDS, fieldPaths(ConfigProtoSchema, '', ['gpu_options']), 'ConfigProto');
  });

  it('leaves no field parsed and not acted on', () => {
    const notYet = Object.entries({ ...MODEL_SERVER_CONFIG_FIELDS, ...BATCHING_PARAMETERS_FIELDS, ...MONITORING_CONFIG_FIELDS }).filter(
      ([, h]) => h.kind === 'ignored',
    );
    assert.deepEqual(
      notYet.map(([f]) => f),
      [],
    );
  });
});
