// The start TF1's tf.map_fn writes before its while loop: the number of elements, the first
// dimension of `elems` (map/Shape, then map/strided_slice taking element 0 as a scalar).
import { attr, type GraphBuilder, Tensor } from './graph_builder.js';

const i32 = (values: number[]) => ({ dtype: 'int32' as const, shape: [values.length], values: Int32Array.from(values) });

/** The scalar int32 count map_fn loops over; `rank` is the rank of `elems`. */
export function tf1MapFnLength(g: GraphBuilder, elems: Tensor, rank: number): Tensor {
  const T = (d: string) => attr.type(d);
  const shape = new Tensor(g.addNode('Shape', 'map/Shape', [elems], { T: T(elems.dtype), out_type: T('int32') }), 0, 'int32', [rank]);
  const n = g.addNode(
    'StridedSlice',
    'map/strided_slice',
    [
      shape,
      g.constant('map/strided_slice/stack', i32([0])),
      g.constant('map/strided_slice/stack_1', i32([1])),
      g.constant('map/strided_slice/stack_2', i32([1])),
    ],
    {
      T: T('int32'),
      Index: T('int32'),
      begin_mask: attr.i(0),
      end_mask: attr.i(0),
      ellipsis_mask: attr.i(0),
      new_axis_mask: attr.i(0),
      shrink_axis_mask: attr.i(1),
    },
  );
  return new Tensor(n, 0, 'int32', []);
}
