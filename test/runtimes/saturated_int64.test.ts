// int64 tf.Example values beyond 32 bits on the embedded runtime (TF.js holds int32): a value
// reaches TF.js saturated only where the graph cannot tell (shared/parse_example/
// saturated_int64.ts) — a feature nobody reads (the TFX taxi Estimator's census tracts), or a
// categorical column's range guard, where(values < 0 | values >= num_buckets, default, values),
// whose TF answer for a value beyond int32 is the default. Everything else that reads such a
// value still refuses the request naming the feature.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import type { TfjsServable } from '../../src/runtimes/embedded/tfjs_servable.js';
import type { HostTensor } from '../../src/tensor/host_tensor.js';
import { Code, ServingError } from '../../src/errors/status.js';
import { attr, i32, i64, node, writeTinyModel, type GraphBuilder, type Tensor } from '../helpers/tiny_graphs.js';
import { EMBEDDED_BACKENDS, runOnBothBackends } from '../helpers/both_backends.js';
import { example, parseExample, serialized } from '../helpers/sparse_examples.js';
import { REPO_ROOT } from '../helpers/paths.js';
import { protoType } from '../../src/proto/index.js';
import { opDefFromRegistration } from '../../test_util/savedmodel/writer/op_registration.js';
import { markSaturatedInt64, SATURATED_OUTPUTS_ATTR } from '../../src/runtimes/shared/parse_example/saturated_int64.js';

// tensorflow/core/ops/math_ops.cc (COMPARISON() and BINARY_LOGICAL() spelled out).
const OP_DEFS = [
  `REGISTER_OP("GreaterEqual").Input("x: T").Input("y: T").Output("z: bool").Attr("T: realnumbertype")`,
  `REGISTER_OP("Equal").Input("x: T").Input("y: T").Output("z: bool").SetIsCommutative().Attr("T: type").Attr("incompatible_shape_error: bool = true")`,
  `REGISTER_OP("LogicalOr").Input("x: bool").Input("y: bool").Output("z: bool").SetIsCommutative()`,
].map(opDefFromRegistration);

const TRACT = 17031832200; // a Chicago census tract (TFX's taxi data): above INT32_MAX
const nums = (t: HostTensor) => Array.from(t.values as ArrayLike<number | bigint>, Number);
const int64 = (g: GraphBuilder, name: string, v: number) => g.constant(name, i64([], [v]));
const binary = (g: GraphBuilder, op: string, name: string, a: Tensor, b: Tensor, dtype: 'bool' | 'int64') =>
  node(g, op, name, [a, b], { T: attr.type('int64') }, dtype);

/**
 * Estimator's categorical_column_with_identity(num_buckets 2000, default_value 0) on sparse `tract`; `unread`, parsed and never read.
 * `castBound`: the bound as a graph that casts an int32 num_buckets to int64 writes it, Cast(Const).
 */
const identityColumnModel = (castBound = false) =>
  writeTinyModel((g) => {
    const p = parseExample(
      g,
      [
        ['tract', 'int64'],
        ['unread', 'int64'],
      ],
      ['x'],
    );
    const values = p.values[0];
    const outOfRange = node(
      g,
      'LogicalOr',
      'out_of_range',
      [
        binary(g, 'Less', 'below', values, int64(g, 'zero', 0), 'bool'),
        binary(
          g,
          'GreaterEqual',
          'above',
          values,
          castBound
            ? node(
                g,
                'Cast',
                'buckets',
                [g.constant('buckets_i32', i32([], [2000]))],
                { SrcT: attr.type('int32'), DstT: attr.type('int64') },
                'int64',
              )
            : int64(g, 'buckets', 2000),
          'bool',
        ),
      ],
      {},
      'bool',
    );
    const fill = node(
      g,
      'Fill',
      'default',
      [node(g, 'Shape', 'shape', [values], { T: attr.type('int64'), out_type: attr.type('int32') }, 'int32'), int64(g, 'default_value', 0)],
      { T: attr.type('int64'), index_type: attr.type('int32') },
      'int64',
    );
    const ids = node(g, 'SelectV2', 'ids', [outOfRange, fill, values], { T: attr.type('int64') }, 'int64');
    return { inputs: { examples: p.x }, outputs: { ids: g.identity('ids_out', ids), x: g.identity('x_out', p.dense[0]) }, opDefs: OP_DEFS };
  });

/** Graphs whose result does depend on the value beyond int32: each must keep refusing it. */
const telling = {
  arithmetic: (g: GraphBuilder, v: Tensor) => binary(g, 'AddV2', 'next', v, int64(g, 'one', 1), 'int64'),
  'equality with INT32_MAX (a saturated value would equal it)': (g: GraphBuilder, v: Tensor) =>
    binary(g, 'Equal', 'is_max', v, int64(g, 'max', 2 ** 31 - 1), 'bool'),
  'a guard on one side only': (g: GraphBuilder, v: Tensor) =>
    node(
      g,
      'SelectV2',
      'ids',
      [binary(g, 'GreaterEqual', 'above', v, int64(g, 'buckets', 2000), 'bool'), int64(g, 'default_value', 0), v],
      { T: attr.type('int64') },
      'int64',
    ),
  'the parsed value itself as the output': (g: GraphBuilder, v: Tensor) => g.identity('values', v),
};
const tellingModel = (read: (g: GraphBuilder, v: Tensor) => Tensor) =>
  writeTinyModel((g) => {
    const p = parseExample(g, [['tract', 'int64']], []);
    return { inputs: { examples: p.x }, outputs: { y: g.identity('y', read(g, p.values[0])) }, opDefs: OP_DEFS };
  });

describe('int64 tf.Example values beyond int32 on the embedded runtime', () => {
  for (const castBound of [false, true]) {
    it(`a categorical identity column's range guard${castBound ? ' (its bound a Cast of a constant)' : ''} answers TF's default for them, and exact ids inside; a feature nobody reads is no refusal`, async () => {
      const r = await runOnBothBackends(await identityColumnModel(castBound), {
        examples: serialized(
          example({ tract: { int64: [TRACT, 1234] }, unread: { int64: [TRACT] }, x: { float: [1] } }),
          example({ tract: { int64: [-TRACT, 1999, 2000, -1] }, unread: { int64: [-TRACT, 2 ** 40] } }),
        ),
      });
      // TF: where(v < 0 | v >= 2000, 0, v).
      assert.deepEqual(nums(r.ids), [0, 1234, 0, 1999, 0, 0]);
      assert.deepEqual(nums(r.x), [1, 0]);
    });
  }

  for (const [what, read] of Object.entries(telling)) {
    it(`refuses them naming the feature where the graph reads them otherwise: ${what}`, async () => {
      const dir = await tellingModel(read);
      for (const runtime of EMBEDDED_BACKENDS) {
        const s = (await runtime.load(dir, { tags: ['serve'] })) as TfjsServable;
        try {
          // Inside int32 the graph answers as before.
          await s.run('serving_default', { examples: serialized(example({ tract: { int64: [5] } })) });
          for (const tract of [TRACT, -TRACT]) {
            await assert.rejects(
              s.run('serving_default', { examples: serialized(example({ tract: { int64: [tract] } })) }),
              (err: unknown) => {
                assert.ok(err instanceof ServingError && err.code === Code.UNIMPLEMENTED, String(err));
                assert.equal(
                  err.message,
                  `ParseExample: int64 value ${tract} of sparse feature 'tract' does not fit the embedded runtime's 32-bit integers`,
                );
                return true;
              },
            );
          }
        } finally {
          s.dispose();
        }
      }
    });
  }

  it('a parsing node that arrives carrying the marking attr loses it unless the check sets it', () => {
    const parse = {
      name: 'parse',
      op: 'ParseExampleV2',
      input: ['x', 'names', 'sparse_keys', 'dense_keys', 'ragged_keys'],
      attr: { sparse_types: { list: { type: ['DT_INT64'] } }, [SATURATED_OUTPUTS_ATTR]: { list: { i: [1] } } },
    };
    const [read] = markSaturatedInt64([parse, { name: 'y', op: 'Identity', input: ['parse:1'] }], ['y:0']);
    assert.equal(read.attr?.[SATURATED_OUTPUTS_ATTR], undefined);
    const [unread] = markSaturatedInt64([parse], ['parse:0']);
    assert.deepEqual(unread.attr?.[SATURATED_OUTPUTS_ATTR], { list: { i: [1] } });
  });

  it('the TFX taxi Estimator (test/corpus) answers a trip with census tracts 17031832200 as with tracts 1234: its graph never reads the tracts', async () => {
    const Example = protoType('tensorflow.Example');
    const trip = (tract: string) => {
      const feature: Record<string, unknown> = {
        company: { bytesList: { value: [Buffer.from('Taxi Affiliation Services')] } },
        payment_type: { bytesList: { value: [Buffer.from('Cash')] } },
        pickup_census_tract: { int64List: { value: [tract] } },
        dropoff_census_tract: { int64List: { value: [tract] } },
        trip_start_hour: { int64List: { value: [14] } },
        trip_start_day: { int64List: { value: [3] } },
        trip_start_month: { int64List: { value: [5] } },
        trip_miles: { floatList: { value: [0.9] } },
        fare: { floatList: { value: [5.85] } },
      };
      return Example.encode(Example.fromObject({ features: { feature } })).finish();
    };
    const dir = path.join(REPO_ROOT, 'test', 'corpus', 'models', 'tfx_taxi_estimator', '1');
    const s = await EMBEDDED_BACKENDS[0].load(dir, { tags: ['serve'] });
    try {
      const logistic = async (tract: string) => nums((await s.run('predict', { examples: serialized(trip(tract)) })).logistic);
      const inside = await logistic('1234');
      assert.deepEqual(await logistic(String(TRACT)), inside);
      assert.deepEqual(await logistic(String(-TRACT)), inside);
    } finally {
      s.dispose();
    }
  });
});
