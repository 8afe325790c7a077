// GetModelMetadata JSON against TF Serving's own expected responses (configs/*_metadata.json).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { modelMetadataJson } from '../../src/rest/model_metadata_json.js';
import { readMetaGraph } from '../../src/savedmodel/saved_model_reader.js';
import { FIXTURES, fixtureModel } from '../helpers/paths.js';

const expected = (file: string) => JSON.parse(fs.readFileSync(path.join(FIXTURES, 'configs', file), 'utf8'));

describe('model metadata JSON', () => {
  it('matches half_plus_two_model_metadata.json for saved_model_half_plus_two_cpu served as "default"', async () => {
    const mg = await readMetaGraph(fixtureModel('saved_model_half_plus_two_cpu', '00000123'), ['serve']);
    assert.deepEqual(modelMetadataJson('default', 123, mg.signatureDef ?? {}), expected('half_plus_two_model_metadata.json'));
  });

  it('matches saved_model_half_plus_two_2_versions_metadata.json', async () => {
    const mg = await readMetaGraph(fixtureModel('saved_model_half_plus_two_2_versions', '00000123'), ['serve']);
    assert.deepEqual(modelMetadataJson('saved_model_half_plus_two_2_versions', 123, mg.signatureDef ?? {}), expected('saved_model_half_plus_two_2_versions_metadata.json'));
  });

  it('matches the TF2 metadata except the serving_default default that the file predates', async () => {
    const mg = await readMetaGraph(fixtureModel('saved_model_half_plus_two_tf2_cpu', '00000123'), ['serve']);
    const got = modelMetadataJson('saved_model_half_plus_two_2_versions', 123, mg.signatureDef ?? {});
    const want = expected('saved_model_half_plus_two_tf2_2_versions_metadata.json');
    // The .pb stores defaults {x: [0.0]} (PROVENANCE.md finding 5); the JSON was written before.
    const defaults = got.metadata.signature_def.signature_def.serving_default.defaults as Record<string, { float_val: number[]; dtype: string }>;
    assert.equal(defaults.x.dtype, 'DT_FLOAT');
    assert.deepEqual(defaults.x.float_val, [0]);
    got.metadata.signature_def.signature_def.serving_default.defaults = {};
    // The file also prints __saved_model_init_op without any `defaults` key, unlike the others.
    const gotDefs = got.metadata.signature_def.signature_def as Record<string, { defaults?: unknown }>;
    for (const [key, def] of Object.entries(want.metadata.signature_def.signature_def as Record<string, object>)) {
      if (!('defaults' in def)) delete gotDefs[key].defaults;
    }
    assert.deepEqual(got, want);
  });
});
