// GetModelMetadata JSON against TF Serving's expected responses (configs/*_metadata.json),
// from saved_model.pb decoded with protobufjs (protoType('tensorflow.SavedModel'), TO_OBJECT).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { modelMetadataJson, signatureDefJson } from '../../src/rest/model_metadata_json.js';
import { protoType, TO_OBJECT } from '../../src/proto/index.js';
import { FIXTURES, fixtureModel } from '../helpers/paths.js';

const expected = (file: string) => JSON.parse(fs.readFileSync(path.join(FIXTURES, 'configs', file), 'utf8'));

// eslint-disable-next-line @typescript-eslint/no-explicit-any
function signatureDefs(model: string, version = '00000123'): Record<string, any> {
  const type = protoType('tensorflow.SavedModel');
  const sm = type.toObject(type.decode(fs.readFileSync(path.join(fixtureModel(model, version), 'saved_model.pb'))), TO_OBJECT);
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const mg = sm.metaGraphs.find((m: any) => m.metaInfoDef.tags.join(',') === 'serve');
  return mg.signatureDef;
}

/** What the server writes: JSON.stringify of the object, read back. */
const roundTrip = (v: unknown) => JSON.parse(JSON.stringify(v));

describe('model metadata JSON', () => {
  it('half_plus_two_model_metadata.json: saved_model_half_plus_two_cpu served as "default", version 123', () => {
    assert.deepStrictEqual(
      roundTrip(modelMetadataJson('default', 123, signatureDefs('saved_model_half_plus_two_cpu'))),
      expected('half_plus_two_model_metadata.json'),
    );
  });

  it('saved_model_half_plus_two_2_versions_metadata.json (the http_rest_api_handler_test.cc expectation)', () => {
    const got = modelMetadataJson('saved_model_half_plus_two_2_versions', '123', signatureDefs('saved_model_half_plus_two_2_versions'));
    assert.deepStrictEqual(roundTrip(got), expected('saved_model_half_plus_two_2_versions_metadata.json'));
  });

  it('saved_model_half_plus_two_tf2_2_versions_metadata.json, except two hand edits the file carries', () => {
    // The file was edited by hand when SignatureDef.defaults appeared (tensorflow/serving
    // 65b13b76 added `"defaults": {}` to each signature) and no test reads it, so it was
    // never compared with a server. The saved_model.pb stores a default for
    // serving_default's x (PROVENANCE.md finding 5), and the printer
    // (always_print_fields_with_no_presence) prints the empty `defaults` map of
    // __saved_model_init_op too. We assert what TF Serving prints for this .pb: the file,
    // plus those two.
    const got = roundTrip(
      modelMetadataJson('saved_model_half_plus_two_2_versions', 123, signatureDefs('saved_model_half_plus_two_tf2_cpu')),
    );
    const want = expected('saved_model_half_plus_two_tf2_2_versions_metadata.json');
    const defs = want.metadata.signature_def.signature_def;
    assert.deepStrictEqual(defs.serving_default.defaults, {});
    assert.equal('defaults' in defs.__saved_model_init_op, false);
    defs.serving_default.defaults = {
      x: {
        dtype: 'DT_FLOAT',
        tensor_shape: { dim: [{ size: '1', name: '' }], unknown_rank: false },
        version_number: 0,
        tensor_content: '',
        half_val: [],
        float_val: [0],
        double_val: [],
        int_val: [],
        string_val: [],
        scomplex_val: [],
        int64_val: [],
        bool_val: [],
        dcomplex_val: [],
        resource_handle_val: [],
        variant_val: [],
        uint32_val: [],
        uint64_val: [],
        float8_val: '',
      },
    };
    defs.__saved_model_init_op.defaults = {};
    assert.deepStrictEqual(got, want);
  });

  it("key order within messages is TF Serving's; map keys are sorted", () => {
    const text = JSON.stringify(modelMetadataJson('default', 123, signatureDefs('saved_model_half_plus_two_cpu')));
    assert.ok(
      text.startsWith(
        '{"model_spec":{"name":"default","signature_name":"","version":"123"},"metadata":{"signature_def":{"signature_def":{"classify_x_to_y":',
      ),
      text,
    );
    assert.ok(
      text.includes(
        '"x":{"dtype":"DT_FLOAT","tensor_shape":{"dim":[{"size":"-1","name":""},{"size":"1","name":""}],"unknown_rank":false},"name":"x:0"}',
      ),
      text,
    );
    assert.ok(text.includes('"method_name":"tensorflow/serving/predict","defaults":{}}'), text);
  });

  it('reference dtypes are reported as stored (get_model_metadata_impl.cc copies the SignatureDef)', () => {
    const defs = signatureDefs('saved_model_counter');
    const json = roundTrip(signatureDefJson(defs.incr_counter_by));
    assert.deepStrictEqual(json, {
      inputs: { delta: { dtype: 'DT_FLOAT', tensor_shape: { dim: [], unknown_rank: true }, name: 'delta:0' } },
      outputs: {
        output: { dtype: 'DT_FLOAT_REF', tensor_shape: { dim: [], unknown_rank: false }, name: 'incr_counter_by_op/AssignAdd:0' },
      },
      method_name: 'tensorflow/serving/predict',
      defaults: {},
    });
  });

  it('defaults values: int64 as strings, bytes as base64, floats as protobuf prints them, non-finite as strings', () => {
    const json = roundTrip(
      signatureDefJson({
        inputs: {},
        outputs: {},
        defaults: {
          a: { dtype: 'DT_INT64', int64Val: [9007199254740993n, -1] },
          b: { dtype: 'DT_STRING', stringVal: [new Uint8Array([104, 105])], tensorShape: { dim: [] } },
          c: { dtype: 'DT_FLOAT', floatVal: [Math.fround(0.1), NaN, -Infinity, Math.fround(1 / 3)] },
        },
      }),
    );
    assert.deepEqual(json.defaults.a.int64_val, ['9007199254740993', '-1']);
    assert.equal(json.defaults.a.tensor_shape, undefined);
    assert.deepEqual(json.defaults.b.string_val, ['aGk=']);
    assert.deepEqual(json.defaults.b.tensor_shape, { dim: [], unknown_rank: false });
    assert.deepEqual(json.defaults.c.float_val, [0.1, 'NaN', '-Infinity', 0.333333343]);
    assert.equal(json.method_name, '');
  });

  it('TensorInfo encodings other than a name', () => {
    const json = roundTrip(
      signatureDefJson({
        inputs: {
          sp: { dtype: 'DT_INT64', cooSparse: { valuesTensorName: 'v:0', indicesTensorName: 'i:0', denseShapeTensorName: 's:0' } },
          rt: {
            dtype: 'DT_INVALID',
            compositeTensor: { typeSpec: { typeSpecClass: 3, typeSpecClassName: '' }, components: [{ name: 'c:0', dtype: 'DT_FLOAT' }] },
          },
        },
      }),
    );
    assert.deepStrictEqual(json.inputs, {
      rt: {
        dtype: 'DT_INVALID',
        composite_tensor: {
          type_spec: { type_spec_class: 'RAGGED_TENSOR_SPEC', type_spec_class_name: '' },
          components: [{ dtype: 'DT_FLOAT', name: 'c:0' }],
        },
      },
      sp: { dtype: 'DT_INT64', coo_sparse: { values_tensor_name: 'v:0', indices_tensor_name: 'i:0', dense_shape_tensor_name: 's:0' } },
    });
  });
});
