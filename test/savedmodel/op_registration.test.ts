// OpDefs read from TF's REGISTER_OP text equal the writer's hand-copied ones (op_defs.ts, which
// saved_model_writer.test.ts checks against real exports and TF's ops_history): the parser gives
// what TF's op_def_builder gives, so an op case can paste its op's registration instead.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { opDefFromRegistration } from '../../test_util/savedmodel/writer/op_registration.js';
import { OP_DEFS } from '../../test_util/savedmodel/writer/op_defs.js';

// As in tensorflow/core/ops/*_ops.cc (TF 2.15); function-built attrs (MaxPool's padding) expanded.
const REGISTRATIONS: Record<string, string> = {
  Bucketize: `REGISTER_OP("Bucketize")
    .Input("input: T")
    .Output("output: int32")
    .Attr("T: {int32, int64, float, double}")
    .Attr("boundaries: list(float)")
    .SetShapeFn(shape_inference::UnchangedShape);`,
  StringSplitV2: `REGISTER_OP("StringSplitV2")
    .Input("input: string")
    .Input("sep: string")
    .Output("indices: int64")
    .Output("values: string")
    .Output("shape: int64")
    .Attr("maxsplit: int = -1")`,
  AsString: `REGISTER_OP("AsString")
    .Input("input: T")
    .Output("output: string")
    .Attr("T: {realnumbertype, complex64, complex128, bool, variant, string}")
    .Attr("precision: int = -1")
    .Attr("scientific: bool = false")
    .Attr("shortest: bool = false")
    .Attr("width: int = -1")
    .Attr("fill: string = ''")`,
  SparseToDense: `REGISTER_OP("SparseToDense")
    .Input("sparse_indices: Tindices")
    .Input("output_shape: Tindices")
    .Input("sparse_values: T")
    .Input("default_value: T")
    .Attr("validate_indices: bool = true")
    .Attr("T: type")
    .Output("dense: T")
    .Attr("Tindices: {int32, int64}")`,
  ConcatV2: `REGISTER_OP("ConcatV2")
    .Input("values: N * T")
    .Input("axis: Tidx")
    .Output("output: T")
    .Attr("N: int >= 2")
    .Attr("T: type")
    .Attr("Tidx: {int32, int64} = DT_INT32")`,
  MaxPool: `REGISTER_OP("MaxPool")
    .Attr(
        "T: {half, bfloat16, float, double, int32, int64, uint8, int16, int8, "
        "uint16, qint8} = DT_FLOAT")
    .Attr("ksize: list(int) >= 4")
    .Attr("strides: list(int) >= 4")
    .Attr("padding: {'SAME', 'VALID', 'EXPLICIT'}")
    .Attr("explicit_paddings: list(int) = []")
    .Attr("data_format: {'NHWC', 'NCHW', 'NCHW_VECT_C'} = 'NHWC'")
    .Input("input: T")
    .Output("output: T")`,
  ParseExample: `REGISTER_OP("ParseExample")
    .Input("serialized: string")
    .Input("names: string")
    .Input("sparse_keys: Nsparse * string")
    .Input("dense_keys: Ndense * string")
    .Input("dense_defaults: Tdense")
    .Output("sparse_indices: Nsparse * int64")
    .Output("sparse_values: sparse_types")
    .Output("sparse_shapes: Nsparse * int64")
    .Output("dense_values: Tdense")
    .Attr("Nsparse: int >= 0")
    .Attr("Ndense: int >= 0")
    .Attr("sparse_types: list({float,int64,string}) >= 0")
    .Attr("Tdense: list({float,int64,string}) >= 0")
    .Attr("dense_shapes: list(shape) >= 0")`,
  VariableV2: `REGISTER_OP("VariableV2")
    .Output("ref: Ref(dtype)")
    .Attr("shape: shape")
    .Attr("dtype: type")
    .Attr("container: string = ''")
    .Attr("shared_name: string = ''")
    .SetIsStateful()`,
};

/** protobufjs-style objects compared as plain data (Uint8Array bytes as arrays). */
const plain = (x: unknown) => JSON.parse(JSON.stringify(x, (_k, v: unknown) => (v instanceof Uint8Array ? Array.from(v) : v)));

describe('OpDefs from REGISTER_OP text', () => {
  for (const [op, text] of Object.entries(REGISTRATIONS)) {
    it(`${op} equals the writer's OpDef`, () => assert.deepEqual(plain(opDefFromRegistration(text)), plain(OP_DEFS.get(op))));
  }

  it("gives a length attr without a minimum TF's minimum 1 (StringJoin's N: int, ops_history_v2)", () => {
    const def = opDefFromRegistration(
      'REGISTER_OP("StringJoin").Input("inputs: N * string").Attr("N: int").Attr("separator: string = \'\'").Output("output: string")',
    );
    assert.deepEqual(plain(def.attr?.[0]), { name: 'N', type: 'int', hasMinimum: true, minimum: 1 });
    assert.deepEqual(plain(def.inputArg), [{ name: 'inputs', type: 'DT_STRING', numberAttr: 'N' }]);
  });

  it('names what it cannot read', () => {
    assert.throws(() => opDefFromRegistration('REGISTER_OP("X").Input("x: T")'), /REGISTER_OP\("X"\): cannot read arg x: no attr T/);
    assert.throws(() => opDefFromRegistration('REGISTER_OP("X").Attr("T: {float, floaty}")'), /cannot read type floaty/);
  });
});
