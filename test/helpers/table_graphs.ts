// Lookup-table graphs as TF1's lookup_ops write them, for tests: a HashTableV2 filled by its
// InitializeTableV2 (run by the table_initializer collection), a LookupTableFindV2 of it, and
// StringJoin, which computes keys in the graph.
import type { DType } from '../../src/tensor/dtype.js';
import { attr, node, type GraphBuilder, type Tensor } from './tiny_graphs.js';

export function staticHashTable(
  g: GraphBuilder,
  scope: string,
  keyDtype: DType,
  valueDtype: DType,
  keys: Tensor,
  values: Tensor,
): { table: Tensor; init: string } {
  const table = node(
    g,
    'HashTableV2',
    `${scope}/hash_table`,
    [],
    {
      container: attr.s(''),
      shared_name: attr.s(''),
      use_node_name_sharing: attr.b(false),
      key_dtype: attr.type(keyDtype),
      value_dtype: attr.type(valueDtype),
    },
    'string',
    [],
  );
  const init = g.addNode('InitializeTableV2', `${scope}/table_init`, [table, keys, values], {
    Tkey: attr.type(keyDtype),
    Tval: attr.type(valueDtype),
  });
  return { table, init };
}

export const stringJoin = (g: GraphBuilder, name: string, inputs: Tensor[], separator: string): Tensor =>
  node(g, 'StringJoin', name, inputs, { N: attr.i(inputs.length), separator: attr.s(separator) }, 'string', inputs[0].shape);

export const find = (g: GraphBuilder, name: string, table: Tensor, keys: Tensor, dflt: Tensor, valueDtype: DType): Tensor =>
  node(g, 'LookupTableFindV2', name, [table, keys, dflt], { Tin: attr.type(keys.dtype), Tout: attr.type(valueDtype) }, valueDtype, null);
