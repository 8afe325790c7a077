// Neural-network ops (tensorflow/core/ops/nn_ops.cc). Values from TF's API docs.
import { f32, type OpCase, type OpFamilyCases } from '../op_case.js';

const NN_REGISTRATIONS = [
  `REGISTER_OP("Softsign")
    .Input("features: T")
    .Output("activations: T")
    .Attr("T: {half, bfloat16, float, double}")`,
];

const SOFTSIGN_CASES: OpCase[] = [
  {
    name: 'x / (1 + |x|)',
    source: 'tf.nn.softsign API doc',
    op: 'Softsign',
    inputs: [f32([4], [-3, -0.5, 0, 2])],
    want: { activations: f32([4], [-0.75, -1 / 3, 0, 2 / 3]) },
    tol: 1e-6,
    engines: {
      wasm: { refuse: /Softsign/ },
      cpu: { refuse: /Softsign/ },
    },
  },
];

export const NN_CASES: OpFamilyCases = {
  family: 'nn',
  registrations: NN_REGISTRATIONS,
  cases: SOFTSIGN_CASES,
};
